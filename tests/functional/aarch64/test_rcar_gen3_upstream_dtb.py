#!/usr/bin/env python3
#
# The unmodified upstream device tree of the Salvator-XS, compiled from the
# same linux-source-6.12 as the test kernel (tests/guest/build-dtbs.sh into
# $RCAR_GUEST_DIR/dtbs), given with -dtb as kernel developers and kernel CI
# do: its CPG, SYSC, GPIO, card-detect and regulator users must find the
# hardware they describe, and the boot must be as clean as on the board.
#
# RCAR_GUEST_DIR and RCAR_REQUIRE_GUEST: see test_rcar_gen3.py.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import os
import time

from qemu_test import LinuxKernelTest
from test_rcar_gen3 import RCarGen3Base, make_image, sha256_of

MiB = 1024 * 1024


class RCarGen3UpstreamDTB(RCarGen3Base):

    EMMC_SIZE = 256 * MiB
    SD_SIZE = 64 * MiB
    IO_SIZE = 64 * MiB
    WRITE_OFFSET = 128 * MiB

    def boot_upstream(self, smp=2):
        self.emmc = os.path.join(self.workdir, 'emmc.img')
        self.sd = os.path.join(self.workdir, 'sd.img')
        make_image(self.emmc, self.EMMC_SIZE, self.IO_SIZE, 11)
        make_image(self.sd, self.SD_SIZE, MiB, 12)
        self.boot(smp, extra_args=(
            '-dtb', self.upstream_dtb(),
            '-drive', f'if=sd,index=2,file={self.emmc},format=raw',
            '-drive', f'if=sd,index=0,file={self.sd},format=raw'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')

    def clock_matches(self, mmc, clk):
        """The rate of CPG clock @clk in clk_summary is what the mmc core
        asked of host @mmc, to the SoC's divider steps (SDSRC 798.72 MHz
        divided by a power of two: within 0.5 %)."""
        asked = self.guest_int(f'awk \'/^clock:/ {{ print $2 }}\' '
                               f'/sys/kernel/debug/{mmc}/ios', 'ASKED')
        rate = self.guest_int(f'awk \'$1 == "{clk}" {{ print $5 }}\' '
                              '/sys/kernel/debug/clk/clk_summary', 'RATE')
        self.log.info('%s asked %d Hz, CPG clock %s runs at %d Hz', mmc,
                      asked, clk, rate)
        self.assertGreater(asked, 0)
        self.assertLess(abs(rate - asked), asked // 200)

    def test_clean_boot(self):
        self.boot_upstream()
        # (No warning, bug or taint, so that a CI run with panic_on_warn
        # goes on: power_off() checks, after the I/O.)
        # Every provider was found: nothing waits for a supplier
        self.check_guest_value('wc -c < /sys/kernel/debug/devices_deferred',
                               'DEFERRED', 0)
        # No line at error level or above (dmesg -r's levels 0-3): the
        # test kernel has no driver for what is not modelled (USB, the
        # SYS-DMAC); the lines are in the failure
        self.check_guest_value('dmesg -r | grep "^<[0-3]>" | head -5 | '
                               'tr "\\n" "|"', 'ERRORLINES', '')
        # -smp 2: the DTB's other six CPUs were left out, as firmware does
        self.check_guest_value('dmesg | grep -c "psci: failed"', 'PSCI', 0)
        self.check_guest_value('grep -c ^processor /proc/cpuinfo', 'CPUS', 2)
        # ... and the A53 PMU, all of whose cores are left out, disabled as
        # such firmware does; the A57 PMU, with cores left, stays
        self.check_guest_value('tr -d "\\0" < /proc/device-tree/pmu_a53/'
                               'status', 'PMUA53', 'disabled')
        self.check_guest_value('[ -e /proc/device-tree/pmu_a57/status ] || '
                               'echo none', 'PMUA57', 'none')
        # The PMIC and cpufreq-dt: nothing deferred (above), and the A57s'
        # clock and supply follow what is asked
        self.check_a57_dvfs()
        # SDHI0, SDHI2 and SDHI3 in one IOMMU group, behind IPMMU-DS1
        self.check_guest_value('ls -d /sys/kernel/iommu_groups/*/devices/'
                               'ee1[046]0000.mmc | wc -l', 'SDHIS', 3)
        self.check_guest_value('ls -d /sys/kernel/iommu_groups/*/devices/'
                               'ee1[046]0000.mmc | cut -d/ -f5 | sort -u | '
                               'wc -l', 'GROUPS', 1)
        # The eMMC in HS400, merging up to 512 segments
        self.check_guest_value('grep -c "timing spec:.*mmc HS400" '
                               '/sys/kernel/debug/mmc0/ios', 'HS400', 1)
        self.expected_ios = (('timing spec', '10 (mmc HS400)'),)
        self.check_guest_value('cat /sys/block/mmcblk0/queue/max_segments',
                               'SEGS', 512)
        # The CPG's SD clocks follow what Linux set: the eMMC at 200 MHz,
        # the SD card at 50 MHz (high speed)
        self.clock_matches('mmc0', 'sd2')
        self.clock_matches('mmc1', 'sd0')
        # genpd powered off the power areas nobody uses, through the SYSC
        self.check_guest_value('grep -cE "^(cr7|3dg-a|a2vc1) +off" '
                               '/sys/kernel/debug/pm_genpd/pm_genpd_summary',
                               'OFF', 3)
        # 64 MiB O_DIRECT read, and a write checked on the host
        self.expect_sha('dd if=/dev/mmcblk0 bs=1M count=64 iflag=direct '
                        '2>/dev/null', sha256_of(self.emmc, 0, self.IO_SIZE))
        self.check_guest_value('dd if=/dev/mmcblk0 of=/dev/mmcblk0 bs=1M '
                               f'count=64 seek={self.WRITE_OFFSET // MiB} '
                               'iflag=direct oflag=direct 2>/dev/null; '
                               'echo $?', 'WRITE', 0)
        self.power_off()
        self.assertEqual(sha256_of(self.emmc, self.WRITE_OFFSET,
                                   self.IO_SIZE),
                         sha256_of(self.emmc, 0, self.IO_SIZE))

    def wait_guest(self, condition, name):
        """Poll a shell condition in the guest for up to 30 s."""
        self.check_guest_value(f'for i in $(seq 300); do {condition} && '
                               'break; sleep 0.1; done; '
                               f'{condition} && echo yes', name, 'yes')

    # Card-detect GPIOs that read high (no card), and the card-detect
    # interrupts of SDHI0's slot on both CPUs
    CD_HIGH = 'grep -c "|cd .* in  hi IRQ" /sys/kernel/debug/gpio'
    CD_IRQS = 'awk \'/ee100000.mmc cd/ { print $2 + $3 }\' /proc/interrupts'

    def test_sd_hotplug(self):
        """QMP eject and insert on the SD slot reach Linux through the
        card-detect GPIO: mmcblk1 goes and comes back with its data."""
        self.boot_upstream()
        # The card taken out (mmc_sd_detect())
        self.EXPECTED_ERRORS = 'mmc1: card [0-9a-f]+ removed'
        self.check_guest_value('dmesg | grep -c "ee100000.mmc: Got CD GPIO"',
                               'CDGPIO', 1)
        sha = sha256_of(self.sd, 0, MiB)
        self.expect_sha('dd if=/dev/mmcblk1 bs=1M count=1 iflag=direct '
                        '2>/dev/null', sha)
        # The slot's switch, on GPIO3 pin 12, reads low (active low: a card
        # is in); SDHI3's empty slot reads high
        self.check_guest_value(self.CD_HIGH, 'CDHI', 1)
        irqs = self.guest_int(self.CD_IRQS, 'CDIRQ')
        self.vm.cmd('eject', device='sd0', force=True)
        self.wait_guest('[ ! -e /sys/block/mmcblk1 ]', 'GONE')
        self.check_guest_value(self.CD_HIGH, 'CDHI', 2)
        self.assertGreater(self.guest_int(self.CD_IRQS, 'CDIRQ'), irqs)
        irqs = self.guest_int(self.CD_IRQS, 'CDIRQ')
        self.vm.cmd('blockdev-change-medium', device='sd0',
                    filename=self.sd, format='raw')
        self.wait_guest('[ -e /sys/block/mmcblk1 ]', 'BACK')
        self.check_guest_value(self.CD_HIGH, 'CDHI', 1)
        self.assertGreater(self.guest_int(self.CD_IRQS, 'CDIRQ'), irqs)
        # Let the block device settle before reading it
        time.sleep(0.5)
        self.expect_sha('dd if=/dev/mmcblk1 bs=1M count=1 iflag=direct '
                        '2>/dev/null', sha)
        self.power_off()


if __name__ == '__main__':
    LinuxKernelTest.main()
