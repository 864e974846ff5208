#!/usr/bin/env bash
# Build the benchmark initramfs: the test initramfs plus Debian 13's arm64
# fio, bonnie++, mkfs.ext4, GNU dd and iperf3, with exactly the shared libraries they load.
# Debian's fio depends on Ceph, GlusterFS, RDMA and Python packages; only
# the ELF dependencies of the binaries are copied, so the image stays small.
# The result is build/guest/rootfs-bench.cpio.gz.
. "$(dirname "$0")/common.sh"

# GNU dd for oflag=sync, which busybox's dd lacks
TOOLS=(fio bonnie++ e2fsprogs coreutils iperf3)
BINARIES=(usr/bin/fio usr/sbin/bonnie++ usr/sbin/mke2fs usr/bin/dd usr/bin/iperf3)
# Only the tools and the library packages can hold what the binaries load
KEEP='^(lib.*|zlib1g|fio|bonnie\+\+|e2fsprogs|coreutils|iperf3)$'
SKIP='^(libpython|libperl|libsemanage-common|libaudit-common|libtirpc-common)'

apt_private_update trixie
mapfile -t pkgs < <(apt_private trixie apt-cache depends --recurse --no-recommends \
        --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
        "${TOOLS[@]/%/:arm64}" 2>/dev/null | grep -v '^ \|<' |
    sed 's/:arm64$//' | grep -E "$KEEP" | grep -Ev "$SKIP" | sort -u |
    sed 's/$/:arm64/')
mapfile -t debs < <(fetch_debs "${pkgs[@]}")
[ "${#debs[@]}" -eq "${#pkgs[@]}" ] || die "could not fetch the benchmark packages"
busybox=$(fetch_debs busybox-static:arm64)

key=$( { for d in "$busybox" "${debs[@]}"; do basename "$d"; done;
         cat "$0" "$GUEST_SRC/init" "$GUEST_SRC/elfclosure.py";
         } | sha256sum | cut -c1-12)
out=$GUEST/rootfs-bench-$key.cpio.gz
if [ ! -f "$out" ]; then
    log "building the benchmark initramfs (${#debs[@]} packages)"
    stage=$GUEST/bench-stage root=$GUEST/bench-root
    rm -rf "$stage"; mkdir -p "$stage"
    for d in "${debs[@]}"; do dpkg-deb -x "$d" "$stage"; done
    build_base_root "$root" "$busybox"
    python3 "$GUEST_SRC/elfclosure.py" "$stage" "$root" "${BINARIES[@]}"
    ln -sf mke2fs "$root/usr/sbin/mkfs.ext4"
    # bonnie++ -u root looks the user up
    mkdir -p "$root/etc" "$root/root"
    echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
    echo 'root:x:0:' > "$root/etc/group"
    # /init's busybox --install would put its own dd in the way
    mv "$root/usr/bin/dd" "$root/usr/bin/gnu-dd"
    python3 "$GUEST_SRC/mkcpio.py" "$root" "$out.tmp" --node /dev/console:600:c:5:1
    mv "$out.tmp" "$out"
    rm -rf "$stage"
fi
ln -sf "$out" "$GUEST/rootfs-bench.cpio.gz"
echo "$GUEST/rootfs-bench.cpio.gz"
