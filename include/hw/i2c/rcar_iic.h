/*
 * Renesas R-Car Gen3 I2C bus interface for DVFS (IIC)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_I2C_RCAR_IIC_H
#define HW_I2C_RCAR_IIC_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_IIC "rcar-iic"
OBJECT_DECLARE_SIMPLE_TYPE(RCarIICState, RCAR_IIC)

/* The window of the .dtsi; the registers are in its first 0x18 bytes */
#define RCAR_IIC_MMIO_SIZE      0x425

struct RCarIICState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    qemu_irq irq;
    I2CBus *bus;

    uint8_t iccr;
    uint8_t icsr;
    uint8_t icic;
    uint8_t iccl;
    uint8_t icch;
    uint8_t tx_data;            /* ICDR as written */
    uint8_t rx_data;            /* ICDR as read */
    uint8_t shift;              /* the byte being received */

    /* The bus state, not registers */
    bool start_pending;         /* BBSY 1 written: a (repeated) start */
    bool stop_pending;          /* BBSY 0 written while busy: a stop */
    bool tx_pending;            /* ICDR written: a byte to send */
    bool address_next;          /* the next byte sent is the address */
    bool addressed;             /* a slave acknowledged the address */
    bool receiving;             /* the address asked for a read */
    uint8_t target;             /* the 7-bit address of the transfer */
    bool nack_pending;          /* TACK to raise once WAIT is cleared */
    bool rx_shift_full;         /* a byte received, not yet in ICDR */
};

#endif
