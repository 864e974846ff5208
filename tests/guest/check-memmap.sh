#!/usr/bin/env bash
# TAP: include/hw/arm/rcar-gen3-memmap-tables.h is what
# scripts/rcar-gen3-memmap.py makes of the .dtsi files of linux-source-6.12.
# A pass is cached by the source version and the content of the script and
# the header: the same inputs give the same answer.
. "$(dirname "$0")/common.sh"

tables=$TOP/include/hw/arm/rcar-gen3-memmap-tables.h
gen=$TOP/scripts/rcar-gen3-memmap.py
ver=$(linux_source_version)
key=$( { echo "linux-source-6.12 $ver"; cat "$gen" "$tables" "$0"; } |
       sha256sum | cut -c1-12)
passed=$CACHE/memmap-ok/$key

if [ -f "$passed" ]; then
    cat "$passed"
    exit 0
fi
unpack_linux_source "$ver" >&2
rc=0
out=$(/usr/bin/python3 "$gen" "$GUEST/linux-$ver" --check "$tables" --tap) ||
    rc=$?
echo "$out"
if [ "$rc" -eq 0 ]; then
    mkdir -p "$(dirname "$passed")"
    echo "$out" > "$passed"
fi
exit "$rc"
