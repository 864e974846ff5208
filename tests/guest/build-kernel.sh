#!/usr/bin/env bash
# Build the reference test kernel: Debian 13's linux-source-6.12, cross
# compiled with aarch64-linux-gnu-gcc, allnoconfig + tests/guest/kernel.config.
#
#   PAGE_SIZE=4k|16k|64k (default 4k)
#
# The result is build/guest/Image-<page size>.  The kernel build directory is
# keyed by the hash of everything that goes into it (source version, config
# fragment, page size, compiler), so a changed input builds a new kernel and
# an unchanged one is reused.
. "$(dirname "$0")/common.sh"

PAGE_SIZE=${PAGE_SIZE:-4k}
case $PAGE_SIZE in
    4k) page_cfg=CONFIG_ARM64_4K_PAGES ;;
    16k) page_cfg=CONFIG_ARM64_16K_PAGES ;;
    64k) page_cfg=CONFIG_ARM64_64K_PAGES ;;
    *) die "PAGE_SIZE must be 4k, 16k or 64k, not '$PAGE_SIZE'" ;;
esac
CROSS=aarch64-linux-gnu-
JOBS=${JOBS:-$(nproc)}

unpack_source() {
    local deb tarball
    deb=$(fetch_debs linux-source-6.12)
    local ver
    ver=$(dpkg-deb -f "$deb" Version)
    LINUX=$GUEST/linux-$ver
    if [ -f "$LINUX/.unpacked" ]; then return; fi
    log "unpacking linux-source-6.12 $ver (1.7 GB, once)"
    rm -rf "$GUEST/linux-deb" "$LINUX"
    dpkg-deb -x "$deb" "$GUEST/linux-deb"
    tarball=$(ls "$GUEST"/linux-deb/usr/src/linux-source-6.12*.tar.* | head -n1)
    mkdir -p "$LINUX"
    tar -xf "$tarball" -C "$LINUX" --strip-components=1
    rm -rf "$GUEST/linux-deb"
    touch "$LINUX/.unpacked"
}

unpack_source
fragment=$GUEST/kernel-$PAGE_SIZE.config
{ cat "$GUEST_SRC/kernel.config"; echo "$page_cfg=y"; } > "$fragment.new"
key=$( { basename "$LINUX"; cat "$fragment.new"; ${CROSS}gcc --version | head -n1; } |
       sha256sum | cut -c1-12)
out=$GUEST/kernel-$PAGE_SIZE-$key
mv "$fragment.new" "$fragment"

if [ ! -f "$out/arch/arm64/boot/Image" ]; then
    log "building the $PAGE_SIZE-page test kernel in $out (a few minutes)"
    mkdir -p "$out"
    make -s -C "$LINUX" O="$out" ARCH=arm64 CROSS_COMPILE=$CROSS allnoconfig
    (cd "$LINUX" && ARCH=arm64 CROSS_COMPILE=$CROSS \
        scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "$fragment" >/dev/null)
    make -s -C "$LINUX" O="$out" ARCH=arm64 CROSS_COMPILE=$CROSS olddefconfig
    # Every symbol of the fragment must have survived the merge.
    missing=$(grep -E '^CONFIG_' "$fragment" | while read -r line; do
        grep -qx "$line" "$out/.config" || echo "$line"; done)
    [ -z "$missing" ] || die "kernel config lost: $missing"
    make -s -C "$LINUX" O="$out" ARCH=arm64 CROSS_COMPILE=$CROSS -j"$JOBS" Image
fi
ln -sf "$out/arch/arm64/boot/Image" "$GUEST/Image-$PAGE_SIZE"
echo "$GUEST/Image-$PAGE_SIZE"
