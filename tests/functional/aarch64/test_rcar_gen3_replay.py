#!/usr/bin/env python3
#
# Record and replay on the R-Car Gen3 boards.  A boot with eMMC and SD
# card traffic (O_DIRECT reads and writes, a file system written and
# synced) is recorded with -icount rr=record, then replayed with
# rr=replay on copies of the images as they were before.  The replay must
# print the same console output, byte for byte, and leave the images as
# the recording did.  The cards' I/O is synchronous under -icount, at a
# fixed instruction, so their drives need no blkreplay (which sd-card
# refuses there: a synchronous request would wait for it for ever).
#
# RCAR_GUEST_DIR and RCAR_REQUIRE_GUEST: see test_rcar_gen3.py.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import base64
import os
import re
import shutil
import subprocess
import time

from qemu_test import LinuxKernelTest, get_qemu_img
from qemu_test.ports import Ports
from test_rcar_gen3 import RCarGen3Base, make_image, sha256_of

MiB = 1024 * 1024

# What the guest runs (the initramfs's rcar_script=, then it powers off).
# @EMMC@ and @SD@ are the hosts' device names; the block device of each
# is found through sysfs, as the probe order is not fixed.
GUEST_SCRIPT = r'''
blk() {
    while :; do
        d=$(ls /sys/bus/platform/devices/$1/mmc_host/mmc*/mmc*:*/block \
            2>/dev/null | grep -x "mmcblk[0-9]*")
        [ -n "$d" ] && break
        sleep 0.1
    done
    echo /dev/$d
}
E=$(blk @EMMC@)
S=$(blk @SD@)
echo "RR-EMMC-READ $(dd if=$E bs=1M count=8 iflag=direct 2>/dev/null |
    sha256sum)"
dd if=$E of=$E bs=1M count=4 seek=@COPY_MIB@ iflag=direct oflag=direct \
    2>/dev/null
echo "RR-EMMC-WRITE rc=$?"
echo "RR-SD-READ $(dd if=$S bs=1M count=2 iflag=direct 2>/dev/null |
    sha256sum)"
mke2fs -F $S > /dev/null 2>&1 && mount $S /mnt &&
    dd if=$E of=/mnt/data bs=1M count=2 2>/dev/null && sync &&
    echo "RR-SD-FILE $(sha256sum < /mnt/data)" && umount /mnt
echo "RR-SD-FS rc=$?"
echo "RR-ERRORS $(dmesg | grep -c -i -E 'mmc.*(error|timeout)')"
'''


class RCarGen3ReplayTests:
    """Record and replay on one board, for a subclass of RCarGen3Base that
    says which board it is (not a TestCase itself, so that unittest runs
    them only through the boards)."""

    EMMC_SIZE = 64 * MiB
    SD_SIZE = 32 * MiB
    # Where the guest copies the eMMC's first 4 MiB to
    COPY_MIB = 32
    # QEMU's own replay tests run at 2^7 ns per instruction
    SHIFT = 7
    # Seconds a recording or a replay may take (10 to 40 here)
    RUN_TIMEOUT = 300

    # Set by the subclasses: the board's .dts
    MEM = None
    EMMC_SDHI = None
    SD_SDHI = None

    def make_images(self):
        self.images = {
            'emmc': (self.EMMC_SDHI, os.path.join(self.workdir, 'emmc.img')),
            'sd': (self.SD_SDHI, os.path.join(self.workdir, 'sd.img')),
        }
        make_image(self.images['emmc'][1], self.EMMC_SIZE, 8 * MiB, 31)
        make_image(self.images['sd'][1], self.SD_SIZE, 2 * MiB, 32)

    def copy_images(self, suffix):
        """Copies of the images, for the replay to start from"""
        out = {}
        for name, (index, path) in self.images.items():
            out[name] = (index, f'{path}.{suffix}')
            shutil.copyfile(path, out[name][1])
        return out

    def script(self):
        return (GUEST_SCRIPT
                .replace('@EMMC@', f'ee1{2 * self.EMMC_SDHI}0000.mmc')
                .replace('@SD@', f'ee1{2 * self.SD_SDHI}0000.mmc')
                .replace('@COPY_MIB@', str(self.COPY_MIB)))

    def run_vm(self, mode, images, upstream):
        """Boot in @mode (record or replay) on @images until the guest
        powers off; returns the console output and the seconds it took"""
        kernel, initrd = self.guest_files()
        log = os.path.join(self.workdir, f'{mode}.console')
        rrfile = os.path.join(self.workdir, 'replay.bin')
        script = base64.b64encode(self.script().encode()).decode()
        vm = self.get_vm(name=mode)
        vm.set_machine(self.MACHINE)
        vm.add_args('-smp', '1', '-m', self.MEM,
                    '-kernel', kernel, '-initrd', initrd,
                    '-append', 'console=ttySC0,115200 rdinit=/init '
                               f'rcar_script={script}',
                    '-serial', f'file:{log}',
                    '-icount', f'shift={self.SHIFT},rr={mode},rrfile={rrfile}')
        if upstream:
            vm.add_args('-dtb', self.upstream_dtb())
        for index, path in images.values():
            vm.add_args('-drive', f'if=sd,index={index},file={path},'
                                  'format=raw')
        start = time.monotonic()
        vm.launch()
        vm.wait(timeout=self.RUN_TIMEOUT)
        elapsed = time.monotonic() - start
        self.assertEqual(vm.exitcode(), 0, f'{mode}: QEMU failed')
        with open(log, 'rb') as f:
            return f.read(), elapsed

    def check_recording(self, console, before):
        """What the guest printed: the images' data as they were before"""
        text = console.decode(errors='replace')
        self.log.info('recorded:\n%s', '\n'.join(
            l for l in text.splitlines() if l.startswith('RR-')))
        emmc = before['emmc'][1]
        sd = before['sd'][1]
        for line in (f'RR-EMMC-READ {sha256_of(emmc, 0, 8 * MiB)}',
                     'RR-EMMC-WRITE rc=0',
                     f'RR-SD-READ {sha256_of(sd, 0, 2 * MiB)}',
                     f'RR-SD-FILE {sha256_of(emmc, 0, 2 * MiB)}',
                     'RR-SD-FS rc=0',
                     'RR-ERRORS 0', 'RCAR-SCRIPT-END rc=0'):
            self.assertRegex(text, rf'(?m)^{re.escape(line)}\s*( -)?\r?$')

    def record_and_replay(self, upstream):
        self.make_images()
        before = self.copy_images('before')
        recorded, t_record = self.run_vm('record', self.images, upstream)
        # The recording read what the images held, wrote the copy
        self.assertEqual(sha256_of(self.images['emmc'][1],
                                   self.COPY_MIB * MiB, 4 * MiB),
                         sha256_of(before['emmc'][1], 0, 4 * MiB))
        self.check_recording(recorded, before)
        replayed, t_replay = self.run_vm('replay', before, upstream)
        self.log.info('record %.1f s, replay %.1f s', t_record, t_replay)
        self.assertEqual(replayed, recorded)
        for name, (_, path) in self.images.items():
            size = os.path.getsize(path)
            self.assertEqual(sha256_of(before[name][1], 0, size),
                             sha256_of(path, 0, size), f'{name} image')

    def test_generated_dt(self):
        self.record_and_replay(upstream=False)

    def test_upstream_dtb(self):
        self.record_and_replay(upstream=True)


class RCarGen3H3Replay(RCarGen3ReplayTests, RCarGen3Base):
    MACHINE = 'r8a77951-salvator-xs'
    MEM = '1G'
    EMMC_SDHI = 2
    SD_SDHI = 0


class RCarGen3M3NReplay(RCarGen3ReplayTests, RCarGen3Base):
    MACHINE = 'r8a77965-salvator-xs'
    MEM = '1G'
    EMMC_SDHI = 2
    SD_SDHI = 0


class RCarGen3E3Replay(RCarGen3ReplayTests, RCarGen3Base):
    MACHINE = 'r8a77990-ebisu'
    MEM = '896M'
    EMMC_SDHI = 3
    SD_SDHI = 1


# The reverse-debugging guest: where the SDHI's interrupt handler is
# (tmio_mmc_irq(), drivers/mmc/host/tmio_mmc_core.c), then eMMC reads
DEBUG_SCRIPT = r'''
echo "RR-HANDLER $(grep -w tmio_mmc_irq /proc/kallsyms | cut -d" " -f1)"
while ! [ -b /dev/mmcblk0 ]; do sleep 0.1; done
dd if=/dev/mmcblk0 of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null
'''


class RCarGen3ReverseDebug(RCarGen3Base):
    """Reverse debugging on a recording, in the form of QEMU's own test
    (tests/functional/reverse_debugging.py): gdb stops in the SDHI's
    interrupt handler, steps forward, steps back instruction by
    instruction to its entry with the same registers, steps forward the
    same way again, and reverse-continue finds the entry again."""

    SHIFT = 7
    STEPS = 12
    RUN_TIMEOUT = 300
    # The registers compared at the handler's entry
    REGS = ('pc', 'sp', 'x0', 'x1', 'x29', 'x30')

    def run_vm(self, mode, image, port=None):
        kernel, initrd = self.guest_files()
        script = base64.b64encode(DEBUG_SCRIPT.encode()).decode()
        self.console = os.path.join(self.workdir, f'{mode}.console')
        rrfile = os.path.join(self.workdir, 'replay.bin')
        vm = self.get_vm(name=mode)
        vm.set_machine(self.MACHINE)
        # rrsnapshot: a snapshot in the qcow2 image at the start, that
        # reverse execution goes back to and replays from
        vm.add_args('-smp', '1', '-m', '1G', '-kernel', kernel,
                    '-initrd', initrd,
                    '-append', 'console=ttySC0,115200 rdinit=/init '
                               f'rcar_script={script}',
                    '-serial', f'file:{self.console}',
                    '-icount', f'shift={self.SHIFT},rr={mode},'
                               f'rrfile={rrfile},rrsnapshot=init',
                    '-drive', f'if=sd,index=2,file={image},format=qcow2')
        if port:
            vm.add_args('-gdb', f'tcp::{port}', '-S')
        vm.launch()
        return vm

    def gdb(self, port, handler):
        """Run the debugging session in gdb; returns what it printed:
        lines "<tag> <hex>..." """
        regs = ' '.join('%lx' for _ in self.REGS)
        values = ', '.join(f'${r}' for r in self.REGS)
        show_regs = f'printf "REGS {regs}\\n", {values}'
        cmds = ['set pagination off', 'set confirm off',
                'set architecture aarch64',
                f'target remote localhost:{port}',
                f'break *{handler:#x}', 'continue', show_regs]
        for _ in range(self.STEPS):
            cmds += ['stepi', 'printf "FWD %lx\\n", $pc']
        for _ in range(self.STEPS):
            cmds += ['reverse-stepi', 'printf "BACK %lx\\n", $pc']
        cmds.append(show_regs)
        for _ in range(self.STEPS):
            cmds += ['stepi', 'printf "AGAIN %lx\\n", $pc']
        cmds += ['reverse-continue', show_regs, 'detach']
        args = ['gdb-multiarch', '-q', '-nx', '--batch']
        for c in cmds:
            args += ['-ex', c]
        out = subprocess.run(args, capture_output=True, encoding='utf8',
                             timeout=self.RUN_TIMEOUT, check=False)
        self.log.info('gdb:\n%s\n%s', out.stdout, out.stderr)
        return [l.split() for l in out.stdout.splitlines()
                if re.match(r'(REGS|FWD|BACK|AGAIN) ', l)]

    def test_step_back_over_sdhi_irq(self):
        if not shutil.which('gdb-multiarch'):
            if os.getenv('RCAR_REQUIRE_GUEST'):
                self.fail('gdb-multiarch is missing (scripts/deps.sh)')
            self.skipTest('no gdb-multiarch')
        image = os.path.join(self.workdir, 'emmc.qcow2')
        raw = os.path.join(self.workdir, 'emmc.img')
        make_image(raw, 64 * MiB, MiB, 33)
        subprocess.run([get_qemu_img(self), 'convert', '-f', 'raw', '-O',
                        'qcow2', raw, image], check=True)
        vm = self.run_vm('record', image)
        vm.wait(timeout=self.RUN_TIMEOUT)
        with open(self.console, encoding='utf8', errors='replace') as f:
            found = re.search(r'^RR-HANDLER ([0-9a-f]{16})', f.read(), re.M)
        self.assertIsNotNone(found, 'the guest did not print the handler')
        handler = int(found.group(1), 16)
        self.assertNotEqual(handler, 0, 'kallsyms hides addresses')

        with Ports() as ports:
            port = ports.find_free_port()
            vm = self.run_vm('replay', image, port)
        try:
            lines = self.gdb(port, handler)
        finally:
            vm.shutdown()
        regs = [l[1:] for l in lines if l[0] == 'REGS']
        fwd = [int(l[1], 16) for l in lines if l[0] == 'FWD']
        back = [int(l[1], 16) for l in lines if l[0] == 'BACK']
        again = [int(l[1], 16) for l in lines if l[0] == 'AGAIN']
        self.assertEqual(len(regs), 3, lines)
        self.assertEqual(int(regs[0][0], 16), handler)
        self.assertEqual(len(fwd), self.STEPS)
        # Back over the same instructions, to the entry, the registers
        # as they were there; forward again the same way
        self.assertEqual(back, ([handler] + fwd[:-1])[::-1])
        self.assertEqual(regs[1], regs[0])
        self.assertEqual(again, fwd)
        # reverse-continue stops at the last breakpoint hit: the entry
        self.assertEqual(regs[2], regs[0])


class RCarGen3ReplayOptions(RCarGen3Base):
    """What record/replay refuses, with one clear message"""

    def test_blkreplay_refused(self):
        image = os.path.join(self.workdir, 'emmc.img')
        make_image(image, 16 * MiB, 0, 0)
        self.set_machine(self.MACHINE)
        out = subprocess.run(
            [self.qemu_bin, '-M', self.MACHINE, '-display', 'none',
             '-icount', 'shift=7,rr=record,rrfile=' +
             os.path.join(self.workdir, 'replay.bin'),
             '-drive', f'if=none,id=emmc-img,file={image},format=raw',
             '-drive', 'if=sd,index=2,driver=blkreplay,image=emmc-img'],
            capture_output=True, encoding='utf8', timeout=60, check=False)
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertEqual(out.stderr.strip().splitlines(), [
            f'{os.path.basename(self.qemu_bin)}: '
            'sd2: an SD card does its I/O synchronously, which a blkreplay '
            'drive cannot complete under record/replay; '
            'give the card its image without blkreplay'])


if __name__ == '__main__':
    LinuxKernelTest.main()
