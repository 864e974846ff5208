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

MARK = re.compile(r'RCAR-MARK ([A-Za-z0-9_.+-]+)(?:[= ](.*))?$')


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
              initrd=None, kernel=None):
    """Boot, run @script, call on_mark(vm, key, value) for every mark,
    return when the script has ended.  @args has qemu, workdir, timeout,
    verbose, kernel, initrd."""
    from qemu.machine import QEMUMachine

    b64 = base64.b64encode(script.encode()).decode()
    vm = QEMUMachine(args.qemu, base_temp_dir=args.workdir)
    vm.set_machine(machine)
    vm.set_console()
    vm.add_args('-kernel', kernel or args.kernel,
                '-initrd', initrd or args.initrd,
                '-append', f'console={console},115200 rdinit=/init '
                           f'rcar_script={b64}', *qemu_args)
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
