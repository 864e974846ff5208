#!/usr/bin/env bash
# Boot the emulated Renesas Salvator-XS (R-Car H3) with the test kernel to
# a shell on the console.  Extra arguments go to QEMU.  Quit with
# `poweroff -f` in the guest, or Ctrl-A X.
. "$(dirname "$0")/common.sh"

GUEST=$BUILD/guest
PAGE_SIZE=${PAGE_SIZE:-4k}
[ -x "$QEMU" ] || die "build QEMU first: make qemu"
[ -f "$GUEST/Image-$PAGE_SIZE" ] || die "build the guest first: make guest"

set -x
exec "$QEMU" -M r8a77951-salvator-xs -smp "${SMP:-2}" -m "${MEM:-2G}" -nographic \
    -kernel "$GUEST/Image-$PAGE_SIZE" -initrd "$GUEST/rootfs.cpio.gz" \
    -append "console=ttySC0,115200 earlycon rdinit=/init" "$@"
