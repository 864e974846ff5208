#!/usr/bin/env python3
#
# The kernel that kernel CI builds on the R-Car Gen3 boards:
# arch/arm64/configs/defconfig with tests/guest/defconfig.config, built by
# tests/guest/build-kernel-defconfig.sh as RCAR_GUEST_DIR/Image-defconfig
# (`make check-kernel-ci`; its build takes 45 minutes on 2 cores, so plain
# `make check` leaves it out).
#
# RCAR_GUEST_DIR and RCAR_REQUIRE_GUEST: see test_rcar_gen3.py.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import time

from qemu_test import LinuxKernelTest
from test_rcar_gen3 import RCarGen3Base
from test_rcar_gen3_boards import RCarGen3BoardTests
from test_rcar_gen3_network import RCarGen3Network
# The module, not its boards: unittest would run them here too
import test_rcar_gen3_usb


class RCarGen3DefconfigH3(RCarGen3BoardTests, RCarGen3Base):
    """The defconfig kernel on Salvator-XS (H3), with the generated DT and
    the upstream DTB, and the same checks as the test kernel's boards"""

    MACHINE = 'r8a77951-salvator-xs'
    SOC = 'r8a7795 ES3.0'
    CPUS = 2
    MEM = '2G'
    EMMC_SDHI = 2
    SD_SDHI = 0
    SDHI_NODES = (0, 2, 3)
    KERNEL = 'Image-defconfig'

    # The IPMMU is what this kernel is checked for: iommu=off and -icount
    # are the test kernel's (test_rcar_gen3_boards.py)
    test_generated_dt_iommu_off = None
    test_upstream_dtb_iommu_off = None
    test_icount_throttled_read = None

    def boot_board(self, upstream, iommu, io_size):
        start = time.monotonic()
        super().boot_board(upstream, iommu, io_size)
        self.log.info('boot to the prompt: %.1f s of host time',
                      time.monotonic() - start)
        uptime = self.guest_int('cut -d. -f1 /proc/uptime', 'UPTIME')
        self.log.info('guest uptime at the prompt: %d s', uptime)
        if upstream:
            self.check_i2c()
            self.check_pmus()
            self.check_a57_dvfs()

    def check_pmus(self):
        """-smp 2 starts two cores of one cluster: that cluster's PMU
        probes, and the other's, all of whose cores are left out, is
        disabled (rcar-gen3-fdt.c) rather than failing to probe"""
        self.check_guest_value('dmesg | grep -c "failed to probe PMU"',
                               'PMUFAIL', 0)
        self.check_guest_value('dmesg | grep -c "hw perfevents: enabled"',
                               'PMUS', 1)

    def check_i2c(self):
        """The upstream DTB enables I2C buses and devices on them, most of
        which the board does not model (it has the PMIC and the GPIO
        expander): each enabled bus has its adapter, and the transfers to
        the absent devices ended in a NACK, not in a timeout (i2c-rcar logs
        "error -110" for one; a NACK it does not log).  A read from user
        space (busybox i2ctransfer, through i2c-dev) on every bus gets
        ENXIO."""
        self.check_guest_value(
            'n=0; for d in /proc/device-tree/soc/i2c@*; do '
            's=$(tr -d "\\0" < $d/status 2>/dev/null || echo okay); '
            '[ "$s" = okay ] && n=$((n + 1)); done; '
            'echo $(( n - $(ls -d /sys/bus/i2c/devices/i2c-* | wc -l) ))',
            'NOADAPTER', 0)
        self.check_guest_value('dmesg | grep -c "i2c.*error -110"',
                               'I2CTIMEOUT', 0)
        self.check_guest_value(
            'for b in /sys/bus/i2c/devices/i2c-*; do '
            'i2ctransfer -y ${b##*-} r1@0x0b 2>&1; done | '
            'grep -c -v "No such device or address"', 'NOTNACK', 0)

    # The error-level lines a defconfig kernel logs on the upstream DTB
    # that are the devices not modelled yet, each with its reason in the
    # docs ("Limitations"): the USB 3.0 host, the SYS-DMAC and audio-DMAC
    # instances
    UNMODELLED_ERRORS = (r'xhci-renesas-hcd [0-9a-f]+\.usb: |'
                         r'rcar-dmac [0-9a-f]+\.dma-controller: ')

    def check_error_lines(self):
        """Every error-level line (dmesg -r level 0-3) is one of a device
        that is not modelled: the others are listed in the failure"""
        errors = self.guest_value('dmesg -r | grep "^<3>" | cut -c4- | '
                                  'tr "\\n" "|"', 'ERRLINES')
        self.log.info('error-level lines: %s', errors)
        self.check_guest_value('dmesg -r | grep "^<[0-3]>" | grep -v -E '
                               f'"{self.UNMODELLED_ERRORS}" | head -5 | '
                               'tr "\\n" "|"', 'OTHERERRORS', '')

    def check_board(self, iommu):
        super().check_board(iommu)
        self.check_error_lines()
        # Every IPMMU of the device tree has its driver: the generated DT
        # has IPMMU-MM and IPMMU-DS1, the upstream DTB all of the SoC's
        self.check_guest_value('echo $(( $(ls -d /proc/device-tree/soc/'
                               'iommu@* | wc -l) - $(ls -d /sys/bus/'
                               'platform/drivers/ipmmu-vmsa/*.iommu | '
                               'wc -l) ))', 'UNBOUND', 0)


class RCarGen3DefconfigH3eULCB(RCarGen3DefconfigH3):
    """KernelCI's baseline-arm64 board, r8a779m1-ulcb, with the kernel and
    DTB that KernelCI boots on the real one: its dmesg check (no emerg,
    alert or crit line, check_board()), and bootrr's generic tests, which
    are all that bootrr has for a board without a file of its own: every
    CPU online, and nothing deferred"""

    MACHINE = 'r8a779m1-ulcb'
    SOC = 'r8a779m1 ES3.0'
    SDHI_NODES = (0, 2)
    test_generated_dt = None

    def check_board(self, iommu):
        super().check_board(iommu)
        # bootrr-generic-tests: all-cpus-are-online
        self.check_guest_value('[ "$(cat /sys/devices/system/cpu/online)" = '
                               '"$(cat /sys/devices/system/cpu/possible)" ] '
                               '&& echo yes', 'ALLONLINE', 'yes')


class RCarGen3DefconfigNfs(RCarGen3Network):
    """The defconfig kernel and a board's upstream DTB with the root file
    system on NFS over the EtherAVB: test_rcar_gen3_network.py's NFS-root
    boot, which KernelCI's baseline-nfs-arm64 needs (not a TestCase
    itself)"""

    KERNEL = 'Image-defconfig'
    MEM = '2G'
    test_generated_dt = None
    test_upstream_dtb = None
    test_nfs_root_generated_dt = None


class RCarGen3DefconfigNfsULCB(RCarGen3DefconfigNfs, RCarGen3Base):
    """KernelCI's baseline-nfs-arm64 on its R-Car board, r8a779m1-ulcb"""

    MACHINE = 'r8a779m1-ulcb'


class RCarGen3DefconfigNfsH3(RCarGen3DefconfigNfs, RCarGen3Base):
    MACHINE = 'r8a77951-salvator-xs'


class RCarGen3DefconfigNfsM3N(RCarGen3DefconfigNfs, RCarGen3Base):
    MACHINE = 'r8a77965-salvator-xs'


class RCarGen3DefconfigNfsE3(RCarGen3DefconfigNfs, RCarGen3Base):
    MACHINE = 'r8a77990-ebisu'
    MEM = '896M'


class RCarGen3DefconfigUSB(test_rcar_gen3_usb.RCarGen3USB):
    """The defconfig kernel and a board's upstream DTB with a USB stick
    and keyboard: test_rcar_gen3_usb.py's boot; the error-level lines
    allowed are those of the devices not modelled (not a TestCase)"""

    KERNEL = 'Image-defconfig'
    MEM = '2G'
    ALLOWED_ERRORS = RCarGen3DefconfigH3.UNMODELLED_ERRORS
    test_generated_dt = None


class RCarGen3DefconfigUSBH3(RCarGen3DefconfigUSB,
                             test_rcar_gen3_usb.RCarGen3USBH3SalvatorXS):
    pass


class RCarGen3DefconfigUSBULCB(RCarGen3DefconfigUSB,
                               test_rcar_gen3_usb.RCarGen3USBH3eULCB):
    pass


if __name__ == '__main__':
    LinuxKernelTest.main()
