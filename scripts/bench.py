#!/usr/bin/env python3
#
# `make bench`: the throughput table of the R-Car Gen3 SDHI behind the
# IPMMU, and of its peers on the same host, same kernel and same workload.
# A benchmark, not a test: it prints figures and never fails on a number.
#
# Rows (each a fresh boot; guest -smp 2 -m 1G, 896M on E3; images are
# sparse raw files, so reads after the first pass come from the host page
# cache):
#   sdhi-iommu-on / sdhi-iommu-off  r8a77951-salvator-xs, eMMC on SDHI2
#   m3n-sdhi-iommu-on / -off        r8a77965-salvator-xs, eMMC on SDHI2
#   e3-sdhi-iommu-on / -off         r8a77990-ebisu, eMMC on SDHI3
#   sdhi-iommu-on-64k               the H3 with the 64 KiB page kernel
#   sdhi-iommu-on-sync              the H3 with the card's backend called
#                                   under the BQL (x-async-io=off)
#   timed-{h3,m3n,e3}-iommu-off/-on each board with timing=board under
#                                   -icount shift=0,sleep=off: bonnie++
#                                   only, beside the board's figures
#   virtio-blk                      -M virt, virtio-blk-pci
#   sdhci-pci / sdhci-pci-bytewise  -M virt, sdhci-pci + sd-card, with the
#                                   bulk data path and without it
#   net-rcar-avb / net-virtio       iperf3 over slirp, both directions: the
#                                   H3's EtherAVB, virtio-net-pci on -M virt
#                                   (scripts/bench_net.py)
# Workloads: fio (Debian's arm64 binary) sequential read and write 1 MiB,
# random read 4 KiB at QD1 (psync) and QD32 (libaio), O_DIRECT, 10 s each;
# on the eMMC rows also dd oflag=sync of 500 MiB to a file on ext4 and
# bonnie++ -f on ext4 (file size 2x guest RAM).  The whole sequence runs
# --repeats times (3) in one boot; the report gives each figure's median
# and the spread of the runs, and flags a spread above 20 %.
#
# For each workload: guest MiB/s (or IOPS), host CPU ms per MiB (QEMU's
# user+system time over the workload), average request size (from
# /sys/block/*/stat), and on SDHI rows DMA transfers per MiB and physical
# runs per transfer (QOM counters).
#
# Output: build/bench/report.md, report.csv, report.png, and the same
# report as MEASUREMENTS.md, the project's page of figures: each row
# says when, on which host, at which commit and with which command it was
# measured, so that no figure is copied by hand.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import argparse
import csv
import json
import os
import subprocess
import sys
import time

from bench_net import (NET_WORKLOADS, IperfServer, net_lines,
                       net_run_figures, net_rows, net_script)
from guestvm import (BOARDS, add_qemu_arguments, prepare,
                     process_cpu_seconds, qom_get, run_guest)

MiB = 1024 * 1024
GiB = 1024 * MiB
DISK_SIZE = 4 * GiB
SDHI_COUNTERS = ('x-dma-transfers', 'x-dma-bytes', 'x-dma-phys-runs',
                 'x-commands')
# results.json: the host and duration of the run, next to the rows
RUN_KEY = '_run'
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The page of figures in the repository, written from results.json
PAGE = os.path.join(TOP, 'MEASUREMENTS.md')

# The boards other than the H3: row prefix, machine, guest RAM (E3's
# Ebisu has 896 MiB)
OTHER_BOARDS = (('m3n', 'r8a77965-salvator-xs', '1G'),
                ('e3', 'r8a77990-ebisu', '896M'))
# The H3 rows and those of each other board: (board, off row, on row)
BOARD_ROWS = [(BOARDS['r8a77951-salvator-xs'], 'sdhi-iommu-off',
               'sdhi-iommu-on')] + \
    [(BOARDS[m], f'{p}-sdhi-iommu-off', f'{p}-sdhi-iommu-on')
     for p, m, _ in OTHER_BOARDS]

# Board timing: the transfers take the time of the bus and the eMMC
# (timing=board), guest time counts instructions at 1 ns each (-icount
# shift=0: 1 GIPS, see docs), and an idle guest skips to its next timer
# (sleep=off) so that the waits cost no host time.  icount runs both
# vCPUs on one host thread and switches between them on the host's clock,
# so the runs still differ (see the docs); with one vCPU bonnie++ stalled.
TIMED_ARGS = ('-icount', 'shift=0,sleep=off')
TIMED_SMP = '2'
TIMED_BOARDS = (('h3', 'r8a77951-salvator-xs', '1G'),) + OTHER_BOARDS

# Hardware rows the issue quotes (bonnie++ K/s, Renesas eMMC HS400)
HARDWARE = [
    row for b in BOARDS.values() for row in (
        (f'{b.soc} board, no IPMMU', 'block input', b.hw_off),
        (f'{b.soc} board, IPMMU', 'block input', b.hw_on))
] + [
    ('H3 board, no IPMMU', 'block output', 117133),
    ('H3 board, IPMMU', 'block output', 130482),
]

# The guest's script, on the kernel command line in base64 (at most 2048
# bytes in all on arm64: no comments in it).  Each repetition runs every
# workload in the same order, so that each run has the same history (what
# ran before it, on the same image).
GUEST_SCRIPT = r'''
DEV=@DEV@
BLK=${DEV#/dev/}
mark() { echo "RCAR-MARK $*"; }
io() { set -- $(cat /sys/block/$BLK/stat); echo "$1,$3,$5,$7"; }
work() {
    name=$1; shift
    mark begin $name
    sleep 1
    before=$(io)
    t0=$(cut -d" " -f1 /proc/uptime)
    "$@" > /tmp/out 2>&1
    rc=$?
    t1=$(cut -d" " -f1 /proc/uptime)
    mark end $name rc=$rc t0=$t0 t1=$t1 io0=$before io1=$(io) out=$(tail -n 1 /tmp/out | tr " " "_")
}
fio_job() {
    job=$1; shift
    fio --name=$job --filename=$DEV --direct=1 --runtime=@RUNTIME@ \
        --time_based --size=1G --output-format=terse --terse-version=3 "$@"
}
mark kernel $(uname -r) $(getconf PAGESIZE 2>/dev/null)
for rep in $(seq @REPEATS@); do
r=#$rep
if [ -n "@FIO@" ]; then
work seq-read$r fio_job seq-read --rw=read --bs=1M --ioengine=psync
work seq-write$r fio_job seq-write --rw=write --bs=1M --ioengine=psync
work rand-read-qd1$r fio_job rand-read-qd1 --rw=randread --bs=4k --ioengine=psync
work rand-read-qd32$r fio_job rand-read-qd32 --rw=randread --bs=4k \
    --ioengine=libaio --iodepth=32
fi
if [ -n "@FS@" ]; then
    mkfs.ext4 -q -F -E nodiscard $DEV && mkdir -p /mnt && mount -t ext4 $DEV /mnt
    if [ -n "@FIO@" ]; then
    work dd-sync$r gnu-dd if=/dev/zero of=/mnt/f bs=1M count=500 oflag=sync
    rm -f /mnt/f
    fi
    if [ -n "@BONNIE@" ]; then
        work bonnie$r bonnie++ -d /mnt -s 2048 -r 1024 -n 0 -f -u root -q
    fi
    umount /mnt
fi
done
'''


class Row:
    """One machine configuration and what its workloads gave"""

    def __init__(self, name, label, machine, qemu_args, dev, console,
                 sdhi=None, fs=False, bonnie=False, kernel=None,
                 only_bonnie=False, net=False):
        self.name, self.label = name, label
        self.machine, self.qemu_args = machine, qemu_args
        self.dev, self.console = dev, console
        # The QOM path of the SDHI with the eMMC, on SDHI rows
        self.sdhi, self.fs, self.bonnie = sdhi, fs, bonnie
        self.kernel = kernel
        # Board-timed rows run bonnie++ alone
        self.only_bonnie = only_bonnie
        # Network rows run iperf3 (bench_net.py), not the disk workloads
        self.net = net
        self.results = {}
        self.kernel_version = ''
        self.skipped = None
        # {date, host, commit, command} of the run that measured it
        self.measured = None
        self.error = None       # why the row stopped before its end


def make_disk(path):
    """A sparse raw image with a size QEMU's SD cards accept"""
    with open(path, 'wb') as f:
        f.truncate(DISK_SIZE)


def rows(args):
    emmc = os.path.join(args.workdir, 'emmc.img')
    sd = os.path.join(args.workdir, 'sd.img')
    vblk = os.path.join(args.workdir, 'virtio.img')
    common = ('-smp', '2', '-m', '1G')
    h3 = BOARDS['r8a77951-salvator-xs']
    r8a = h3.machine
    sdhi_args = common + ('-drive', f'if=sd,index={h3.emmc_sdhi},'
                          f'file={emmc},format=raw')
    virt = 'virt'
    virt_args = common + ('-cpu', 'cortex-a57', '-nic', 'none')
    sd_drive = ('-drive', f'if=none,id=sd0,file={sd},format=raw',
                '-device', 'sdhci-pci')
    out = [
        Row('sdhi-iommu-off', 'SDHI, IPMMU off', f'{r8a},iommu=off',
            sdhi_args, '/dev/mmcblk0', 'ttySC0', sdhi=h3.sdhi_qom, fs=True,
            bonnie=True),
        Row('sdhi-iommu-on', 'SDHI, IPMMU on', f'{r8a},iommu=on',
            sdhi_args, '/dev/mmcblk0', 'ttySC0', sdhi=h3.sdhi_qom, fs=True,
            bonnie=True),
        Row('sdhi-iommu-on-sync', 'SDHI, IPMMU on, backend under the BQL',
            f'{r8a},iommu=on',
            sdhi_args + ('-global', 'renesas-sdhi.x-async-io=off'),
            '/dev/mmcblk0', 'ttySC0', sdhi=h3.sdhi_qom, fs=True),
        Row('virtio-blk', 'virtio-blk-pci (-M virt)', virt,
            virt_args + ('-drive', f'if=none,id=vd0,file={vblk},format=raw',
                         '-device', 'virtio-blk-pci,drive=vd0'),
            '/dev/vda', 'ttyAMA0'),
        Row('sdhci-pci', 'sdhci-pci + sd-card (-M virt)', virt,
            virt_args + sd_drive + ('-device', 'sd-card,drive=sd0'),
            '/dev/mmcblk0', 'ttyAMA0'),
        Row('sdhci-pci-bytewise', 'sdhci-pci + sd-card, byte-wise path',
            virt, virt_args + sd_drive +
            ('-device', 'sd-card,drive=sd0,x-bulk-data=off'),
            '/dev/mmcblk0', 'ttyAMA0'),
    ]
    for ps in ('64k', '16k'):
        kernel = os.path.join(args.guest, f'Image-{ps}')
        row = Row(f'sdhi-iommu-on-{ps}', f'SDHI, IPMMU on, {ps} pages',
                  f'{r8a},iommu=on', sdhi_args, '/dev/mmcblk0', 'ttySC0',
                  sdhi=h3.sdhi_qom, fs=True, kernel=kernel)
        if ps == '16k':
            row.skipped = ('Cortex-A57/A53 have no 16 KiB granule '
                           '(ID_AA64MMFR0.TGran16 = 0): the kernel cannot '
                           'run on this SoC, in QEMU as on silicon')
        elif not os.path.exists(kernel):
            row.skipped = (f'no {os.path.relpath(kernel, TOP)}: '
                           'PAGE_SIZE=64k make guest')
        out.append(row)
    for prefix, machine, mem in OTHER_BOARDS:
        b = BOARDS[machine]
        args_b = ('-smp', '2', '-m', mem, '-drive',
                  f'if=sd,index={b.emmc_sdhi},file={emmc},format=raw')
        for iommu in ('off', 'on'):
            out.append(Row(f'{prefix}-sdhi-iommu-{iommu}',
                           f'{b.name}: SDHI, IPMMU {iommu}',
                           f'{machine},iommu={iommu}', args_b, '/dev/mmcblk0',
                           'ttySC0', sdhi=b.sdhi_qom, fs=True, bonnie=True))
    for prefix, machine, mem in TIMED_BOARDS:
        b = BOARDS[machine]
        args_b = ('-smp', TIMED_SMP, '-m', mem, '-drive',
                  f'if=sd,index={b.emmc_sdhi},file={emmc},format=raw') + \
            TIMED_ARGS
        for iommu in ('off', 'on'):
            out.append(Row(f'timed-{prefix}-iommu-{iommu}',
                           f'{b.name}, timing=board: SDHI, IPMMU {iommu}',
                           f'{machine},iommu={iommu},timing=board', args_b,
                           '/dev/mmcblk0', 'ttySC0', sdhi=b.sdhi_qom, fs=True,
                           bonnie=True, only_bonnie=True))
    out += net_rows(Row, h3)
    for path in (emmc, sd, vblk):
        make_disk(path)
    return out


def run_row(args, row):
    if row.net:
        with IperfServer() as server:
            run_workloads(args, row, net_script(args, server.port),
                          append='ip=dhcp')
        return
    run_workloads(args, row, disk_script(args, row))


def disk_script(args, row):
    return (GUEST_SCRIPT.replace('@DEV@', row.dev)
              .replace('@RUNTIME@', str(args.runtime))
              .replace('@REPEATS@', str(args.repeats))
              .replace('@FS@', 'yes' if row.fs else '')
              .replace('@FIO@', '' if row.only_bonnie else 'yes')
              .replace('@BONNIE@', 'yes' if row.bonnie and args.bonnie
                       else ''))


def run_workloads(args, row, script, append=''):
    """Boot @row's guest with @script and keep what its marks report"""
    start = {}

    def sample(vm):
        s = {'cpu': process_cpu_seconds(vm.get_pid())}
        if row.sdhi:
            s.update({c: qom_get(vm, row.sdhi, c) for c in SDHI_COUNTERS})
        return s

    def on_mark(vm, key, value):
        if key == 'kernel':
            row.kernel_version = value
        elif key == 'begin':
            start[value] = sample(vm)
        elif key == 'end':
            name, *fields = value.split()
            end = sample(vm)
            res = dict(f.split('=', 1) for f in fields)
            res['delta'] = {k: end[k] - start[name][k] for k in end}
            row.results[name] = res
            print(f'  {row.name} {name}: {summarise(row, name, res)}',
                  flush=True)

    run_guest(args, row.machine, row.qemu_args, script, on_mark,
              console=row.console, kernel=row.kernel, append=append)


def io_delta(res):
    """Guest block-layer requests and bytes over a workload"""
    a = [int(x) for x in res['io0'].split(',')]
    b = [int(x) for x in res['io1'].split(',')]
    reqs = (b[0] - a[0]) + (b[2] - a[2])
    nbytes = ((b[1] - a[1]) + (b[3] - a[3])) * 512
    return reqs, nbytes


def repetitions(row, name):
    """The results of each run of workload @name of @row, in order (a
    results.json of a bench without repetitions has one, under @name)"""
    reps = sorted((int(k.split('#')[1]), v) for k, v in row.results.items()
                  if k.split('#')[0] == name and '#' in k)
    out = [v for _, v in reps]
    if not out and name in row.results:
        out = [row.results[name]]
    return out


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def runs_figures(row, name):
    """The numbers of each run of workload @name of @row (None for a
    failed run)"""
    return [run_figures(row, name, res) for res in repetitions(row, name)]


def figures(row, name):
    """The numbers of one workload of a row, as a dict: the median of its
    repetitions, each column on its own; None if a repetition failed"""
    runs = runs_figures(row, name)
    if not runs or None in runs:
        return None
    return {k: median([r[k] for r in runs]) for k in runs[0]
            if all(k in r for r in runs)}


def main_column(name):
    return 'IOPS' if name.startswith('rand-') else \
        'block input K/s' if name == 'bonnie' else 'MiB/s'


def spread(row, name):
    """(max - min) / median of the workload's main figure over its
    repetitions, in %, and the number of repetitions"""
    col = main_column(name)
    vals = [r[col] for r in runs_figures(row, name) if r and col in r]
    if len(vals) < 2 or not median(vals):
        return 0.0, len(vals)
    return 100 * (max(vals) - min(vals)) / median(vals), len(vals)


# A row whose spread exceeds this is flagged: its median is not to be trusted
SPREAD_FLAG = 20


def spread_cell(row, name):
    pct, n = spread(row, name)
    if n < 2:
        return '-'
    return f'{pct:.0f} %' + (' (!)' if pct > SPREAD_FLAG else '')


def run_figures(row, name, res):
    """The numbers of one run of a workload, as a dict"""
    if not res or res.get('rc') != '0':
        return None
    if name.startswith('net-'):
        return net_run_figures(res)
    secs = float(res['t1']) - float(res['t0'])
    reqs, nbytes = io_delta(res)
    mib = nbytes / MiB
    out = {
        'MiB/s': mib / secs if secs > 0 else 0,
        'IOPS': reqs / secs if secs > 0 else 0,
        'avg request KiB': nbytes / reqs / 1024 if reqs else 0,
        'host CPU ms/MiB': res['delta']['cpu'] * 1000 / mib if mib else 0,
    }
    if row.sdhi and reqs and 'x-commands' in res['delta']:
        out['commands/request'] = res['delta']['x-commands'] / reqs
    if row.sdhi and mib:
        d = res['delta']
        out['DMA transfers/MiB'] = d['x-dma-transfers'] / mib
        out['runs/transfer'] = (d['x-dma-phys-runs'] / d['x-dma-transfers']
                                if d['x-dma-transfers'] else 0)
    tail = res.get('out', '').replace('_', ' ')
    if name.startswith(('seq-', 'rand-')):
        # fio terse v3: 7/8 read KiB/s, IOPS; 48/49 write KiB/s, IOPS
        f = tail.split(';')
        if len(f) > 49:
            rd, wr = float(f[6]), float(f[47])
            out['MiB/s'] = (rd + wr) / 1024
            out['IOPS'] = float(f[7]) + float(f[48])
    if name == 'bonnie':
        out.update(bonnie_fields(tail))
    return out


def bonnie_fields(csv_line):
    """bonnie++ 1.9x CSV: block output, rewrite, block input, with CPU%"""
    f = csv_line.split(',')
    # format 1.98: version, bonnie version, name, concurrency, seed, size,
    # chunk, seeks, seek procs, putc, %, put_block, %, rewrite, %, getc, %,
    # get_block, %, ...
    names = {11: 'block output K/s', 12: 'block output CPU%',
             13: 'rewrite K/s', 14: 'rewrite CPU%',
             17: 'block input K/s', 18: 'block input CPU%'}
    out = {}
    for i, n in names.items():
        if len(f) > i and f[i].strip().isdigit():
            out[n] = int(f[i])
    return out


def summarise(row, name, res):
    """One run of workload @name ("seq-read#2") of @row, in a line"""
    name = name.split('#')[0]
    fig = run_figures(row, name, res)
    if fig is None:
        return f'failed ({res.get("out", "?")})'
    if name == 'bonnie':
        return ', '.join(f'{k} {v}' for k, v in fig.items() if 'K/s' in k
                         or 'CPU%' in k)
    if name.startswith('rand-'):
        return f"{fig['IOPS']:.0f} IOPS, {fig['host CPU ms/MiB']:.1f} ms/MiB"
    return f"{fig['MiB/s']:.1f} MiB/s, {fig['host CPU ms/MiB']:.1f} ms/MiB"


WORKLOADS = ('seq-read', 'seq-write', 'rand-read-qd1', 'rand-read-qd32',
             'dd-sync', 'bonnie')
COLUMNS = ('MiB/s', 'IOPS', 'avg request KiB', 'host CPU ms/MiB',
           'DMA transfers/MiB', 'runs/transfer', 'commands/request')


def write_csv(path, all_rows):
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(('row', 'workload', 'runs', 'spread %') + COLUMNS +
                   ('block output K/s', 'block output CPU%', 'rewrite K/s',
                    'rewrite CPU%', 'block input K/s', 'block input CPU%'))
        for row in all_rows:
            for name in WORKLOADS + NET_WORKLOADS:
                fig = figures(row, name)
                if fig is None:
                    continue
                pct, n = spread(row, name)
                w.writerow((row.name, name, n, f'{pct:.1f}') +
                           tuple(f'{fig[c]:.2f}' if c in fig else ''
                                 for c in COLUMNS) +
                           tuple(fig.get(c, '') for c in (
                               'block output K/s', 'block output CPU%',
                               'rewrite K/s', 'rewrite CPU%',
                               'block input K/s', 'block input CPU%')))


def ratio(a, b):
    return a / b if a and b else 0


def target_lines(by_name):
    """The issue's targets, met or by how much they are missed"""
    def fig(row, name, col):
        r = by_name.get(row)
        f = figures(r, name) if r else None
        return f.get(col, 0) if f else 0

    on_rd = fig('sdhi-iommu-on', 'seq-read', 'MiB/s')
    on_wr = fig('sdhi-iommu-on', 'seq-write', 'MiB/s')
    stock = fig('sdhci-pci-bytewise', 'seq-read', 'MiB/s')
    vblk = fig('virtio-blk', 'seq-read', 'MiB/s')
    cpu = max(fig('sdhi-iommu-on', 'seq-read', 'host CPU ms/MiB'),
              fig('sdhi-iommu-on', 'seq-write', 'host CPU ms/MiB'))
    bi_on = fig('sdhi-iommu-on', 'bonnie', 'block input K/s')
    bi_off = fig('sdhi-iommu-off', 'bonnie', 'block input K/s')
    checks = [
        ('sequential read, SDHI + IPMMU', on_rd, 300, 'MiB/s'),
        ('sequential write, SDHI + IPMMU', on_wr, 150, 'MiB/s'),
        ('read vs stock sdhci-pci byte-wise path', ratio(on_rd, stock), 50,
         'x'),
        ('read vs virtio-blk-pci', 100 * ratio(on_rd, vblk), 25, '%'),
        ('bonnie++ block input, IPMMU on / off', ratio(bi_on, bi_off), 1.5,
         'x'),
    ]
    out = []
    for what, got, want, unit in checks:
        if not got:
            out.append(f'| {what} | >= {want} {unit} | - | its rows were '
                       'not run |')
            continue
        verdict = 'met' if got >= want else \
            f'missed by {want - got:.2f} {unit}'.replace(' x', 'x')
        out.append(f'| {what} | >= {want} {unit} | {got:.2f} {unit} | '
                   f'{verdict} |')
    if not cpu:
        out.append('| host CPU per MiB, SDHI + IPMMU sequential | <= 5 ms | '
                   '- | its rows were not run |')
        return out
    verdict = 'met' if cpu <= 5 else f'missed by {cpu - 5:.2f} ms'
    out.append(f'| host CPU per MiB, SDHI + IPMMU sequential | <= 5 ms | '
               f'{cpu:.2f} ms | {verdict} |')
    return out


# bonnie++ phases with a hardware on/off pair among the quoted H3 rows
BONNIE_PHASES = ('block output', 'rewrite', 'block input')


def hardware_pair(soc, phase):
    """(IPMMU off, IPMMU on) of a board's quoted rows, or None"""
    val = {label: v for label, col, v in HARDWARE if col == phase}
    off = val.get(f'{soc} board, no IPMMU')
    on = val.get(f'{soc} board, IPMMU')
    return (off, on) if off and on else None


def hardware_ratio(phase):
    """IPMMU on / off of the quoted H3 board rows, if both are quoted"""
    hw = hardware_pair('H3', phase)
    return ratio(hw[1], hw[0]) if hw else 0


def bonnie_ratio_lines(by_name):
    """bonnie++ IPMMU on / off, next to the same ratio on the H3 board"""
    on = figures(by_name['sdhi-iommu-on'], 'bonnie') \
        if 'sdhi-iommu-on' in by_name else None
    off = figures(by_name['sdhi-iommu-off'], 'bonnie') \
        if 'sdhi-iommu-off' in by_name else None
    if not on or not off:
        return []
    out = []
    for phase in BONNIE_PHASES:
        col = f'{phase} K/s'
        if col in on and col in off:
            hw = hardware_ratio(phase)
            out.append(f'| bonnie++ {phase} (K/s) | {on[col]} | {off[col]} | '
                       f'{ratio(on[col], off[col]):.2f} | '
                       f'{f"{hw:.2f}" if hw else "-"} |')
    return out


def board_lines(by_name):
    """One IPMMU on / off pair per board, beside that board's hardware"""
    out = ['', '## IPMMU on / off on each board, beside the hardware', '',
           'bonnie++ block input (K/s) with the IPMMU off and on, in QEMU '
           'and as measured on the board (eMMC HS400); and fio sequential '
           'read.  The ratios are what to compare.', '',
           '| board | QEMU off | QEMU on | QEMU on / off | board off | '
           'board on | board on / off | fio seq-read on / off |',
           '|---|---|---|---|---|---|---|---|']
    for b, off_name, on_name in BOARD_ROWS:
        def fig(name, workload, col):
            r = by_name.get(name)
            f = figures(r, workload) if r else None
            return f.get(col, 0) if f else 0
        q_off = fig(off_name, 'bonnie', 'block input K/s')
        q_on = fig(on_name, 'bonnie', 'block input K/s')
        rd = ratio(fig(on_name, 'seq-read', 'MiB/s'),
                   fig(off_name, 'seq-read', 'MiB/s'))
        q_ratio = f'{ratio(q_on, q_off):.2f}' if q_on and q_off else '-'
        out.append(f'| {b.name} ({b.machine}) | {q_off or "-"} | '
                   f'{q_on or "-"} | {q_ratio} | {b.hw_off} | '
                   f'{b.hw_on} | {ratio(b.hw_on, b.hw_off):.2f} | '
                   f'{f"{rd:.2f}" if rd else "-"} |')
    return out


def within(got, want, tolerance):
    """'yes' if @got is within @tolerance (a fraction) of @want"""
    if not got or not want:
        return '-'
    off = got / want - 1
    return f'{"yes" if abs(off) <= tolerance else "no"} ({100 * off:+.0f} %)'


def timed_lines(by_name):
    """timing=board: bonnie++ on each board beside the board's figures"""
    out = ['', '## Board timing: bonnie++ beside the boards', '',
           'Rows `timed-*`: `timing=board` (the HS400 bus and the eMMC 5.1 '
           'figures of the board code) under `-icount shift=0,sleep=off`; '
           'bonnie++ alone, the same invocation as the other rows; the '
           'medians of the runs (their spread is in the bonnie++ table '
           'below).  The targets: the IPMMU on / off ratio within 20 % of '
           'the board\'s; the stretch, the K/s within 30 %.', '',
           '| board | phase | QEMU off | QEMU on | QEMU on / off | '
           'board off | board on | board on / off | ratio within 20 % | '
           'off within 30 % | on within 30 % |',
           '|---|---|---|---|---|---|---|---|---|---|---|']
    for prefix, machine, _ in TIMED_BOARDS:
        b = BOARDS[machine]
        off_r = by_name.get(f'timed-{prefix}-iommu-off')
        on_r = by_name.get(f'timed-{prefix}-iommu-on')
        f_off = (figures(off_r, 'bonnie') if off_r else None) or {}
        f_on = (figures(on_r, 'bonnie') if on_r else None) or {}
        for phase in ('block input', 'block output'):
            hw = hardware_pair(b.soc, phase)
            q_off = f_off.get(f'{phase} K/s', 0)
            q_on = f_on.get(f'{phase} K/s', 0)
            if not hw and not (q_off or q_on):
                continue
            q_ratio = ratio(q_on, q_off)
            hw_ratio = ratio(hw[1], hw[0]) if hw else 0
            out.append(
                f'| {b.name} | {phase} | {round(q_off) or "-"} | '
                f'{round(q_on) or "-"} | '
                f'{f"{q_ratio:.2f}" if q_ratio else "-"} | '
                f'{hw[0] if hw else "-"} | {hw[1] if hw else "-"} | '
                f'{f"{hw_ratio:.2f}" if hw_ratio else "-"} | '
                f'{within(q_ratio, hw_ratio, 0.2)} | '
                f'{within(q_off, hw[0] if hw else 0, 0.3)} | '
                f'{within(q_on, hw[1] if hw else 0, 0.3)} |')
    return out


def host_description():
    """The host CPU and how busy it was: figures move with both"""
    model = '?'
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    model = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()[0]
    return f'{os.cpu_count()} host cores ({model}), load average {load:.2f} ' \
        'at the start'


def git_commit():
    """The commit the figures are for, '+' if the tree had changes"""
    try:
        out = subprocess.run(['git', '-C', TOP, 'describe', '--always',
                              '--dirty=+', '--abbrev=12'],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'no git'


def bench_command():
    """This invocation, with paths relative to the repository"""
    words = [os.path.relpath(w, TOP) if os.path.isabs(w) else w
             for w in sys.argv]
    return ' '.join(['python3'] + words)


def provenance_lines(all_rows):
    """When, where, at which commit and how each row was measured: rows
    kept from an earlier run (--only) say so"""
    runs = []
    for row in all_rows:
        if row.measured and row.measured not in runs:
            runs.append(row.measured)
    lines = ['| run | date | host | commit | command | rows |',
             '|---|---|---|---|---|---|']
    for i, m in enumerate(runs):
        names = ', '.join(r.name for r in all_rows if r.measured == m)
        lines.append(f'| {i + 1} | {m["date"]} | {m["host"]} | '
                     f'`{m["commit"]}` | `{m["command"]}` | {names} |')
    return lines


def write_markdown(path, all_rows, args):
    by_name = {r.name: r for r in all_rows}
    lines = ['# R-Car Gen3 SDHI + IPMMU: `make bench`', '',
             'Written by `make bench` (`scripts/bench.py`) from '
             '`build/bench/results.json`: edit the script, not this page.', '',
             f'Last run on {args.date}.  Guests -smp 2 -m 1G (896M on E3); '
             'fio O_DIRECT; the seconds per fio workload and the runs of '
             'each are in the command of the run that measured the row '
             '(--runtime, 10 by default; --repeats, 3).  Every figure is '
             'the median of its runs, every ratio one of medians.', '']
    lines += provenance_lines(all_rows)
    lines += ['',
             'The rows without timing move an eMMC\'s data as fast as the '
             'host copies it, where a board is held to its bus: what the '
             'IPMMU saves, the fixed cost of each request in the guest and '
             'the device, is a larger share, and their on / off ratios '
             'exceed the board\'s.  The `timed-*` rows (timing=board under '
             '-icount) are the ones to hold against the boards.  Compare '
             'rows of one run, not runs on different hosts.', '',
             '## Targets', '',
             '| target | wanted | got | |', '|---|---|---|---|']
    lines += target_lines(by_name)
    lines += board_lines(by_name)
    lines += timed_lines(by_name)
    lines += net_lines(by_name, figures, spread_cell)
    lines += ['', '## fio and dd', '',
              'Medians of the runs of each row; spread: (max - min) / median '
              'of the MiB/s (IOPS for random reads) over the runs, flagged '
              f'(!) above {SPREAD_FLAG} %.', '',
              '*commands/request*: SD commands per block request (a read '
              'is CMD23 and CMD18: 2; a write adds CMD13 while the card is '
              'busy: 3; synced writes add cache flushes); more means '
              'retunings: '
              'Linux runtime-suspends the host after 50 ms idle and resumes '
              'it with a reset and, in HS400, a retuning of 28 commands, '
              'so a guest that stalls (a busy host) pays them.', '',
              '| row | workload | MiB/s | IOPS | avg request KiB | '
              'host CPU ms/MiB | DMA transfers/MiB | runs/transfer | '
              'commands/request | spread |',
              '|---|---|---|---|---|---|---|---|---|---|']
    for row in all_rows:
        if row.net:
            continue            # in the network table
        if row.skipped:
            lines.append(f'| {row.label} | - | skipped: {row.skipped} '
                         '| | | | | | | |')
            continue
        if row.error:
            lines.append(f'| {row.label} | - | stopped before its end: '
                         f'{row.error} | | | | | | | |')
        for name in WORKLOADS[:-1]:
            fig = figures(row, name)
            if fig is None:
                continue
            cells = [f'{fig[c]:.1f}' if c in fig else '-' for c in COLUMNS]
            cells.append(spread_cell(row, name))
            lines.append(f'| {row.label} | {name} | ' + ' | '.join(cells) +
                         ' |')
    lines += ['', '## Ratios, IPMMU on / IPMMU off', '',
              '| workload | on | off | on / off | H3 board on / off |',
              '|---|---|---|---|---|']
    for name in WORKLOADS[:-1]:
        on = figures(by_name['sdhi-iommu-on'], name) \
            if 'sdhi-iommu-on' in by_name else None
        off = figures(by_name['sdhi-iommu-off'], name) \
            if 'sdhi-iommu-off' in by_name else None
        if on and off:
            lines.append(f'| {name} (MiB/s) | {on["MiB/s"]:.1f} | '
                         f'{off["MiB/s"]:.1f} | '
                         f'{ratio(on["MiB/s"], off["MiB/s"]):.2f} | - |')
    lines += bonnie_ratio_lines(by_name)
    lines += ['', '## bonnie++ on ext4 (eMMC), with the hardware rows', '',
              'Columns in the order of bonnie++\'s CSV: sequential block '
              'output, rewrite, block input, each K/s and CPU%.', '',
              '| row | block output K/s | CPU% | rewrite K/s | CPU% | '
              'block input K/s | CPU% | spread |',
              '|---|---|---|---|---|---|---|---|']
    for row in all_rows:
        fig = figures(row, 'bonnie')
        if fig:
            cells = [str(fig.get(c, '-')) for c in (
                'block output K/s', 'block output CPU%', 'rewrite K/s',
                'rewrite CPU%', 'block input K/s', 'block input CPU%')]
            cells.append(spread_cell(row, 'bonnie'))
            lines.append(f'| QEMU: {row.label} | ' + ' | '.join(cells) +
                         ' |')
    for row in all_rows:
        for i, res in enumerate(repetitions(row, 'bonnie')):
            raw = res.get('out', '')
            if raw:
                lines.append(f'| raw bonnie++ CSV, {row.label}, run {i + 1} '
                             f'| `{raw.replace("_", " ")}` | | | | | | |')
    for label, col, val in HARDWARE:
        bo = val if col == 'block output' else '-'
        bi = val if col == 'block input' else '-'
        lines.append(f'| {label} (HS400, measured) | {bo} | - | - | - | '
                     f'{bi} | - | |')
    lines += ['', 'Kernels: ' + '; '.join(
        f'{r.name}: {r.kernel_version}' for r in all_rows
        if r.kernel_version), '',
        'Images are sparse raw files on the host; after the first pass the '
        'host page cache serves them, the same for every row.', '',
        'The plot is report.png; the raw numbers are report.csv.']
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return lines


def bar_group(ax, groups, series):
    """Grouped bars: @series is [(label, [value per group])]"""
    width = 0.8 / max(len(series), 1)
    for i, (label, vals) in enumerate(series):
        ax.bar([x + i * width for x in range(len(groups))], vals, width,
               label=label)
    ax.set_xticks([x + width * (len(series) - 1) / 2
                   for x in range(len(groups))])
    ax.set_xticklabels(groups)


def write_plot(path, all_rows):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        print('bench: no matplotlib, no plot (apt-get install '
              'python3-matplotlib)')
        return
    shown = [r for r in all_rows if not r.skipped and r.results]
    fig, (fio_ax, bonnie_ax) = plt.subplots(
        1, 2, figsize=(14, 6), gridspec_kw={'width_ratios': [3, 2]})

    names = ('seq-read', 'seq-write')
    bar_group(fio_ax, ['sequential read 1 MiB', 'sequential write 1 MiB'],
              [(r.label, [(figures(r, n) or {}).get('MiB/s', 0)
                          for n in names]) for r in shown])
    fio_ax.set_ylabel('guest MiB/s (fio, O_DIRECT, log scale)')
    fio_ax.set_yscale('log')
    fio_ax.set_title('fio: the SDHI with and without the IPMMU, and peers')
    fio_ax.legend(fontsize='small', loc='upper center',
                  bbox_to_anchor=(0.5, -0.08), ncol=2)

    by_name = {r.name: r for r in all_rows}
    series = []
    for name in ('sdhi-iommu-off', 'sdhi-iommu-on'):
        fig_b = figures(by_name[name], 'bonnie') if name in by_name else None
        if fig_b:
            series.append((f'QEMU: {by_name[name].label}',
                           [fig_b.get(f'{p} K/s', 0) / 1024
                            for p in BONNIE_PHASES]))
    for label in ('H3 board, no IPMMU', 'H3 board, IPMMU'):
        series.append((label, [next((v / 1024 for lb, col, v in HARDWARE
                                     if lb == label and col == p), 0)
                               for p in BONNIE_PHASES]))
    bar_group(bonnie_ax, list(BONNIE_PHASES), series)
    bonnie_ax.set_ylabel('MiB/s (bonnie++ -f, ext4 on the eMMC)')
    bonnie_ax.set_title('bonnie++: QEMU next to the H3 board (HS400)')
    bonnie_ax.legend(fontsize='small', loc='upper center',
                     bbox_to_anchor=(0.5, -0.08), ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.join(top, 'build')
    ap = argparse.ArgumentParser(description='make bench')
    add_qemu_arguments(ap, build)
    ap.add_argument('--guest', default=os.path.join(build, 'guest'))
    ap.add_argument('--runtime', type=int, default=10,
                    help='seconds per fio workload')
    ap.add_argument('--repeats', type=int, default=3,
                    help='runs of each workload; the report gives the '
                    'median and the spread')
    ap.add_argument('--no-bonnie', dest='bonnie', action='store_false')
    ap.add_argument('--only', nargs='*', help='rows to run')
    ap.add_argument('--timeout', type=int, default=1200)
    ap.add_argument('--report-only', action='store_true',
                    help='write the report again from results.json')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()
    args.kernel = os.path.join(args.guest, 'Image-4k')
    args.initrd = os.path.join(args.guest, 'rootfs-bench.cpio.gz')
    prepare(args, os.path.join(build, 'bench'), 'bench', 'run make bench')

    all_rows = rows(args)
    saved = os.path.join(args.workdir, 'results.json')
    run = {'host': host_description(), 'elapsed': 0.0,
           'date': time.strftime('%Y-%m-%d %H:%M'), 'repeats': args.repeats}
    # --only and --report-only keep the other rows of the last run
    if (args.only or args.report_only) and os.path.exists(saved):
        with open(saved) as f:
            data = json.load(f)
        for row in all_rows:
            row.results = data.get(row.name, {}).get('results', {})
            row.kernel_version = data.get(row.name, {}).get('kernel', '')
            row.error = data.get(row.name, {}).get('error')
            row.measured = data.get(row.name, {}).get('measured')
        if args.report_only:
            run = data.get(RUN_KEY, {'host': 'host not recorded',
                                     'elapsed': 0.0, 'date': '?'})
            args.repeats = run.get('repeats', 1)
    measured = {'date': run['date'], 'host': run['host'],
                'commit': git_commit(), 'command': bench_command()}
    started = time.monotonic()
    for row in all_rows:
        if row.skipped:
            print(f'{row.name}: skipped: {row.skipped}')
            continue
        if args.report_only or (args.only and row.name not in args.only):
            continue
        print(f'{row.name}: booting', flush=True)
        row.results = {}
        row.error = None
        row.measured = measured
        try:
            run_row(args, row)
        except (Exception, SystemExit) as e:  # pylint: disable=broad-except
            # Keep what the row measured before it failed (a guest gone
            # before QMP's quit, a timeout); the report says it stopped
            # (its first line: the report's tables have one per row)
            row.error = f'{type(e).__name__}: {e}'.strip().splitlines()[0]
            print(f'{row.name}: stopped: {row.error}', flush=True)
        run['elapsed'] = time.monotonic() - started
        with open(saved, 'w') as f:
            data = {r.name: {'results': r.results, 'kernel': r.kernel_version,
                             **({'error': r.error} if r.error else {}),
                             **({'measured': r.measured}
                                if r.measured else {})}
                    for r in all_rows}
            data[RUN_KEY] = run
            json.dump(data, f, indent=1)
    args.host, args.elapsed, args.date = run['host'], run['elapsed'], \
        run['date']
    write_csv(os.path.join(args.workdir, 'report.csv'), all_rows)
    lines = write_markdown(os.path.join(args.workdir, 'report.md'), all_rows,
                           args)
    write_plot(os.path.join(args.workdir, 'report.png'), all_rows)
    with open(PAGE, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))
    failed = [r.name for r in all_rows if r.error]
    if failed:
        sys.exit('bench: rows stopped before their end (their figures so '
                 'far are in the report): ' + ', '.join(failed))


if __name__ == '__main__':
    main()
