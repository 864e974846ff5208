#!/usr/bin/env python3
#
# Where a 4 KiB O_DIRECT read at queue depth 1 spends its time: the
# per-request cost of the SD/MMC path, beside virtio-blk-pci.
#
# For each row (H3 SDHI with the IPMMU on, with it off, virtio-blk-pci on
# -M virt), one boot runs fio randread 4 KiB QD1 in three phases:
#   1. a fixed number of reads with QEMU's trace events of the SDHI and
#      the IPMMU on (switched on by QMP for that phase only): register
#      accesses, commands and interrupts per request, and the guest's
#      interrupts per request from /proc/interrupts;
#   2. a timed run under `perf record` of the QEMU process: IOPS, host
#      CPU per request, and the share of host CPU in translated guest code,
#      in QEMU's TCG runtime, in the device models, and in the host kernel;
#   3. with --system-map, a timed run in which a thread reads the guest
#      CPUs' PCs and frame records through a monitor of its own (a phase
#      of its own: the monitor slows the guest down).
#
# A measurement tool, not a test: it prints what it saw.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import argparse
import collections
import bisect
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

from guestvm import (BOARDS, add_qemu_arguments, prepare,
                     process_cpu_seconds, qom_get, run_guest)

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, 'build')
TRACED = ('renesas_sdhi_read', 'renesas_sdhi_write', 'renesas_sdhi_command',
          'renesas_sdhi_irq', 'renesas_sdhi_dma_start', 'rcar_ipmmu_*')

SCRIPT = r'''
DEV=@DEV@
mark() { echo "RCAR-MARK $*"; }
irqs() { awk 'NR > 1 { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; s += n; if (/mmc|virtio/) d += n } END { print s - d, d }' /proc/interrupts; }
rpm() { cat /sys/bus/platform/devices/*.mmc/power/runtime_suspended_time 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
rr() { fio --name=rr --filename=$DEV --direct=1 --rw=randread --bs=4k --ioengine=psync --size=1G --output-format=terse --terse-version=3 "$@" | cut -d";" -f6,8; }
dd if=/dev/zero of=$DEV bs=1M count=64 oflag=direct 2>/dev/null
mark text $(grep " _text$" /proc/kallsyms | cut -d" " -f1)
mark begin trace
set -- $(irqs)
r=$(rr --number_ios=@IOS@ --runtime=120)
set -- $1 $2 $(irqs)
mark end trace other=$(( $3 - $1 )) disk=$(( $4 - $2 )) fio=$r
mark begin perf
p=$(rpm)
r=$(rr --runtime=@SECONDS@ --time_based)
mark end perf fio=$r suspended_ms=$(( $(rpm) - p ))
if [ -n "@PCS@" ]; then
mark begin pcs
r=$(rr --runtime=@SECONDS@ --time_based)
mark end pcs fio=$r
fi
'''


def categorise(dso, sym):
    """A perf sample's (shared object, symbol) as a part of the cost"""
    if dso.startswith('[kernel'):
        return 'host kernel'
    if 'JIT' in dso or dso.startswith('perf-') or dso == '[unknown]':
        return 'translated guest code'
    if 'qemu-system' not in dso:
        return 'host libraries'
    if re.match(r'(renesas_sdhi|sd_|sdbus|rcar_|mmc_)', sym):
        return 'SD/MMC and IPMMU models'
    if re.match(r'(virtio|vring|blk_|bdrv|raw_|aio_|qemu_co|coroutine)', sym):
        return 'virtio and block layer'
    if re.match(r'(address_space|flatview|memory_region|memory_|'
                r'io_(read|write)x|iotlb|subpage|prepare_mmio)', sym):
        return 'memory API and MMIO dispatch'
    if re.match(r'(gic|arm_gic|gicv3|timer_|qemu_clock|timerlist)', sym):
        return 'interrupt controller and timers'
    return 'TCG runtime and the rest of QEMU'


def perf_split(path):
    out = subprocess.run(['perf', 'report', '-i', path, '--stdio',
                          '--sort', 'dso,sym', '--no-children', '-t', '\t',
                          '--percent-limit', '0'],
                         capture_output=True, text=True, check=False).stdout
    parts = collections.Counter()
    top = []
    for line in out.splitlines():
        f = line.split('\t')
        if line.startswith('#') or len(f) < 3 or not f[0].strip().endswith('%'):
            continue
        pct = float(f[0].strip().rstrip('%'))
        dso, sym = f[1].strip(), f[2].strip()
        kernel = sym.startswith('[k]')
        sym = sym[4:].strip() if sym[:1] == '[' else sym
        parts[categorise('[kernel]' if kernel else dso, sym)] += pct
        if len(top) < 12:
            top.append((pct, dso, sym))
    return parts, top


def strip_pac(addr):
    """A kernel text address with its pointer authentication code (in the
    bits above the 48-bit VA) taken off"""
    if (addr >> 32) & 0xffff == 0x8000:
        addr |= 0xffff << 48
    return addr


class PCSampler(threading.Thread):
    """Where the guest's CPUs are: their PCs, and the return addresses of
    the @depth frames above (the frame-pointer chain), read through a human
    monitor of its own every @period seconds while the guest runs"""
    def __init__(self, path, period=0.01, depth=4):
        super().__init__(daemon=True)
        self.path, self.period, self.depth = path, period, depth
        self.stacks = []
        self.stop = threading.Event()
        self.sock = None
        self.buf = b''

    def hmp(self, command):
        """The output of one monitor command, up to the next prompt; with
        None, what comes without a command (the banner)"""
        if command is not None:
            self.sock.sendall(command.encode() + b'\n')
        while b'(qemu) ' not in self.buf:
            self.buf += self.sock.recv(1 << 20)
        out, self.buf = self.buf.split(b'(qemu) ', 1)
        return out.decode(errors='replace')

    def walk(self, cpu, fp):
        """Return addresses up the frame records from @fp: {fp, lr}"""
        lrs = []
        self.hmp(f'cpu {cpu}')
        for _ in range(self.depth):
            if not fp:
                break
            m = re.search(r': (0x[0-9a-f]+) (0x[0-9a-f]+)',
                          self.hmp(f'x/2gx {fp:#x}'))
            if not m:
                break
            fp, lr = int(m.group(1), 16), int(m.group(2), 16)
            lrs.append(strip_pac(lr))
        return lrs

    def run(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(self.path)
        self.sock.settimeout(5)
        self.hmp(None)                  # the banner and first prompt
        while not self.stop.is_set():
            regs = self.hmp('info registers -a')
            for n, cpu in enumerate(re.split(r'CPU#\d+', regs)[1:]):
                pc = re.search(r'PC=([0-9a-f]{16})', cpu)
                fp = re.search(r'X29=([0-9a-f]{16})', cpu)
                if not pc:
                    continue
                stack = [int(pc.group(1), 16)]
                if fp and stack[0] >= 1 << 63:     # in the kernel
                    stack += self.walk(n, int(fp.group(1), 16))
                self.stacks.append(stack)
            time.sleep(self.period)
        self.sock.close()


def load_symbols(path):
    syms = []
    with open(path) as f:
        for line in f:
            addr, kind, name = line.split()[:3]
            if kind in 'tTwW':
                syms.append((int(addr, 16), name))
    syms.sort()
    return syms


def symbolise(stacks, syms, text_offset):
    """Samples per function, and per chain of callers for the functions
    that only wait (spinning on a lock, reading the counter in a delay)"""
    addrs = [a for a, _ in syms]

    def name(pc):
        if not pc:
            return '(end of the frame records)'
        i = bisect.bisect_right(addrs, pc - text_offset) - 1
        return syms[i][1] if i >= 0 and pc >= 1 << 63 else 'user space'

    counts = collections.Counter()
    chains = collections.Counter()
    for stack in stacks:
        fn = name(stack[0])
        counts[fn] += 1
        if fn in WAITERS:
            chains[' < '.join([fn] + [name(lr) for lr in stack[1:]])] += 1
    return counts, chains


# Where a CPU waits: whose call it is matters, not the function
WAITERS = ('queued_spin_lock_slowpath', 'arch_counter_get_cntvct',
           '__delay', '__const_udelay')


def commands(vm):
    """The commands the eMMC's SDHI has sent; 0 where there is none"""
    try:
        return qom_get(vm, BOARDS['r8a77951-salvator-xs'].sdhi_qom,
                       'x-commands')
    except Exception:                   # pylint: disable=broad-except
        return 0


def mark_fields(value):
    """The key=value fields of an end mark ("perf fio=... a=1")"""
    return dict(x.split('=', 1) for x in value.split()[1:])


def run_row(args, name, machine, qemu_args, dev, console):
    script = (SCRIPT.replace('@DEV@', dev).replace('@IOS@', str(args.ios))
              .replace('@SECONDS@', str(args.seconds))
              .replace('@PCS@', 'yes' if args.symbols else ''))
    trace_log = os.path.join(args.workdir, f'{name}.trace')
    perf_data = os.path.join(args.workdir, f'{name}.perf')
    hmp = os.path.join(args.workdir, f'{name}.hmp')
    state = {}
    result = {'row': name}

    def on_mark(vm, key, value):
        if key == 'text':
            # None: no kallsyms (or no KASLR to undo): System.map's _text
            state['text'] = int(value, 16) if value else None
        elif key == 'begin' and value == 'trace':
            for ev in TRACED:
                vm.cmd('trace-event-set-state', name=ev, enable=True)
        elif key == 'end' and value.startswith('trace'):
            for ev in TRACED:
                vm.cmd('trace-event-set-state', name=ev, enable=False)
            f = mark_fields(value)
            result['disk irqs'] = int(f['disk'])
            result['other irqs'] = int(f['other'])
        elif key == 'begin' and value == 'perf':
            # No trace events here: they cost; the SDHI counts commands
            state['commands'] = commands(vm)
            state['cpu'] = process_cpu_seconds(vm.get_pid())
            state['perf'] = subprocess.Popen(
                ['perf', 'record', '-q', '-F', '199', '-p',
                 str(vm.get_pid()), '-o', perf_data],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elif key == 'begin' and value == 'pcs':
            # A phase of its own: the monitor commands take QEMU's big
            # lock, which the SDHI's register accesses need too, and slow
            # the guest down several times
            state['pcs'] = PCSampler(hmp)
            state['pcs'].start()
        elif key == 'end' and value.startswith('pcs'):
            state['pcs'].stop.set()
            state['pcs'].join()
            f = mark_fields(value)
            result['sampled iops'] = int(f['fio'].split(';')[1])
        elif key == 'end' and value.startswith('perf'):
            cpu = process_cpu_seconds(vm.get_pid()) - state['cpu']
            result['commands'] = commands(vm) - state['commands']
            state['perf'].send_signal(signal.SIGINT)
            state['perf'].wait()
            f = mark_fields(value)
            _, iops = f['fio'].split(';')
            result['iops'] = int(iops)
            result['suspended ms'] = int(f['suspended_ms'])
            result['cpu per request us'] = \
                cpu * 1e6 / (int(iops) * args.seconds)

    if os.path.exists(hmp):
        os.unlink(hmp)
    run_guest(args, machine, qemu_args + [
        '-D', trace_log, '-d', 'trace:rcar_ipmmu_fault',
        '-monitor', f'unix:{hmp},server=on,wait=off'], script, on_mark,
        console=console)
    counts = collections.Counter()
    with open(trace_log) as f:
        traced = f.read()
    for line in traced.splitlines():
        m = re.search(r'(renesas_sdhi_\w+|rcar_ipmmu_\w+)', line)
        if m:
            counts[m.group(1)] += 1
    result['per request'] = {k: round(v / args.ios, 2)
                             for k, v in sorted(counts.items())}
    for k in ('disk irqs', 'other irqs'):
        result[k] = round(result[k] / args.ios, 2)
    result['perf'], result['top'] = perf_split(perf_data)
    result['guest'], result['waits'] = {}, {}
    if args.symbols:
        stacks = state['pcs'].stacks
        result['pc samples'] = len(stacks)
        offset = (state['text'] - args.symbols_text) \
            if state.get('text') else 0
        result['guest'], result['waits'] = \
            symbolise(stacks, args.symbols, offset)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    add_qemu_arguments(parser, BUILD)
    parser.add_argument('--guest', default=os.path.join(BUILD, 'guest'))
    parser.add_argument('--ios', type=int, default=2000,
                        help='reads of the traced phase')
    parser.add_argument('--seconds', type=int, default=15,
                        help='length of the profiled phase')
    parser.add_argument('--timeout', type=int, default=600)
    parser.add_argument('--only', nargs='*')
    parser.add_argument('--system-map', help="the guest kernel's System.map:"
                        " where the guest CPUs spend their time")
    parser.add_argument('-v', '--verbose', action='store_true')
    args = parser.parse_args()
    args.kernel = os.path.join(args.guest, 'Image-4k')
    args.initrd = os.path.join(args.guest, 'rootfs-bench.cpio.gz')
    prepare(args, os.path.join(BUILD, 'request-profile'), 'request-profile',
            'make bench builds what it needs')
    args.symbols = load_symbols(args.system_map) if args.system_map else []
    args.symbols_text = next((a for a, n in args.symbols if n == '_text'), 0)
    img = os.path.join(args.workdir, 'disk.img')
    with open(img, 'wb') as f:
        f.truncate(1 << 30)
    h3 = BOARDS['r8a77951-salvator-xs']
    common = ['-smp', '2', '-m', '1G']
    sd = common + ['-drive', f'if=sd,index={h3.emmc_sdhi},file={img},'
                   'format=raw']
    rows = [
        ('sdhi-iommu-on', f'{h3.machine},iommu=on', sd, '/dev/mmcblk0',
         'ttySC0'),
        ('sdhi-iommu-off', f'{h3.machine},iommu=off', sd, '/dev/mmcblk0',
         'ttySC0'),
        ('virtio-blk', 'virt', common + [
            '-cpu', 'cortex-a57', '-nic', 'none', '-drive',
            f'if=none,id=vd0,file={img},format=raw', '-device',
            'virtio-blk-pci,drive=vd0'], '/dev/vda', 'ttyAMA0'),
    ]
    for name, machine, qargs, dev, console in rows:
        if args.only and name not in args.only:
            continue
        r = run_row(args, name, machine, qargs, dev, console)
        print(f"== {name}: {r['iops']} IOPS, host CPU "
              f"{r['cpu per request us']:.0f} us per request; guest "
              f"interrupts per request: {r['disk irqs']} from the disk, "
              f"{r['other irqs']} others")
        print('   per request:', r['per request'])
        print(f"   timed phase: {r['commands']} SD commands for "
              f"{r['iops'] * args.seconds} reads, the SD host runtime-"
              f"suspended for {r['suspended ms']} ms")
        for part, pct in r['perf'].most_common():
            print(f'   {pct:5.1f} %  {part}')
        for pct, dso, sym in r['top']:
            print(f'          {pct:5.2f} %  {dso} {sym}')
        if r['guest']:
            n = r['pc samples']
            print(f'   guest CPUs, {n} PC samples (a phase of its own, '
                  f"{r['sampled iops']} IOPS with the sampler):")
            for sym, c in r['guest'].most_common(12):
                print(f'   {100 * c / n:5.1f} %  {sym}')
            print('   waiting, with the callers:')
            for chain, c in r['waits'].most_common(10):
                print(f'   {100 * c / n:5.1f} %  {chain}')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
