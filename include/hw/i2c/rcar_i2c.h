/*
 * Renesas R-Car Gen3 I2C bus interface (I2C)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_I2C_RCAR_I2C_H
#define HW_I2C_RCAR_I2C_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_I2C "rcar-i2c"
OBJECT_DECLARE_SIMPLE_TYPE(RCarI2CState, RCAR_I2C)

#define RCAR_I2C_MMIO_SIZE      0x40
#define RCAR_I2C_NUM_REGS       (RCAR_I2C_MMIO_SIZE / 4)

struct RCarI2CState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    qemu_irq irq;
    I2CBus *bus;

    uint32_t regs[RCAR_I2C_NUM_REGS];

    /* The master's bus state, not registers */
    bool active;                /* between a start and its stop */
    bool recv;                  /* the transfer reads from the slave */
    bool start_pending;         /* ESG written: a (repeated) start is due */
    bool stop_pending;          /* FSB written: a stop is due */
    bool tx_pending;            /* ICRXTX holds a byte to send */
    bool last_byte_read;        /* the byte read was NACKed: the last */
    uint8_t target;             /* the 7-bit address of the transfer */
};

#endif
