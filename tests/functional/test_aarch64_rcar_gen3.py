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

import os

from qemu_test import LinuxKernelTest
from qemu_test import exec_command_and_wait_for_pattern


class RCarGen3Machine(LinuxKernelTest):

    KERNEL_COMMAND_LINE = 'console=ttySC0,115200 earlycon rdinit=/init'

    def guest_files(self):
        guest = os.getenv('RCAR_GUEST_DIR')
        kernel = os.path.join(guest or '', 'Image-4k')
        initrd = os.path.join(guest or '', 'rootfs.cpio.gz')
        if not (guest and os.path.exists(kernel) and os.path.exists(initrd)):
            if os.getenv('RCAR_REQUIRE_GUEST'):
                self.fail('RCAR_GUEST_DIR does not hold Image-4k and '
                          'rootfs.cpio.gz')
            self.skipTest('set RCAR_GUEST_DIR to the R-Car test guest')
        return kernel, initrd

    def boot(self, smp, machine_opts='', mem='1G'):
        kernel, initrd = self.guest_files()
        self.set_machine('r8a77951-salvator-xs')
        if machine_opts:
            self.vm.add_args('-M', 'r8a77951-salvator-xs,' + machine_opts)
        self.vm.add_args('-smp', str(smp), '-m', mem,
                         '-append', self.KERNEL_COMMAND_LINE)
        self.launch_kernel(kernel, initrd=initrd)
        # The first line of the console comes from earlycon
        self.wait_for_console_pattern(
            'earlycon: scif0 at MMIO 0x00000000e6e88000')

    def run_in_guest(self, command, expect):
        exec_command_and_wait_for_pattern(self, command, expect)

    def power_off(self):
        exec_command_and_wait_for_pattern(self, 'poweroff -f',
                                          'reboot: Power down')
        self.vm.wait()
        self.assertEqual(self.vm.exitcode(), 0)

    def test_boot_smp2(self):
        self.boot(2)
        self.wait_for_console_pattern(
            'Detected Renesas R-Car Gen3 r8a7795 ES3.0')
        self.wait_for_console_pattern(
            'e6e88000.serial: ttySC0 at MMIO 0xe6e88000')
        self.wait_for_console_pattern('RCAR-INIT: up, 2 CPUs online')
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        # A command in the guest, and its output read back
        self.run_in_guest('echo soc=$(cat /sys/devices/soc0/soc_id)'
                          '-$(cat /sys/devices/soc0/revision)',
                          'soc=r8a7795-ES3.0')
        self.run_in_guest('echo sum=$((6 * 7))', 'sum=42')
        # Both CPUs are Cortex-A57 (MIDR part 0xd07), the boot cluster
        self.run_in_guest('echo a57=$(grep -c "CPU part.*0xd07" /proc/cpuinfo)',
                          'a57=2')
        self.power_off()

    def test_boot_smp8(self):
        # All the RAM the board has: 896 MiB low, then three 1 GiB banks
        self.boot(8, mem='3968M')
        self.wait_for_console_pattern('smp: Brought up 1 node, 8 CPUs')
        self.wait_for_console_pattern('RCAR-INIT: up, 8 CPUs online')
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        # Four Cortex-A57 (0xd07) and four Cortex-A53 (0xd03), as on the H3
        self.run_in_guest('echo a57=$(grep -c "CPU part.*0xd07" /proc/cpuinfo)'
                          ' a53=$(grep -c "CPU part.*0xd03" /proc/cpuinfo)',
                          'a57=4 a53=4')
        # The A53s are the second cluster: MPIDR 0x100..0x103
        self.run_in_guest('echo cluster=$(cat /sys/devices/system/cpu/cpu7/'
                          'topology/cluster_id)', 'cluster=1')
        self.run_in_guest('echo banks: $(grep "System RAM" /proc/iomem | '
                          'cut -d" " -f1 | tr "\\n" " ")',
                          'banks: 48000000-7fffffff 500000000-53fffffff '
                          '600000000-63fffffff 700000000-73fffffff')
        self.power_off()

    def test_boot_prr_es2(self):
        self.boot(1, machine_opts='prr-cut=0x10')
        self.wait_for_console_pattern(
            'Detected Renesas R-Car Gen3 r8a7795 ES2.0')
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.power_off()


if __name__ == '__main__':
    LinuxKernelTest.main()
