#!/usr/bin/env bash
# Compile the upstream device trees of the boards from the same
# linux-source-6.12 as the test kernel, unmodified, as the kernel's own
# "make dtbs" does (cpp, then dtc), into build/guest/dtbs/.
#
# The DTBs are cached by the source version and this script's content.
. "$(dirname "$0")/common.sh"

DTS=(renesas/r8a77951-salvator-xs renesas/r8a77965-salvator-xs
     renesas/r8a77990-ebisu renesas/r8a77951-ulcb renesas/r8a779m1-ulcb
     renesas/r8a77965-ulcb)

ver=$(linux_source_version)
key=$( { echo "linux-source-6.12 $ver"; cat "$0"; dtc --version; } |
       sha256sum | cut -c1-12)
cached=$CACHE/dtbs/$key
out=$GUEST/dtbs

if [ ! -f "$cached/.done" ]; then
    unpack_linux_source "$ver"
    linux=$GUEST/linux-$ver
    log "compiling ${#DTS[@]} device trees from linux-source-6.12 $ver"
    rm -rf "$cached"; mkdir -p "$cached"
    for d in "${DTS[@]}"; do
        cpp -nostdinc -I "$linux/include" -I "$linux/arch/arm64/boot/dts" \
            -I "$linux/scripts/dtc/include-prefixes" -undef -D__DTS__ \
            -x assembler-with-cpp "$linux/arch/arm64/boot/dts/$d.dts" |
            dtc -q -I dts -O dtb -o "$cached/$(basename "$d").dtb" -
    done
    touch "$cached/.done"
fi
rm -rf "$out"; mkdir -p "$out"
cp "$cached"/*.dtb "$out/"
echo "$out"
