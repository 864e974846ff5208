#!/usr/bin/env bash
# Build the test initramfs: Debian 13's arm64 busybox-static plus our /init,
# packed by mkcpio.py (no root needed for /dev/console).
# The result is build/guest/rootfs.cpio.gz, rebuilt when an input changes.
. "$(dirname "$0")/common.sh"

PKGS=(busybox-static:arm64)

mapfile -t debs < <(fetch_debs "${PKGS[@]}")

key=$( { for d in "${debs[@]}"; do basename "$d"; done;
         cat "$GUEST_SRC/init" "$GUEST_SRC/mkcpio.py" "$0"; } | sha256sum | cut -c1-12)
out=$GUEST/rootfs-$key.cpio.gz
if [ ! -f "$out" ]; then
    log "building the initramfs"
    root=$GUEST/rootfs
    build_base_root "$root" "${debs[@]}"
    python3 "$GUEST_SRC/mkcpio.py" "$root" "$out.tmp" --node /dev/console:600:c:5:1
    mv "$out.tmp" "$out"
fi
ln -sf "$out" "$GUEST/rootfs.cpio.gz"
echo "$GUEST/rootfs.cpio.gz"
