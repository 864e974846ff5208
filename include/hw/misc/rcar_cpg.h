/*
 * Renesas R-Car Gen3 Clock Pulse Generator / Module Standby and Software
 * Reset (CPG-MSSR)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_RCAR_CPG_H
#define HW_MISC_RCAR_CPG_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_CPG "rcar-cpg"
OBJECT_DECLARE_TYPE(RCarCPGState, RCarCPGClass, RCAR_CPG)

#define TYPE_RCAR_CPG_R8A77951 "rcar-cpg-r8a77951"
#define TYPE_RCAR_CPG_R8A77965 "rcar-cpg-r8a77965"
#define TYPE_RCAR_CPG_R8A77990 "rcar-cpg-r8a77990"

#define RCAR_CPG_MMIO_SIZE      0x1000
/* SMSTPCR0-11 and SRCR0-11: 32 modules each */
#define RCAR_CPG_NUM_MSTP_REGS  12
#define RCAR_CPG_NUM_MODULES    (RCAR_CPG_NUM_MSTP_REGS * 32)
#define RCAR_CPG_MAX_CLK_REGS   32

/* The "module-reset" output of module n (Linux's "resets = <&cpg n>") */
#define RCAR_CPG_MODULE(n)      (((n) / 100) * 32 + (n) % 100)

/* A register of the SoC's CPG other than module stop and reset */
typedef struct RCarCPGReg {
    const char *name;
    uint16_t offset;
    uint32_t reset;
} RCarCPGReg;

struct RCarCPGClass {
    SysBusDeviceClass parent_class;

    /* The clock registers of this SoC, with their reset values */
    const RCarCPGReg *regs;
    unsigned num_regs;
};

struct RCarCPGState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    /* High while the module's SRCR bit is set */
    qemu_irq module_reset[RCAR_CPG_NUM_MODULES];

    uint32_t smstpcr[RCAR_CPG_NUM_MSTP_REGS];
    uint32_t srcr[RCAR_CPG_NUM_MSTP_REGS];
    /* The clock registers, in the order of RCarCPGClass::regs */
    uint32_t clk[RCAR_CPG_MAX_CLK_REGS];
};

#endif
