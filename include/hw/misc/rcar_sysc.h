/*
 * Renesas R-Car Gen3 System Controller (SYSC): power areas
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_RCAR_SYSC_H
#define HW_MISC_RCAR_SYSC_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_SYSC "rcar-sysc"
OBJECT_DECLARE_TYPE(RCarSyscState, RCarSyscClass, RCAR_SYSC)

#define TYPE_RCAR_SYSC_R8A77951 "rcar-sysc-r8a77951"
#define TYPE_RCAR_SYSC_R8A77965 "rcar-sysc-r8a77965"
#define TYPE_RCAR_SYSC_R8A77990 "rcar-sysc-r8a77990"

#define RCAR_SYSC_MMIO_SIZE     0x400
/* Power control register blocks ("chan_offs" in Linux), 0x40 apart */
#define RCAR_SYSC_NUM_CHANS     (RCAR_SYSC_MMIO_SIZE / 0x40)

/* One power area: its register block, its bit there, its SYSCISR bit */
typedef struct RCarSyscArea {
    const char *name;
    uint16_t chan_offs;
    uint8_t chan_bit;
    uint8_t isr_bit;
    bool on_at_reset;
} RCarSyscArea;

struct RCarSyscClass {
    SysBusDeviceClass parent_class;

    const RCarSyscArea *areas;
    unsigned num_areas;
};

struct RCarSyscState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;

    uint32_t syscisr;
    uint32_t syscier;
    uint32_t syscimr;
    uint32_t syscextmask;
    /* PWRSR of each register block: a bit set means the area is off */
    uint32_t pwrsr[RCAR_SYSC_NUM_CHANS];
};

#endif
