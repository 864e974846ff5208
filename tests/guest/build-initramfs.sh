#!/usr/bin/env bash
# Build the test initramfs: Debian 13's arm64 busybox-static plus our /init,
# packed with the kernel's gen_init_cpio (no root needed for /dev/console).
# The result is build/guest/rootfs.cpio.gz, rebuilt when an input changes.
. "$(dirname "$0")/common.sh"

PKGS=(busybox-static:arm64)

mapfile -t debs < <(fetch_debs "${PKGS[@]}")
LINUX=$(ls -d "$GUEST"/linux-*/ 2>/dev/null | head -n1)
[ -n "$LINUX" ] || die "run tests/guest/build-kernel.sh first (it unpacks the kernel source)"

key=$( { for d in "${debs[@]}"; do basename "$d"; done; cat "$GUEST_SRC/init" "$0"; } |
       sha256sum | cut -c1-12)
out=$GUEST/rootfs-$key.cpio.gz
if [ ! -f "$out" ]; then
    log "building the initramfs"
    gen=$GUEST/gen_init_cpio
    if [ ! -x "$gen" ]; then
        cc -O2 -o "$gen" "$LINUX/usr/gen_init_cpio.c"
    fi
    root=$GUEST/rootfs
    rm -rf "$root"; mkdir -p "$root"
    for d in "${debs[@]}"; do dpkg-deb -x "$d" "$root"; done
    rm -rf "$root/usr/share/doc" "$root/usr/share/man"
    # Debian 13 packages install into /usr only (merged /usr)
    for d in bin sbin lib; do
        mkdir -p "$root/usr/$d"
        [ -e "$root/$d" ] || ln -s "usr/$d" "$root/$d"
    done
    install -m 0755 "$GUEST_SRC/init" "$root/init"
    list=$GUEST/rootfs.list
    {
        echo "dir /dev 0755 0 0"
        echo "nod /dev/console 0600 0 0 c 5 1"
        (cd "$root" && find . -mindepth 1 | sort) | while read -r p; do
            p=${p#.}
            if [ -L "$root$p" ]; then
                echo "slink $p $(readlink "$root$p") 0777 0 0"
            elif [ -d "$root$p" ]; then
                echo "dir $p 0755 0 0"
            else
                echo "file $p $root$p $(stat -c %a "$root$p") 0 0"
            fi
        done
    } > "$list"
    "$gen" "$list" | gzip -9 > "$out.tmp"
    mv "$out.tmp" "$out"
fi
ln -sf "$out" "$GUEST/rootfs.cpio.gz"
echo "$GUEST/rootfs.cpio.gz"
