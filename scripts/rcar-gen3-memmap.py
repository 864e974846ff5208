#!/usr/bin/env python3
#
# Generate include/hw/arm/rcar-gen3-memmap-tables.h: every peripheral
# window of the R-Car Gen3 SoCs, from the .dtsi files of a Linux tree.
#
# Each board .dts is run through cpp and dtc as the kernel's "make dtbs"
# does; dtc's dts output keeps the labels.  Every direct child of /soc
# with a "reg" gives one row per reg window: its label, base, size, first
# GIC SPI, CPG module ("resets" or "clocks" <&cpg CPG_MOD n>), IPMMU uTLB
# ("iommus") and first compatible.  The labels of the modelled devices say
# which model a window gets (KINDS below); every other window is an
# unimplemented device.
#
# Usage:
#   rcar-gen3-memmap.py LINUX_TREE [-o OUT]     write the header
#   rcar-gen3-memmap.py LINUX_TREE --check FILE compare, exit 1 if stale
#
# Copyright (c) 2026 The R-Car Gen3 QEMU authors
#
# SPDX-License-Identifier: GPL-2.0-or-later

import argparse
import re
import subprocess
import sys

SOCS = [
    # (SoC, board .dts the SoC's .dtsi is read through)
    ("r8a77951", "renesas/r8a77951-salvator-xs"),
    ("r8a77965", "renesas/r8a77965-salvator-xs"),
    ("r8a77990", "renesas/r8a77990-ebisu"),
]

# Labels of the windows that QEMU models, and the kind of model
KINDS = [
    (r"gic", "RCAR_GEN3_GIC"),
    (r"prr", "RCAR_GEN3_PRR"),
    (r"rst", "RCAR_GEN3_RST"),
    (r"pfc", "RCAR_GEN3_PFC"),
    (r"cpg", "RCAR_GEN3_CPG"),
    (r"sysc", "RCAR_GEN3_SYSC"),
    (r"gpio(\d)", "RCAR_GEN3_GPIO"),
    (r"i2c(\d)", "RCAR_GEN3_I2C"),
    (r"i2c_dvfs", "RCAR_GEN3_IIC"),
    (r"scif2", "RCAR_GEN3_SCIF2"),
    (r"ipmmu_mm", "RCAR_GEN3_IPMMU_MM"),
    (r"ipmmu_ds0", "RCAR_GEN3_IPMMU_DS0"),
    (r"ipmmu_ds1", "RCAR_GEN3_IPMMU_DS1"),
    (r"avb", "RCAR_GEN3_AVB"),
    (r"sdhi(\d)", "RCAR_GEN3_SDHI"),
    (r"ohci(\d)", "RCAR_GEN3_OHCI"),
    (r"ehci(\d)", "RCAR_GEN3_EHCI"),
    (r"usb2_phy(\d)", "RCAR_GEN3_USB2_PHY"),
]

GIC_SPI = 0
CPG_MOD = 1

NODE_RE = re.compile(r"^\t*(?:([\w]+): )?([^\s{]+) \{$")
PROP_RE = re.compile(r"^\t*([^\s=;]+)(?: = (.*))?;$")


class Node:
    def __init__(self, label, name, parent):
        self.label, self.name, self.parent = label, name, parent
        self.props = {}
        self.children = []


def compile_dts(linux, dts):
    """The board's device tree as dtc prints it, labels included."""
    inc = ["-I", f"{linux}/include", "-I", f"{linux}/arch/arm64/boot/dts",
           "-I", f"{linux}/scripts/dtc/include-prefixes"]
    src = subprocess.run(
        ["cpp", "-nostdinc", *inc, "-undef", "-D__DTS__",
         "-x", "assembler-with-cpp", f"{linux}/arch/arm64/boot/dts/{dts}.dts"],
        check=True, capture_output=True, text=True).stdout
    return subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dts", "-"],
                          input=src, check=True, capture_output=True,
                          text=True).stdout


def parse(text):
    top = cur = Node(None, "", None)
    for line in text.splitlines():
        m = NODE_RE.match(line)
        if m:
            node = Node(m.group(1), m.group(2), cur)
            cur.children.append(node)
            cur = node
        elif line.strip() == "};":
            cur = cur.parent
        else:
            m = PROP_RE.match(line)
            if m:
                cur.props[m.group(1)] = m.group(2)
    return next(c for c in top.children if c.name == "/")


def cells(value):
    """The cells of a property, all <...> groups in a row."""
    if value is None:
        return []
    return [int(c, 0) for grp in re.findall(r"<([^>]*)>", value)
            for c in grp.split()]


def strings(value):
    return re.findall(r'"([^"]*)"', value or "")


def walk(node):
    yield node
    for child in node.children:
        yield from walk(child)


def kind_of(label):
    for pattern, kind in KINDS:
        m = re.fullmatch(pattern, label or "")
        if m:
            return kind, int(m.group(1)) if m.groups() else 0
    return "RCAR_GEN3_UNIMP", 0


def windows(root):
    soc = next(c for c in root.children if c.name == "soc")
    by_phandle = {cells(n.props["phandle"])[0]: n for n in walk(root)
                  if "phandle" in n.props}
    rows = []
    for node in soc.children:
        reg = cells(node.props.get("reg"))
        if not reg:
            continue
        name = node.label or node.name.split("@")[0]
        kind, index = kind_of(node.label)
        irq = cells(node.props.get("interrupts"))
        spi = irq[1] if len(irq) >= 3 and irq[0] == GIC_SPI else -1
        num_spis = 0
        while spi >= 0 and 3 * num_spis + 2 < len(irq) and \
                irq[3 * num_spis] == GIC_SPI and \
                irq[3 * num_spis + 1] == spi + num_spis:
            num_spis += 1
        mstp = -1
        resets = cells(node.props.get("resets"))
        clocks = cells(node.props.get("clocks"))
        if resets and by_phandle[resets[0]].label == "cpg":
            mstp = resets[1]
        elif len(clocks) >= 3 and by_phandle[clocks[0]].label == "cpg" \
                and clocks[1] == CPG_MOD:
            mstp = clocks[2]
        iommus = cells(node.props.get("iommus"))
        utlb = iommus[1] if len(iommus) >= 2 else -1
        compat = (strings(node.props.get("compatible")) or [""])[0]
        regnames = strings(node.props.get("reg-names"))
        for w in range(len(reg) // 4):
            base = reg[4 * w] << 32 | reg[4 * w + 1]
            size = reg[4 * w + 2] << 32 | reg[4 * w + 3]
            wname, wkind, windex = name, kind, index
            if w:
                wname += "." + (regnames[w] if w < len(regnames) else str(w))
                # A model has its first window; the GIC has all four
                if kind == "RCAR_GEN3_GIC":
                    windex = w
                else:
                    wkind, windex = "RCAR_GEN3_UNIMP", 0
            rows.append((base, wname, size, spi, num_spis, mstp, utlb, wkind,
                         windex, compat))
    # Some blocks have two nodes with the same window (the PCIe root
    # complex and endpoint); the first in order of label stands for both
    out, seen = [], set()
    for row in sorted(rows):
        if (row[0], row[2]) not in seen:
            seen.add((row[0], row[2]))
            out.append(row)
    return out


def gpio_pins(root):
    soc = next(c for c in root.children if c.name == "soc")
    banks = {}
    for node in soc.children:
        kind, index = kind_of(node.label)
        if kind == "RCAR_GEN3_GPIO":
            banks[index] = cells(node.props["gpio-ranges"])[3]
    return [banks[i] for i in range(len(banks))]


def generate(linux):
    out = ["/*",
           " * Every peripheral window of the R-Car Gen3 SoCs, from the .dtsi",
           " * files of Linux " + linux_version(linux) + ".",
           " *",
           " * Generated by scripts/rcar-gen3-memmap.py; do not edit.",
           " * Columns: label, base, size, GIC SPI, SPIs in a row from it,",
           " * CPG module, IPMMU uTLB (-1: none), model, index, first",
           " * compatible.",
           " *",
           # split so that checkpatch does not take it for this file's tag
           " * SPDX-License-" "Identifier: GPL-2.0-or-later",
           " */",
           "#ifndef HW_ARM_RCAR_GEN3_MEMMAP_TABLES_H",
           "#define HW_ARM_RCAR_GEN3_MEMMAP_TABLES_H",
           ""]
    for soc, dts in SOCS:
        root = parse(compile_dts(linux, dts))
        out.append(f"/* {soc}.dtsi, read through {dts}.dts */")
        out.append(f"static const RCarGen3Dev {soc}_devs[] = {{")
        for (base, name, size, spi, num_spis, mstp, utlb, kind, index,
             compat) in windows(root):
            out.append(f'    {{ "{name}", 0x{base:08x}, 0x{size:x}, {spi}, '
                       f'{num_spis}, {mstp}, {utlb},')
            out.append(f'      {kind}, {index}, "{compat}" }},')
        out.append("};")
        out.append("")
        pins = ", ".join(str(p) for p in gpio_pins(root))
        out.append(f"/* Pins of each GPIO bank (gpio-ranges) */")
        out.append(f"static const uint8_t {soc}_gpio_pins[] = {{ {pins} }};")
        out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def linux_version(linux):
    with open(f"{linux}/Makefile") as f:
        v = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL) = (\d+)",
                            f.read(), re.M))
    return f"{v['VERSION']}.{v['PATCHLEVEL']}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("linux", help="a Linux source tree")
    ap.add_argument("-o", "--output")
    ap.add_argument("--check", metavar="FILE",
                    help="exit 1 if FILE is not what the tree gives")
    ap.add_argument("--tap", action="store_true",
                    help="with --check: say it as one TAP test")
    args = ap.parse_args()
    text = generate(args.linux)
    if args.check:
        with open(args.check) as f:
            ok = f.read() == text
        what = f"{args.check} matches the .dtsi files of {args.linux}"
        if args.tap:
            print(f"{'ok' if ok else 'not ok'} 1 {what}\n1..1")
        elif not ok:
            print(f"{args.check} does not match the .dtsi files of "
                  f"{args.linux}: regenerate it with {sys.argv[0]}",
                  file=sys.stderr)
        else:
            print(what)
        return 0 if ok else 1
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
