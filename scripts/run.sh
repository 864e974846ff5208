#!/usr/bin/env bash
# Boot an emulated R-Car Gen3 board with the test kernel to a shell on the
# console: MACHINE=r8a77951-salvator-xs (the default), r8a77965-salvator-xs,
# r8a77990-ebisu, r8a77951-ulcb, r8a77965-ulcb or r8a779m1-ulcb.  Extra
# arguments go to QEMU.  Quit with `poweroff -f` in the guest, or Ctrl-A X.
#
# EMMC=<raw image>, SD=<raw image>: a card in the board's eMMC slot, and in
# its SD slot.  SCRIPT=<shell script>: the guest runs it instead of a
# shell, then powers off.
#
# RR=record records the run for replay (docs: "Deterministic runs"): one
# vCPU (unless SMP=) under -icount, each card on a qcow2 overlay of its
# image in build/replay/ (the image itself is not written), with a
# snapshot at the start.  RR=replay plays the last recording back,
# with the same options.
. "$(dirname "$0")/common.sh"

GUEST=$BUILD/guest
PAGE_SIZE=${PAGE_SIZE:-4k}
RRDIR=$BUILD/replay
[ -x "$QEMU" ] || die "build QEMU first: make qemu"

if [ "${RR:-}" = replay ]; then
    [ -f "$RRDIR/args" ] || die "nothing recorded yet: make record"
    mapfile -d '' args < "$RRDIR/args"
    set -x
    exec "$QEMU" "${args[@]}" -icount \
        "shift=${SHIFT:-7},rr=replay,rrfile=$RRDIR/replay.bin,rrsnapshot=start" \
        "$@"
fi
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

# The slots of the board's .dts: the SDHI index of its eMMC and SD card
case $MACHINE in
    r8a77990-ebisu) slots=(emmc:3 sd:1) ;;
    *) slots=(emmc:2 sd:0) ;;
esac

drives=()
smp=${SMP:-2}
if [ "${RR:-}" = record ]; then
    command -v qemu-img >/dev/null || die "qemu-img is missing: make deps"
    rm -rf "$RRDIR" && mkdir -p "$RRDIR"
    # The start's snapshot needs a qcow2 drive even with no card
    qemu-img create -q -f qcow2 "$RRDIR/snapshots.qcow2" 1M
    drives+=(-drive "if=none,id=rr-snapshots,file=$RRDIR/snapshots.qcow2")
    # One vCPU unless SMP= says otherwise: QEMU's replay tests run one
    smp=${SMP:-1}
fi
for slot in "${slots[@]}"; do
    name=${slot%:*} index=${slot#*:}
    var=${name^^}
    image=${!var:-}
    [ -n "$image" ] || continue
    [ -f "$image" ] || die "$name image $image: no such file"
    if [ "${RR:-}" = record ]; then
        qemu-img create -q -f qcow2 -b "$(realpath "$image")" -F raw \
            "$RRDIR/$name.qcow2"
        # No blkreplay: the cards' I/O is synchronous under -icount
        drives+=(-drive "if=sd,index=$index,file=$RRDIR/$name.qcow2,format=qcow2")
    else
        drives+=(-drive "if=sd,index=$index,file=$image,format=raw")
    fi
done

append="console=ttySC0,115200 earlycon rdinit=/init"
if [ -n "${SCRIPT:-}" ]; then
    [ -f "$SCRIPT" ] || die "no script at $SCRIPT"
    append+=" rcar_script=$(base64 -w0 < "$SCRIPT")"
fi
args=("${dtb[@]}" -M "$MACHINE" -smp "$smp" -m "${MEM:-768M}" -nographic
      -kernel "$GUEST/Image-$PAGE_SIZE" -initrd "$GUEST/rootfs.cpio.gz"
      -append "$append" "${drives[@]}" "$@")
if [ "${RR:-}" = record ]; then
    printf '%s\0' "${args[@]}" > "$RRDIR/args"
    args+=(-icount "shift=${SHIFT:-7},rr=record,rrfile=$RRDIR/replay.bin,rrsnapshot=start")
fi
set -x
exec "$QEMU" "${args[@]}"
