/*
 * Renesas R-Car Gen3 SoCs: the peripheral windows of each SoC
 *
 * One table per SoC lists every "reg" window of the SoC's .dtsi in Linux,
 * modelled or not, with its interrupt, CPG module and IPMMU uTLB.  It is
 * the one place these facts are kept: the SoC maps its devices and the
 * unimplemented windows from it, the device tree is generated from it,
 * and the qtests take their addresses from it.  The tables themselves
 * (rcar-gen3-memmap-tables.h) are generated from the Linux tree by
 * scripts/rcar-gen3-memmap.py, which "make check" also uses to check them.
 *
 * Plain data, so that the qtests can include it too.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_ARM_RCAR_GEN3_MEMMAP_H
#define HW_ARM_RCAR_GEN3_MEMMAP_H

/* The model behind a window */
typedef enum RCarGen3DevKind {
    RCAR_GEN3_UNIMP,            /* RAZ/WI, logged under -d unimp */
    RCAR_GEN3_GIC,              /* index: GICD, GICC, GICH, GICV */
    RCAR_GEN3_PRR,
    RCAR_GEN3_RST,
    RCAR_GEN3_PFC,
    RCAR_GEN3_CPG,
    RCAR_GEN3_SYSC,
    RCAR_GEN3_GPIO,             /* index: the bank */
    RCAR_GEN3_I2C,              /* index: the channel */
    RCAR_GEN3_IIC,
    RCAR_GEN3_SCIF2,
    RCAR_GEN3_IPMMU_MM,
    RCAR_GEN3_IPMMU_DS0,
    RCAR_GEN3_IPMMU_DS1,
    RCAR_GEN3_SDHI,             /* index: the channel */
    RCAR_GEN3_AVB,
    RCAR_GEN3_OHCI,             /* index: the USB 2.0 channel */
    RCAR_GEN3_EHCI,             /* index: the USB 2.0 channel */
    RCAR_GEN3_USB2_PHY,         /* index: the USB 2.0 channel */
} RCarGen3DevKind;

/* The windows of the GIC-400 node, in "reg" order */
enum {
    RCAR_GEN3_GIC_DIST,
    RCAR_GEN3_GIC_CPU,
    RCAR_GEN3_GIC_VIFACE,
    RCAR_GEN3_GIC_VCPU,
};

typedef struct RCarGen3Dev {
    const char *name;           /* the node's label in the .dtsi */
    uint64_t base;
    uint64_t size;
    int spi;                    /* first interrupt, GIC_SPI n; -1: none */
    unsigned num_spis;          /* interrupts on spi, spi + 1, ... */
    int mstp;                   /* CPG module: <&cpg n>; -1: none */
    int utlb;                   /* "iommus" <&ipmmu n>; -1: none */
    RCarGen3DevKind kind;
    unsigned index;
    const char *compatible;     /* the first one */
} RCarGen3Dev;

#include "hw/arm/rcar-gen3-memmap-tables.h"

/* The window of model @kind number @index in @devs, or NULL */
static inline const RCarGen3Dev *rcar_gen3_find_dev(const RCarGen3Dev *devs,
                                                    unsigned num_devs,
                                                    RCarGen3DevKind kind,
                                                    unsigned index)
{
    for (unsigned i = 0; i < num_devs; i++) {
        if (devs[i].kind == kind && devs[i].index == index) {
            return &devs[i];
        }
    }
    return NULL;
}

#endif
