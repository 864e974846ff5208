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
    16k) page_cfg=CONFIG_ARM64_16K_PAGES
         # ID_AA64MMFR0_EL1.TGran16 is 0 on both cores, in QEMU as on silicon
         log "note: Cortex-A57/A53 (R-Car Gen3) have no 16 KiB granule: this" \
             "kernel builds but stops before its first message on the board" ;;
    64k) page_cfg=CONFIG_ARM64_64K_PAGES ;;
    *) die "PAGE_SIZE must be 4k, 16k or 64k, not '$PAGE_SIZE'" ;;
esac

ver=$(linux_source_version)
LINUX=$GUEST/linux-$ver
mkdir -p "$GUEST"
fragment=$GUEST/kernel-$PAGE_SIZE.config
{ cat "$GUEST_SRC/kernel.config"; echo "$page_cfg=y"; } > "$fragment"
key=$( { echo "linux-source-6.12 $ver"; cat "$fragment"; ${CROSS}gcc --version | head -n1; } |
       sha256sum | cut -c1-12)
cached=$CACHE/kernels/Image-$PAGE_SIZE-$key
out=$GUEST/kernel-$PAGE_SIZE-$key

if [ ! -f "$cached" ]; then
    unpack_linux_source "$ver"
    log "building the $PAGE_SIZE-page test kernel in $out (a few minutes)"
    mkdir -p "$out"
    kmake allnoconfig
    (cd "$LINUX" && ARCH=arm64 CROSS_COMPILE=$CROSS \
        scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "$fragment" >/dev/null)
    kmake olddefconfig
    # Every symbol of the fragment must have survived the merge.
    missing=$(grep -E '^CONFIG_' "$fragment" | while read -r line; do
        grep -qx "$line" "$out/.config" || echo "$line"; done)
    [ -z "$missing" ] || die "kernel config lost: $missing"
    kmake -j"$JOBS" Image
    mkdir -p "$CACHE/kernels"
    cp "$out/.config" "$cached.config"
    cp "$out/arch/arm64/boot/Image" "$cached.tmp"
    mv "$cached.tmp" "$cached"
fi
ln -sf "$cached" "$GUEST/Image-$PAGE_SIZE"
cp "$cached.config" "$GUEST/config-$PAGE_SIZE"
echo "$GUEST/Image-$PAGE_SIZE"
