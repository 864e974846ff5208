/*
 * Renesas R-Car Gen3 Pin Function Controller (PFC)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_RCAR_PFC_H
#define HW_MISC_RCAR_PFC_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_PFC "rcar-pfc"
OBJECT_DECLARE_SIMPLE_TYPE(RCarPfcState, RCAR_PFC)

/* The "reg" size of the r8a7795 PFC node (r8a77951.dtsi) */
#define RCAR_PFC_MMIO_SIZE  0x50c
#define RCAR_PFC_NUM_REGS   (RCAR_PFC_MMIO_SIZE / 4)

struct RCarPfcState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;

    uint32_t regs[RCAR_PFC_NUM_REGS];
    /* The key written to PMMR, waiting for the write it unlocks */
    uint32_t pmmr;
    bool unlocked;
};

#endif
