/*
 * ROHM BD9571MWV power management IC (the R-Car Gen3 boards' PMIC)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_MISC_BD9571MWV_H
#define HW_MISC_BD9571MWV_H

#include "hw/i2c/i2c.h"
#include "qom/object.h"

#define TYPE_BD9571MWV "bd9571mwv"
OBJECT_DECLARE_SIMPLE_TYPE(BD9571MWVState, BD9571MWV)

#define BD9571MWV_NUM_REGS      0x100

struct BD9571MWVState {
    I2CSlave parent_obj;

    uint8_t regs[BD9571MWV_NUM_REGS];
    uint8_t pointer;            /* the register the next byte is for */
    bool pointer_set;           /* this write transfer gave its pointer */
};

#endif
