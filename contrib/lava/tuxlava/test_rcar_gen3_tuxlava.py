#!/usr/bin/env python3
# -*- coding: utf-8 -*-
#
# Test the R-Car Gen3 tuxlava device file against a real tuxlava checkout.
#
#   test_rcar_gen3_tuxlava.py --tuxlava <tuxlava checkout> --device-file <rcar_gen3.py>
#
# In a temporary directory it copies <checkout>/tuxlava (the Python package),
# drops the device file in tuxlava/devices/ and registers it the way tuxlava
# collects its devices (one import line at the end of tuxlava/devices/
# __init__.py: Device.select()/list() walk Device's subclasses, so importing
# the module is the registration).  It then renders boot jobs through
# tuxlava's Job API and its CLI (python -m tuxlava), like tuxlava's own
# test/unit/test_device.py, and checks the QEMU parts of each job.
# Output is TAP; exit status 1 if any (non-TODO) check fails.
#
# Needs: python3 with jinja2, yaml (PyYAML), requests (tuxlava's deps).
#
# SPDX-License-Identifier: MIT (as tuxlava)

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# What the boards need, independently of the device file under test.
# name: (machine, cpu, memory, sd/eMMC drive index)
EXPECTED = {
    "qemu-r8a77951-salvator-xs": ("r8a77951-salvator-xs", "cortex-a57", "4G", 2),
    "qemu-r8a77965-salvator-xs": ("r8a77965-salvator-xs", "cortex-a57", "2G", 2),
    "qemu-r8a77990-ebisu": ("r8a77990-ebisu", "cortex-a53", "1G", 3),
    "qemu-r8a77951-ulcb": ("r8a77951-ulcb", "cortex-a57", "4G", 2),
    "qemu-r8a779m1-ulcb": ("r8a779m1-ulcb", "cortex-a57", "4G", 2),
    "qemu-r8a77965-ulcb": ("r8a77965-ulcb", "cortex-a57", "2G", 2),
}
KERNEL = "https://example.com/Image"
ROOTFS_EXT4 = "https://example.com/rootfs.ext4"
ROOTFS_CPIO = "https://example.com/rootfs.cpio.gz"
REGISTRATION = "import tuxlava.devices.rcar_gen3  # noqa: E402,F401\n"


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, desc, detail=None, todo=None):
        self.n += 1
        status = "ok" if cond else "not ok"
        line = f"{status} {self.n} - {desc}"
        if todo:
            line += f" # TODO {todo}"
        elif not cond:
            self.failed += 1
        print(line, flush=True)
        if not cond and detail is not None:
            for d in str(detail).splitlines():
                print(f"#   {d}")
        return cond

    def done(self):
        print(f"1..{self.n}")
        if self.failed:
            print(f"# {self.failed} of {self.n} checks failed")
        return 1 if self.failed else 0


def setup(checkout, device_file, workdir):
    pkg = checkout / "tuxlava"
    if not (pkg / "devices" / "qemu.py").is_file():
        sys.exit(f"Bail out! {checkout} is not a tuxlava checkout (no tuxlava/devices/qemu.py)")
    dst = workdir / "tuxlava"
    shutil.copytree(pkg, dst, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(device_file, dst / "devices" / "rcar_gen3.py")
    init = dst / "devices" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + REGISTRATION, encoding="utf-8")
    return workdir


def render(Job, tmpdir, **kw):
    tmpdir.mkdir(parents=True, exist_ok=True)
    job = Job(tmpdir=tmpdir, **kw)
    job.initialize()
    return job.render()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tuxlava", required=True, type=Path, help="tuxlava checkout")
    ap.add_argument("--device-file", required=True, type=Path, help="rcar_gen3.py")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = ap.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="rcar-tuxlava-"))
    try:
        return run(args, workdir)
    finally:
        if args.keep:
            print(f"# kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def run(args, workdir):
    setup(args.tuxlava.resolve(), args.device_file.resolve(), workdir)
    sys.path.insert(0, str(workdir))
    os.environ["HOME"] = str(workdir / "home")  # as tuxlava's conftest.py

    import yaml
    import tuxlava
    from tuxlava.devices import Device
    from tuxlava.exceptions import InvalidArgument
    from tuxlava.jobs import Job

    t = Tap()
    print(f"# tuxlava from {Path(tuxlava.__file__).parent}")
    t.check(Path(tuxlava.__file__).resolve().is_relative_to(workdir.resolve()),
            "tuxlava is imported from the temp copy", tuxlava.__file__)
    virtual = [d.name for d in Device.list(virtual_device=True)]
    for name in EXPECTED:
        t.check(name in virtual, f"{name} is listed by tuxlava (Device.list)")

    dtb_file = workdir / "board.dtb"
    dtb_file.touch()
    cli_env = dict(os.environ, PYTHONPATH=str(workdir))

    def cli(*argv):
        return subprocess.run([sys.executable, "-m", "tuxlava", *argv], cwd=workdir,
                              env=cli_env, capture_output=True, text=True)

    for i, (name, (machine, cpu, memory, index)) in enumerate(EXPECTED.items()):
        dtb = f"file:///tmp/{machine}.dtb"
        # --- boot job, ext4 rootfs on the SD/eMMC drive
        try:
            out = render(Job, workdir / f"job{i}", device=name, kernel=KERNEL, dtb=dtb,
                         rootfs=ROOTFS_EXT4)
            job = yaml.safe_load(out)
            err = None
        except Exception as exc:  # noqa: BLE001
            out, job, err = "", None, f"{type(exc).__name__}: {exc}"
        if not t.check(job is not None, f"{name}: job renders with --dtb (valid YAML)", err):
            continue
        ctx = job["context"]
        images = job["actions"][0]["deploy"]["images"]
        append = images["kernel"]["image_arg"]
        t.check(ctx.get("machine") == machine, f"{name}: machine {machine}", ctx.get("machine"))
        t.check(ctx.get("cpu") == cpu, f"{name}: cpu {cpu}", ctx.get("cpu"))
        t.check(ctx.get("memory") == memory, f"{name}: memory {memory}", ctx.get("memory"))
        t.check(ctx.get("arch") == "arm64", f"{name}: arch arm64", ctx.get("arch"))
        t.check("console=ttySC0,115200" in append.split('"')[1].split(),
                f"{name}: console=ttySC0 in kernel args", append)
        t.check("root=/dev/mmcblk0" in append.split(), f"{name}: root=/dev/mmcblk0", append)
        # tuxlava's jobs say no_network (-nic none); one with a network
        # gets the board's NIC, not a virtio one it cannot take
        try:
            ddict = Device.select(name)().device_dict(dict(ctx, no_network=False))
            err = None
        except Exception as exc:  # noqa: BLE001
            ddict, err = "", f"{type(exc).__name__}: {exc}"
        t.check("-net nic,model=rcar-avb," in ddict,
                f"{name}: the device dict's NIC is the EtherAVB", err or ddict[-600:])
        t.check(images.get("dtb", {}).get("image_arg") == "-dtb {dtb}"
                and images["dtb"].get("url") == dtb,
                f"{name}: -dtb {{dtb}} with url {dtb}", images.get("dtb"))
        drive = f"-drive file={{rootfs}},if=sd,index={index},format=raw"
        t.check(images["rootfs"].get("image_arg") == drive and images["rootfs"].get("url") == ROOTFS_EXT4,
                f"{name}: rootfs {drive}", images["rootfs"])
        # --- cpio rootfs: tuxlava turns it into -initrd and drops root=
        try:
            cp = yaml.safe_load(render(Job, workdir / f"cpio{i}", device=name, kernel=KERNEL,
                                       dtb=dtb, rootfs=ROOTFS_CPIO))
            cimg = cp["actions"][0]["deploy"]["images"]
            t.check(cimg["rootfs"]["image_arg"] == "-initrd {rootfs}"
                    and "root=" not in cimg["kernel"]["image_arg"] and "dtb" in cimg,
                    f"{name}: .cpio.gz rootfs -> -initrd, no root=, -dtb kept", cimg)
        except Exception as exc:  # noqa: BLE001
            t.check(False, f"{name}: .cpio.gz rootfs -> -initrd", exc)
        # --- with a partition, mmcblk needs the 'p' separator
        try:
            pj = yaml.safe_load(render(Job, workdir / f"part{i}", device=name, kernel=KERNEL,
                                       dtb=dtb, rootfs=ROOTFS_EXT4, rootfs_partition=0))
            parg = pj["actions"][0]["deploy"]["images"]["kernel"]["image_arg"]
            t.check("root=/dev/mmcblk0p1" in parg.split(), f"{name}: --partition 0 -> root=/dev/mmcblk0p1",
                    parg)
        except Exception as exc:  # noqa: BLE001
            t.check(False, f"{name}: --partition 0", exc)
        # --- no --dtb: refused (API and CLI)
        try:
            render(Job, workdir / f"nodtb{i}", device=name, kernel=KERNEL, rootfs=ROOTFS_EXT4)
            t.check(False, f"{name}: refused without --dtb (API)", "job rendered")
        except InvalidArgument as exc:
            t.check(f"{name} needs the board's DTB" in str(exc) and f"{machine}.dtb" in str(exc),
                    f"{name}: refused without --dtb (API): {exc}", exc)
        r = cli("--device", name, "--kernel", KERNEL, "--rootfs", ROOTFS_EXT4)
        t.check(r.returncode == 2 and f"{name} needs the board's DTB" in r.stderr,
                f"{name}: refused without --dtb (CLI, exit {r.returncode})", r.stderr[-400:] + r.stdout[-400:])
        r = cli("--device", name, "--kernel", KERNEL, "--rootfs", ROOTFS_EXT4, "--dtb", str(dtb_file))
        t.check(r.returncode == 0 and "-dtb {dtb}" in r.stdout and f"file://{dtb_file}" in r.stdout,
                f"{name}: CLI renders with --dtb", r.stderr[-400:])

    # --- unchanged tuxlava behaviour
    try:
        render(Job, workdir / "arm64", device="qemu-arm64", dtb="file:///tmp/x.dtb")
        t.check(False, "qemu-arm64 still refuses --dtb", "job rendered")
    except InvalidArgument as exc:
        t.check("argument --dtb is only valid for qemu-armv5 device" in str(exc),
                f"qemu-arm64 still refuses --dtb: {exc}", exc)
    a = yaml.safe_load(render(Job, workdir / "arm64b", device="qemu-arm64"))
    t.check(a["context"]["machine"].startswith("virt") and "ttyAMA0" in
            a["actions"][0]["deploy"]["images"]["kernel"]["image_arg"],
            "qemu-arm64 job unchanged (virt, ttyAMA0)", a["context"])
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
