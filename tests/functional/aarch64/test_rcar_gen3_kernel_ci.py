#!/usr/bin/env python3
#
# The R-Car Gen3 boards with the command line that kernel CI passes: the
# options of LAVA's qemu device type (the defconfig kernel that kernel CI
# builds is test_rcar_gen3_defconfig.py's).
#
# RCAR_GUEST_DIR and RCAR_REQUIRE_GUEST: see test_rcar_gen3.py.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import subprocess

from qemu_test import LinuxKernelTest
from test_rcar_gen3 import RCarGen3Base

# What LAVA's qemu.jinja2 passes for arch arm64, with the qemu-rcar-gen3
# device type's memory (contrib/lava/device-types/qemu-rcar-gen3.jinja2),
# and the -no-reboot that tuxlava's jobs add
LAVA_OPTIONS = ('-cpu', 'cortex-a57', '-nographic',
                '-net', 'nic,model=virtio,macaddr=52:54:00:12:34:58',
                '-net', 'user', '-m', '4G', '-monitor', 'none', '-no-reboot')


class RCarGen3LavaCommandLine(RCarGen3Base):
    """Salvator-XS (H3) with LAVA's option set and the upstream DTB"""

    def test_lava_options(self):
        kernel, initrd = self.guest_files()
        self.set_machine(self.MACHINE)
        self.vm.add_args(*LAVA_OPTIONS, '-dtb', self.upstream_dtb(),
                         '-append', self.KERNEL_COMMAND_LINE)
        self.launch_kernel(kernel, initrd=initrd)
        self.emmc_absent = True
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        # 4 GiB of DRAM, of which the .dts gives Linux all but the secure
        # firmware's 128 MiB: 896 MiB + 3 x 1 GiB = 3968 MiB = 4063232 KiB
        self.check_guest_value('dmesg | sed -n "s/.*Memory: [0-9]*K\\/'
                               '\\([0-9]*\\)K available.*/\\1/p"',
                               'MEMKIB', 3968 * 1024)
        # -cpu cortex-a57 changes nothing: four A57s and four A53s
        self.check_guest_value('grep -c "CPU part.*0xd07" /proc/cpuinfo',
                               'A57', 4)
        self.check_guest_value('grep -c "CPU part.*0xd03" /proc/cpuinfo',
                               'A53', 4)
        self.power_off()

    def run_qemu(self, *args):
        return subprocess.run([self.qemu_bin, '-display', 'none', '-M',
                               self.MACHINE, *args], capture_output=True,
                              text=True, timeout=60, check=False)

    def test_cpu_max_refused(self):
        """tuxlava's and KernelCI's qemu-arm64 pass -cpu max: the SoC has
        no such core, and QEMU says which it has"""
        proc = self.run_qemu('-cpu', 'max,pauth-impdef=on', '-S')
        self.assertEqual(proc.returncode, 1)
        self.assertIn('Invalid CPU model: max', proc.stderr)
        self.assertIn('cortex-a57, cortex-a53', proc.stderr)


if __name__ == '__main__':
    LinuxKernelTest.main()
