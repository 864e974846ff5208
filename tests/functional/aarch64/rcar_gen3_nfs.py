#
# A user-space NFS server for the R-Car Gen3 NFS-root boots: Debian's
# nfs-ganesha exporting one directory over NFSv3 and TCP, on ports of its
# own, which the guest's kernel is told (nfsroot=...,port=,mountport=), so
# that no NFS server of the host is touched and none is needed.  NFSv3
# clients told the ports find nothing through rpcbind, but ganesha will
# not start unless it can register: rpcbind is started if none runs.
#
# Used by test_rcar_gen3_network.py and by contrib/lava/run-job.py (the
# LAVA job's NFS root, where it plays the worker's NFS server).
#
# SPDX-License-Identifier: GPL-2.0-or-later

import os
import shutil
import socket
import subprocess
import time


class NFSServerError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(('', 0))
        return s.getsockname()[1]


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
                    if 'NFS SERVER INITIALIZED' in f.read():
                        return
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
