#!/usr/bin/env python3
#
# The EtherAVB of the R-Car Gen3 boards with Linux's ravb driver and the
# board's KSZ9031 PHY, each board booted with the device tree it generates
# and with its unmodified upstream DTB, and "-nic user": the kernel's own
# DHCP client configures eth0 (ip=dhcp),
# the guest pings slirp's gateway, fetches a random file over TFTP
# (slirp's server) and over HTTP (a server of this test on the host) and
# sends one back by HTTP POST, each checked by its SHA-256 on the other
# side; then QMP set_link takes the cable out and puts it back, and the
# guest must see its carrier go and come (with the upstream DTB the PHY's
# interrupt through GPIO2 tells phylib; the generated tree has no GPIO
# nodes, and phylib polls the PHY).  Then each board boots with its root
# file system on NFS (root=/dev/nfs, ip=dhcp), served over slirp by
# Debian's user-space NFS server (nfs-ganesha, NFSv3 over TCP): the root
# is NFS, a file the host put there reads back, and one the guest writes
# reaches the host's directory.
#
# RCAR_GUEST_DIR and RCAR_REQUIRE_GUEST: see test_rcar_gen3.py.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import hashlib
import http.server
import os
import shutil
import subprocess
import threading

from qemu_test import LinuxKernelTest
from rcar_gen3_nfs import NFSServer, NFSServerError, exportable_dir
from test_rcar_gen3 import RCarGen3Base

MiB = 1024 * 1024


class HostFiles(http.server.BaseHTTPRequestHandler):
    """GET /blob sends the test's file; POST /upload keeps the body and
    answers with its SHA-256"""

    def do_GET(self):
        data = self.server.blob
        self.send_response(200)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers['Content-Length']))
        self.server.uploaded = body
        answer = hashlib.sha256(body).hexdigest().encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


class RCarGen3Network:
    """One board's network test, for a subclass of RCarGen3Base that says
    which board it is (not a TestCase itself)."""

    CPUS = 2
    MEM = '1G'
    SPEED = '1Gbps'         # what the PHY and the DT let Linux negotiate
    KERNEL_COMMAND_LINE = RCarGen3Base.KERNEL_COMMAND_LINE + ' ip=dhcp'
    BLOB_SIZE = 3 * MiB

    def start_http(self):
        self.httpd = http.server.HTTPServer(('127.0.0.1', 0), HostFiles)
        self.httpd.blob = os.urandom(self.BLOB_SIZE)
        self.httpd.uploaded = None
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.addCleanup(self.httpd.shutdown)
        return self.httpd.server_address[1]

    def carrier_after(self, up):
        self.vm.cmd('set_link', name='rcar-avb.0', up=up)
        want = 1 if up else 0
        return self.guest_int('for i in $(seq 100); do [ "$(cat '
                              f'/sys/class/net/eth0/carrier)" = {want} ] '
                              '&& break; sleep 0.1; done; '
                              'cat /sys/class/net/eth0/carrier', 'CARRIER')

    def run_network(self, upstream):
        port = self.start_http()
        tftp = os.path.join(self.workdir, 'tftp')
        os.mkdir(tftp)
        with open(os.path.join(tftp, 'blob'), 'wb') as f:
            f.write(self.httpd.blob)
        blob_sha = hashlib.sha256(self.httpd.blob).hexdigest()
        dtb = ('-dtb', self.upstream_dtb()) if upstream else ()
        self.boot(self.CPUS, mem=self.MEM,
                  extra_args=dtb + ('-nic', f'user,tftp={tftp}'))
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.check_guest_value('dmesg | grep -c "ravb e6800000.ethernet '
                               f'eth0: Link is Up - {self.SPEED}/Full"',
                               'LINKUP', 1)
        self.check_guest_value('dmesg | grep -c "IP-Config: Got DHCP '
                               'answer from 10.0.2.2, my address is '
                               '10.0.2.15"', 'DHCP', 1)
        self.check_guest_value('ping -c 3 -W 5 10.0.2.2 >/dev/null; echo $?',
                               'PING', 0)
        self.expect_sha('tftp -g -r blob -l /tmp/t 10.0.2.2 && cat /tmp/t',
                        blob_sha)
        # slirp takes the gateway's address to the host's loopback
        url = f'http://10.0.2.2:{port}'
        self.expect_sha(f'wget -q -O - {url}/blob', blob_sha)
        # Text: busybox wget posts a file as a C string
        self.check_guest_value('dd if=/dev/urandom bs=64k count=16 '
                               '2>/dev/null | od -An -tx1 > /tmp/up; '
                               'echo made', 'UP', 'made')
        sent = self.guest_value('sha256sum /tmp/up | cut -d" " -f1', 'SENT')
        self.check_guest_value('wget -q -O - --post-file /tmp/up '
                               f'{url}/upload', 'UPLOADED', sent)
        self.assertEqual(hashlib.sha256(self.httpd.uploaded).hexdigest(),
                         sent)
        self.assertEqual(self.carrier_after(up=False), 0)
        self.assertEqual(self.carrier_after(up=True), 1)
        self.check_guest_value('ping -c 1 -W 5 10.0.2.2 >/dev/null; echo $?',
                               'PINGAGAIN', 0)
        # ravb_rx_csum()'s trailer is right: the stack never checked one
        # in software and found it wrong
        self.check_guest_value('dmesg | grep -c -E "hw csum failure|ravb.*'
                               '(error|fail|timeout)"', 'NETERRORS', 0)
        self.power_off()

    def nfs_root(self, upstream):
        """Boot with the test initramfs's files as an NFS root"""
        try:
            root = exportable_dir(self.workdir, 'nfsroot')
        except NFSServerError as e:
            self.fail(str(e))
        if not root.startswith(self.workdir):
            self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        _, initrd = self.guest_files()
        subprocess.run(f'gzip -dc {initrd} | cpio -id --quiet', shell=True,
                       cwd=root, check=True)
        from_host = os.urandom(MiB)
        with open(os.path.join(root, 'from-host'), 'wb') as f:
            f.write(from_host)
        server = NFSServer(self.workdir, root)
        try:
            server.start()
        except NFSServerError as e:
            self.fail(str(e))
        self.addCleanup(server.stop)
        self.KERNEL_COMMAND_LINE = (
            RCarGen3Base.KERNEL_COMMAND_LINE.replace(' rdinit=/init', '') +
            f' root=/dev/nfs rw nfsroot=10.0.2.2:{root},'
            f'{server.mount_options()} ip=dhcp init=/init')
        dtb = ('-dtb', self.upstream_dtb()) if upstream else ()
        self.boot(self.CPUS, mem=self.MEM, extra_args=dtb + ('-nic', 'user'),
                  with_initrd=False)
        self.wait_for_console_pattern('RCAR-INIT: shell on the console')
        self.check_guest_value('grep " / " /proc/mounts | cut -d" " -f1,3',
                               'ROOT', f'10.0.2.2:{root} nfs')
        self.expect_sha('cat /from-host', hashlib.sha256(from_host).hexdigest())
        sent = self.guest_value('dd if=/dev/urandom bs=64k count=16 '
                                '2>/dev/null | tee /from-guest | sha256sum | '
                                'cut -d" " -f1; sync', 'WROTE')
        self.power_off()
        server.stop()
        with open(os.path.join(root, 'from-guest'), 'rb') as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), sent)

    def test_nfs_root_generated_dt(self):
        self.nfs_root(upstream=False)

    def test_nfs_root_upstream_dtb(self):
        self.nfs_root(upstream=True)

    def test_generated_dt(self):
        self.run_network(upstream=False)

    def test_upstream_dtb(self):
        self.run_network(upstream=True)


class RCarGen3NetH3SalvatorXS(RCarGen3Network, RCarGen3Base):
    MACHINE = 'r8a77951-salvator-xs'


class RCarGen3NetM3NSalvatorXS(RCarGen3Network, RCarGen3Base):
    MACHINE = 'r8a77965-salvator-xs'


class RCarGen3NetE3Ebisu(RCarGen3Network, RCarGen3Base):
    MACHINE = 'r8a77990-ebisu'
    MEM = '896M'
    SPEED = '100Mbps'       # ebisu.dtsi: max-speed = <100>


class RCarGen3NetH3eULCB(RCarGen3Network, RCarGen3Base):
    MACHINE = 'r8a779m1-ulcb'


if __name__ == '__main__':
    LinuxKernelTest.main()
