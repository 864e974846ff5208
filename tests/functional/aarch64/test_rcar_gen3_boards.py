#!/usr/bin/env python3
#
# The other boards of the R-Car Gen3 family: Salvator-XS with R-Car M3-N
# (r8a77965), Ebisu with R-Car E3 (r8a77990) and the ULCB starter kits
# (r8a77951-ulcb, r8a77965-ulcb, and r8a779m1-ulcb, the R-Car board that
# KernelCI runs), each booted with the device tree the board generates and
# with its unmodified upstream DTB (tests/guest/build-dtbs.sh), with the
# IPMMU and with iommu=off.  What is checked comes from the guest: the
# SoC Linux detects, the CPUs online, the SD/MMC hosts in an IOMMU group,
# the eMMC's bus mode and segments, nothing deferred with the upstream
# DTB, and a merged-segment O_DIRECT read and write, checked on the host.
#
# RCAR_GUEST_DIR and RCAR_REQUIRE_GUEST: see test_rcar_gen3.py.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import os

from qemu_test import LinuxKernelTest
from test_rcar_gen3 import (ICOUNT_READ, ICOUNT_THROTTLE_BPS, RCarGen3Base,
                            make_image, sha256_of)

MiB = 1024 * 1024


class RCarGen3BoardBoots:
    """The boots of one board with the IPMMU, for a subclass of
    RCarGen3Base that says which board it is (not a TestCase itself, so
    that unittest runs them only through the boards)."""

    EMMC_SIZE = 128 * MiB
    SD_SIZE = 32 * MiB
    WRITE_OFFSET = 64 * MiB

    # Set by the subclasses, from the board's .dts and drivers/soc/renesas
    SOC = None              # what renesas-soc.c prints
    CPUS = None             # CPUs to boot (all of the board's but on H3)
    MEM = None
    EMMC_SDHI = None        # the SDHI with the eMMC
    SD_SDHI = None          # an SD slot
    SDHI_NODES = None       # the enabled SDHIs, as a glob of device names

    def boot_board(self, upstream, iommu, io_size):
        self.emmc = os.path.join(self.workdir, 'emmc.img')
        sd = os.path.join(self.workdir, 'sd.img')
        make_image(self.emmc, self.EMMC_SIZE, io_size, 21)
        make_image(sd, self.SD_SIZE, MiB, 22)
        dtb = ('-dtb', self.upstream_dtb()) if upstream else ()
        self.boot(self.CPUS, machine_opts='' if iommu else 'iommu=off',
                  mem=self.MEM, extra_args=dtb + (
                      '-drive', f'if=sd,index={self.EMMC_SDHI},'
                                f'file={self.emmc},format=raw',
                      '-drive', f'if=sd,index={self.SD_SDHI},file={sd},'
                                'format=raw'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')

    def sdhi_qom(self, prop):
        return self.vm.cmd('qom-get', path=f'/machine/soc/sdhi{self.EMMC_SDHI}',
                           property=prop)

    def check_board(self, iommu):
        """The SoC, CPUs and hosts as Linux sees them"""
        self.check_guest_value('dmesg | grep -c "Detected Renesas R-Car '
                               f'Gen3 {self.SOC}$"', 'DETECTED', 1)
        self.check_guest_value('cat /sys/devices/soc0/soc_id',
                               'SOCID', self.SOC.split()[0])
        self.check_guest_value('cat /sys/devices/soc0/revision', 'REV',
                               self.SOC.split()[1])
        self.check_guest_value('grep -c ^processor /proc/cpuinfo', 'CPUS',
                               self.CPUS)
        nodes = len(self.SDHI_NODES)
        glob = f'ee1[{"".join(str(2 * n) for n in self.SDHI_NODES)}]0000.mmc'
        self.check_guest_value(f'ls -d /sys/bus/platform/devices/{glob}/'
                               'driver | wc -l', 'BOUND', nodes)
        self.check_guest_value(f'ls -d /sys/kernel/iommu_groups/*/devices/'
                               f'{glob} 2>/dev/null | wc -l', 'GROUPED',
                               nodes if iommu else 0)
        self.check_guest_value('grep -c "timing spec:.*mmc HS400)" '
                               '/sys/kernel/debug/mmc0/ios', 'HS400', 1)
        # ... and still at the end (power_off())
        self.expected_ios = (('timing spec', '10 (mmc HS400)'),)
        self.check_guest_value('cat /sys/block/mmcblk0/queue/max_segments',
                               'SEGS', 512 if iommu else 1)

    def check_kernelci_dmesg(self):
        """KernelCI's baseline test: no kernel message at emerg, alert or
        crit level (dmesg -r prints each with its <level> prefix)"""
        self.check_guest_value('dmesg -r | grep -c "^<[0-2]>"', 'CRIT', 0)

    def check_nothing_deferred(self):
        """Every device of the upstream DTB whose driver the kernel has
        found what it needs: no probe waits for a supplier"""
        self.check_guest_value('cat /sys/kernel/debug/devices_deferred | '
                               'wc -l', 'DEFERRED', 0)

    def read_and_write(self, io_size):
        """An O_DIRECT read of the eMMC in 1 MiB blocks, checked against
        the host file and written back further on.  Returns the block
        requests of the read and the counters of the eMMC's SDHI over it."""
        dev = f'ee1{2 * self.EMMC_SDHI}0000.mmc'
        # No runtime suspend: each resume retunes the HS400 eMMC, and its
        # 16 tuning blocks are DMA transfers too.  The small read takes the
        # retune that waking the host up asked for.
        self.check_guest_value(f'echo on > /sys/bus/platform/devices/{dev}/'
                               'power/control; dd if=/dev/mmcblk0 '
                               'of=/dev/null bs=4k count=1 iflag=direct '
                               '2>/dev/null; cat /sys/bus/platform/'
                               f'devices/{dev}/power/runtime_status', 'RPM',
                               'active')
        before = {p: self.sdhi_qom(p) for p in
                  ('x-dma-transfers', 'x-dma-bytes')}
        self.check_guest_value('cut -c1-8 /sys/block/mmcblk0/stat '
                               '> /tmp/ios; echo saved', 'IOS', 'saved')
        self.expect_sha(f'dd if=/dev/mmcblk0 bs=1M count={io_size // MiB}'
                        ' iflag=direct 2>/dev/null | tee /tmp/data',
                        sha256_of(self.emmc, 0, io_size))
        counters = {p: self.sdhi_qom(p) - v for p, v in before.items()}
        ios = self.guest_int('echo $(( $(cut -c1-8 /sys/block/mmcblk0/stat)'
                             ' - $(cat /tmp/ios) ))', 'READIOS')
        self.check_guest_value('dd if=/tmp/data of=/dev/mmcblk0 bs=1M '
                               f'seek={self.WRITE_OFFSET // MiB} '
                               'oflag=direct 2>/dev/null; echo $?', 'WRITE',
                               0)
        self.log.info('%d MiB O_DIRECT read: %d block requests, %d DMA '
                      'transfers', io_size // MiB, ios,
                      counters['x-dma-transfers'])
        return ios, counters

    def run_board(self, upstream, iommu):
        # Merged requests are 1 MiB; without the IPMMU each is one page
        io_size = (32 if iommu else 8) * MiB
        self.boot_board(upstream, iommu, io_size)
        self.check_board(iommu)
        self.check_kernelci_dmesg()
        if upstream:
            self.check_nothing_deferred()
        ios, counters = self.read_and_write(io_size)
        # One DMA transfer per block request, moving all of it
        self.assertEqual(counters['x-dma-transfers'], ios)
        self.assertEqual(counters['x-dma-bytes'], io_size)
        if iommu:
            # Requests of 1 MiB over scattered pages, each one transfer
            self.assertLessEqual(ios, 2 * io_size // MiB)
            self.assertGreater(self.sdhi_qom('x-dma-max-phys-runs'), 1)
        else:
            # Each request is one physically contiguous run: a page, or
            # more where the page allocator happened to give neighbours
            self.assertEqual(self.sdhi_qom('x-dma-max-phys-runs'), 1)
        self.power_off()
        self.assertEqual(sha256_of(self.emmc, self.WRITE_OFFSET, io_size),
                         sha256_of(self.emmc, 0, io_size))

    def test_generated_dt(self):
        self.run_board(upstream=False, iommu=True)

    def test_upstream_dtb(self):
        self.run_board(upstream=True, iommu=True)


class RCarGen3BoardTests(RCarGen3BoardBoots):
    """The boots of one board with the IPMMU and without it, and under
    -icount"""

    def test_icount_throttled_read(self):
        """-icount shift=0,sleep=off on one vCPU: while the host reads the
        slow image the guest is idle, and its clock must not jump past
        Linux's request timeout (test_rcar_gen3.py RCarGen3Icount does
        the same on H3, with more -icount settings)"""
        self.emmc = os.path.join(self.workdir, 'emmc.img')
        make_image(self.emmc, self.EMMC_SIZE, ICOUNT_READ, 24)
        self.boot(1, mem=self.MEM, extra_args=(
            '-icount', 'shift=0,sleep=off',
            '-drive', f'if=sd,index={self.EMMC_SDHI},file={self.emmc},'
                      'format=raw,'
                      f'throttling.bps-read={ICOUNT_THROTTLE_BPS}'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.check_emmc_read_once_probed(self.emmc, ICOUNT_READ)
        self.power_off()

    def test_generated_dt_iommu_off(self):
        self.run_board(upstream=False, iommu=False)

    def test_upstream_dtb_iommu_off(self):
        self.run_board(upstream=True, iommu=False)


class RCarGen3M3NSalvatorXS(RCarGen3BoardTests, RCarGen3Base):
    MACHINE = 'r8a77965-salvator-xs'
    SOC = 'r8a77965 ES1.0'
    CPUS = 2
    MEM = '1920M'
    EMMC_SDHI = 2
    SD_SDHI = 0
    SDHI_NODES = (0, 2, 3)


    def test_device_card(self):
        """SDHI1 is not wired on Salvator-XS; a card that -device puts in
        it enables it in the generated device tree, as -drive does."""
        sd1 = os.path.join(self.workdir, 'sd1.img')
        make_image(sd1, self.SD_SIZE, MiB, 23)
        self.boot(1, mem=self.MEM, extra_args=(
            '-drive', f'if=none,id=sd1,file={sd1},format=raw',
            '-device', 'sd-card,bus=sdhi1.sd-bus,drive=sd1'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.check_guest_value('ls -d /sys/bus/platform/devices/'
                               'ee120000.mmc/mmc_host/mmc*/mmc*:* | wc -l',
                               'CARD', 1)
        self.expect_sha('dd if=$(ls -d /dev/mmcblk? | head -n1) bs=1M '
                        'count=1 iflag=direct 2>/dev/null',
                        sha256_of(sd1, 0, MiB))
        self.power_off()


class RCarGen3E3Ebisu(RCarGen3BoardTests, RCarGen3Base):
    MACHINE = 'r8a77990-ebisu'
    SOC = 'r8a77990 ES1.1'
    CPUS = 2
    MEM = '896M'
    EMMC_SDHI = 3
    SD_SDHI = 1
    SDHI_NODES = (0, 1, 3)


# ulcb.dtsi: an SD slot on SDHI0, the eMMC on SDHI2
class RCarGen3ULCB:
    EMMC_SDHI = 2
    SD_SDHI = 0
    SDHI_NODES = (0, 2)


class RCarGen3H3eULCB(RCarGen3ULCB, RCarGen3BoardTests, RCarGen3Base):
    """KernelCI's R-Car board: renesas-soc.c names the SoC by the
    .dtsi's first SoC compatible, and reads the H3 ES3.0 in its PRR"""
    MACHINE = 'r8a779m1-ulcb'
    SOC = 'r8a779m1 ES3.0'
    CPUS = 2
    MEM = '2G'


class RCarGen3H3ULCB(RCarGen3ULCB, RCarGen3BoardBoots, RCarGen3Base):
    MACHINE = 'r8a77951-ulcb'
    SOC = 'r8a7795 ES3.0'
    CPUS = 2
    MEM = '2G'


class RCarGen3M3NULCB(RCarGen3ULCB, RCarGen3BoardBoots, RCarGen3Base):
    MACHINE = 'r8a77965-ulcb'
    SOC = 'r8a77965 ES1.0'
    CPUS = 2
    MEM = '1920M'


if __name__ == '__main__':
    LinuxKernelTest.main()
