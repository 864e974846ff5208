#!/usr/bin/env bash
# Run the LAVA job of contrib/lava/ with Debian's LAVA dispatcher, as a lab
# would: a kernel (LAVA_KERNEL in build/guest: Image-4k, the test kernel,
# by default, or Image-defconfig), the upstream DTB and the test initramfs
# deployed to tmpfs and booted by lava-run through LAVA's own qemu device
# type, on r8a77951-salvator-xs (LAVA_MACHINE= another board of
# contrib/lava/devices/).  LAVA_JOB=nfs runs the NFS-root job instead,
# whose root is the test initramfs's files.  Prints TAP
# (contrib/lava/run-job.py).
#
# The device-type templates (qemu.jinja2, base.jinja2) are lava-server's,
# taken from its .deb of the same version as lava-dispatcher without
# installing it (a server is not needed to run a job).
. "$(dirname "$0")/common.sh"

command -v lava-run >/dev/null || die "lava-run is missing: scripts/deps.sh --lava"
ver=$(dpkg-query -W -f='${Version}' lava-dispatcher)
templates=$BUILD/lava/lava-server-$ver/usr/share/lava-server/device-types
if [ ! -f "$templates/qemu.jinja2" ]; then
    mkdir -p "$DEBS"
    deb=$DEBS/lava-server_${ver//:/%3a}_all.deb
    if [ ! -f "$deb" ]; then
        log "downloading lava-server $ver (for its device-type templates)"
        (cd "$DEBS" && apt-get -q download "lava-server=$ver" >&2)
    fi
    rm -rf "$BUILD/lava/lava-server-$ver"; mkdir -p "$BUILD/lava/lava-server-$ver"
    dpkg-deb -x "$deb" "$BUILD/lava/lava-server-$ver"
fi

# libguestfs writes the test overlay disk from a small VM.  Under KVM here
# (nested) Debian 12's qemu-system-x86_64 aborts on an MSR; TCG always
# works, in about a minute.
export LIBGUESTFS_BACKEND_SETTINGS=${LIBGUESTFS_BACKEND_SETTINGS:-force_tcg}

out=$BUILD/lava/job-${LAVA_MACHINE:-r8a77951-salvator-xs}-${LAVA_JOB:-emmc}
rm -rf "$out"
exec /usr/bin/python3 "$TOP/contrib/lava/run-job.py" \
    --machine "${LAVA_MACHINE:-r8a77951-salvator-xs}" --qemu "$QEMU" \
    --job "${LAVA_JOB:-emmc}" \
    --kernel "$GUEST/${LAVA_KERNEL:-Image-4k}" \
    --dtb "$GUEST/dtbs/${LAVA_MACHINE:-r8a77951-salvator-xs}.dtb" \
    --ramdisk "$GUEST/rootfs.cpio.gz" --templates "$templates" --out "$out" \
    "$@"
