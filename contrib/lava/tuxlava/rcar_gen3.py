# -*- coding: utf-8 -*-
#
# tuxlava devices for the R-Car Gen3 boards that QEMU emulates, in the
# form of tuxlava/devices/qemu.py (kernelci/tuxlava): copy this file to
# tuxlava/devices/rcar_gen3.py and import it at the end of
# tuxlava/devices/__init__.py, as tuxlava imports qemu.py there:
#     import tuxlava.devices.rcar_gen3  # noqa: E402,F401
# (tuxlava finds a device among Device's subclasses by its name).
# test_rcar_gen3_tuxlava.py checks the jobs they render with tuxlava's
# own code (tested with kernelci/tuxlava f99d452cdc2f, 2026-05-19).
#
# They differ from qemu-arm64 in what the board imposes:
# - the machine is the board, and -cpu one of the SoC's core types (the
#   machine refuses "max"); -smp is the board's CPU count by default;
# - memory is the board's DRAM; Linux gets it less the 128 MiB the secure
#   firmware keeps (H3: 4G gives Linux 3968 MiB);
# - the kernel needs the board's DTB (--dtb), which qemu-arm64 refuses;
# - the console is SCIF2, ttySC0; the root file system goes on the eMMC
#   (mmcblk0 is the eMMC when the SD slots are empty);
# - the NIC is the SoC's EtherAVB (model=rcar-avb): a board without PCI
#   cannot take the virtio NIC that the device template asks for.
# tuxboot publishes no kernel or rootfs for these boards: pass --kernel,
# --dtb (arch/arm64/boot/dts/renesas/<board>.dtb of the same tree) and
# --rootfs, a raw image whose size is a power of 2 (QEMU's eMMC needs it).
#
# SPDX-License-Identifier: MIT

from tuxlava.devices.qemu import QemuDevice
from tuxlava.exceptions import InvalidArgument


class QemuRCarGen3(QemuDevice):
    arch = "arm64"
    lava_arch = "arm64"
    console = "ttySC0"
    rootfs_dev = "/dev/mmcblk0"

    def validate(self, dtb, **kwargs):
        if not dtb:
            raise InvalidArgument(
                f"{self.name} needs the board's DTB: --dtb "
                f"arch/arm64/boot/dts/renesas/{self.machine}.dtb"
            )
        # QemuDevice.validate refuses --dtb on every device but qemu-armv5
        super().validate(dtb=None, **kwargs)

    def device_dict(self, context, d_dict_config=None):
        context.setdefault("model", "model=rcar-avb")
        return super().device_dict(context, d_dict_config)

    def definition(self, **kwargs):
        # The job template appends the partition number to rootfs_dev:
        # an MMC block device's partitions are mmcblk0p<N>
        if kwargs.get("rootfs_partition") is not None:
            self.rootfs_dev = "/dev/mmcblk0p"
        return super().definition(**kwargs)


class QemuR8A77951SalvatorXS(QemuRCarGen3):
    name = "qemu-r8a77951-salvator-xs"
    machine = "r8a77951-salvator-xs"
    cpu = "cortex-a57"
    memory = "4G"
    rootfs_arg = "-drive file={rootfs},if=sd,index=2,format=raw"


class QemuR8A77965SalvatorXS(QemuRCarGen3):
    name = "qemu-r8a77965-salvator-xs"
    machine = "r8a77965-salvator-xs"
    cpu = "cortex-a57"
    memory = "2G"
    rootfs_arg = "-drive file={rootfs},if=sd,index=2,format=raw"


class QemuR8A77990Ebisu(QemuRCarGen3):
    name = "qemu-r8a77990-ebisu"
    machine = "r8a77990-ebisu"
    cpu = "cortex-a53"
    memory = "1G"
    rootfs_arg = "-drive file={rootfs},if=sd,index=3,format=raw"


class QemuR8A77951ULCB(QemuRCarGen3):
    name = "qemu-r8a77951-ulcb"
    machine = "r8a77951-ulcb"
    cpu = "cortex-a57"
    memory = "4G"
    rootfs_arg = "-drive file={rootfs},if=sd,index=2,format=raw"


class QemuR8A779M1ULCB(QemuRCarGen3):
    """The board of KernelCI's R-Car jobs (H3e-2G)"""

    name = "qemu-r8a779m1-ulcb"
    machine = "r8a779m1-ulcb"
    cpu = "cortex-a57"
    memory = "4G"
    rootfs_arg = "-drive file={rootfs},if=sd,index=2,format=raw"


class QemuR8A77965ULCB(QemuRCarGen3):
    name = "qemu-r8a77965-ulcb"
    machine = "r8a77965-ulcb"
    cpu = "cortex-a57"
    memory = "2G"
    rootfs_arg = "-drive file={rootfs},if=sd,index=2,format=raw"
