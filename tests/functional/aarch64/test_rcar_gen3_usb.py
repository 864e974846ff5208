#!/usr/bin/env python3
#
# USB 2.0 on the R-Car Gen3 boards, each booted with its unmodified
# upstream DTB and with the device tree it generates: a USB stick
# (-device usb-storage) and a keyboard (-device usb-kbd) given without a
# bus, which land on the board's first connector.  The stick is a
# high-speed device, which the channel's EHCI serves; the keyboard is a
# full-speed one, behind the full-speed hub QEMU adds on the second port,
# which the EHCI hands to its companion OHCI.  The guest must find each
# behind the right controller (the device's sysfs path), read the stick's
# first MiB as the host wrote it, and write one that the host then reads;
# its log must have no error-level line and none of the MMC, IPMMU or
# splat lines check_clean_log() looks for.
#
# RCAR_GUEST_DIR and RCAR_REQUIRE_GUEST: see test_rcar_gen3.py.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import os

from qemu_test import LinuxKernelTest
from test_rcar_gen3 import RCarGen3Base, make_image, sha256_of

MiB = 1024 * 1024


class RCarGen3USB:
    """One board's USB test, for a subclass of RCarGen3Base that says which
    board it is and where its first connector is (not a TestCase)."""

    CPUS = 2
    MEM = '1G'
    STICK_SIZE = 16 * MiB
    WRITE_MIB = 4               # where the guest writes, in MiB
    # The first USB 2.0 channel the board's .dts enables: its OHCI and
    # EHCI nodes' unit addresses
    OHCI = None
    EHCI = None
    # Error-level lines a kernel may log (a regular expression), or None
    ALLOWED_ERRORS = None

    def usb_device_path(self, pattern, name):
        """The sysfs path of the USB device whose product string matches
        @pattern"""
        return self.guest_value('readlink -f $(dirname $(grep -l '
                                f'"{pattern}" /sys/bus/usb/devices/*/'
                                'product | head -n1))', name)

    def storage_and_keyboard(self, upstream):
        stick = os.path.join(self.workdir, 'stick.img')
        make_image(stick, self.STICK_SIZE, MiB, 31)
        dtb = ('-dtb', self.upstream_dtb()) if upstream else ()
        self.boot(self.CPUS, mem=self.MEM, extra_args=dtb + (
            '-drive', f'if=none,id=stick,file={stick},format=raw',
            '-device', 'usb-storage,drive=stick',
            '-device', 'usb-kbd'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        # The stick's disk, once the SCSI layer has it
        self.check_guest_value('for i in $(seq 100); do [ -b /dev/sda ] && '
                               'break; sleep 0.1; done; ls /dev/sda',
                               'DISK', '/dev/sda')
        self.assertIn(f'/{self.EHCI}.usb/',
                      self.guest_value('readlink -f /sys/block/sda',
                                       'DISKPATH'))
        self.assertEqual(self.guest_value('cat $(readlink -f /sys/block/sda/'
                                          'device/../../../..)/speed',
                                          'DISKSPEED'), '480')
        self.assertIn(f'/{self.OHCI}.usb/',
                      self.usb_device_path('QEMU USB Keyboard', 'KBDPATH'))
        self.expect_sha('dd if=/dev/sda bs=1M count=1 iflag=direct '
                        '2>/dev/null', sha256_of(stick, 0, MiB))
        sent = self.guest_value('dd if=/dev/urandom bs=64k count=16 '
                                '2>/dev/null | tee /tmp/w | sha256sum | '
                                'cut -d" " -f1', 'SENT')
        self.check_guest_value(f'dd if=/tmp/w of=/dev/sda bs=1M '
                               f'seek={self.WRITE_MIB} oflag=direct '
                               '2>/dev/null; echo $?', 'WROTE', 0)
        allowed = (f' | grep -v -E "{self.ALLOWED_ERRORS}"'
                   if self.ALLOWED_ERRORS else '')
        self.check_guest_value(f'dmesg -r | grep "^<[0-3]>"{allowed} | '
                               'wc -l', 'ERRLINES', 0)
        self.power_off()
        self.assertEqual(sha256_of(stick, self.WRITE_MIB * MiB, MiB), sent)

    def test_upstream_dtb(self):
        self.storage_and_keyboard(upstream=True)

    def test_generated_dt(self):
        self.storage_and_keyboard(upstream=False)


class RCarGen3USBH3SalvatorXS(RCarGen3USB, RCarGen3Base):
    # salvator-common.dtsi: channel 0, the OTG one (host by its ID pin)
    MACHINE = 'r8a77951-salvator-xs'
    OHCI = 'ee080000'
    EHCI = 'ee080100'


class RCarGen3USBM3NSalvatorXS(RCarGen3USB, RCarGen3Base):
    MACHINE = 'r8a77965-salvator-xs'
    OHCI = 'ee080000'
    EHCI = 'ee080100'


class RCarGen3USBE3Ebisu(RCarGen3USB, RCarGen3Base):
    MACHINE = 'r8a77990-ebisu'
    MEM = '896M'
    OHCI = 'ee080000'
    EHCI = 'ee080100'


class RCarGen3USBH3eULCB(RCarGen3USB, RCarGen3Base):
    # ulcb.dtsi: channel 1 only
    MACHINE = 'r8a779m1-ulcb'
    OHCI = 'ee0a0000'
    EHCI = 'ee0a0100'


if __name__ == '__main__':
    LinuxKernelTest.main()
