/*
 * Renesas R-Car Gen3 Reset controller (RST)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_RCAR_RST_H
#define HW_MISC_RCAR_RST_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_RST "rcar-rst"
OBJECT_DECLARE_SIMPLE_TYPE(RCarRstState, RCAR_RST)

#define RCAR_RST_MMIO_SIZE 0x200

struct RCarRstState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;

    uint32_t wdtrstcr;
    uint32_t cr7bar;

    /* Property: the mode pins (MD0..MD31) strapped on the board */
    uint32_t modemr;
};

#endif
