#!/usr/bin/env python3
#
# Run a LAVA job on an emulated R-Car Gen3 board with a local LAVA
# dispatcher (Debian's lava-dispatcher, lava-run), as a LAVA worker would:
#
# 1. render the job for the machine, kernel, DTB and ramdisk given:
#    jobs/rcar-gen3-emmc.yaml.jinja2 (--job emmc, from tmpfs, with an
#    eMMC image), or jobs/rcar-gen3-nfs.yaml.jinja2 (--job nfs: the
#    ramdisk's files as an NFS root over the EtherAVB, served by Debian's
#    nfs-ganesha, which this script starts in the worker's place:
#    tests/functional/aarch64/rcar_gen3_nfs.py);
# 2. render the device dictionary devices/qemu-<machine>-01.jinja2 with the
#    job's context, through the device type device-types/qemu-rcar-gen3
#    .jinja2 and LAVA's own qemu.jinja2 and base.jinja2 (from the
#    lava-server package: --templates), the way lava-server does it;
# 3. lava-run the job, with the QEMU to test first in PATH as
#    qemu-system-aarch64;
# 4. print LAVA's test results as TAP, and exit 1 unless the job
#    completed and every test case passed.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import argparse
import gzip
import hashlib
import os
import random
import signal
import subprocess
import sys
import tarfile
import tempfile

import jinja2
import jinja2.sandbox
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
# The NFS server of the boot tests (nfs-ganesha): the worker's, for --job nfs
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tests', 'functional',
                                'aarch64'))
from rcar_gen3_nfs import NFSServer, NFSServerError  # noqa: E402

# The eMMC of each board: the SDHI it is on and that SDHI's DT node
BOARDS = {
    'r8a77951-salvator-xs': (2, 'ee140000.mmc'),
    'r8a77965-salvator-xs': (2, 'ee140000.mmc'),
    'r8a77990-ebisu': (3, 'ee160000.mmc'),
    'r8a77951-ulcb': (2, 'ee140000.mmc'),
    'r8a77965-ulcb': (2, 'ee140000.mmc'),
    'r8a779m1-ulcb': (2, 'ee140000.mmc'),
}

# The test cases of each job's test shell, which must all be reported
EXPECTED_CASES = {
    ('emmc', True): ['emmc-bound', 'emmc-hs400', 'emmc-max-segments',
                     'emmc-iommu-group', 'emmc-odirect-read'],
    ('emmc', False): ['emmc-bound', 'emmc-hs400', 'emmc-max-segments',
                      'emmc-no-iommu-group', 'emmc-odirect-read'],
    ('nfs', True): ['nfs-root', 'nfs-root-over-ravb', 'nfs-link-up',
                    'nfs-read', 'nfs-write'],
}
EXPECTED_CASES[('nfs', False)] = EXPECTED_CASES[('nfs', True)]

# Where lava-dispatcher extracts an nfsrootfs (lava_common.constants'
# DISPATCHER_DOWNLOAD_DIR): what a worker's NFS server exports (LAVA's
# docs: that directory in /etc/exports)
DISPATCHER_TMP = '/var/lib/lava/dispatcher/tmp'
# slirp's address of the host, where the guest finds the NFS server
SLIRP_HOST = '10.0.2.2'
# The file of the NFS root that the job reads back, and its size
NFS_BLOB, NFS_BLOB_MIB = '/nfs-blob', 8


# The O_DIRECT read of the job: the start of the image, checked by its hash
READ_MIB = 16


def job_environment():
    return jinja2.Environment(loader=jinja2.FileSystemLoader(
        os.path.join(HERE, 'jobs')), trim_blocks=True, autoescape=False,
        undefined=jinja2.StrictUndefined)


def render_nfs_job(args, rootfs, blob_sha256, nfsroot_args):
    return job_environment().get_template('rcar-gen3-nfs.yaml.jinja2').render(
        machine=args.machine,
        kernel='file://' + os.path.abspath(args.kernel),
        dtb='file://' + os.path.abspath(args.dtb),
        nfsrootfs='file://' + rootfs, blob=NFS_BLOB,
        blob_sha256=blob_sha256, extra_nfsroot_args=nfsroot_args,
        extra_options=args.extra_option)


def render_job(args, emmc):
    env = job_environment()
    sdhi, node = BOARDS[args.machine]
    return env.get_template('rcar-gen3-emmc.yaml.jinja2').render(
        machine=args.machine, sdhi=sdhi, emmc_node=node,
        kernel='file://' + os.path.abspath(args.kernel),
        dtb='file://' + os.path.abspath(args.dtb),
        ramdisk='file://' + os.path.abspath(args.ramdisk),
        emmc='file://' + emmc, iommu=args.iommu, read_mib=READ_MIB,
        read_sha256=sha256_of_start(emmc, READ_MIB << 20),
        extra_options=args.extra_option, kernel_args=args.kernel_args)


def render_device(args, job):
    """As lava_scheduler_app's Device.load_configuration(job_ctx)"""
    env = jinja2.sandbox.SandboxedEnvironment(
        loader=jinja2.FileSystemLoader([
            os.path.join(HERE, 'devices'),
            os.path.join(HERE, 'device-types'),
            args.templates]),
        autoescape=False, trim_blocks=True)
    template = env.get_template(f'qemu-{args.machine}-01.jinja2')
    return template.render(**job.get('context', {}))


def make_emmc(path, size):
    rng = random.Random(14)
    with open(path, 'wb') as f:
        f.write(rng.randbytes(size))


def sha256_of_start(path, size):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read(size)).hexdigest()


def make_nfsrootfs(ramdisk, path):
    """The files of @ramdisk (a gzip-compressed cpio) as the nfsrootfs
    tarball @path, with /sbin/init (the kernel's first choice on an NFS
    root: qemu-nfs passes no init=) running the ramdisk's /init, and a
    file of random bytes to read back.  Returns that file's SHA-256."""
    blob = random.Random(28).randbytes(NFS_BLOB_MIB << 20)
    with tempfile.TemporaryDirectory() as root:
        with gzip.open(ramdisk) as cpio:
            subprocess.run(['cpio', '-id', '--quiet'], input=cpio.read(),
                           cwd=root, check=True)
        os.chmod(root, 0o755)   # the guest's /, not a private directory
        # (sbin is usr/sbin: the link is absolute)
        init = os.path.join(root, 'sbin', 'init')
        if os.path.lexists(init):
            os.unlink(init)
        os.symlink('/init', init)
        with open(os.path.join(root, NFS_BLOB.lstrip('/')), 'wb') as f:
            f.write(blob)
        with tarfile.open(path, 'w:gz') as tar:
            tar.add(root, arcname='.')
    return hashlib.sha256(blob).hexdigest()


def lava_results(log_path):
    """The "results" records of lava-run's log: one YAML flow mapping per
    line ({"dt": ..., "lvl": ..., "msg": ...}), on its standard error"""
    results = []
    with open(log_path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if not line.startswith('{"dt"') or '"lvl": "results"' not in line:
                continue
            try:
                record = yaml.safe_load(line)
            except yaml.YAMLError:
                continue
            if isinstance(record, dict) and record.get('lvl') == 'results':
                results.append(record['msg'])
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--machine', default='r8a77951-salvator-xs',
                        choices=sorted(BOARDS))
    parser.add_argument('--job', default='emmc', choices=('emmc', 'nfs'),
                        help='emmc: from tmpfs, the eMMC behind the IPMMU; '
                        'nfs: the ramdisk\'s files as an NFS root')
    parser.add_argument('--qemu', required=True,
                        help='the qemu-system-aarch64 to run')
    parser.add_argument('--kernel', required=True)
    parser.add_argument('--dtb', required=True)
    parser.add_argument('--ramdisk', required=True,
                        help='a gzip-compressed cpio initramfs')
    parser.add_argument('--templates', required=True,
                        help="lava-server's device-types directory "
                        "(qemu.jinja2, base.jinja2)")
    parser.add_argument('--out', required=True, help='work directory')
    parser.add_argument('--no-iommu', dest='iommu', action='store_false',
                        help='expect the results of iommu=off (the job '
                        'passes -M <machine>,iommu=off in extra_options)')
    parser.add_argument('--extra-option', action='append', default=[],
                        help="more of QEMU's options, in the job context")
    parser.add_argument('--emmc-mib', type=int, default=64)
    parser.add_argument('--kernel-args', default='rcar_disk_by_uuid=600',
                        help='more of the kernel command line (default: '
                        'what the test initramfs needs for the overlay)')
    args = parser.parse_args()
    if not args.iommu:
        args.extra_option.append(f'-machine {args.machine},iommu=off')

    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)
    server = None
    dispatcher_args = []
    if args.job == 'nfs':
        rootfs = os.path.join(out, 'nfsrootfs.tar.gz')
        blob_sha256 = make_nfsrootfs(args.ramdisk, rootfs)
        server = NFSServer(out, DISPATCHER_TMP)
        os.makedirs(DISPATCHER_TMP, exist_ok=True)
        try:
            server.start()
        except NFSServerError as e:
            sys.exit(f'run-job: {e}')
        job_yaml = render_nfs_job(args, rootfs, blob_sha256,
                                  ',' + server.mount_options())
        # The address qemu-nfs puts in nfsroot=: the host as slirp shows
        # it (by default the dispatcher's own, which slirp reaches too)
        dispatcher = os.path.join(out, 'dispatcher.yaml')
        with open(dispatcher, 'w', encoding='utf-8') as f:
            yaml.safe_dump({'dispatcher_nfs_ip': SLIRP_HOST}, f)
        dispatcher_args = ['--dispatcher', dispatcher]
    else:
        emmc = os.path.join(out, 'emmc.img')
        make_emmc(emmc, args.emmc_mib << 20)
        job_yaml = render_job(args, emmc)
    try:
        return run_job(args, job_yaml, dispatcher_args)
    finally:
        if server:
            server.stop()


def run_job(args, job_yaml, dispatcher_args):
    """Render the device for @job_yaml, lava-run it, print TAP"""
    job = yaml.safe_load(job_yaml)
    device_yaml = render_device(args, job)
    device = yaml.safe_load(device_yaml)
    job_path = os.path.join(args.out, 'job.yaml')
    device_path = os.path.join(args.out, 'device.yaml')
    with open(job_path, 'w', encoding='utf-8') as f:
        f.write(job_yaml)
    with open(device_path, 'w', encoding='utf-8') as f:
        f.write(device_yaml)
    qemu_cmd = device['actions']['boot']['methods']['qemu']['parameters']
    print('# device options:', ' '.join(qemu_cmd['options']))

    # LAVA finds the binary by name in PATH, as a lab's worker would
    bindir = os.path.join(args.out, 'bin')
    os.makedirs(bindir, exist_ok=True)
    link = os.path.join(bindir, 'qemu-system-aarch64')
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(os.path.abspath(args.qemu), link)
    path = bindir + os.pathsep + os.environ['PATH']
    cmd = ['lava-run', '--job-id', '1', '--output-dir',
           os.path.join(args.out, 'output'), '--device', device_path,
           *dispatcher_args, job_path]
    if os.geteuid() != 0:
        # lava-run works in /var/lib/lava/dispatcher as root; sudo's
        # secure_path would drop the PATH that picks the QEMU under test
        cmd = ['sudo', 'env', f'PATH={path}', 'LIBGUESTFS_BACKEND_SETTINGS='
               + os.environ.get('LIBGUESTFS_BACKEND_SETTINGS', '')] + cmd

    log_path = os.path.join(args.out, 'lava-run.log')
    with open(log_path, 'w', encoding='utf-8') as log:
        # In a session of its own, so that a timeout that stops us stops
        # lava-run and its QEMU too
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                env=dict(os.environ, PATH=path),
                                start_new_session=True)

        def stop(signum, frame):
            os.killpg(proc.pid, signal.SIGTERM)
            sys.exit(128 + signum)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        rc = proc.wait()

    results = lava_results(log_path)
    n = 0
    failed = False
    for r in results:
        n += 1
        ok = r.get('result') == 'pass'
        failed |= not ok
        extra = ''
        if 'measurement' in r:
            extra = f" ({r['measurement']} {r.get('units', '')})".rstrip()
        print(f"{'ok' if ok else 'not ok'} {n} lava {r.get('definition')}:"
              f"{r.get('case')}{extra}")
    definition = f'0_rcar-gen3-{args.job}'
    cases = {r.get('case') for r in results
             if r.get('definition') == definition}
    for case in EXPECTED_CASES[(args.job, args.iommu)]:
        if case not in cases:
            n += 1
            failed = True
            print(f'not ok {n} lava {definition}:{case} (not reported)')
    n += 1
    if rc != 0:
        failed = True
        print(f'not ok {n} lava-run exited with {rc} (see {log_path})')
    else:
        print(f'ok {n} lava-run exited with 0')
    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
