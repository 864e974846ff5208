#!/usr/bin/env bash
# make check-deb: the package of make deb installs alone into a clean
# Debian trixie root (debootstrap --variant=minbase, as a CI container
# starts) with apt, which brings what it depends on from Debian; the
# installed qemu-system-aarch64-rcar looks for data files where Debian
# puts them and boots
# r8a779m1-ulcb, KernelCI's R-Car board, with its upstream DTB and with
# the device tree it generates.  What passes is what the guest prints:
# the board and SoC Linux found, and an eMMC read whose checksum is the
# host file's.  Last, Debian's own qemu-system-arm installs beside it.
# TAP on stdout.
. "$(dirname "$0")/common.sh"
. "$TOP/scripts/deb-root.sh"

deb=$("$TOP/scripts/build-deb.sh")
GUEST=${RCAR_GUEST_DIR:-$BUILD/guest}
for f in Image-4k rootfs.cpio.gz dtbs/r8a779m1-ulcb.dtb; do
    [ -f "$GUEST/$f" ] || die "$GUEST/$f is missing: make guest first"
done

clean=$(trixie_root clean)
root=$BUILD/deb/testroot
log "a fresh copy of the clean $DEB_SUITE root in $root"
remove_root "$root"
as_root cp -a "$clean" "$root"

n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n $1"; shift; printf '# %s\n' "$@"; }
failed=0
check() {   # check <name> <command...>: a test that passes when it does
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then
        ok "$name"
    else
        not_ok "$name" "${out//$'\n'/ | }"; failed=1
    fi
}

as_root cp "$deb" "$root/tmp/"
pkg=/tmp/$(basename "$deb")
log "installing $(basename "$deb") with apt"
check "apt installs $(basename "$deb") alone" \
    in_root "$root" /bin/sh -c "apt-get -q update &&
        DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends \
            install $pkg"
check "dpkg has it installed" \
    in_root "$root" /bin/sh -c "dpkg-query -W -f='\${db:Status-Abbrev}' \
        $DEB_PACKAGE | grep -x 'ii '"
check "$DEB_BINARY lists the ULCB machines" \
    in_root "$root" /bin/sh -c "$DEB_BINARY -M help | grep -c ulcb | grep -x 3"
# Where it looks for firmware and data files (-bios, -L): where Debian's
# qemu-system-data, ipxe-qemu and qemu-efi-aarch64 put them
check "$DEB_BINARY looks for data files in /usr/share/qemu" \
    in_root "$root" /bin/sh -c "$DEB_BINARY -L help | xargs -n1 realpath -m |
        grep -x /usr/share/qemu"

# The guest reads the first MiB of the eMMC and prints what it found
img=$root/tmp/emmc.img
as_root truncate -s 64M "$img"
as_root dd if=/dev/urandom of="$img" bs=1M count=1 conv=notrunc status=none
want=$(head -c 1M "$img" | sha256sum | cut -d' ' -f1)
script=$(base64 -w0 <<'EOT'
echo "DEB-MODEL $(tr -d '\0' < /proc/device-tree/model)"
echo "DEB-SOC $(cat /sys/devices/soc0/soc_id) $(cat /sys/devices/soc0/revision)"
echo "DEB-EMMC $(dd if=/dev/mmcblk0 bs=1M count=1 iflag=direct 2>/dev/null |
    sha256sum | cut -d' ' -f1)"
EOT
)
as_root cp "$GUEST/Image-4k" "$GUEST/rootfs.cpio.gz" \
    "$GUEST/dtbs/r8a779m1-ulcb.dtb" "$root/tmp/"
for dt in upstream generated; do
    log "booting r8a779m1-ulcb with the installed $DEB_BINARY ($dt DT)"
    console=$BUILD/deb/console-$dt.log
    dtb=()
    [ $dt = generated ] || dtb=(-dtb /tmp/r8a779m1-ulcb.dtb)
    in_root "$root" timeout 300 "$DEB_BINARY" -M r8a779m1-ulcb -smp 2 -m 2G \
        -display none -serial stdio -monitor none -no-reboot \
        -kernel /tmp/Image-4k -initrd /tmp/rootfs.cpio.gz "${dtb[@]}" \
        -drive if=sd,index=2,file=/tmp/emmc.img,format=raw \
        -append "console=ttySC0,115200 rdinit=/init rcar_script=$script" \
        > "$console" 2>&1 || true
    line() { tr -d '\r' < "$console" | sed -n "s/^$1 //p"; }
    check "$dt DT: the guest ran its script and powered off" \
        grep -q 'reboot: Power down' "$console"
    check "$dt DT: the guest's board is the H3ULCB with the H3e-2G" \
        test "$(line DEB-MODEL)" = "Renesas H3ULCB board based on r8a779m1"
    check "$dt DT: renesas-soc.c found r8a779m1 ES3.0" \
        test "$(line DEB-SOC)" = "r8a779m1 ES3.0"
    check "$dt DT: the guest read the eMMC as the host wrote it" \
        test "$(line DEB-EMMC)" = "$want"
    [ "$failed" = 0 ] ||
        tr -d '\r' < "$console" | tail -20 | sed 's/^/# console: /'
done

log "installing Debian's qemu-system-arm beside it"
check "Debian's qemu-system-arm installs beside it" \
    in_root "$root" /bin/sh -c "DEBIAN_FRONTEND=noninteractive apt-get -q -y \
        --no-install-recommends install qemu-system-arm"
check "Debian's qemu-system-aarch64 is Debian's, ours is ours" \
    in_root "$root" /bin/sh -c "dpkg -S /usr/bin/qemu-system-aarch64 \
        /usr/bin/$DEB_BINARY | sort | tr '\n' ' ' | grep -x \
        'qemu-system-arm: /usr/bin/qemu-system-aarch64 $DEB_PACKAGE: /usr/bin/$DEB_BINARY '"
echo "1..$n"
[ "$failed" = 0 ]
