#
# The network rows of `make bench` (scripts/bench.py): the EtherAVB of an
# R-Car Gen3 board against virtio-net-pci on -M virt, same kernel, same
# slirp (-nic user) backend, same run.
#
# The host runs an iperf3 server on its loopback, which slirp gives the
# guest as 10.0.2.2; the guest (Debian's arm64 iperf3 in the benchmark
# initramfs, its address from the kernel's DHCP client: ip=dhcp) is the
# client, sending (net-tx) and then receiving (net-rx: iperf3 -R) for
# --runtime seconds, --repeats times.  The figure of a run is what the
# receiving side counted (iperf3's sum_received), in MiB/s, and the host
# CPU time of QEMU per MiB.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import shutil
import socket
import subprocess

MiB = 1024 * 1024

NET_WORKLOADS = ('net-tx', 'net-rx')
NET_LABELS = {'net-tx': 'guest to host', 'net-rx': 'host to guest'}
# The target: the EtherAVB at least half of virtio-net's throughput
NET_TARGET_PCT = 50
AVB_ROW, VIRTIO_ROW = 'net-rcar-avb', 'net-virtio'

# iperf3 -J prints its totals as pretty-printed JSON; busybox has awk but no
# JSON tool, so the guest takes sum_received's seconds and bytes (in that
# order in iperf3's output) and prints them on one line
NET_SCRIPT = r'''
mark() { echo "RCAR-MARK $*"; }
iperf() {
    iperf3 -c 10.0.2.2 -p @PORT@ -t @RUNTIME@ -J "$@" > /tmp/j || return 1
    awk '/"sum_received"/ { f = 1 } f && /"seconds"/ { s = $2 }
         f && /"bytes"/ { print "seconds=" s "bytes=" $2; exit }' /tmp/j |
        tr -d ' '
}
work() {
    name=$1; shift
    mark begin $name
    sleep 1
    "$@" > /tmp/out 2>&1
    rc=$?
    mark end $name rc=$rc out=$(tail -n 1 /tmp/out | tr " " "_")
}
mark kernel $(uname -r) $(getconf PAGESIZE 2>/dev/null)
for rep in $(seq @REPEATS@); do
work net-tx#$rep iperf
work net-rx#$rep iperf -R
done
'''


def net_rows(row_class, h3):
    """The two network rows, as bench.Row objects"""
    common = ('-smp', '2', '-m', '1G')
    return [
        row_class(AVB_ROW, f'EtherAVB ({h3.machine})', h3.machine,
                  common + ('-nic', 'user,model=rcar-avb'), None, 'ttySC0',
                  net=True),
        row_class(VIRTIO_ROW, 'virtio-net-pci (-M virt)', 'virt',
                  # no option ROM: the kernel is booted directly
                  common + ('-cpu', 'cortex-a57', '-netdev', 'user,id=n0',
                            '-device', 'virtio-net-pci,netdev=n0,romfile='),
                  None, 'ttyAMA0', net=True),
    ]


def free_tcp_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class IperfServer:
    """iperf3 -s on the host's loopback for the length of a row"""

    def __init__(self):
        if not shutil.which('iperf3'):
            raise RuntimeError('iperf3 is missing: scripts/deps.sh --bench')
        self.port = free_tcp_port()
        self.proc = subprocess.Popen(
            ['iperf3', '-s', '-B', '127.0.0.1', '-p', str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(10)


def net_script(args, port):
    return (NET_SCRIPT.replace('@PORT@', str(port))
            .replace('@RUNTIME@', str(args.runtime))
            .replace('@REPEATS@', str(args.repeats)))


def net_run_figures(res):
    """The numbers of one iperf3 run: MiB/s and QEMU's host CPU per MiB"""
    out = res.get('out', '').replace(',', ' ').replace('bytes=', ' bytes=')
    fields = dict(f.split('=', 1) for f in out.split() if '=' in f)
    try:
        secs, nbytes = float(fields['seconds']), int(fields['bytes'])
    except (KeyError, ValueError):
        return None
    mib = nbytes / MiB
    return {'MiB/s': mib / secs if secs > 0 else 0,
            'host CPU ms/MiB': res['delta']['cpu'] * 1000 / mib if mib else 0}


def net_lines(by_name, figures, spread_cell):
    """The network table and the target, from the medians of the runs"""
    out = ['', '## Network: the EtherAVB against virtio-net', '',
           'iperf3 over slirp (`-nic user`) between the guest and the '
           'host, one TCP stream, the receiver\'s count; the same kernel '
           'and backend on both rows.  Target: the EtherAVB at least '
           f'{NET_TARGET_PCT} % of virtio-net\'s throughput, each '
           'direction.', '',
           '| row | direction | MiB/s | host CPU ms/MiB | spread |',
           '|---|---|---|---|---|']
    for name in (AVB_ROW, VIRTIO_ROW):
        row = by_name.get(name)
        if not row:
            continue
        if row.error:
            out.append(f'| {row.label} | - | stopped before its end: '
                       f'{row.error} | | |')
        for w in NET_WORKLOADS:
            fig = figures(row, w)
            if fig:
                out.append(f'| {row.label} | {NET_LABELS[w]} | '
                           f'{fig["MiB/s"]:.1f} | '
                           f'{fig["host CPU ms/MiB"]:.2f} | '
                           f'{spread_cell(row, w)} |')
    out += ['', '| direction | EtherAVB / virtio-net | target |',
            '|---|---|---|']
    for w in NET_WORKLOADS:
        avb = by_name.get(AVB_ROW)
        virtio = by_name.get(VIRTIO_ROW)
        a = figures(avb, w) if avb else None
        v = figures(virtio, w) if virtio else None
        if not a or not v or not v['MiB/s']:
            out.append(f'| {NET_LABELS[w]} | - | its rows were not run |')
            continue
        pct = 100 * a['MiB/s'] / v['MiB/s']
        verdict = 'met' if pct >= NET_TARGET_PCT else \
            f'missed by {NET_TARGET_PCT - pct:.0f} points'
        out.append(f'| {NET_LABELS[w]} | {pct:.0f} % | {verdict} |')
    return out
