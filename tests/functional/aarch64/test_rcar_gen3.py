#!/usr/bin/env python3
#
# Functional test that boots the R-Car Gen3 test kernel on the emulated
# Renesas Salvator-XS (R-Car H3) and checks what Linux finds.
#
# The kernel and initramfs are built from Debian's linux-source-6.12 and
# busybox-static by tests/guest/ of the R-Car Gen3 project; point
# RCAR_GUEST_DIR at the directory holding Image-4k and rootfs.cpio.gz.
# Without it the tests are skipped, unless RCAR_REQUIRE_GUEST is set (as
# `make check` does), in which case a missing guest is a failure.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import hashlib
import logging
import os
import random
import re
import signal
import subprocess
import time

from qemu_test import LinuxKernelTest, get_qemu_img
from qemu_test import exec_command, exec_command_and_wait_for_pattern


class RCarGen3Base(LinuxKernelTest):
    """Boots the R-Car test guest on r8a77951-salvator-xs (or MACHINE)."""

    MACHINE = 'r8a77951-salvator-xs'
    KERNEL = 'Image-4k'
    KERNEL_COMMAND_LINE = 'console=ttySC0,115200 earlycon rdinit=/init'

    # A test still running after this many seconds fails, with the end of
    # its console in the message: a guest that panics or waits forever
    # would otherwise hold its whole suite until make check's timeout,
    # and say nothing of where it stopped
    DEADLINE = 900

    def setUp(self):
        super().setUp()
        signal.signal(signal.SIGALRM, self.deadline_passed)
        signal.alarm(self.DEADLINE)

    def tearDown(self):
        signal.alarm(0)
        super().tearDown()

    def deadline_passed(self, _signum, _frame):
        tail = ''
        console = getattr(self, 'console_log_name', None)
        if console and os.path.exists(console):
            with open(console, errors='replace') as f:
                tail = ''.join(f.readlines()[-12:])
        raise self.failureException(
            f'{self.id()} did not end within {self.DEADLINE} s; the '
            f'console last said:\n{tail}')

    def guest_files(self):
        guest = os.getenv('RCAR_GUEST_DIR')
        kernel = os.path.join(guest or '', self.KERNEL)
        initrd = os.path.join(guest or '', 'rootfs.cpio.gz')
        if not (guest and os.path.exists(kernel) and os.path.exists(initrd)):
            if os.getenv('RCAR_REQUIRE_GUEST'):
                self.fail(f'RCAR_GUEST_DIR does not hold {self.KERNEL} and '
                          'rootfs.cpio.gz')
            self.skipTest('set RCAR_GUEST_DIR to the R-Car test guest')
        return kernel, initrd

    def upstream_dtb(self):
        """The board's unmodified upstream DTB (tests/guest/build-dtbs.sh)"""
        path = os.path.join(os.getenv('RCAR_GUEST_DIR') or '', 'dtbs',
                            f'{self.MACHINE}.dtb')
        if not os.path.exists(path):
            if os.getenv('RCAR_REQUIRE_GUEST'):
                self.fail(f'{path} is missing (tests/guest/build-dtbs.sh)')
            self.skipTest('no upstream DTB in RCAR_GUEST_DIR/dtbs')
        return path

    # The SDHI of the board's eMMC (salvator-common.dtsi: SDHI2)
    EMMC_SDHI = 2
    # Whether the guest was booted without a card on the eMMC's SDHI:
    # set by boot(), or by a test that boots otherwise
    emmc_absent = False

    def boot(self, smp, machine_opts='', mem='1G', extra_args=(),
             with_initrd=True):
        """Boot the test kernel, with the test initramfs unless the root
        file system comes from elsewhere (an NFS root)"""
        kernel, initrd = self.guest_files()
        self.emmc_absent = not any(self.is_emmc_arg(arg)
                                   for arg in extra_args)
        self.set_machine(self.MACHINE)
        if machine_opts:
            self.vm.add_args('-M', f'{self.MACHINE},{machine_opts}')
        self.vm.add_args('-smp', str(smp), '-m', mem,
                         '-append', self.KERNEL_COMMAND_LINE, *extra_args)
        self.launch_kernel(kernel, initrd=initrd if with_initrd else None)
        # The first line of the console comes from earlycon
        self.wait_for_console_pattern(
            'earlycon: scif0 at MMIO 0x00000000e6e88000')

    def is_emmc_arg(self, arg):
        """Whether a QEMU argument puts a card on the eMMC's SDHI"""
        opts = arg.split(',')
        return ((('if=sd' in opts and f'index={self.EMMC_SDHI}' in opts) or
                 f'bus=sdhi{self.EMMC_SDHI}.sd-bus' in opts))

    def set_machine(self, machinename):
        """QEMU's set_machine skips the test when the binary lacks the
        machine; in make check (RCAR_REQUIRE_GUEST) that is a failure."""
        if os.getenv('RCAR_REQUIRE_GUEST'):
            out = subprocess.run([self.qemu_bin, '-M', 'help'],
                                 capture_output=True, check=True,
                                 encoding='utf8').stdout
            if not re.search(rf'^{re.escape(machinename)}\s', out, re.M):
                self.fail(f'{self.qemu_bin} has no machine {machinename}')
        super().set_machine(machinename)

    def run_in_guest(self, command, expect, failure=None):
        exec_command_and_wait_for_pattern(self, command, expect, failure)

    def guest_value(self, command, name):
        """What a guest command prints, read whole: the guest echoes it
        framed as "VAL<value>=NAME", so that an expected 0 cannot match
        the end of 10 or an expected 1 the start of 11.  The marker is
        split in the command, so that the echo of the command line
        cannot match it.  The value must be one line."""
        exec_command(self, f'echo "VAL<$({command})>=""{name}"')
        marker = f'>={name}'.encode()
        framed = re.compile(rb'VAL<(.*)>=' + re.escape(name.encode()) +
                            rb'\r?$')
        line = b''
        while True:
            c = self.vm.console_socket.recv(1)
            if not c:
                self.fail(f'EOF in console, expected the value of {name}')
            line += c
            if c != b'\n':
                continue
            line = line.rstrip(b'\r\n')
            logging.getLogger('console').debug(
                line.decode(errors='replace'))
            if marker in line:
                match = framed.search(line)
                if not match:
                    self.fail(f'{name}: the guest printed more than one '
                              f'line, ending in {line!r}')
                return match.group(1).decode(errors='replace')
            line = b''

    def check_guest_value(self, command, name, expected):
        """A guest command's output must be @expected: as a whole string,
        or as an integer when @expected is one."""
        value = self.guest_value(command, name)
        if isinstance(expected, int):
            self.assertEqual(self.as_int(value, name), expected,
                             f'{name}: the guest printed {value!r}')
        else:
            self.assertEqual(value, expected,
                             f'{name}: the guest printed {value!r}')

    def as_int(self, value, name):
        try:
            return int(value)
        except ValueError:
            self.fail(f'{name}: the guest printed {value!r}, not an integer')

    def qom(self, sdhi, prop):
        return self.vm.cmd('qom-get', path=f'/machine/soc/sdhi{sdhi}',
                           property=prop)

    def read_phys(self, addr):
        """A 32-bit word of the guest's physical address space"""
        out = self.vm.cmd('human-monitor-command',
                          command_line=f'xp /1wx {addr:#x}')
        return int(out.split(':')[1], 16)

    def expect_sha(self, command, expected):
        """Run command | sha256sum in the guest and compare with expected."""
        self.check_guest_value(f'{command} | sha256sum | cut -d" " -f1',
                               'SHA', expected)

    def check_emmc_read_once_probed(self, image, size):
        """Under -icount guest time runs ahead of the host's, and the shell
        may come up before the eMMC has been probed: wait for it, then
        read @size bytes with O_DIRECT and check them against @image"""
        self.check_guest_value('while ! dmesg | grep -q "mmc0: new"; do '
                               'sleep 0.1; done; echo probed', 'EMMC',
                               'probed')
        self.expect_sha(f'dd if=/dev/mmcblk0 bs=1M count={size // MiB} '
                        'iflag=direct 2>/dev/null',
                        sha256_of(image, 0, size))

    def guest_int(self, command, name):
        """The integer that a guest command prints."""
        return self.as_int(self.guest_value(command, name), name)

    # Kernel messages a clean run never has: splats, stalls, lockups, and
    # errors of the MMC stack and the IPMMU (request errors and timeouts
    # of the mmc core and tmio_mmc_core.c, tuning failures, the block
    # layer's I/O errors, a card gone, faults and TLB timeouts of
    # ipmmu-vmsa.c)
    SPLATS = (r'WARNING:|BUG:|Oops|Call trace:|Kernel panic|'
              r'rcu: INFO|detected stalls|soft lockup|hung_task|blocked for')
    IO_ERRORS = (r'(mmc|sdhi|ipmmu|iommu).*\\<(error|timeout|timed out|'
                 r'fail|fault|abort)|I/O error|Multiple TLB hits|Spurious|'
                 r'PIO IRQ in DMA mode|card [0-9a-f]+ removed')
    # A line that each pattern must find, printed ahead of dmesg: a grep
    # that failed, or found nothing at all, cannot pass the check
    CONTROL = {'SPLATS': 'WARNING: rcar-control',
               'IO_ERRORS': 'rcar-control.mmc: error -5'}
    # Lines a test provokes on purpose (a regular expression), or None
    EXPECTED_ERRORS = None
    # (ios field, value) that the eMMC's bus must still have at the end
    # of a test: set by the tests that check a bus mode
    expected_ios = ()

    def check_clean_log(self):
        """After the test's I/O: no splat, no taint, no error of the MMC
        stack or the IPMMU in dmesg (the lines are in the failure), and
        the bus mode the test checked is still the mode"""
        expected = [self.EXPECTED_ERRORS] if self.EXPECTED_ERRORS else []
        if self.emmc_absent:
            # mmc_attach_mmc() on a non-removable slot with no card
            expected.append('Failed to initialize a non-removable card')
        allowed = (f' | grep -v -E "{"|".join(expected)}"'
                   if expected else '')
        splats = self.CONTROL['SPLATS']
        self.check_guest_value(f'{{ echo "{splats}"; dmesg; }} | '
                               f'grep -E "{self.SPLATS}" | head -6 | '
                               'tr "\\n" "|"', 'SPLATLINES', f'{splats}|')
        self.check_guest_value('cat /proc/sys/kernel/tainted', 'TAINT', 0)
        errors = self.CONTROL['IO_ERRORS']
        self.check_guest_value(f'{{ echo "{errors}"; dmesg; }} | '
                               f'grep -i -E "{self.IO_ERRORS}"{allowed} | '
                               'head -6 | tr "\\n" "|"', 'IOERRORLINES',
                               f'{errors}|')
        for field, value in self.expected_ios:
            self.check_guest_value(f'sed -n "s/^{field}:[[:space:]]*//p" '
                                   '/sys/kernel/debug/mmc0/ios',
                                   'STILL' + field.split()[0].upper(), value)

    # cpufreq-dt's sysfs for the Cortex-A57 cluster (cpu0's policy)
    POLICY0 = '/sys/devices/system/cpu/cpufreq/policy0'
    DVFS_UV = ('cat $(dirname $(grep -lx dvfs /sys/class/regulator/*/name))'
               '/microvolts')
    # (kHz, microvolts) of the A57 OPPs check_a57_dvfs() sets, in order
    A57_OPPS = ((1000000, 830000), (1600000, 900000), (500000, 830000))

    def set_a57_khz(self, khz):
        """With the userspace governor: the A57s' clock after asking for
        @khz (cpuinfo_cur_freq: the rate the CPG's Z clock runs at), and
        the PMIC's DVFS rail then (microvolts)"""
        self.guest_value(f'echo {khz} > {self.POLICY0}/scaling_setspeed; '
                         'echo set', 'SETSPEED')
        return (self.guest_int(f'cat {self.POLICY0}/cpuinfo_cur_freq',
                               'CURKHZ'),
                self.guest_int(self.DVFS_UV, 'DVFSUV'))

    def check_a57_dvfs(self):
        """The board's PMIC (BD9571MWV on the IIC) gives cpufreq-dt the
        A57 cores' supply: the cluster's frequency follows what is asked,
        and the rail the OPP's voltage (r8a77951.dtsi / r8a77965.dtsi:
        0.83 V up to 1.5 GHz, 0.90 V at 1.6 GHz)"""
        self.check_guest_value('dmesg | grep -c -E "bd9571mwv.*(fail|'
                               'error)|cpufreq.*(fail|error)"', 'DVFSERR',
                               0)
        # (What the rail is before this depends on where schedutil has
        # put the cluster: r8a779m1 runs 1.7 GHz at 0.96 V)
        self.guest_value(f'echo userspace > {self.POLICY0}/'
                         'scaling_governor; echo set', 'GOVERNOR')
        # Up, up, down; the clock within the Z clock's steps, PLL0 (3 GHz)
        # * (32 - n) / 64
        for want_khz, want_uv in self.A57_OPPS:
            khz, uv = self.set_a57_khz(want_khz)
            self.assertLess(abs(khz - want_khz), 20000)
            self.assertEqual(uv, want_uv)

    def power_off(self, check=True):
        """Check the log (check_clean_log()), then power the guest off"""
        if check:
            self.check_clean_log()
        exec_command_and_wait_for_pattern(self, 'poweroff -f',
                                          'reboot: Power down')
        self.vm.wait()
        self.assertEqual(self.vm.exitcode(), 0)


class RCarGen3Machine(RCarGen3Base):
    """The SoC and board: CPUs, PRR, console, RAM."""

    def test_boot_smp2(self):
        self.boot(2)
        self.wait_for_console_pattern(
            'Detected Renesas R-Car Gen3 r8a7795 ES3.0')
        self.wait_for_console_pattern(
            'e6e88000.serial: ttySC0 at MMIO 0xe6e88000')
        self.wait_for_console_pattern('RCAR-INIT: up, 2 CPUs online')
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        # A command in the guest, and its output read back
        self.check_guest_value('echo $(cat /sys/devices/soc0/soc_id)'
                               '-$(cat /sys/devices/soc0/revision)', 'SOC',
                               'r8a7795-ES3.0')
        self.check_guest_value('echo $((6 * 7))', 'SUM', 42)
        # Both CPUs are Cortex-A57 (MIDR part 0xd07), the boot cluster
        self.check_guest_value('grep -c "CPU part.*0xd07" /proc/cpuinfo',
                               'A57', 2)
        self.power_off()

    def test_boot_smp8(self):
        # All the RAM the board has: 896 MiB low, then three 1 GiB banks
        self.boot(8, mem='3968M')
        self.wait_for_console_pattern('smp: Brought up 1 node, 8 CPUs')
        self.wait_for_console_pattern('RCAR-INIT: up, 8 CPUs online')
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        # Four Cortex-A57 (0xd07) and four Cortex-A53 (0xd03), as on the H3
        self.check_guest_value('grep -c "CPU part.*0xd07" /proc/cpuinfo',
                               'A57', 4)
        self.check_guest_value('grep -c "CPU part.*0xd03" /proc/cpuinfo',
                               'A53', 4)
        # The A53s are the second cluster: MPIDR 0x100..0x103
        self.check_guest_value('cat /sys/devices/system/cpu/cpu7/topology/'
                               'cluster_id', 'CLUSTER', 1)
        self.check_guest_value('echo $(grep "System RAM" /proc/iomem | '
                               'cut -d" " -f1)', 'BANKS',
                               '48000000-7fffffff 500000000-53fffffff '
                               '600000000-63fffffff 700000000-73fffffff')
        self.power_off()

    def test_boot_prr_es2(self):
        self.boot(1, machine_opts='prr-cut=0x10')
        self.wait_for_console_pattern(
            'Detected Renesas R-Car Gen3 r8a7795 ES2.0')
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.power_off()


KiB = 1024
MiB = 1024 * KiB


def make_image(path, size, random_bytes, seed):
    """A raw image whose first random_bytes are random, the rest zero."""
    rng = random.Random(seed)
    with open(path, 'wb') as f:
        f.write(rng.randbytes(random_bytes))
        f.truncate(size)


def sha256_of(path, offset, length):
    with open(path, 'rb') as f:
        f.seek(offset)
        return hashlib.sha256(f.read(length)).hexdigest()


class RCarGen3SDHI(RCarGen3Base):
    """Linux's renesas_sdhi_internal_dmac driver on the emulated SDHIs:
    SDHI2 holds the eMMC, SDHI0 an SD card (salvator-common.dtsi)."""

    EMMC_SIZE = 256 * MiB
    SD_SIZE = 128 * MiB
    IO_SIZE = 64 * MiB
    # Where the guest writes on the eMMC: past the random part
    WRITE_OFFSET = 128 * MiB

    def make_images(self):
        self.emmc = os.path.join(self.workdir, 'emmc.img')
        self.sd = os.path.join(self.workdir, 'sd.img')
        make_image(self.emmc, self.EMMC_SIZE, self.IO_SIZE, 1)
        make_image(self.sd, self.SD_SIZE, self.IO_SIZE, 2)

    def drives(self):
        return ('-drive', f'if=sd,index=2,file={self.emmc},format=raw',
                '-drive', f'if=sd,index=0,file={self.sd},format=raw')

    def test_all_four_hosts(self):
        """SDHI1 is not used on Salvator-XS; a card on it enables it."""
        self.make_images()
        sd1 = os.path.join(self.workdir, 'sd1.img')
        make_image(sd1, 64 * MiB, MiB, 3)
        self.boot(1, extra_args=self.drives() + (
            '-drive', f'if=sd,index=1,file={sd1},format=raw'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.check_guest_value('dmesg | grep -c "renesas_sdhi_internal_dmac '
                               'ee1[0246]0000.mmc: mmc[0-3] base"', 'HOSTS', 4)
        self.check_guest_value('cat /sys/block/mmcblk2/size', 'SD1SIZE',
                               64 * MiB // 512)
        self.expect_sha('dd if=/dev/mmcblk2 bs=1M count=1 iflag=direct '
                        '2>/dev/null', sha256_of(sd1, 0, MiB))
        self.power_off()

    def boot_with_cards(self):
        self.boot(2, extra_args=self.drives())
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')

    def test_probe_and_dma_io(self):
        self.make_images()
        self.boot_with_cards()
        # SDHI0, SDHI2 and SDHI3 are used on Salvator-XS; SDHI1 is not.
        # They probe asynchronously, in any order.
        self.check_guest_value('dmesg | grep -c "renesas_sdhi_internal_dmac '
                               'ee1[046]0000.mmc: mmc[0-2] base"', 'HOSTS', 3)
        # The eMMC on an 8-bit bus, the SD card 4-bit, with their sizes
        self.check_guest_value('echo $(cat /sys/block/mmcblk0/size)/'
                               '$(cat /sys/block/mmcblk1/size)', 'SIZES',
                               f'{self.EMMC_SIZE // 512}/{self.SD_SIZE // 512}')
        self.check_guest_value('echo $(grep -c "bus width:.*(8 bits)" '
                               '/sys/kernel/debug/mmc0/ios)/'
                               '$(grep -c "bus width:.*(4 bits)" '
                               '/sys/kernel/debug/mmc1/ios)', 'WIDTH', '1/1')
        self.check_guest_value('grep ee140000.mmc /proc/interrupts '
                               '> /tmp/irq0; echo saved', 'IRQ0', 'saved')

        dma_before = self.qom(2, 'x-dma-transfers')
        pio_before = self.qom(2, 'x-pio-blocks')
        # 64 MiB read with O_DIRECT through the DMAC
        self.expect_sha('dd if=/dev/mmcblk0 bs=1M count=64 iflag=direct '
                        '2>/dev/null', sha256_of(self.emmc, 0, self.IO_SIZE))
        # 64 MiB written from the SD card to the eMMC, O_DIRECT both ways
        self.check_guest_value('dd if=/dev/mmcblk1 of=/dev/mmcblk0 bs=1M '
                               f'count=64 seek={self.WRITE_OFFSET // MiB} '
                               'iflag=direct oflag=direct 2>/dev/null; '
                               'echo $?', 'WRITE', 0)
        # The data went by DMA, not through SD_BUF0
        self.assertGreaterEqual(self.qom(2, 'x-dma-transfers') - dma_before,
                                2 * 64)
        self.assertEqual(self.qom(2, 'x-pio-blocks'), pio_before)
        self.assertGreaterEqual(self.qom(2, 'x-dma-bytes'), 2 * self.IO_SIZE)
        # ... and the SDHI interrupt counted it
        self.check_guest_value('grep ee140000.mmc /proc/interrupts | '
                               'cmp -s - /tmp/irq0; echo $?', 'IRQCHANGED', 1)
        self.power_off()
        self.assertEqual(sha256_of(self.emmc, self.WRITE_OFFSET,
                                   self.IO_SIZE),
                         sha256_of(self.sd, 0, self.IO_SIZE))

        # A second boot on the same image reads back what was written
        self._vms.pop('default')
        self.boot_with_cards()
        self.expect_sha(f'dd if=/dev/mmcblk0 bs=1M count=64 '
                        f'skip={self.WRITE_OFFSET // MiB} iflag=direct '
                        '2>/dev/null', sha256_of(self.sd, 0, self.IO_SIZE))
        self.power_off()

    def migrate_to_file(self):
        """Migrate the guest into a file; the source stays, paused"""
        state = os.path.join(self.workdir, 'migration.state')
        self.vm.cmd('migrate', uri=f'exec:cat > {state}')
        while self.vm.cmd('query-migrate')['status'] not in ('completed',
                                                              'failed'):
            time.sleep(0.1)
        self.assertEqual(self.vm.cmd('query-migrate')['status'], 'completed')
        return state

    def resume_from_file(self, state, drives):
        """A new QEMU with @drives takes over the guest in @state"""
        self.vm.shutdown()
        self._vms.pop('default')
        kernel, initrd = self.guest_files()
        self.vm.add_args('-smp', '2', '-m', '1G', *drives,
                         '-kernel', kernel, '-initrd', initrd,
                         '-append', self.KERNEL_COMMAND_LINE,
                         '-incoming', 'defer')
        self.vm.set_console()
        self.vm.launch()
        self.vm.cmd('migrate-incoming', uri=f'exec:cat {state}')
        while self.vm.cmd('query-status')['status'] == 'inmigrate':
            time.sleep(0.1)
        # A guest stopped before it was migrated arrives stopped
        if self.vm.cmd('query-status')['status'] == 'paused':
            self.vm.cmd('cont')
        self.assertEqual(self.vm.cmd('query-status')['status'], 'running')

    # SDHI2's registers (renesas-sdhi-util.h of the qtests)
    SDHI2 = 0xee140000
    SD_INFO1, SD_INFO2, SD_INFO1_MASK, DM_CM_INFO1 = 0x070, 0x078, 0x080, 0x840
    INFO2_CBSY = 1 << 14
    RSPEND_ACCESSEND = 0x5
    DTRANEND1 = 1 << 20

    def request_in_flight(self):
        """What the paused SDHI2's registers say of the command Linux gave
        it: busy (CBSY: a command sequence runs), or ended with an
        interrupt that Linux has not acknowledged yet; None when idle."""
        def reg(off):
            return self.read_phys(self.SDHI2 + off)
        info1 = reg(self.SD_INFO1) & ~reg(self.SD_INFO1_MASK)
        if reg(self.SD_INFO2) & self.INFO2_CBSY:
            return 'CBSY'
        if info1 & self.RSPEND_ACCESSEND:
            return f'SD_INFO1 {info1:#x} pending'
        if reg(self.DM_CM_INFO1) & self.DTRANEND1:
            return 'DTRANEND1 pending'
        return None

    def test_migration_during_read(self):
        self.make_images()
        self.boot_with_cards()
        # A long read in the background (in 64 KiB requests, into tmpfs,
        # hashed afterwards: the eMMC is busy most of the time)
        self.run_in_guest('(dd if=/dev/mmcblk0 of=/tmp/data bs=64k '
                          f'count={self.IO_SIZE // (64 * KiB)} iflag=direct '
                          '2>/dev/null; sha256sum /tmp/data | cut -d" " -f1 '
                          '> /tmp/sum) & echo "START""ED"', 'STARTED')
        while self.qom(2, 'x-dma-bytes') < 4 * MiB:
            time.sleep(0.01)
        # Stopped at a moment when a request of the read is in flight:
        # stop drains the card's backend, so the request has ended in the
        # SDHI, but Linux has not seen it end.  The state saved holds it.
        in_flight = None
        for _ in range(100):
            self.vm.cmd('stop')
            if self.qom(2, 'x-dma-bytes') >= self.IO_SIZE:
                break           # too late: the read is over
            in_flight = self.request_in_flight()
            if in_flight:
                break
            self.vm.cmd('cont')
            time.sleep(random.uniform(0, 0.01))
        self.log.info('stopped with %s', in_flight)
        self.assertIsNotNone(in_flight, 'the VM never stopped with a request '
                             'of the read in flight')
        state = self.migrate_to_file()
        # The read was in flight: some of it done, not all
        self.assertLess(self.qom(2, 'x-dma-bytes'), self.IO_SIZE)
        self.resume_from_file(state, self.drives())
        # The background read finishes on the new QEMU
        self.check_guest_value('while [ ! -s /tmp/sum ]; do sleep 1; done; '
                               'cat /tmp/sum', 'SHA',
                               sha256_of(self.emmc, 0, self.IO_SIZE))
        self.power_off()

    # An eMMC that reads SLOW_BPS: each 1 MiB request of the DMA waits
    # about 4 s for the throttle, SLOW_SIZE takes about 12 s
    SLOW_BPS = 256 * KiB
    SLOW_SIZE = 4 * MiB
    # Far below the 4 s that a request held the BQL for before
    STALL_LIMIT = 1.0

    def slow_drives(self):
        return ('-drive', f'if=sd,index=2,file={self.emmc},format=raw,'
                f'throttling.bps-read={self.SLOW_BPS}',
                '-drive', f'if=sd,index=0,file={self.sd},format=raw')

    def test_throttled_read(self):
        """The card's backend works without the BQL: while a slow read is
        in flight the monitor answers and the other CPU runs, and the read
        survives a migration."""
        self.make_images()
        self.boot(2, extra_args=self.slow_drives())
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        base = self.qom(2, 'x-dma-bytes')
        # CPU 1 notes the time every 20 ms; CPU 0 reads
        self.run_in_guest('(taskset 2 sh -c "while :; do cut -d\\" \\" -f1 '
                          '/proc/uptime; usleep 20000; done" > /tmp/up &) ; '
                          f'(taskset 1 dd if=/dev/mmcblk0 bs=1M '
                          f'count={self.SLOW_SIZE // MiB} iflag=direct '
                          '2>/dev/null | sha256sum | cut -d" " -f1 '
                          '> /tmp/sum) & echo "START""ED"', 'STARTED')
        while self.qom(2, 'x-dma-bytes') - base < MiB:
            time.sleep(0.1)
        worst = 0
        for _ in range(20):
            start = time.monotonic()
            self.vm.cmd('query-status')
            worst = max(worst, time.monotonic() - start)
            time.sleep(0.1)
        self.log.info('slowest monitor answer during the read: %.1f ms',
                      worst * 1000)
        self.assertLess(worst, self.STALL_LIMIT)
        # The longest the other CPU went without its 20 ms tick, in ms
        gap = self.guest_int('awk \'NR > 1 && $1 - p > m { m = $1 - p } '
                             '{ p = $1 } END { print int(m * 1000) }\' '
                             '/tmp/up', 'GAP')
        self.log.info('longest gap of the ticking CPU: %d ms', gap)
        self.assertLess(gap, self.STALL_LIMIT * 1000)

        # Migrated with the read in flight
        state = self.migrate_to_file()
        self.assertLess(self.qom(2, 'x-dma-bytes') - base, self.SLOW_SIZE)
        self.resume_from_file(state, self.slow_drives())
        self.check_guest_value('while [ ! -s /tmp/sum ]; do sleep 1; done; '
                               'cat /tmp/sum', 'SHA',
                               sha256_of(self.emmc, 0, self.SLOW_SIZE))
        self.power_off()


class RCarGen3IPMMU(RCarGen3Base):
    """The SDHIs behind IPMMU-DS1: Linux maps a whole block request to one
    IOVA range, so the single-segment DMAC moves many scattered pages in
    one transfer.  The same kernel with iommu=off is the baseline."""

    IO_SIZE = 128 * MiB
    EMMC_SIZE = 2 * IO_SIZE

    def make_emmc(self):
        self.emmc = os.path.join(self.workdir, 'emmc.img')
        make_image(self.emmc, self.EMMC_SIZE, self.IO_SIZE, 4)

    def ipmmu_qom(self, prop):
        return self.vm.cmd('qom-get', path='/machine/soc/ipmmu-ds1',
                           property=prop)

    def read_and_write(self):
        """128 MiB O_DIRECT read in 1 MiB blocks, checked against the host
        file, kept in tmpfs and written back 128 MiB further on.  Returns
        the SDHI2 DMA transfers and the block-layer requests of the read."""
        # Keep the host awake: every runtime resume resets it, and Linux
        # then retunes the HS400 eMMC (tmio_mmc_reset()), whose 16
        # tuning blocks are DMA transfers too.  The pipe below leaves the
        # eMMC idle long enough for the 50 ms autosuspend.
        self.check_guest_value('echo on > /sys/bus/platform/devices/'
                               'ee140000.mmc/power/control; cat /sys/bus/'
                               'platform/devices/ee140000.mmc/power/'
                               'runtime_status', 'RPM', 'active')
        transfers = self.qom(2, 'x-dma-transfers')
        self.check_guest_value('cut -c1-8 /sys/block/mmcblk0/stat '
                               '> /tmp/ios; echo saved', 'IOS', 'saved')
        self.expect_sha(f'dd if=/dev/mmcblk0 bs=1M count={self.IO_SIZE // MiB}'
                        ' iflag=direct 2>/dev/null | tee /tmp/data',
                        sha256_of(self.emmc, 0, self.IO_SIZE))
        transfers = self.qom(2, 'x-dma-transfers') - transfers
        # Field 1 of the stat file: read requests completed
        ios = self.guest_int('echo $(( $(cut -c1-8 /sys/block/mmcblk0/stat)'
                             ' - $(cat /tmp/ios) ))', 'READIOS')
        self.check_guest_value(f'dd if=/tmp/data of=/dev/mmcblk0 bs=1M '
                               f'seek={self.IO_SIZE // MiB} oflag=direct '
                               '2>/dev/null; echo $?', 'WRITE', 0)
        self.log.info('128 MiB O_DIRECT read: %d block requests, %d SDHI '
                      'DMA transfers; largest transfer %d bytes, at most %d '
                      'physical runs in one', ios, transfers,
                      self.qom(2, 'x-dma-largest-transfer'),
                      self.qom(2, 'x-dma-max-phys-runs'))
        return transfers, ios

    def check_written(self):
        self.assertEqual(sha256_of(self.emmc, self.IO_SIZE, self.IO_SIZE),
                         sha256_of(self.emmc, 0, self.IO_SIZE))

    def test_merged_segments(self):
        self.make_emmc()
        self.boot(2, extra_args=('-drive',
                                 f'if=sd,index=2,file={self.emmc},format=raw'))
        self.wait_for_console_pattern(
            'ipmmu-vmsa e67b0000.iommu: IPMMU context 0 is reserved')
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.check_guest_value('dmesg | grep -c "ee140000.mmc: Adding to '
                               'iommu group"', 'GROUPED', 1)
        self.check_guest_value('dmesg | grep -c -E "ee140000.mmc: '
                               '(Using|Reusing) IPMMU context [1-7]"',
                               'CONTEXT', 1)
        self.check_guest_value('ls /sys/kernel/iommu_groups/*/devices/ | '
                               'grep -c "^ee140000.mmc$"', 'INGROUP', 1)
        self.check_guest_value('cat /sys/block/mmcblk0/queue/max_segments',
                               'MAXSEGS', 512)
        transfers, ios = self.read_and_write()
        # Requests of 1 MiB: each is one DMA transfer over scattered pages
        self.assertLessEqual(ios, 2 * self.IO_SIZE // MiB)
        self.assertLessEqual(transfers, 2 * self.IO_SIZE // MiB)
        self.assertGreater(self.qom(2, 'x-dma-largest-transfer'), 64 * KiB)
        self.assertGreaterEqual(self.qom(2, 'x-dma-multi-run-transfers'),
                                self.IO_SIZE // MiB // 2)
        self.assertGreater(self.qom(2, 'x-dma-max-phys-runs'), 1)
        self.assertGreater(self.ipmmu_qom('x-translations'), 0)
        self.assertEqual(self.ipmmu_qom('x-faults'), 0)
        self.check_guest_value('dmesg | grep -c -E "TLB sync timed out|'
                               'Unhandled fault|Page Table Walk Abort"',
                               'IPMMUERRORS', 0)
        self.power_off()
        self.check_written()

    # The devices of the DMA path: IPMMU-MM, IPMMU-DS1, SDHI0/2/3
    PROBED = r'(e67b0000\.iommu|e7740000\.iommu|ee1[046]0000\.mmc)'

    def test_probe_order(self):
        """With initcall_debug Linux logs every probe and its result.  As on
        the board (the DT lists the nodes in unit-address order), IPMMU-MM,
        IPMMU-DS1 and the SDHIs each probe once and none is deferred
        (-517): deferred, DS1 and the SDHIs were retried together, and an
        SDHI that ran between DS1's iommu_device_register() and its
        platform_set_drvdata() (ipmmu_probe()) probed without its
        IOMMU."""
        self.KERNEL_COMMAND_LINE += ' initcall_debug'
        self.boot(2)
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.check_guest_value(f'dmesg | grep -c -E "probe of {self.PROBED} '
                               'returned -?517 "', 'DEFERRED', 0)
        self.check_guest_value(f'dmesg | grep -c -E "probe of {self.PROBED} '
                               'returned 0 "', 'BOUND', 5)
        self.check_guest_value('ls /sys/kernel/iommu_groups/*/devices/ | '
                               'grep -c "^ee1[046]0000.mmc$"', 'INGROUP', 3)
        self.power_off()

    def test_without_iommu(self):
        self.make_emmc()
        self.boot(2, machine_opts='iommu=off',
                  extra_args=('-drive',
                              f'if=sd,index=2,file={self.emmc},format=raw'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.check_guest_value('dmesg | grep -c ipmmu', 'IPMMU', 0)
        self.check_guest_value('cat /sys/block/mmcblk0/queue/max_segments',
                               'MAXSEGS', 1)
        transfers, ios = self.read_and_write()
        # One physical run per transfer, so many more, smaller requests
        self.assertGreater(ios, 2 * self.IO_SIZE // MiB)
        self.assertGreater(transfers, 2 * self.IO_SIZE // MiB)
        self.assertEqual(self.qom(2, 'x-dma-max-phys-runs'), 1)
        self.assertEqual(self.qom(2, 'x-dma-multi-run-transfers'), 0)
        self.assertEqual(self.ipmmu_qom('x-translations'), 0)
        self.power_off()
        self.check_written()


class RCarGen3Emmc(RCarGen3Base):
    """Helpers for the eMMC on SDHI2 (test_rcar_gen3_mmc_test.py
    uses them too)."""

    EMMC_SIZE = 256 * MiB
    IO_SIZE = 64 * MiB
    WRITE_OFFSET = 128 * MiB
    TAPSET = 0xee141008         # SCC TAPSET of SDHI2
    POCCTRL0 = 0xe6060380       # PFC: 1 = 3.3 V, 0 = 1.8 V
    SD2_POC = 0x0007ff00        # GP3_8-11, GP4_0-6 (pfc-r8a77951.c)
    SCC_TAPS = 8

    def boot_emmc(self, machine_opts='', extra_args=(), smp=2, card=None,
                  drive_opts=''):
        """Boot with the eMMC image on SDHI2: the board's card (-drive
        if=sd, with @drive_opts), or @card, the options of a -device emmc
        of its own."""
        self.emmc = os.path.join(self.workdir, 'emmc.img')
        make_image(self.emmc, self.EMMC_SIZE, self.IO_SIZE, 5)
        if card is None:
            drive = ('-drive', f'if=sd,index=2,file={self.emmc},format=raw'
                     f'{drive_opts}')
        else:
            drive = ('-drive', f'if=none,id=emmc0,file={self.emmc},format=raw',
                     '-device', f'emmc,drive=emmc0,bus=sdhi2.sd-bus{card}')
        self.boot(smp, machine_opts=machine_opts,
                  extra_args=(*drive, *extra_args))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')

    def ios(self, field, name):
        return (f'sed -n "s/^{field}:[[:space:]]*//p" '
                f'/sys/kernel/debug/mmc0/ios', name)

    def check_mode(self, card, timing, clock_hz):
        """What Linux reports: the card line at probe time, then the
        timing and clock in debugfs ios."""
        self.check_guest_value('dmesg | grep -c "mmc0: new '
                               f'{card} MMC card at address"', 'CARD', 1)
        self.check_guest_value(*self.ios('timing spec', 'TIMING'), timing)
        self.check_guest_value(*self.ios('clock', 'CLOCK'), f'{clock_hz} Hz')
        self.check_guest_value(*self.ios('bus width', 'WIDTH'), '3 (8 bits)')
        self.check_guest_value(*self.ios('signal voltage', 'VOLTAGE'),
                               '1 (1.80 V)')
        self.check_guest_value('dmesg | grep -c -E "tuning execution failed|'
                               'error -[0-9]+ whilst initialising"',
                               'INITERRORS', 0)
        # The same mode at the end of the test (power_off())
        self.expected_ios = (('timing spec', timing),
                             ('bus width', '3 (8 bits)'))

    def check_read_and_write(self):
        """64 MiB O_DIRECT read checked against the host file, then copied
        128 MiB further on with O_DIRECT, checked on the host later."""
        self.expect_sha(f'dd if=/dev/mmcblk0 bs=1M count={self.IO_SIZE // MiB}'
                        ' iflag=direct 2>/dev/null',
                        sha256_of(self.emmc, 0, self.IO_SIZE))
        self.check_guest_value('dd if=/dev/mmcblk0 of=/dev/mmcblk0 bs=1M '
                               f'count={self.IO_SIZE // MiB} '
                               f'seek={self.WRITE_OFFSET // MiB} '
                               'iflag=direct oflag=direct 2>/dev/null; '
                               'echo $?', 'WRITE', 0)

    def check_written(self):
        self.assertEqual(sha256_of(self.emmc, self.WRITE_OFFSET,
                                   self.IO_SIZE),
                         sha256_of(self.emmc, 0, self.IO_SIZE))

    def tapset(self):
        return self.read_phys(self.TAPSET) % self.SCC_TAPS

    def io_and_power_off(self):
        """Read and write on the eMMC, power off, check the write."""
        self.check_read_and_write()
        self.power_off()
        self.check_written()


class RCarGen3EmmcModes(RCarGen3Emmc):
    """The eMMC in the bus modes of the board: HS400 (the default) and
    HS200 with Linux's SCC tuning, HS52 without tuning (emmc-mode), and
    the tuning with taps that fail, or that start failing at run time."""

    def test_hs400(self):
        self.boot_emmc()
        self.check_mode('HS400', '10 (mmc HS400)', 200000000)
        # sh-pfc applied the sd2 pin group: its POCCTRL0 bits say 1.8 V
        self.check_guest_value('dmesg | grep -c "sh-pfc e6060000.pinctrl: '
                               'r8a77951_pfc support registered"', 'PFC', 1)
        self.assertEqual(self.read_phys(self.POCCTRL0) & self.SD2_POC, 0)
        self.io_and_power_off()

    def test_hs400_device_emmc(self):
        """QEMU's user-creatable eMMC with -device on SDHI2's bus, its
        hs400 property on: the same HS400 card as the board's own."""
        self.boot_emmc(card=',hs400=on')
        self.check_mode('HS400', '10 (mmc HS400)', 200000000)
        self.io_and_power_off()

    def test_hs200(self):
        self.boot_emmc(machine_opts='emmc-mode=hs200')
        self.check_mode('HS200', '9 (mmc HS200)', 200000000)
        self.io_and_power_off()

    def test_hs52(self):
        self.boot_emmc(machine_opts='emmc-mode=hs52')
        self.check_mode('high speed', '1 (mmc high-speed)', 52000000)
        # No tuning in this mode: the SCC never sampled a read
        self.assertEqual(self.qom(2, 'x-tap-crc-errors'), 0)
        self.io_and_power_off()

    def test_tuning_with_bad_taps(self):
        """Taps 2 and 3 sample outside the data eye: Linux's tuning sees
        their CRC errors and settles on a tap that works."""
        bad = {2, 3}
        self.boot_emmc(extra_args=('-global', 'renesas-sdhi.x-bad-taps=' +
                                   hex(sum(1 << t for t in bad))))
        self.check_mode('HS400', '10 (mmc HS400)', 200000000)
        # Each bad tap fails twice per tuning (execute_tuning tries all twice)
        self.assertGreaterEqual(self.qom(2, 'x-tap-crc-errors'), 2 * len(bad))
        self.assertNotIn(self.tapset(), bad)
        self.io_and_power_off()

    def retune_after_drift(self, machine_opts):
        """The eye moves under the tap that tuning chose: the reads that
        fail make Linux retune, and the data still arrives intact."""
        self.boot_emmc(machine_opts=machine_opts)
        if machine_opts:
            self.check_mode('HS200', '9 (mmc HS200)', 200000000)
        else:
            self.check_mode('HS400', '10 (mmc HS400)', 200000000)
        tap = self.tapset()
        errors = self.qom(2, 'x-tap-crc-errors')
        bad = {tap, (tap + 1) % self.SCC_TAPS}
        self.vm.cmd('qom-set', path='/machine/soc/sdhi2', property='x-bad-taps',
                    value=sum(1 << t for t in bad))
        self.check_read_and_write()
        self.assertGreater(self.qom(2, 'x-tap-crc-errors'), errors)
        self.assertNotIn(self.tapset(), bad)
        self.check_guest_value('dmesg | grep -c "mmc0: new"', 'CARDS', 1)
        self.power_off()
        self.check_written()

    def test_retune_hs200(self):
        self.retune_after_drift('emmc-mode=hs200')

    def test_retune_hs400(self):
        self.retune_after_drift('')


class RCarGen3EmmcCache(RCarGen3Emmc):
    """The eMMC's volatile write cache as Linux uses it: turned on at card
    init (SWITCH CACHE_CTRL), flushed on fsync (SWITCH FLUSH_CACHE).  What
    was flushed survives QEMU killed with SIGKILL, as data on a board
    survives its power cut.  The image is qcow2: its cluster tables sit
    in QEMU's memory until a flush, so that data written but not flushed
    is lost with QEMU, as it may be on the board."""

    EXT_CSD = '/sys/kernel/debug/mmc0/mmc0:0001/ext_csd'
    FLUSHED = 128 * MiB         # copied there with fsync
    UNFLUSHED = 192 * MiB       # copied there without
    COPY = 4 * MiB

    def ext_csd(self, index, count, name):
        """EXT_CSD bytes as Linux reads them from the card, in hex"""
        return self.guest_value(f'cut -c {2 * index + 1}-'
                                f'{2 * (index + count)} {self.EXT_CSD}', name)

    def copy_command(self, offset, fsync):
        return (f'dd if=/dev/mmcblk0 of=/dev/mmcblk0 bs=1M '
                f'count={self.COPY // MiB} seek={offset // MiB} '
                'iflag=direct oflag=direct'
                f'{" conv=fsync" if fsync else ""} 2>/dev/null; echo $?')

    def flushes(self):
        """Flush requests the block layer completed (16th stat field)"""
        return self.guest_int("awk '{print $16}' /sys/block/mmcblk0/stat",
                              'FLUSHES')

    def test_flush_survives_power_loss(self):
        raw = os.path.join(self.workdir, 'emmc.raw')
        make_image(raw, self.EMMC_SIZE, self.IO_SIZE, 7)
        image = os.path.join(self.workdir, 'emmc.qcow2')
        qemu_img = get_qemu_img(self)
        subprocess.run([qemu_img, 'convert', '-f', 'raw', '-O', 'qcow2',
                        raw, image], check=True)
        self.boot(2, extra_args=('-drive', f'if=sd,index=2,file={image},'
                                 'format=qcow2'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        # CACHE_SIZE: 8 MiB in kilobits, little-endian; CACHE_CTRL on
        self.assertEqual(self.ext_csd(249, 4, 'CACHESIZE'), '00000100')
        self.assertEqual(self.ext_csd(33, 1, 'CACHECTRL'), '01')
        self.check_guest_value('cat /sys/block/mmcblk0/queue/write_cache',
                               'WRITECACHE', 'write back')
        before = self.flushes()
        self.check_guest_value(self.copy_command(self.FLUSHED, True),
                               'FLUSHED', 0)
        self.assertGreater(self.flushes(), before)
        self.check_guest_value(self.copy_command(self.UNFLUSHED, False),
                               'UNFLUSHED', 0)
        self.check_clean_log()
        # The power cut: no shutdown, no flush
        self.vm.kill()
        subprocess.run([qemu_img, 'convert', '-f', 'qcow2', '-O', 'raw',
                        image, raw], check=True)
        self.assertEqual(sha256_of(raw, self.FLUSHED, self.COPY),
                         sha256_of(raw, 0, self.COPY),
                         'data flushed before the power cut was lost')
        unflushed = sha256_of(raw, self.UNFLUSHED, self.COPY)
        self.log.info('data not flushed: %s',
                      'kept' if unflushed == sha256_of(raw, 0, self.COPY)
                      else 'lost')


class RCarGen3EmmcTiming(RCarGen3Emmc):
    """timing=board under -icount: the eMMC's transfers take the time of
    the HS400 bus and of the card, and the guest's own clock shows it.

    The same reads and writes run twice under -icount, where guest time
    counts the guest's instructions: with timing=off (and the backend
    waited for, so that the clock cannot jump ahead while the host reads)
    they take the guest's CPU time only; with timing=board each MiB must
    take longer by what the bus and the card need for it.  Writes go to
    the card's 8 MiB write cache at the bus's rate; the card programs it
    at its write rate meanwhile, and a flush waits for that."""

    # HS400: 8 data lines, 200 MHz DDR
    HS400_BYTES_PER_SEC = 400 * 1000 * 1000
    # The eMMC of timing=board: Samsung's published eMMC 5.1 figures,
    # sequential rates and 1 / random 4 KiB IOPS less 4 KiB at that rate
    CARD = {'read': (250 * 1000 * 1000, 1 / 11000 - 4096 / 250e6),
            'write': (125 * 1000 * 1000, 1 / 13000 - 4096 / 125e6)}
    CACHE = 8 * MiB
    COUNT_MIB = 64
    # A write that fits in the cache, then its flush
    SMALL_MIB = 4

    # The guest's clock in nanoseconds: /proc/uptime counts in 10 ms
    NOW = 'awk \'NR == 3 { print $3; exit }\' /proc/timer_list'

    def dd_seconds(self, dd_args, count=COUNT_MIB):
        """How long an O_DIRECT dd of @count MiB takes by the guest's
        clock"""
        nsec = self.guest_int(f't0=$({self.NOW}); '
                              f'dd {dd_args} bs=1M count={count} '
                              '2>/dev/null; '
                              f't1=$({self.NOW}); echo $((t1 - t0))', 'NSEC')
        self.assertGreater(nsec, 0)
        return nsec / 1e9

    def write_and_flush_seconds(self):
        """How long a SMALL_MIB write takes, and then a flush (an fsync of
        nothing written), in one command: between two, the guest idles
        and under icount sleep=off its clock jumps ahead.  A read first
        wakes the host up (runtime PM) within the command too."""
        times = self.guest_value(
            'dd if=/dev/mmcblk0 of=/dev/null count=1 iflag=direct '
            f'2>/dev/null; t0=$({self.NOW}); '
            'dd if=/dev/zero of=/dev/mmcblk0 bs=1M '
            f'count={self.SMALL_MIB} seek={self.COUNT_MIB} oflag=direct '
            f'2>/dev/null; t1=$({self.NOW}); dd if=/dev/zero '
            'of=/dev/mmcblk0 count=0 conv=fsync 2>/dev/null; '
            f't2=$({self.NOW}); echo $((t1 - t0)) $((t2 - t1))', 'NSECS')
        write, flush = (self.as_int(t, 'NSECS') for t in times.split())
        return write / 1e9, flush / 1e9

    def timed_io(self, machine_opts, extra_args=()):
        """Seconds per MiB of a read and a write on the eMMC in HS400.
        One vCPU: icount would switch between two on the host's clock."""
        self.boot_emmc(machine_opts=machine_opts, smp=1, extra_args=(
            '-icount', 'shift=0,sleep=off', *extra_args))
        # Guest time runs ahead of the host's: the shell may come up
        # before the eMMC has been probed
        self.check_guest_value('while ! dmesg | grep -q "mmc0: new"; do '
                               'sleep 0.1; done; echo probed', 'EMMC',
                               'probed')
        self.check_mode('HS400', '10 (mmc HS400)', 200000000)
        times = {
            'read': self.dd_seconds('if=/dev/mmcblk0 of=/dev/null '
                                    'iflag=direct') / self.COUNT_MIB,
        }
        times['small'], times['flush'] = self.write_and_flush_seconds()
        times['write'] = self.dd_seconds('if=/dev/zero of=/dev/mmcblk0 '
                                         f'seek={self.COUNT_MIB} '
                                         'oflag=direct') / self.COUNT_MIB
        self.power_off()
        return times

    def test_board_timing(self):
        untimed = self.timed_io('timing=off', (
            '-global', 'renesas-sdhi.x-async-io=off'))
        self._vms.pop('default')
        timed = self.timed_io('timing=board')
        self.check_read(untimed, timed)
        self.check_writes(untimed, timed)

    def log_rates(self, op, untimed, timed, modelled):
        self.log.info('%s: %.2f ms/MiB untimed, %.2f ms/MiB timed '
                      '(%.1f MB/s), %.2f ms/MiB modelled', op,
                      untimed * 1e3, timed * 1e3, MiB / timed / 1e6,
                      modelled * 1e3)

    def check_read(self, untimed, timed):
        card_rate, latency = self.CARD['read']
        rate = min(self.HS400_BYTES_PER_SEC, card_rate)
        modelled = latency + MiB / rate
        self.log_rates('read', untimed['read'], timed['read'], modelled)
        # What timing added is the bus's and the card's time
        added = timed['read'] - untimed['read']
        self.assertGreater(added, modelled * 0.75)
        self.assertLess(added, modelled * 1.25)
        # and the guest never saw more than they allow
        self.assertLessEqual(MiB / timed['read'], rate)

    def check_writes(self, untimed, timed):
        card_rate, latency = self.CARD['write']
        program = self.SMALL_MIB * MiB / card_rate
        self.log.info('%d MiB: %.2f ms written, %.2f ms flushed, %.2f ms '
                      'to program; untimed %.2f ms, %.2f ms',
                      self.SMALL_MIB, timed['small'] * 1e3,
                      timed['flush'] * 1e3, program * 1e3,
                      untimed['small'] * 1e3, untimed['flush'] * 1e3)
        # The cache takes a small write at the bus's rate, far faster
        # than the card programs it, even with no latency at all
        self.assertLess(timed['small'], program * 0.6)
        self.assertGreater(timed['small'] - untimed['small'],
                           self.SMALL_MIB * MiB / self.HS400_BYTES_PER_SEC
                           * 0.75)
        # and its flush waits until it is programmed
        self.assertGreater(timed['small'] + timed['flush'], program * 0.9)
        # A long write runs at the card's rate once the cache is full:
        # the guest's own time of each MiB hides behind the card's
        total = self.COUNT_MIB * MiB
        modelled = max(total / self.HS400_BYTES_PER_SEC,
                       (total - self.CACHE) / card_rate) / self.COUNT_MIB
        self.log_rates('write', untimed['write'], timed['write'], modelled)
        self.assertGreater(timed['write'], modelled * 0.95)
        self.assertLess(timed['write'], (modelled + untimed['write']) * 1.25)


# -icount with a throttled image: each MiB takes the host a quarter of a
# second (test_rcar_gen3_boards.py reads the same on the other boards)
ICOUNT_THROTTLE_BPS = 4 * MiB
ICOUNT_READ = 16 * MiB


class RCarGen3Icount(RCarGen3Emmc):
    """-icount: guest time counts instructions, and with sleep=off an idle
    guest's clock jumps to its next timer at once.  A read from a slow
    host image must still look to Linux like a read, not like a card that
    stopped answering: no request timeout, whatever the host's latency."""

    def throttled_read(self, smp, icount, machine_opts=''):
        """Boot under -icount @icount with a throttled eMMC, read
        ICOUNT_READ bytes with O_DIRECT and check them against the image;
        the log must have no request timeout (power_off())"""
        self.boot_emmc(smp=smp, machine_opts=machine_opts,
                       drive_opts=f',throttling.bps-read={ICOUNT_THROTTLE_BPS}',
                       extra_args=('-icount', icount))
        self.check_emmc_read_once_probed(self.emmc, ICOUNT_READ)
        self.power_off()

    def test_one_cpu_sleep_off(self):
        self.throttled_read(1, 'shift=0,sleep=off')

    def test_two_cpus_sleep_off(self):
        self.throttled_read(2, 'shift=0,sleep=off')

    def test_two_cpus_shift_auto(self):
        self.throttled_read(2, 'shift=auto')

    def test_board_timing_two_cpus(self):
        self.throttled_read(2, 'shift=auto,sleep=off', 'timing=board')


if __name__ == '__main__':
    LinuxKernelTest.main()
