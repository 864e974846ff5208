/*
 * Renesas R-Car Gen3 general purpose I/O (GPIO) bank
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_GPIO_RCAR_GPIO_H
#define HW_GPIO_RCAR_GPIO_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_GPIO "rcar-gpio"
OBJECT_DECLARE_SIMPLE_TYPE(RCarGPIOState, RCAR_GPIO)

#define RCAR_GPIO_MMIO_SIZE     0x50
#define RCAR_GPIO_MAX_PINS      32

struct RCarGPIOState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    qemu_irq irq;
    qemu_irq out[RCAR_GPIO_MAX_PINS];

    uint32_t iointsel;
    uint32_t inoutsel;
    uint32_t outdt;
    uint32_t intdt;             /* latched edges; levels are computed */
    uint32_t intmsk;            /* 1: unmasked */
    uint32_t posneg;
    uint32_t edglevel;
    uint32_t filonoff;
    uint32_t outdtsel;
    uint32_t bothedge;
    uint32_t in_level;          /* what drives the pins from outside */

    /* Property */
    uint32_t num_pins;
};

#endif
