#!/usr/bin/env python3
#
# `make run`: boot an emulated R-Car Gen3 board (MACHINE=, by default the
# Salvator-XS with R-Car H3) twice with the same kernel, once with the SDHIs behind the IPMMU and once with iommu=off, run
# the same O_DIRECT sequential read of the eMMC in both, and print what
# Linux and the device models saw, side by side.
#
# Guest-side figures come from sysfs (/sys/block/mmcblk0/stat and queue/),
# model-side figures from the QOM counters of the SDHI and the IPMMU, read
# over QMP right before and right after the read.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import argparse
import os
import random
import sys

from guestvm import (DEFAULT_MACHINE, add_qemu_arguments, board, prepare,
                     qom_get, run_guest)

MiB = 1024 * 1024

GUEST_SCRIPT = r'''
echo "RCAR-MARK soc=$(cat /sys/devices/soc0/family) $(cat /sys/devices/soc0/soc_id) $(cat /sys/devices/soc0/revision)"
echo "RCAR-MARK kernel=Linux $(uname -r) $(uname -v)"
for d in /sys/bus/platform/devices/ee1?0000.mmc; do
    g=$(readlink $d/iommu_group 2>/dev/null)
    echo "RCAR-MARK group ${d##*/}=${g:+iommu group ${g##*/}}"
done
echo "RCAR-MARK emmc_mode=$(sed -n 's/^timing spec:.*(\(.*\))$/\1/p' /sys/kernel/debug/mmc0/ios), $(sed -n 's/^clock:[[:space:]]*\([0-9]*\)000000 Hz$/\1 MHz/p' /sys/kernel/debug/mmc0/ios)"
echo "RCAR-MARK max_segments=$(cat /sys/block/mmcblk0/queue/max_segments)"
echo "RCAR-MARK max_sectors_kb=$(cat /sys/block/mmcblk0/queue/max_sectors_kb)"
# Keep the eMMC host awake: each runtime resume resets it and Linux retunes
# the HS400 eMMC, 16 tuning blocks that would count as DMA transfers here.
# The small read takes the retune that waking it up asked for.
echo on > /sys/bus/platform/devices/@EMMC_DEV@/power/control
dd if=/dev/mmcblk0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
set -- $(cat /sys/block/mmcblk0/stat); ios=$1; sectors=$3
echo "RCAR-MARK read-begin"
sleep 1
start=$(cut -d" " -f1 /proc/uptime)
dd if=/dev/mmcblk0 of=/dev/null bs=1M count=@MB@ iflag=direct 2>/dev/null
end=$(cut -d" " -f1 /proc/uptime)
set -- $(cat /sys/block/mmcblk0/stat)
echo "RCAR-MARK read-end ios=$(( $1 - ios )) sectors=$(( $3 - sectors ))"
echo "RCAR-MARK seconds=$start $end"
'''

IPMMU = '/machine/soc/ipmmu-ds1'
SDHI_COUNTERS = ('x-dma-transfers', 'x-dma-bytes', 'x-dma-phys-runs',
                 'x-dma-multi-run-transfers')
IPMMU_COUNTERS = ('x-translations', 'x-tlb-hits', 'x-faults')


def make_emmc(path, size):
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    rng = random.Random(0x7795)
    with open(path, 'wb') as f:
        for _ in range(size // MiB):
            f.write(rng.randbytes(MiB))


def counters(vm, path, names):
    return {n: qom_get(vm, path, n) for n in names}


def delta(after, before):
    return {k: after[k] - before[k] for k in after}


def boot_and_read(args, iommu):
    b = args.board
    script = GUEST_SCRIPT.replace('@MB@', str(args.read_mib)).replace(
        '@EMMC_DEV@', b.emmc_dev)
    sdhi = b.sdhi_qom
    facts = {'groups': {}}
    sample = {}

    def on_mark(vm, key, value):
        if key == 'group':
            dev, group = value.split('=', 1)
            facts['groups'][dev] = group or '-'
        elif key == 'read-begin':
            sample['sdhi'] = counters(vm, sdhi, SDHI_COUNTERS)
            sample['ipmmu'] = counters(vm, IPMMU, IPMMU_COUNTERS)
        elif key == 'read-end':
            facts['sdhi'] = delta(counters(vm, sdhi, SDHI_COUNTERS),
                                  sample['sdhi'])
            facts['ipmmu'] = delta(counters(vm, IPMMU, IPMMU_COUNTERS),
                                   sample['ipmmu'])
            facts['largest-runs'] = qom_get(vm, sdhi, 'x-dma-max-phys-runs')
            for kv in value.split():
                k, v = kv.split('=')
                facts[k] = int(v)
        else:
            facts[key] = value

    dtb = ('-dtb', args.dtb) if args.dtb else ()
    run_guest(args, f'{b.machine},iommu={"on" if iommu else "off"}',
              ('-smp', '2', '-m', '768M', *dtb,
               '-drive', f'if=sd,index={b.emmc_sdhi},file={args.emmc},'
                         'format=raw'),
              script, on_mark)
    if 'sdhi' not in facts:
        sys.exit('demo: the guest did not run the read; run with -v')
    return facts


def throughput(facts, read_mib):
    """MiB/s of the read, timed in the guest with /proc/uptime"""
    start, end = (float(t) for t in facts['seconds'].split())
    return f'{read_mib / (end - start):.1f} MiB/s' if end > start else '?'


def report(b, on, off, read_mib):
    def row(label, a, b):
        print(f'  {label:<38} {a!s:<22} {b!s}')

    def per(facts, num, den):
        return facts[num] / facts[den] if facts[den] else 0

    print()
    print(f'R-Car Gen3 in QEMU: Linux on the emulated {b.name} '
          f'({b.machine})')
    print(f'  SoC     {on.get("soc", "?")}')
    print(f'  kernel  {on.get("kernel", "?")}')
    print()
    row('', 'iommu=on (default)', 'iommu=off')
    for dev in sorted(set(on['groups']) | set(off['groups'])):
        row(f'{dev}', on['groups'].get(dev, '-'), off['groups'].get(dev, '-'))
    row('mmcblk0 (eMMC) bus mode', on.get('emmc_mode', '?'),
        off.get('emmc_mode', '?'))
    row('mmcblk0 (eMMC) max_segments', on['max_segments'],
        off['max_segments'])
    row('mmcblk0 max_sectors_kb', on['max_sectors_kb'], off['max_sectors_kb'])
    print()
    print(f'  dd if=/dev/mmcblk0 bs=1M count={read_mib} iflag=direct')
    row('block requests', on['ios'], off['ios'])
    row('average request size (KiB)',
        f'{per(on, "sectors", "ios") / 2:.0f}',
        f'{per(off, "sectors", "ios") / 2:.0f}')
    s_on, s_off = on['sdhi'], off['sdhi']
    row('SDHI DMA transfers', s_on['x-dma-transfers'], s_off['x-dma-transfers'])
    row('average DMA transfer (KiB)',
        f'{per(s_on, "x-dma-bytes", "x-dma-transfers") / 1024:.0f}',
        f'{per(s_off, "x-dma-bytes", "x-dma-transfers") / 1024:.0f}')
    row('physical runs per DMA transfer',
        f'{per(s_on, "x-dma-phys-runs", "x-dma-transfers"):.1f}',
        f'{per(s_off, "x-dma-phys-runs", "x-dma-transfers"):.1f}')
    row('transfers over more than one run',
        s_on['x-dma-multi-run-transfers'], s_off['x-dma-multi-run-transfers'])
    row('most runs in one transfer (since boot)', on['largest-runs'],
        off['largest-runs'])
    row('IPMMU translations / TLB hits / faults',
        ' / '.join(str(on['ipmmu'][c]) for c in IPMMU_COUNTERS),
        ' / '.join(str(off['ipmmu'][c]) for c in IPMMU_COUNTERS))
    row('read throughput in the guest', throughput(on, read_mib),
        throughput(off, read_mib))
    print()
    print('  With the IPMMU, one DMA transfer covers a whole request of '
          'scattered pages;')
    print('  without it, each transfer is one physically contiguous run, '
          'and every')
    print('  request costs a command, an interrupt and a DMA set-up.')


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.join(top, 'build')
    ap = argparse.ArgumentParser(description=__doc__)
    add_qemu_arguments(ap, build)
    ap.add_argument('--kernel', default=os.path.join(
        build, 'guest', f'Image-{os.getenv("PAGE_SIZE", "4k")}'))
    ap.add_argument('--initrd', default=os.path.join(build, 'guest',
                                                     'rootfs.cpio.gz'))
    ap.add_argument('--machine', default=os.getenv('MACHINE') or
                    DEFAULT_MACHINE,
                    help='the board (also from $MACHINE): '
                    'r8a77951-salvator-xs (default), r8a77965-salvator-xs, '
                    'r8a77990-ebisu')
    ap.add_argument('--read-mib', type=int, default=128)
    ap.add_argument('--dtb', default=os.getenv('DTB', ''),
                    help='"upstream" (the DTB compiled from the kernel '
                    'tree), a path, or empty for the generated one (also '
                    'from $DTB)')
    ap.add_argument('--timeout', type=int, default=600)
    ap.add_argument('-v', '--verbose', action='store_true',
                    help='show the guest console')
    args = ap.parse_args()
    args.board = board(args.machine)
    if args.dtb == 'upstream':
        args.dtb = os.path.join(build, 'guest', 'dtbs', args.board.dtb)
    if args.dtb and not os.path.exists(args.dtb):
        sys.exit(f'demo: no DTB at {args.dtb}: run make guest')
    prepare(args, os.path.join(build, 'demo'), 'demo', 'run make qemu guest')
    args.emmc = os.path.join(args.workdir, 'emmc.img')
    make_emmc(args.emmc, max(64, args.read_mib) * MiB)

    print(f'Device tree: {args.dtb or "generated by the board"}')
    print(f'Booting {args.machine} with iommu=on, reading '
          f'{args.read_mib} MiB ...', flush=True)
    on = boot_and_read(args, True)
    print(f'Booting {args.machine} with iommu=off, reading '
          f'{args.read_mib} MiB ...', flush=True)
    off = boot_and_read(args, False)
    report(args.board, on, off, args.read_mib)


if __name__ == '__main__':
    main()
