#!/usr/bin/env bash
# Boot an emulated R-Car Gen3 board with the test kernel to a shell on the
# console: MACHINE=r8a77951-salvator-xs (the default), r8a77965-salvator-xs
# or r8a77990-ebisu.  Extra arguments go to QEMU.  Quit with
# `poweroff -f` in the guest, or Ctrl-A X.
. "$(dirname "$0")/common.sh"

GUEST=$BUILD/guest
PAGE_SIZE=${PAGE_SIZE:-4k}
[ -x "$QEMU" ] || die "build QEMU first: make qemu"
[ -f "$GUEST/Image-$PAGE_SIZE" ] || die "build the guest first: make guest"

# DTB=upstream: the unmodified DTB compiled from the kernel tree
# (make guest builds it); DTB=<path>: any DTB; default: the generated one
MACHINE=${MACHINE:-r8a77951-salvator-xs}
dtb=()
case ${DTB:-} in
    '') ;;
    upstream) dtb=(-dtb "$GUEST/dtbs/$MACHINE.dtb") ;;
    *) dtb=(-dtb "$DTB") ;;
esac
[ ${#dtb[@]} -eq 0 ] || [ -f "${dtb[1]}" ] || die "no DTB at ${dtb[1]}: make guest"

set -x
exec "$QEMU" "${dtb[@]}" -M "$MACHINE" -smp "${SMP:-2}" -m "${MEM:-768M}" -nographic \
    -kernel "$GUEST/Image-$PAGE_SIZE" -initrd "$GUEST/rootfs.cpio.gz" \
    -append "console=ttySC0,115200 earlycon rdinit=/init" "$@"
