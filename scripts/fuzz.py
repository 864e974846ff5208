#!/usr/bin/env python3
"""Fuzz the R-Car Gen3 SDHI, its DMAC and SCC, the IPMMU, the I2C
controllers, the EtherAVB and USB 2.0 over qtest, with host events in
between.

Each run starts one qemu-system-aarch64 (-accel qtest, SD cards on SDHI0,
SDHI1 and SDHI3, an eMMC with boot partitions on SDHI2, SDHI3's drive
throttled on real time so that its requests stay in flight) and sends it a
stream of qtest commands drawn from a seeded generator: register writes and reads aimed at
the SDHI, DMAC, SCC and IPMMU windows with values that mean something to
them (commands with and without data, DMA modes, IMTTBCR geometries...),
card bring-up sequences, IPMMU page tables written into guest RAM with
descriptors pointing at RAM, at device registers and at holes, DMA
addresses in the same places, clock steps, and register writes to the
I2C channel 2 and the IIC, each with an EEPROM on its bus (the one on
I2C2 backed by a drive), and the EtherAVB's registers with descriptor
tables and rings in guest RAM whose descriptors point at RAM, at device
registers and at holes (its NIC is a UDP socket that sends to itself, so
every frame sent comes back to be received), and USB 2.0 channel 0's
EHCI, OHCI and PHY block with their lists and descriptors in guest RAM
(a USB stick and a keyboard plugged in).  Every other run has the
SD/MMC hosts' timing mode on (timing=board).

Host events come in between, over QMP, as kernel CI causes them: stop and
cont (a stop drains block I/O, as savevm and quit do), system_reset,
eject and change of an SD card's medium, new limits for SDHI3's throttle,
and migration to a file and back into a fresh QEMU, which then goes on
with the run (--no-host-events leaves them out).

A finding is QEMU dying (an abort, a signal, a sanitizer report), not
answering qtest within --hang-timeout seconds (a hang), the monitor not
answering a command within --monitor-timeout seconds of wall time, or a
migration that fails.  Its whole command stream is saved as a reproducer,
replayable with --replay FILE; lines "qmp JSON" and "host migrate" in it
are the host events.

  scripts/fuzz.py --qemu build/qemu-build-san/qemu-system-aarch64 \\
      --ops 200000 --seed 1          # a bounded pass, as make check runs
  scripts/fuzz.py --seconds 600      # make fuzz

The last line is "fuzz: N operations, N runs, N findings"; the line before
counts the host events and gives the monitor's slowest answer.  The exit
code is 1 when there were findings.
"""

import argparse
import json
import os
import random
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def soc_windows():
    """The H3's windows from the SoC table that QEMU's SoC is built from
    (rcar-gen3-memmap-tables.h): {label: (base, IPMMU uTLB)}"""
    path = os.path.join(TOP, 'include/hw/arm/rcar-gen3-memmap-tables.h')
    with open(path) as f:
        text = f.read()
    h3 = text[text.index('r8a77951_devs[]'):]
    h3 = h3[:h3.index('};')]
    # label, base, size, SPI, SPIs in a row, CPG module, uTLB
    row = re.compile(r'\{ "([^"]+)", (0x[0-9a-f]+), 0x[0-9a-f]+, -?\d+, '
                     r'\d+, -?\d+, (-?\d+),')
    return {m[1]: (int(m[2], 16), int(m[3])) for m in row.finditer(h3)}


WINDOWS = soc_windows()
SDHI = [WINDOWS[f'sdhi{n}'][0] for n in range(4)]
IPMMU_MM = WINDOWS['ipmmu_mm'][0]
IPMMU_DS1 = WINDOWS['ipmmu_ds1'][0]
UTLB_OF_SDHI = [WINDOWS[f'sdhi{n}'][1] for n in range(4)]  # <&ipmmu_ds1 N>
RAM = 0x48000000                       # the Salvator-XS's first RAM bank
PT_POOL = 0x4c000000                   # where page tables go
SD_SLOTS = [0, 1, 3]                   # SD cards; SDHI2 has the eMMC
IMG_SIZE = 4 << 20
# The eMMC's two boot partitions (emmc.boot-partition-size), and its image:
# sd_realize() wants the user area, what is left after the boot
# partitions, to be a power of 2 up to 2 GiB
EMMC_BOOT_PART = 1024 * 1024
EMMC_IMG_SIZE = 2 * IMG_SIZE + 2 * EMMC_BOOT_PART

# 16-bit SD core registers (offset, interesting values)
SD_REGS = {
    0x000: None,                       # SD_CMD: see sd_cmd()
    0x010: [0, 0xfe00, 0x0200, 0xffff, 0x0300],
    0x018: [0, 0x3f, 0xffff, 0x03b3, 0x0010],
    0x020: [0, 0x100, 0x1, 0x101],
    0x028: [0, 1, 2, 8, 16, 0xffff, 0xffffffff, 0x800],
    0x070: [0, 0xffff],
    0x078: [0, 0xffff],
    0x080: [0, 0xffff],
    0x088: [0, 0xffff],
    0x090: [0, 0x20, 0x3ff, 0x100],
    0x098: [0, 1, 8, 64, 128, 512, 513, 1000, 1023, 0x3ff, 0xffff],
    0x0a0: [0x40ee, 0, 0xffff],
    0x0c0: [0, 0xffff],
    0x0d0: [0, 1],
    0x0d8: [0, 0xffff],
    0x0e0: [0, 0xffff],
    0x360: [0, 2, 0xffff],
    0x380: [0, 7, 6],
    0x390: [0, 1, 0xffff],
    0x398: [0, 1],
}
DM_REGS = {
    0x820: [0, 1, 0x10031, 0x31, 0x10000, 0x30001, 0xffffffff],
    0x828: [1, 0, 0xffffffff],
    0x830: [0xffffffff, 0, 0x100, 0x200, 0x300],
    0x840: [0, 0xffffffff],
    0x848: [0, 0xffffffff, 0xffeeffff],
    0x850: [0, 0xffffffff],
    0x858: [0, 0xffffffff],
    0x880: None,                       # DM_DTRAN_ADDR: see dma_addr()
}
SCC_REGS = [0x1000 + 8 * i for i in range(15)]
# I2C channel 2 (i2c-rcar) and the IIC (i2c-sh_mobile), an EEPROM at 0x50
I2C2 = WINDOWS['i2c2'][0]
IIC = WINDOWS['i2c_dvfs'][0]
I2C_ADDRS = [0x50 << 1, 0x50 << 1 | 1, 0x30 << 1, 0x30 << 1 | 1]
I2C_REGS = {
    0x04: [0x89, 0x88, 0x8a, 0x80, 0, 0xf0, 0xb0, 0x8b, 0xff],  # ICMCR
    0x0c: [0, 0x76, 0x77, 0x7d, 0x75, 0xff],                     # ICMSR
    0x14: [0, 0x79, 0x7b, 0x10, 0x7f],                           # ICMIER
    0x20: I2C_ADDRS,                                             # ICMAR
    0x24: [0x00, 0x10, 0xa5, 0xff],                              # ICRXTX
    0x08: [0, 0xff], 0x10: [0, 0x7f], 0x00: [0, 0x0f],
    0x3c: [0, 1, 2, 0xf],
}
IIC_REGS = {
    0x04: [0x94, 0x90, 0x81, 0xc0, 0x01, 0x80, 0x00, 0xd4, 0xff],  # ICCR
    0x08: [0x00, 0xf1, 0xf9, 0xfb, 0xfd, 0xff],                     # ICSR
    0x0c: [0x0f, 0x0e, 0x0d, 0x00, 0xff],                           # ICIC
    0x00: I2C_ADDRS + [0x00, 0x20, 0xff],                           # ICDR
    0x10: [0, 0x42], 0x14: [0, 0x37],
}
# The EtherAVB (ravb), with the values Linux's ravb_main.c writes
AVB = WINDOWS['avb'][0]
AVB_POOL = 0x4d000000                  # its table, rings and buffers
AVB_REGS = {
    0x000: [0x10080, 0x10081, 0x10082, 0x10083, 0, 2, 0xffffffff],  # CCC
    0x004: None,                                            # DBAT: avb_addr()
    0x08c: [0, 0x6000], 0x090: [0x1800001f, 0, 0xffffffff],  # APSR, RCR
    0x300: [0x00112210, 0],                                 # TGC
    0x304: [0x101, 0x103, 0x102, 0x1, 0x200, 0x300, 0xf, 0],  # TCCR
    0x358: [0, 0x1ff, 0xffffffff], 0x35c: [0, 0xffffffff, 0x7ff],  # EIC, EIS
    0x360: [3, 0, 1, 0xffffffff], 0x364: [0x3fffe, 0x3fffd, 0, 0xffffffff],
    0x370: [0x80000003, 0], 0x374: [0, 0xffffffff],         # RIC2, RIS2
    0x378: [0x103, 0, 0xffffffff], 0x37c: [0xf0f0e, 0xf0f0d, 0, 0xffffffff],
    0x380: [0], 0x384: [0x20101, 0],                        # ISS, CIE
    0x390: [1, 3, 4, 8, 0x100, 0],                          # GCCR
    0x39c: [0x78313b, 0, 0xffffffff],                       # GTI
    0x3a0: [0, 999999999, 0xffffffff], 0x3a4: [0, 1], 0x3a8: [0, 0xffff],
    0x3ac: [0, 5], 0x3b0: [0, 0xffffffff], 0x3b8: [0],
    0x3cc: [1, 4], 0x3d0: [1, 4],                           # GIE, GID
    0x460: [1, 2, 3], 0x464: [1, 2, 3], 0x470: [1], 0x474: [1],
    0x478: [1, 2, 0x100], 0x47c: [1, 2, 0x100],             # TIE, TID
    0x500: [0x00880062, 0x00880063, 0, 0x20, 0x40, 0xffffffff],  # ECMR
    0x508: [2052, 0, 60, 0xfff],                            # RFLR
    0x510: [0x7, 0x1f, 0], 0x518: [0x7, 0],                 # ECSR, ECSIPR
    0x520: list(range(8)), 0x528: [0],                      # PIR, PSR
    0x5c0: [0x02112233, 0], 0x5c8: [0x4455, 0xffff],        # MAHR, MALR
}
# Descriptor types: frames, links, end of set, empty, and junk
AVB_DT = [0x70, 0x70, 0x50, 0x40, 0x60, 0x80, 0x90, 0xa0, 0xc0, 0xc0, 0x30,
          0xf0, 0x00]
# USB 2.0 channel 0: the EHCI (operational registers from 0x10), its
# companion OHCI and the PHY block, with a stick and a keyboard plugged
# in; the values are those of ehci-hcd.c, ohci-hcd.c and
# phy-rcar-gen3-usb2.c, and addresses from usb_addr()
EHCI = WINDOWS['ehci0'][0]
OHCI = WINDOWS['ohci0'][0]
USB2_PHY = WINDOWS['usb2_phy0'][0]
USB_POOL = 0x4e000000                  # QHs, qTDs, EDs, TDs, HCCA, data
EHCI_REGS = {
    0x10: [0x10021, 0x10031, 0x10001, 0x2, 0, 0xffffffff],  # USBCMD
    0x14: [0x3f, 0xffffffff], 0x18: [0x37, 0, 0xffffffff],  # USBSTS, INTR
    0x1c: [0, 0x3fff], 0x20: [0],                           # FRINDEX
    0x24: None, 0x28: None,                 # PERIODICLISTBASE, ASYNCLIST
    0x50: [1, 0],                                           # CONFIGFLAG
    0x54: [0x1000, 0x1100, 0x1004, 0x3000, 0x102a, 0, 0xffffffff],
    0x58: [0x1000, 0x1100, 0x3000, 0xffffffff],             # PORTSC 1, 2
}
OHCI_REGS = {
    0x04: [0x83, 0xb3, 0xbf, 0xc0, 0, 0xffffffff],          # HcControl
    0x08: [1, 2, 4, 8],                                     # CommandStatus
    0x0c: [0x7f, 0xffffffff], 0x10: [0x8000005b, 0x80000002],
    0x14: [0x80000000, 0xffffffff],                 # InterruptDisable
    0x18: None, 0x20: None, 0x24: None, 0x28: None, 0x2c: None,  # HCCA...
    0x34: [0x27782edf, 0xa7782edf, 0], 0x40: [0x2a2f, 0],   # FmInterval
    0x50: [0x10000, 0x8000, 0x20000],                       # RhStatus
    0x54: [0x2, 0x10, 0x100, 0x1f0000, 0x1], 0x58: [0x2, 0x10, 0x100],
}
USB2_PHY_REGS = {
    0x000: [0xe, 0x8, 0x2, 0x4, 0xffffffff], 0x008: [2, 0, 3],
    0x00c: [2, 0, 4], 0x10c: [0x014e029b], 0x110: [0x000209ab],
    0x600: [0x80000000, 0], 0x604: [0xffffffff], 0x608: [0x1800, 0],
    0x60c: [0x100, 0x1, 0x10000], 0x610: [0xb0000, 0x40, 0],
    0x630: [0x20, 0x10, 0x30, 0xffffffff],
}
SD_COMMANDS = [0, 2, 3, 6, 7, 8, 9, 12, 13, 16, 17, 18, 19, 21, 23, 24,
               25, 26, 27, 28, 29, 30, 32, 33, 35, 36, 38, 41, 42, 55, 56]


class Gen:
    """Draws qtest commands; every command gets exactly one answer line."""

    def __init__(self, rng, host_events=True, sd_imgs=None):
        self.r = rng
        self.host_events = host_events
        self.sd_imgs = sd_imgs or {}
        self.stopped = False

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def anyval(self, bits):
        r = self.r.random()
        if r < 0.3:
            return self.r.getrandbits(bits)
        if r < 0.6:
            return 1 << self.r.randrange(bits)
        return self.pick([0, (1 << bits) - 1, 1, 2, 0x80, 0x100])

    def dma_addr(self):
        # RAM, the DMAC's own window, other devices, holes, IOVAs
        return self.pick([
            RAM, RAM + 0x80 * self.r.randrange(0x10000), PT_POOL,
            self.pick(SDHI), self.pick(SDHI) + 0x800, IPMMU_MM, IPMMU_DS1,
            0x0, 0x1000, 0x3ff00000, 0xfff00000, 0xe6000000, 0x40000000,
            0xfffff000, self.r.getrandbits(32) & ~0x7f])

    def sd_cmd(self):
        c = self.pick(SD_COMMANDS)
        rsp = self.pick([0x300, 0x400, 0x500, 0x600, 0x700, 0x000, 0x400])
        flags = 0
        if self.r.random() < 0.5:
            flags |= 0x800                                  # DATA
            flags |= self.pick([0, 0x1000])                 # READ
            flags |= self.pick([0, 0x2000, 0x2000 | 0x4000])
        if self.r.random() < 0.05:
            flags |= self.r.getrandbits(16) & 0xffc0
        return c | rsp | flags

    def sdhi_write(self, out):
        base = self.pick(SDHI)
        r = self.r.random()
        if r < 0.55:
            off = self.pick(list(SD_REGS))
            vals = SD_REGS[off]
            if off == 0x000:
                val = self.sd_cmd()
            elif self.r.random() < 0.8:
                val = self.pick(vals)
            else:
                val = self.anyval(16)
            size = 4 if off in (0x028, 0x010) and self.r.random() < 0.5 else 2
            out.append(f'write{"l" if size == 4 else "w"} '
                       f'0x{base + off:x} 0x{val & 0xffffffff:x}')
        elif r < 0.85:
            off = self.pick(list(DM_REGS))
            val = self.dma_addr() if off == 0x880 else (
                self.pick(DM_REGS[off]) if self.r.random() < 0.8
                else self.anyval(32))
            out.append(f'writel 0x{base + off:x} 0x{val:x}')
        elif r < 0.95:
            off = self.pick(SCC_REGS)
            out.append(f'writel 0x{base + off:x} 0x{self.anyval(32):x}')
        else:
            off = self.r.randrange(0x2000) & ~1
            out.append(f'writew 0x{base + off:x} 0x{self.anyval(16):x}')

    def sdhi_read(self, out):
        base = self.pick(SDHI)
        off = self.pick([0x070, 0x078, 0x0c0, 0x0c0, 0x030, 0x840, 0x850,
                         0x1000, 0x1028, 0x1030, 0x1070,
                         self.r.randrange(0x2000) & ~1])
        out.append(f'readw 0x{base + off:x}')

    def ipmmu_write(self, out):
        base = self.pick([IPMMU_MM, IPMMU_MM, IPMMU_DS1])
        r = self.r.random()
        ctx = self.r.randrange(8)
        if r < 0.45:
            reg = self.pick([0x00, 0x08, 0x10, 0x14, 0x20, 0x28])
            if reg == 0x08:
                val = (0x80000000 * self.r.randrange(2) |
                       self.r.randrange(4) << 6 | self.r.randrange(8) |
                       (self.anyval(32) if self.r.random() < 0.1 else 0))
            elif reg == 0x10:
                val = PT_POOL + 0x1000 * self.r.randrange(16) + \
                    self.pick([0, 0x20, 0x8])
            elif reg == 0x00:
                val = self.pick([1, 3, 5, 7, 0, 2, self.anyval(32)])
            else:
                val = self.anyval(32)
            out.append(f'writel 0x{base + ctx * 0x40 + reg:x} 0x{val:x}')
        elif r < 0.85:
            utlb = self.pick(UTLB_OF_SDHI + [self.r.randrange(48)])
            off = 0x300 + utlb * 16 if utlb < 32 else 0x600 + (utlb - 32) * 16
            val = self.pick([1, 3, 0, 1 | ctx << 4, 3 | ctx << 4,
                             1 | 0xf << 4, self.anyval(32)])
            out.append(f'writel 0x{base + off:x} 0x{val:x}')
        else:
            off = self.r.randrange(0x1000) & ~3
            out.append(f'writel 0x{base + off:x} 0x{self.anyval(32):x}')

    def page_table(self, out):
        # A descriptor somewhere in the pool: tables, pages, blocks
        slot = PT_POOL + 0x1000 * self.r.randrange(16) + \
            8 * self.pick([0, 1, 2, 3, self.r.randrange(512)])
        kind = self.r.random()
        attrs = 0x400 | self.pick([0, 0x80, 0x40, 0x4000000000000000])
        if kind < 0.35:
            val = PT_POOL + 0x1000 * self.r.randrange(16) | 3
        elif kind < 0.75:
            target = self.pick([RAM + 0x1000 * self.r.randrange(256),
                                self.pick(SDHI), IPMMU_MM, 0x0, 0xe6000000,
                                0x100000000, 0xff00000000])
            val = target | attrs | self.pick([3, 1, 3])
        else:
            val = self.anyval(64)
        out.append(f'writeq 0x{slot:x} 0x{val:x}')

    def card_init(self, out):
        slot = self.pick([0, 2, 0, 2, 1, 3])
        base = SDHI[slot]
        emmc = slot == 2

        def cmd(c, arg):
            out.append(f'writel 0x{base + 0x010:x} 0x{arg:x}')
            out.append(f'writew 0x{base + 0x000:x} 0x{c:x}')
            out.append(f'writew 0x{base + 0x070:x} 0x0')
            out.append(f'writew 0x{base + 0x078:x} 0x0')
        out.append(f'writew 0x{base + 0x380:x} 0x7')
        cmd(0x300 | 0, 0)
        if emmc:
            cmd(0x700 | 1, 0x40ff8080)
            out.append('clock_step 2000000')
            cmd(0x700 | 1, 0x40ff8080)
            cmd(0x600 | 2, 0)
            cmd(0x400 | 3, 1 << 16)
            cmd(0x500 | 7, 1 << 16)
            if self.r.random() < 0.3:
                # SWITCH to a partition, or some other EXT_CSD byte
                cmd(0x500 | 6, 3 << 24 | self.pick([179, 183, 185, 177,
                                                    self.r.randrange(256)])
                    << 16 | self.r.randrange(256) << 8)
        else:
            cmd(0x400 | 8, 0x1aa)
            cmd(0x400 | 55, 0)
            cmd(0x700 | 41, 0x40ff8000)
            out.append('clock_step 2000000')
            cmd(0x400 | 55, 0)
            cmd(0x700 | 41, 0x40ff8000)
            cmd(0x600 | 2, 0)
            cmd(0x400 | 3, 0)
            # CMD7 with the RCA the card chose: the runner reads it
            out.append(f'host select {slot}')
        cmd(0x400 | 16, 512)

    def data_command(self, out):
        """A well-formed DMA or PIO transfer set-up, to get deep quickly."""
        base = SDHI[self.pick([0, 2, 0, 2, 1, 3])]
        read = self.r.random() < 0.5
        blocks = self.pick([1, 2, 8, 16, 0x7ff, 0xffffffff])
        sector = self.pick([0, 16, 8191, 8192, 100, 2047,
                            self.r.getrandbits(16)])
        out.append(f'writew 0x{base + 0x098:x} 0x'
                   f'{self.pick([512, 512, 1023, 64, 8, 0]):x}')
        out.append(f'writel 0x{base + 0x028:x} 0x{blocks:x}')
        out.append(f'writew 0x{base + 0x020:x} 0x100')
        dma = self.r.random() < 0.7
        out.append(f'writew 0x{base + 0x360:x} 0x{2 if dma else 0:x}')
        out.append(f'writel 0x{base + 0x820:x} 0x'
                   f'{0x10031 if read else 0x31:x}')
        # From the throttled card, often at another SDHI's SD_CMD: a
        # request in flight when a stop drains it
        addr = self.dma_addr()
        if base == SDHI[3] and self.r.random() < 0.5:
            addr = self.pick(SDHI[:3])
        out.append(f'writel 0x{base + 0x880:x} 0x{addr:x}')
        arg = sector if base == SDHI[2] else sector * 512
        out.append(f'writel 0x{base + 0x010:x} 0x{arg & 0xffffffff:x}')
        c = (18 if read else 25) if blocks > 1 else (17 if read else 24)
        flags = 0x400 | 0x800 | (0x1000 if read else 0) | \
            (0x2000 if blocks > 1 else 0)
        if self.r.random() < 0.2:
            flags ^= self.pick([0x400 ^ 0x300, 0x800, 0x4000])
        out.append(f'writew 0x{base:x} 0x{c | flags:x}')
        if dma and self.r.random() < 0.9:
            out.append(f'writel 0x{base + 0x828:x} 0x1')

    def i2c_access(self, out):
        base, regs, width = self.pick([(I2C2, I2C_REGS, 'l'),
                                       (IIC, IIC_REGS, 'b')])
        off = self.pick(list(regs))
        if self.r.random() < 0.3:
            out.append(f'read{width} 0x{base + off:x}')
            return
        val = self.pick(regs[off]) if self.r.random() < 0.9 else \
            self.anyval(8)
        out.append(f'write{width} 0x{base + off:x} 0x{val:x}')

    def avb_addr(self):
        # The pool (table, rings, buffers), the AVB's own window, another
        # device, holes
        return self.pick([AVB_POOL, AVB_POOL + 8 * self.r.randrange(0x400),
                          AVB_POOL + 20 * self.r.randrange(0x100), AVB,
                          AVB + 0x500, SDHI[0], RAM, 0x0, 0xfffff000,
                          self.r.getrandbits(32)])

    def avb_access(self, out):
        off = self.pick(list(AVB_REGS))
        if self.r.random() < 0.2:
            out.append(f'readl 0x{AVB + off:x}')
            return
        vals = AVB_REGS[off]
        if vals is None:
            val = self.avb_addr()
        elif self.r.random() < 0.9:
            val = self.pick(vals)
        else:
            val = self.anyval(32)
        out.append(f'writel 0x{AVB + off:x} 0x{val:x}')

    def usb_addr(self):
        # The pool, RAM, a controller's own registers, another device's,
        # holes, and junk with the low bits that mean a type or a T-bit
        return self.pick([USB_POOL + 32 * self.r.randrange(0x100),
                          USB_POOL + 0x1000 * self.r.randrange(16),
                          USB_POOL + 32 * self.r.randrange(0x100) | 2,
                          USB_POOL | 1, EHCI, OHCI, USB2_PHY, SDHI[0], RAM,
                          0x0, 0xfffff000, self.anyval(32)])

    def usb_access(self, out):
        base, regs = self.pick([(EHCI, EHCI_REGS), (EHCI, EHCI_REGS),
                                (OHCI, OHCI_REGS), (OHCI, OHCI_REGS),
                                (USB2_PHY, USB2_PHY_REGS)])
        off = self.pick(list(regs))
        if self.r.random() < 0.2:
            out.append(f'readl 0x{base + off:x}')
            return
        vals = regs[off]
        val = self.usb_addr() if vals is None else self.pick(vals + [
            self.anyval(32)])
        out.append(f'writel 0x{base + off:x} 0x{val & 0xffffffff:x}')

    def usb_desc(self, out):
        # A word of a QH, qTD, ED, TD or the periodic list or HCCA: links,
        # tokens and buffer pointers
        addr = USB_POOL + 4 * self.r.randrange(0x1000)
        val = self.pick([self.usb_addr(), self.usb_addr() | 2,
                         0x80008d80, 0x00008c80, 0x80000d00, 0xf0000000,
                         0x00080000, 1, self.anyval(32)])
        out.append(f'writel 0x{addr:x} 0x{val & 0xffffffff:x}')

    def avb_desc(self, out):
        """A descriptor in the pool: a table entry or a TX slot (8 bytes
        apart) or an RX slot (20 bytes apart), all three overlapping"""
        stride = self.pick([8, 20])
        addr = AVB_POOL + stride * self.r.randrange(0x80)
        ds = self.pick([60, 64, 1514, 2046, 0, 1, 0xfff])
        dt = self.pick(AVB_DT)
        desc = ds | dt << 24 | (self.avb_addr() & 0xffffffff) << 32
        out.append(f'writel 0x{addr:x} 0x{desc & 0xffffffff:x}')
        out.append(f'writel 0x{addr + 4:x} 0x{desc >> 32:x}')

    def ram_write(self, out):
        addr = self.pick([RAM, PT_POOL]) + 8 * self.r.randrange(0x4000)
        out.append(f'writeq 0x{addr:x} 0x{self.anyval(64):x}')

    def clock(self, out):
        # Up to 1 ms: long enough for any one step of the devices; a
        # transfer that moves data through device registers costs host
        # time in proportion, which is not what a hang is
        out.append('clock_step %d' % self.pick(
            [10, 100, 1000, 10000, 100000, 1000000]))

    def qmp(self, out, cmd, **args):
        msg = {'execute': cmd}
        if args:
            msg['arguments'] = args
        out.append('qmp ' + json.dumps(msg))

    def host_event(self, out):
        """One host event, most often stop or cont: a stopped VM gets
        MMIO from qtest all the same, as a device model must bear"""
        r = self.r.random()
        if r < 0.35:
            self.stopped = not self.stopped
            self.qmp(out, 'stop' if self.stopped else 'cont')
        elif r < 0.45:
            self.qmp(out, 'system_reset')
        elif r < 0.65:
            slot = self.pick(SD_SLOTS)
            if self.r.random() < 0.5:
                self.qmp(out, 'eject', device=f'sd{slot}', force=True)
            else:
                self.qmp(out, 'blockdev-change-medium', device=f'sd{slot}',
                         filename=self.sd_imgs.get(slot, ''), format='raw')
        elif r < 0.8:
            # SDHI3's throttle, made at start-up, runs on real time; one
            # made now would run on qtest's virtual clock, where any block
            # I/O waited for under the BQL (PIO, CMD17) waits for ever.
            # Never all 0, which would remove it.
            self.qmp(out, 'block_set_io_throttle', device='sd3',
                     bps=self.pick([1 << 20, 4 << 20, 32 << 20]),
                     iops=self.pick([0, 50, 500]), bps_rd=0, bps_wr=0,
                     iops_rd=0, iops_wr=0)
        elif r < 0.98:
            self.qmp(out, 'query-status')
        else:
            # Rare: each starts a fresh QEMU, which runs (Qemu.migrate())
            out.append('host migrate')
            self.stopped = False

    def ops(self, n):
        """n operations, each one or more qtest commands or a host event"""
        weights = [(self.sdhi_write, 30), (self.sdhi_read, 8),
                   (self.ipmmu_write, 12), (self.page_table, 10),
                   (self.card_init, 1), (self.data_command, 8),
                   (self.ram_write, 3), (self.clock, 10),
                   (self.i2c_access, 6), (self.avb_access, 8),
                   (self.avb_desc, 4), (self.usb_access, 6),
                   (self.usb_desc, 4)]
        if self.host_events:
            weights.append((self.host_event, 1))
        funcs = [f for f, _ in weights]
        cum = [w for _, w in weights]
        out = []
        for _ in range(n):
            self.r.choices(funcs, cum_weights=None, weights=cum)[0](out)
        return out


class Qemu:
    def __init__(self, args, hang_timeout, workdir, monitor_timeout=10,
                 stats=None):
        self.args = args
        self.hang_timeout = hang_timeout
        self.monitor_timeout = monitor_timeout
        self.workdir = workdir
        self.stats = stats if stats is not None else new_stats()
        # Appended to by each QEMU of the run (a migration starts another)
        self.stderr = open(os.path.join(workdir, 'stderr'), 'w+b')
        self.stderr_path = self.stderr.name
        self.start(args)

    def start(self, args):
        env = dict(os.environ)
        env.setdefault('ASAN_OPTIONS', 'detect_leaks=0:abort_on_error=1')
        env.setdefault('UBSAN_OPTIONS',
                       'halt_on_error=1:abort_on_error=1:print_stacktrace=1')
        self.qmp_path = os.path.join(self.workdir, 'qmp.sock')
        if os.path.exists(self.qmp_path):
            os.unlink(self.qmp_path)
        err = open(self.stderr_path, 'ab')
        self.p = subprocess.Popen(
            args + ['-qmp', f'unix:{self.qmp_path},server=on,wait=off'],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
            env=env)
        err.close()
        self.buf = b''
        self.last_answer = ''
        self.qmp_sock = None
        self.qmp_buf = b''

    def cpu_seconds(self):
        """CPU time QEMU has used: a slow command on a loaded host is
        still using it, a hang too; only the budget tells them apart"""
        try:
            with open(f'/proc/{self.p.pid}/stat') as f:
                fields = f.read().rsplit(')', 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf(
                'SC_CLK_TCK')
        except OSError:
            return 0.0

    def send(self, cmds):
        """Send qtest commands and host events in order; returns None, or
        what went wrong"""
        batch = []
        for cmd in cmds:
            if cmd.startswith('qmp ') or cmd.startswith('host '):
                err = self.send_qtest(batch) or self.host_event(cmd)
                batch = []
                if err:
                    return err
            else:
                batch.append(cmd)
        return self.send_qtest(batch)

    def send_qtest(self, cmds):
        """Send the commands and read one answer line for each.
        Returns None, or what went wrong: a hang is no answer while QEMU
        used hang_timeout seconds of CPU (or ten times that of wall time
        passed), so that a loaded host does not make one."""
        if not cmds:
            return None
        data = ('\n'.join(cmds) + '\n').encode()
        fd = self.p.stdout.fileno()
        want = len(cmds)
        sent = 0
        deadline = time.monotonic() + 10 * self.hang_timeout
        cpu_deadline = self.cpu_seconds() + self.hang_timeout
        os.set_blocking(self.p.stdin.fileno(), False)
        while want:
            wlist = [self.p.stdin] if sent < len(data) else []
            r, w, _ = select.select([fd], wlist, [], 0.5)
            if w:
                try:
                    sent += os.write(self.p.stdin.fileno(), data[sent:])
                except BrokenPipeError:
                    return self.died()
            if r:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return self.died()
                self.buf += chunk
                lines = self.buf.split(b'\n')
                self.buf = lines[-1]
                for line in lines[:-1]:
                    if line.startswith(b'OK') or line.startswith(b'FAIL') \
                            or line.startswith(b'ERR'):
                        self.last_answer = line.decode()
                        want -= 1
                deadline = time.monotonic() + 10 * self.hang_timeout
                cpu_deadline = self.cpu_seconds() + self.hang_timeout
            elif (self.cpu_seconds() > cpu_deadline or
                  time.monotonic() > deadline):
                return ('hang: no answer for %d s of QEMU CPU time'
                        % self.hang_timeout)
            if self.p.poll() is not None and not r:
                return self.died()
        return None

    def qmp_connect(self):
        """The monitor's socket, once QEMU has made it"""
        deadline = time.monotonic() + self.hang_timeout
        while self.qmp_sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.qmp_path)
            except OSError:
                sock.close()
                if self.p.poll() is not None:
                    return self.died()
                if time.monotonic() > deadline:
                    return 'monitor: QEMU made no QMP socket'
                time.sleep(0.02)
                continue
            self.qmp_sock = sock
            _, err = self.qmp_answer(None)          # the greeting
            if not err:
                _, err = self.qmp('{"execute": "qmp_capabilities"}')
            if err:
                return err
        return None

    def qmp_answer(self, what):
        """Read up to the answer (the greeting if what is None), events
        skipped; a wall-clock bound, as a hung monitor uses no CPU"""
        start = time.monotonic()
        while True:
            while b'\n' in self.qmp_buf:
                line, self.qmp_buf = self.qmp_buf.split(b'\n', 1)
                msg = json.loads(line)
                if 'return' in msg or 'error' in msg or \
                        (what is None and 'QMP' in msg):
                    took = time.monotonic() - start
                    # The handshake's answer waits for QEMU to start
                    if what is not None and 'qmp_capabilities' not in what \
                            and took > self.stats['slowest answer']:
                        self.stats['slowest answer'] = took
                        self.stats['slowest command'] = what
                    return msg, None
            left = self.monitor_timeout - (time.monotonic() - start)
            if left <= 0:
                return None, (f'monitor hang: no answer to {what} within '
                              f'{self.monitor_timeout} s')
            r, _, _ = select.select([self.qmp_sock], [], [], min(left, 0.5))
            if r:
                try:
                    chunk = self.qmp_sock.recv(1 << 16)
                except OSError:
                    chunk = b''
                if not chunk:
                    return None, self.died()
                self.qmp_buf += chunk
            elif self.p.poll() is not None:
                return None, self.died()

    def qmp(self, line):
        err = self.qmp_connect()
        if err:
            return None, err
        try:
            self.qmp_sock.sendall(line.encode() + b'\n')
        except OSError:
            return None, self.died()
        return self.qmp_answer(line)

    def select_card(self, slot):
        """CMD7 to the SD card of @slot with the RCA its CMD3 answered
        (SD_RSP10 bits 31:16), which depends on the cards' history"""
        base = SDHI[slot]
        err = self.send_qtest([f'readw 0x{base + 0x038:x}'])
        if err:
            return err
        rca = int(self.last_answer.split()[1], 16)
        return self.send_qtest([f'writel 0x{base + 0x010:x} 0x{rca << 16:x}',
                                f'writew 0x{base:x} 0x507',
                                f'writew 0x{base + 0x070:x} 0x0',
                                f'writew 0x{base + 0x078:x} 0x0'])

    def host_event(self, cmd):
        if cmd.startswith('host select '):
            return self.select_card(int(cmd.split()[2]))
        self.stats['host events'] += 1
        if cmd == 'host migrate':
            return self.migrate()
        _, err = self.qmp(cmd[len('qmp '):])
        return err

    def wait_migration(self, side):
        deadline = time.monotonic() + 10 * self.hang_timeout
        while time.monotonic() < deadline:
            msg, err = self.qmp('{"execute": "query-migrate"}')
            if err:
                return err
            status = msg.get('return', {}).get('status')
            if status == 'completed':
                return None
            if status == 'failed':
                return (f'migration failed on the {side}: '
                        f'{msg["return"].get("error-desc", "")}')
            time.sleep(0.02)
        return f'migration: the {side} did not finish'

    def migrate(self):
        """To a file, then a fresh QEMU loads it and goes on with the run;
        the old one must quit when asked"""
        self.stats['migrations'] += 1
        uri = 'file:' + os.path.join(self.workdir, 'migration')
        _, err = self.qmp(json.dumps({'execute': 'migrate',
                                      'arguments': {'uri': uri}}))
        err = err or self.wait_migration('source')
        # KVM and TCG carry the virtual clock in the stream, the qtest
        # accelerator does not: the destination starts from the time
        # the stream was saved at, or it would read the device timers
        # in it against a clock of its own.  qtest answers only a step.
        err = err or self.send_qtest(['clock_step 1'])
        if err:
            return err
        now = int(self.last_answer.split()[1]) - 1
        err = self.quit()
        if err:
            return err
        self.start(self.args + ['-incoming', 'defer'])
        err = self.send_qtest([f'clock_set {now}'])
        if err:
            return err
        if self.last_answer.split() != ['OK', str(now)]:
            return f'migration: clock_set {now}: {self.last_answer}'
        _, err = self.qmp(json.dumps({'execute': 'migrate-incoming',
                                      'arguments': {'uri': uri}}))
        err = err or self.wait_migration('destination')
        if err:
            return err
        # A source that was stopped leaves the destination paused, its
        # drives inactive until "cont": qtest's MMIO, which no vCPU could
        # do then, would write to them (a block layer assertion)
        _, err = self.qmp('{"execute": "cont"}')
        return err

    def quit(self):
        _, err = self.qmp('{"execute": "quit"}')
        if err and not err.startswith('QEMU exited with 0'):
            return err
        try:
            rc = self.p.wait(timeout=self.monitor_timeout)
        except subprocess.TimeoutExpired:
            return f'quit: QEMU still runs {self.monitor_timeout} s later'
        if self.sanitizer_report():
            return self.sanitizer_report()
        if rc != 0:
            return self.died()
        self.qmp_sock.close()
        return None

    def died(self):
        rc = self.p.wait()
        self.stderr.seek(0)
        err = self.stderr.read().decode(errors='replace')
        tail = '\n'.join(err.splitlines()[-15:])
        return f'QEMU exited with {rc}:\n{tail}'

    def sanitizer_report(self):
        self.stderr.seek(0)
        err = self.stderr.read().decode(errors='replace')
        for marker in ('ERROR: AddressSanitizer', 'runtime error:',
                       'ERROR: LeakSanitizer'):
            if marker in err:
                return err
        return None

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        if self.qmp_sock:
            self.qmp_sock.close()
        self.stderr.close()


def new_stats():
    return {'host events': 0, 'migrations': 0, 'slowest answer': 0.0,
            'slowest command': ''}


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def qemu_args(qemu, imgs, avb_port, timing=False):
    machine = 'r8a77951-salvator-xs' + (',timing=board' if timing else '')
    return [qemu, '-M', machine, '-smp', '1', '-m', '256M',
            '-accel', 'qtest', '-qtest', 'stdio', '-qtest-log', '/dev/null',
            '-display', 'none',
            '-serial', 'none', '-monitor', 'none', '-seed', '1',
            '-global', f'emmc.boot-partition-size={EMMC_BOOT_PART}',
            '-drive', f'if=sd,index=0,file={imgs[0]},format=raw',
            '-drive', f'if=sd,index=1,file={imgs[1]},format=raw',
            '-drive', f'if=sd,index=2,file={imgs[2]},format=raw',
            # Throttled on real time (made before the qtest accelerator):
            # its requests are in flight when host events come
            '-drive', f'if=sd,index=3,file={imgs[3]},format=raw,'
            'throttling.iops-total=50,throttling.bps-total=33554432',
            '-drive', f'if=none,id=eeprom,file={imgs["eeprom"]},format=raw',
            '-device', 'at24c-eeprom,bus=i2c2,address=0x50,rom-size=512,'
            'drive=eeprom',
            '-device', 'at24c-eeprom,bus=i2c-dvfs,address=0x50,rom-size=256',
            # The EtherAVB receives what it sends
            '-nic', f'socket,udp=127.0.0.1:{avb_port},'
            f'localaddr=127.0.0.1:{avb_port}',
            # On USB 2.0 channel 0: a stick on the EHCI's first port, a
            # keyboard behind QEMU's hub on the second
            '-blockdev', 'driver=null-co,node-name=usbstick,size=16777216',
            '-device', 'usb-storage,drive=usbstick', '-device', 'usb-kbd']


# SD_CMD words of block commands (R1, data, read or write; ERASE with R1b);
# CMD17 most often, as its card reads at the command
CMD_WORDS = [0x1c11, 0x1c11, 0x1c11, 0x3c12, 0x0c18, 0x2c19, 0x0526]


def make_image(path, size):
    """Random bytes, but every 4th block starts with a block command's
    SD_CMD word and an argument of 0: a card read that DMA lands on an
    SDHI's registers then issues block I/O on that SDHI's card"""
    rng = random.Random(size)
    data = bytearray(rng.randbytes(size))
    for off in range(0, size - 0x20, 4 * 512):
        data[off:off + 2] = rng.choice(CMD_WORDS).to_bytes(2, 'little')
        data[off + 0x10:off + 0x20] = bytes(16)
    with open(path, 'wb') as f:
        f.write(data)


def make_images(imgs):
    for slot in SD_SLOTS:
        make_image(imgs[slot], IMG_SIZE)
    make_image(imgs[2], EMMC_IMG_SIZE)
    make_image(imgs['eeprom'], 512)


def run_one(args, ops, seed, batch, a, workdir, imgs, stats):
    """One QEMU: returns (operations done, finding or None, commands)"""
    g = Gen(random.Random(seed), not a.no_host_events,
            {slot: imgs[slot] for slot in SD_SLOTS})
    q = Qemu(args, a.hang_timeout, workdir, a.monitor_timeout, stats)
    sent = []
    done = 0
    finding = None
    try:
        while done < ops and not finding:
            n = min(batch, ops - done)
            cmds = g.ops(n)
            sent += cmds
            finding = q.send(cmds)
            done += n
        if not finding:
            finding = q.sanitizer_report()
    finally:
        q.close()
    return done, finding, sent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument('--qemu', default=os.path.join(
        top, 'build/qemu-build/qemu-system-aarch64'))
    ap.add_argument('--seed', type=int, default=None,
                    help='first run seed (default: random)')
    ap.add_argument('--ops', type=int, default=0,
                    help='stop after this many operations')
    ap.add_argument('--seconds', type=float, default=0,
                    help='stop after this long')
    ap.add_argument('--ops-per-run', type=int, default=20000)
    ap.add_argument('--hang-timeout', type=float, default=60)
    ap.add_argument('--monitor-timeout', type=float, default=10,
                    help='wall-clock seconds a QMP command may take')
    ap.add_argument('--no-host-events', action='store_true',
                    help='guest operations only')
    ap.add_argument('--out', default=os.path.join(top, 'build/fuzz'),
                    help='where reproducers go')
    ap.add_argument('--replay', help='send the commands of this file')
    ap.add_argument('--timing', action='store_true',
                    help='replay with timing=board (a finding\'s first line '
                    'says whether its run had it)')
    ap.add_argument('--progress', action='store_true',
                    help='a line after every run')
    ap.add_argument('--tap', action='store_true',
                    help='end with one TAP result line')
    a = ap.parse_args()
    if not a.ops and not a.seconds and not a.replay:
        ap.error('give --ops, --seconds or --replay')

    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix='rcar-fuzz-')
    imgs = {slot: os.path.join(work, f'sd{slot}.img') for slot in SD_SLOTS}
    imgs[2] = os.path.join(work, 'emmc.img')
    imgs['eeprom'] = os.path.join(work, 'eeprom.img')
    make_images(imgs)
    avb_port = free_udp_port()
    args = qemu_args(a.qemu, imgs, avb_port, timing=a.timing)
    # Every other run with the SD/MMC hosts' timing mode on
    timed_args = qemu_args(a.qemu, imgs, avb_port, timing=True)
    stats = new_stats()

    if a.replay:
        with open(a.replay) as f:
            cmds = [line.strip() for line in f
                    if line.strip() and not line.startswith('#')]
        # One command at a time, to name the one that kills or hangs QEMU
        q = Qemu(args, a.hang_timeout, work, a.monitor_timeout, stats)
        err = None
        for i, cmd in enumerate(cmds):
            err = q.send([cmd])
            if err:
                print(f'replay: command {i + 1} of {len(cmds)}: {cmd}')
                break
        err = err or q.sanitizer_report()
        q.close()
        print(err or 'replay: QEMU is alive')
        return 1 if err else 0

    seed = a.seed if a.seed is not None else random.SystemRandom().getrandbits(31)
    start = time.monotonic()
    total = runs = findings = 0
    stop = []
    # SIGTERM or SIGINT: finish the run under way, then report
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(True))
    while not stop:
        if a.ops and total >= a.ops:
            break
        if a.seconds and time.monotonic() - start >= a.seconds:
            break
        ops = a.ops_per_run if not a.ops else min(a.ops_per_run,
                                                  a.ops - total)
        run_seed = seed + runs
        # each run starts from fresh images
        make_images(imgs)
        run_args = timed_args if runs % 2 else args
        done, finding, cmds = run_one(run_args, ops, run_seed, 500, a,
                                      work, imgs, stats)
        total += done
        runs += 1
        if finding:
            findings += 1
            path = os.path.join(a.out, f'finding-seed{run_seed}.qtest')
            with open(path, 'w') as f:
                f.write(f'# {" ".join(run_args)}\n')
                f.write(''.join(f'# {line}\n' for line in
                                finding.splitlines()))
                f.write('\n'.join(cmds) + '\n')
            print(f'fuzz: finding in run seed {run_seed}: '
                  f'{finding.splitlines()[0]} -> {path}', flush=True)
        if a.progress:
            print(f'fuzz: {total} operations, {runs} runs, {findings} '
                  f'findings after {time.monotonic() - start:.0f} s',
                  flush=True)
    secs = time.monotonic() - start
    print(f'fuzz: seed {seed}, {secs:.0f} s, {total / max(secs, 1e-9):.0f} '
          'operations/s')
    print(f'fuzz: {stats["host events"]} host events, '
          f'{stats["migrations"]} migrations; the monitor\'s slowest answer '
          f'{stats["slowest answer"] * 1000:.0f} ms '
          f'({stats["slowest command"]})')
    summary = f'{total} operations, {runs} runs, {findings} findings'
    print(f'fuzz: {summary}')
    if a.tap:
        print(f'{"not ok" if findings else "ok"} 1 fuzz seed {seed}: {summary}')
        print('1..1')
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())
