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
OBJECT_DECLARE_TYPE(RCarPfcState, RCarPfcClass, RCAR_PFC)

#define TYPE_RCAR_PFC_R8A77951 "rcar-pfc-r8a77951"
#define TYPE_RCAR_PFC_R8A77965 "rcar-pfc-r8a77965"
#define TYPE_RCAR_PFC_R8A77990 "rcar-pfc-r8a77990"

/* The largest "reg" size of a PFC node (r8a77951.dtsi, r8a77965.dtsi) */
#define RCAR_PFC_MAX_MMIO_SIZE  0x50c
#define RCAR_PFC_NUM_REGS       (RCAR_PFC_MAX_MMIO_SIZE / 4)

struct RCarPfcClass {
    SysBusDeviceClass parent_class;

    /* The "reg" size of the SoC's PFC node */
    uint32_t mmio_size;
    /* POCCTRL0 at reset: the bits of the SD pins, all at 3.3 V */
    uint32_t pocctrl0_reset;
};

struct RCarPfcState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;

    uint32_t regs[RCAR_PFC_NUM_REGS];
    /* The key written to PMMR, waiting for the write it unlocks */
    uint32_t pmmr;
    bool unlocked;
};

#endif
