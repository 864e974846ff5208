/*
 * Renesas R-Car Gen3 Product Register (PRR)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_RCAR_PRR_H
#define HW_MISC_RCAR_PRR_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_PRR "rcar-prr"
OBJECT_DECLARE_SIMPLE_TYPE(RCarPrrState, RCAR_PRR)

#define RCAR_PRR_REG_SIZE 4

/* PRR.PRODUCT values (drivers/soc/renesas/renesas-soc.c) */
#define RCAR_PRR_PRODUCT_H3   0x4f
#define RCAR_PRR_PRODUCT_M3N  0x55
#define RCAR_PRR_PRODUCT_E3   0x57

struct RCarPrrState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;

    /* Properties: the register is a read-only chip identification */
    uint8_t product;
    uint8_t cut;
};

#endif
