#
# A user-space NFS server for the R-Car Gen3 NFS-root boots: Debian's
# nfs-ganesha exporting one directory over NFSv3 and TCP, on ports of its
# own, which the guest's kernel is told (nfsroot=...,port=,mountport=), so
# that no NFS server of the host is touched and none is needed.  NFSv3
# clients told the ports find nothing through rpcbind, but ganesha will
# not start unless it can register: rpcbind is started if none runs.
#
# ganesha's VFS back end serves files by their kernel file handles
# (name_to_handle_at(2)), which some file systems do not give: overlayfs
# without nfs_export=on, as a container's work tree may be on.  There
# ganesha still starts, without the export, and a guest's NFS root mount
# fails; exportable_dir() picks a directory that can be exported, and
# start() refuses a server whose export failed.
#
# Used by test_rcar_gen3_network.py and by contrib/lava/run-job.py (the
# LAVA job's NFS root, where it plays the worker's NFS server).
#
# SPDX-License-Identifier: GPL-2.0-or-later

import ctypes
import errno
import os
import shutil
import socket
import subprocess
import tempfile
import time


class NFSServerError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(('', 0))
        return s.getsockname()[1]


AT_FDCWD = -100
MAX_HANDLE_SZ = 128


def has_file_handles(path):
    """Whether the file system of @path gives file handles, which
    ganesha's VFS back end serves files by"""
    libc = ctypes.CDLL(None, use_errno=True)

    class FileHandle(ctypes.Structure):
        _fields_ = [('handle_bytes', ctypes.c_uint),
                    ('handle_type', ctypes.c_int),
                    ('f_handle', ctypes.c_ubyte * MAX_HANDLE_SZ)]

    handle = FileHandle(handle_bytes=MAX_HANDLE_SZ)
    mount_id = ctypes.c_int()
    if libc.name_to_handle_at(AT_FDCWD, os.fsencode(path),
                              ctypes.byref(handle), ctypes.byref(mount_id),
                              0) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EOPNOTSUPP, errno.ENOSYS):
        return False
    raise OSError(err, os.strerror(err), path)


def exportable_dir(workdir, name):
    """A new directory @name in @workdir if ganesha can export it there,
    else a new one in the first of /var/tmp and /tmp that it can.  The
    caller removes it (shutil.rmtree) when it is not in @workdir."""
    if has_file_handles(workdir):
        path = os.path.join(workdir, name)
        os.mkdir(path)
        return path
    for parent in ('/var/tmp', '/tmp'):
        if os.path.isdir(parent) and has_file_handles(parent):
            return tempfile.mkdtemp(prefix=f'rcar-{name}-', dir=parent)
    raise NFSServerError(f'no file system with file handles for the NFS '
                         f'export: not that of {workdir}, /var/tmp or /tmp')


def export_failure(log_text):
    """ganesha's complaint about the export, if its log has one"""
    for line in log_text.splitlines():
        if ':EXPORT :CRIT :' in line or 'Could not get handle' in line:
            return line.split('] ', 1)[-1]
    return None


class NFSServer:
    """ganesha exporting @path (read-write, root not squashed), its
    configuration and log in @workdir"""

    def __init__(self, workdir, path):
        self.workdir, self.path = workdir, path
        self.nfs_port, self.mount_port = free_port(), free_port()
        self.proc = None

    def config(self):
        return f"""
NFS_CORE_PARAM {{
    NFS_Port = {self.nfs_port};
    MNT_Port = {self.mount_port};
    NLM_Port = {free_port()};
    Rquota_Port = {free_port()};
    Protocols = 3;
    Enable_NLM = false;
    Enable_RQUOTA = false;
}}
NFSV4 {{ Graceless = true; }}
EXPORT {{
    Export_Id = 1;
    Path = {self.path};
    Pseudo = /root;
    Access_Type = RW;
    Squash = No_Root_Squash;
    SecType = sys;
    Protocols = 3;
    Transports = TCP;
    FSAL {{ Name = VFS; }}
}}
"""

    def start(self):
        """Start ganesha and wait until it serves; NFSServerError if it
        cannot"""
        for tool in ('ganesha.nfsd', 'rpcbind', 'rpcinfo'):
            if not shutil.which(tool):
                raise NFSServerError(f'{tool} is missing (scripts/deps.sh '
                                     'installs nfs-ganesha and rpcbind)')
        if subprocess.run(['rpcinfo', '-p'], capture_output=True,
                          check=False).returncode:
            os.makedirs('/run/rpcbind', exist_ok=True)
            subprocess.run(['rpcbind', '-w'], check=True)
        conf = os.path.join(self.workdir, 'ganesha.conf')
        log = os.path.join(self.workdir, 'ganesha.log')
        with open(conf, 'w', encoding='utf-8') as f:
            f.write(self.config())
        if os.path.exists(log):
            os.unlink(log)
        # In a session of its own: a test's timeout does not stop it
        # half-way through its shutdown.  What it says on stderr as it
        # stops (its log is closed by then) goes to a file too.
        with open(os.path.join(self.workdir, 'ganesha.stderr'), 'wb') as err:
            self.proc = subprocess.Popen(
                ['ganesha.nfsd', '-F', '-f', conf, '-L', log, '-N',
                 'NIV_EVENT', '-p', os.path.join(self.workdir,
                                                 'ganesha.pid')],
                stdout=err, stderr=err, start_new_session=True)
        for _ in range(300):
            if os.path.exists(log):
                with open(log, errors='replace') as f:
                    text = f.read()
                if 'NFS SERVER INITIALIZED' in text:
                    failure = export_failure(text)
                    if failure is None:
                        return
                    self.stop()
                    raise NFSServerError(f'ganesha cannot export {self.path}: '
                                         f'{failure}')
            if self.proc.poll() is not None:
                raise NFSServerError(f'ganesha.nfsd exited: see {log}')
            time.sleep(0.1)
        self.stop()
        raise NFSServerError(f'ganesha.nfsd did not come up: see {log}')

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)

    def mount_options(self):
        """The nfsroot= options that reach this server: NFSv3 over TCP at
        its ports, without the lock manager (NLM is off)"""
        return (f'vers=3,tcp,port={self.nfs_port},'
                f'mountport={self.mount_port},mountproto=tcp,nolock')
