#!/usr/bin/env bash
# Build the kernel that kernel CI boots: Linux 6.12's
# arch/arm64/configs/defconfig plus tests/guest/defconfig.config, cross
# compiled with aarch64-linux-gnu-gcc.  Only the Image: the test initramfs
# loads no modules, so defconfig's =m drivers are not built.
#
#   DEFCONFIG_PLATFORMS=renesas (default): defconfig with every ARCH_*
#       platform of arch/arm64/Kconfig.platforms but ARCH_RENESAS turned
#       off, which keeps every Renesas driver defconfig has, and without
#       debug info (not in the Image); all: defconfig as it is.
#
# The result is build/guest/Image-defconfig.  As for the test kernel, the
# build directory and the cached Image are keyed by the hash of all inputs.
. "$(dirname "$0")/common.sh"

PLATFORMS=${DEFCONFIG_PLATFORMS:-renesas}
case $PLATFORMS in
    renesas|all) ;;
    *) die "DEFCONFIG_PLATFORMS must be renesas or all, not '$PLATFORMS'" ;;
esac

ver=$(linux_source_version)
LINUX=$GUEST/linux-$ver
mkdir -p "$GUEST"
unpack_linux_source "$ver"
fragment=$GUEST/defconfig-$PLATFORMS.config
{
    cat "$GUEST_SRC/defconfig.config"
    if [ "$PLATFORMS" = renesas ]; then
        # Debug info is not in the Image, and costs a fifth of the build
        echo "CONFIG_DEBUG_INFO_NONE=y"
        echo "# the other SoC families of arch/arm64/Kconfig.platforms"
        sed -n 's/^config \(ARCH_[A-Z0-9_]*\)$/\1/p' \
            "$LINUX/arch/arm64/Kconfig.platforms" |
            grep -vx ARCH_RENESAS | sed 's/.*/# CONFIG_& is not set/'
    fi
} > "$fragment"
key=$( { echo "linux-source-6.12 $ver defconfig"; cat "$fragment";
         cat "$LINUX/arch/arm64/configs/defconfig"; ${CROSS}gcc --version | head -n1; } |
       sha256sum | cut -c1-12)
cached=$CACHE/kernels/Image-defconfig-$PLATFORMS-$key
out=$GUEST/kernel-defconfig-$PLATFORMS-$key

if [ ! -f "$cached" ]; then
    log "building the defconfig kernel ($PLATFORMS platforms) in $out" \
        "(tens of minutes on two cores; cached after)"
    mkdir -p "$out"
    kmake defconfig
    (cd "$LINUX" && ARCH=arm64 CROSS_COMPILE=$CROSS \
        scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "$fragment" >/dev/null)
    kmake olddefconfig
    # Every symbol the fragment sets must be set, and none it turns off.
    missing=$( { grep -E '^CONFIG_' "$fragment" | while read -r line; do
                   grep -qx "$line" "$out/.config" || echo "$line"; done
                 sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' "$fragment" |
                   while read -r sym; do
                   grep -q "^$sym=" "$out/.config" && echo "$sym"; done; } || true)
    [ -z "$missing" ] || die "kernel config lost: $missing"
    kmake -j"$JOBS" Image
    mkdir -p "$CACHE/kernels"
    cp "$out/.config" "$cached.config"
    cp "$out/arch/arm64/boot/Image" "$cached.tmp"
    mv "$cached.tmp" "$cached"
fi
ln -sf "$cached" "$GUEST/Image-defconfig"
cp "$cached.config" "$GUEST/config-defconfig"
echo "$GUEST/Image-defconfig"
