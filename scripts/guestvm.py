#
# Boot a guest with a script on the kernel command line and follow what it
# prints, for `make run` (demo.py) and `make bench` (bench.py).
#
# The initramfs /init runs rcar_script=<base64> and powers off.  A script
# reports with lines "RCAR-MARK <key>[=| ]<value>"; each one is handed to a
# callback while the guest goes on, so the callback can read the QOM
# counters of the devices at that point over QMP.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import base64
import os
import re
import sys
import time

# arm64's COMMAND_LINE_SIZE, with the terminating NUL
COMMAND_LINE_SIZE = 2048
MARK = re.compile(r'RCAR-MARK ([A-Za-z0-9_.+-]+)(?:[= ](.*))?$')


class Board:
    """What the tools need to know of a board: where its eMMC is (the
    board's .dts), its upstream DTB, and the eMMC block input that the
    hardware gave with the IPMMU off and on (K/s, the project's hardware
    table)."""
    def __init__(self, machine, name, emmc_sdhi, hw_off, hw_on):
        self.machine = machine
        self.name = name
        self.soc = name.split()[0]
        self.emmc_sdhi = emmc_sdhi
        self.emmc_dev = f'ee1{2 * emmc_sdhi}0000.mmc'
        self.sdhi_qom = f'/machine/soc/sdhi{emmc_sdhi}'
        self.dtb = f'{machine}.dtb'
        self.hw_off = hw_off
        self.hw_on = hw_on


BOARDS = {b.machine: b for b in (
    Board('r8a77951-salvator-xs', 'H3 Salvator-XS', 2, 118682, 195727),
    Board('r8a77965-salvator-xs', 'M3-N Salvator-XS', 2, 118384, 196351),
    Board('r8a77990-ebisu', 'E3 Ebisu', 3, 76958, 138801),
)}
DEFAULT_MACHINE = 'r8a77951-salvator-xs'


def board(machine):
    """The Board of @machine, or exit with the list of those there are"""
    if machine not in BOARDS:
        sys.exit(f'unknown machine {machine!r}: one of '
                 f'{", ".join(BOARDS)}')
    return BOARDS[machine]


def import_qemu_python(qemu_tree):
    sys.path.insert(0, os.path.join(qemu_tree, 'python'))


def add_qemu_arguments(parser, build):
    """--qemu and --qemu-tree, defaulting to what `make qemu` built"""
    parser.add_argument('--qemu', default=os.path.join(
        build, 'qemu-build', 'qemu-system-aarch64'))
    parser.add_argument('--qemu-tree', default=os.path.join(build,
                                                           'qemu-src'))


def prepare(args, workdir, tool, hint):
    """Check that QEMU and the guest exist, load QEMU's Python package and
    create @workdir as args.workdir"""
    for f in (args.qemu, args.kernel, args.initrd):
        if not os.path.exists(f):
            sys.exit(f'{tool}: {f} is missing: {hint}')
    import_qemu_python(args.qemu_tree)
    args.workdir = workdir
    os.makedirs(workdir, exist_ok=True)


def qom_get(vm, path, prop):
    return vm.cmd('qom-get', path=path, property=prop)


def process_cpu_seconds(pid):
    """User + system CPU time of a process, from /proc"""
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def run_guest(args, machine, qemu_args, script, on_mark, console='ttySC0',
              initrd=None, kernel=None, append=''):
    """Boot, run @script, call on_mark(vm, key, value) for every mark,
    return when the script has ended.  @args has qemu, workdir, timeout,
    verbose, kernel, initrd; @append is more of the kernel command line."""
    from qemu.machine import QEMUMachine

    b64 = base64.b64encode(script.encode()).decode()
    append = f'console={console},115200 rdinit=/init {append} ' \
        f'rcar_script={b64}'
    if len(append) >= COMMAND_LINE_SIZE:
        # Linux would cut it: the script would end half-way
        sys.exit(f'{machine}: the script makes a kernel command line of '
                 f'{len(append)} bytes, more than {COMMAND_LINE_SIZE - 1}')
    vm = QEMUMachine(args.qemu, base_temp_dir=args.workdir)
    vm.set_machine(machine)
    vm.set_console()
    vm.add_args('-kernel', kernel or args.kernel,
                '-initrd', initrd or args.initrd,
                '-append', append, *qemu_args)
    vm.launch()
    console_file = vm.console_socket.makefile('rb')
    deadline = time.time() + args.timeout
    ended = False
    try:
        for raw in console_file:
            if time.time() > deadline:
                sys.exit(f'{machine}: the guest did not finish in '
                         f'{args.timeout} s')
            line = raw.decode(errors='replace').rstrip()
            if args.verbose:
                print(line, flush=True)
            if 'RCAR-SCRIPT-END' in line:
                ended = True
                break
            m = MARK.search(line)
            if m:
                on_mark(vm, m.group(1), m.group(2) or '')
    finally:
        try:
            vm.shutdown()
        except Exception:               # pylint: disable=broad-except
            # The guest powered off while QMP was asking QEMU to quit
            if not ended:
                raise
    if not ended:
        sys.exit(f'{machine}: the guest stopped before its script ended; '
                 'run with -v to see its console')
