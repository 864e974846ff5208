/*
 * ROHM BD9571MWV power management IC
 *
 * The PMIC of the Renesas R-Car Gen3 boards (Salvator-X(S), ULCB, Ebisu),
 * on the IIC for DVFS at 0x30.  What Linux 6.12's drivers use of it:
 * - bd9571mwv_probe() and bd957x_identify() (drivers/mfd/bd9571mwv.c)
 *   read the vendor code (0xdb), the product code (0x60: this part; 0x74
 *   would be the BD9574MWF) and the revision, then mask and acknowledge
 *   its interrupts (INT_INTMASK, INT_INTREQ);
 * - drivers/regulator/bd9571mwv-regulator.c reads the DVFS rail (the
 *   Cortex-A57 cores' supply, "dvfs" in the board .dts) from DVFS_MONIVDAC
 *   and sets it in DVFS_SETVID, 10 mV per step from 0x3c (0.60 V); reads
 *   VD09 through AVS_SET_MONI and AVS_VD09_VID(n), and VD18/25/33 from
 *   their VID registers; it keeps the DDR backup mode in BKUP_MODE_CNT;
 * - drivers/gpio/gpio-bd9571mwv.c reads its two GPIOs' levels.
 *
 * Registers are 8 bits, addressed by the first byte of a write; the
 * pointer moves on after each data byte.  The DVFS output reaches the set
 * voltage at once (MONIVDAC follows SETVID).  No interrupt source is
 * modelled (the power-supply monitors, the watchdog and the backup
 * trigger need a model of the board's power), so INT_INTREQ stays 0 and
 * INT_N is not wired.  BKUP_MODE_CNT's P_ALL_OFF, with which the secure
 * firmware powers the board off, is only stored: QEMU's PSCI does that.
 * Reset values the driver does not check follow the boards' rails (VD18
 * 1.8 V, VD25 2.5 V, VD33 3.3 V, VD09 0.9 V) and the Cortex-A57 OPP of
 * the boot clock (DVFS 0.83 V, 1.5 GHz).
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/misc/bd9571mwv.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "trace.h"

/* include/linux/mfd/bd9571mwv.h */
#define VENDOR_CODE         0x00
#define PRODUCT_CODE        0x01
#define PRODUCT_REVISION    0x02
#define BKUP_MODE_CNT       0x20
#define AVS_SET_MONI        0x31
#define AVS_VD09_VID(n)     (0x32 + (n))
#define AVS_DVFS_VID(n)     (0x36 + (n))
#define VD18_VID            0x42
#define VD25_VID            0x43
#define VD33_VID            0x44
#define DVFS_VINIT          0x50
#define DVFS_SETVMAX        0x52
#define DVFS_BOOSTVID       0x53
#define DVFS_SETVID         0x54
#define DVFS_MONIVDAC       0x55
#define DVFS_PGD_CNT        0x56
#define GPIO_DIR            0x60
#define GPIO_OUT            0x61
#define GPIO_IN             0x62
#define GPIO_DEB            0x63
#define GPIO_INT_SET        0x64
#define GPIO_INT            0x65
#define GPIO_INTMASK        0x66
#define REG_KEEP(n)         (0x70 + (n))
#define INT_INTREQ          0x90
#define INT_INTMASK         0x91

#define VENDOR_CODE_VAL     0xdb
#define PRODUCT_CODE_VAL    0x60
#define VID_MASK            0x7f        /* DVFS and VD09: 10 mV steps */
#define GPIO_MASK           0x03        /* two GPIOs */

/* A voltage in 10 mV steps from 0x3c, 0.60 V (bd9571mwv-regulator.c) */
#define VID_MV(mv)          ((mv) / 10)

typedef struct BD9571MWVReg {
    uint8_t addr;
    uint8_t reset;
    uint8_t wmask;              /* the bits a write changes */
} BD9571MWVReg;

/*
 * Every register the part has (the driver's regmap tables, bd9571mwv.c),
 * with what the guest can write; an address not here is no register
 */
static const BD9571MWVReg bd9571mwv_regs[] = {
    { VENDOR_CODE, VENDOR_CODE_VAL, 0 },
    { PRODUCT_CODE, PRODUCT_CODE_VAL, 0 },
    { PRODUCT_REVISION, 0, 0 },
    /* The DDR backup mode: KEEPON_DDR0/1/0C/1C (3:0), P_ALL_OFF (7) */
    { BKUP_MODE_CNT, 0, 0x8f },
    /* VD09's VID register n in use: set by the part's AVS pins */
    { AVS_SET_MONI, 0, 0 },
    { AVS_VD09_VID(0), VID_MV(900), VID_MASK },
    { AVS_VD09_VID(1), VID_MV(900), VID_MASK },
    { AVS_VD09_VID(2), VID_MV(900), VID_MASK },
    { AVS_VD09_VID(3), VID_MV(900), VID_MASK },
    { AVS_DVFS_VID(0), VID_MV(830), 0 },
    { AVS_DVFS_VID(1), VID_MV(830), 0 },
    { AVS_DVFS_VID(2), VID_MV(830), 0 },
    { AVS_DVFS_VID(3), VID_MV(830), 0 },
    /* 1.625 V + 25 mV, 2.15 V + 50 mV, 2.8 V + 100 mV per step */
    { VD18_VID, 7, 0 },
    { VD25_VID, 7, 0 },
    { VD33_VID, 5, 0 },
    { DVFS_VINIT, VID_MV(830), 0 },
    { DVFS_SETVMAX, VID_MV(1030), 0 },
    { DVFS_BOOSTVID, VID_MV(960), 0 },
    { DVFS_SETVID, VID_MV(830), VID_MASK },
    { DVFS_MONIVDAC, VID_MV(830), 0 },
    { DVFS_PGD_CNT, 0, 0 },
    /* DIR: 1 = output (bd9571mwv_gpio_direction_output()) */
    { GPIO_DIR, 0, GPIO_MASK },
    { GPIO_OUT, 0, GPIO_MASK },
    { GPIO_IN, 0, 0 },
    { GPIO_DEB, 0, GPIO_MASK },
    { GPIO_INT_SET, 0, GPIO_MASK },
    { GPIO_INT, 0, 0 },
    { GPIO_INTMASK, GPIO_MASK, GPIO_MASK },
    { REG_KEEP(0), 0, 0xff }, { REG_KEEP(1), 0, 0xff },
    { REG_KEEP(2), 0, 0xff }, { REG_KEEP(3), 0, 0xff },
    { REG_KEEP(4), 0, 0xff }, { REG_KEEP(5), 0, 0xff },
    { REG_KEEP(6), 0, 0xff }, { REG_KEEP(7), 0, 0xff },
    { REG_KEEP(8), 0, 0xff }, { REG_KEEP(9), 0, 0xff },
    { REG_KEEP(10), 0, 0xff }, { REG_KEEP(11), 0, 0xff },
    { REG_KEEP(12), 0, 0xff }, { REG_KEEP(13), 0, 0xff },
    { REG_KEEP(14), 0, 0xff }, { REG_KEEP(15), 0, 0xff },
    /* Status, written 1 to clear (regmap-irq's ack) */
    { INT_INTREQ, 0, 0 },
    { INT_INTMASK, 0xff, 0xff },
};

static const BD9571MWVReg *bd9571mwv_find(uint8_t addr)
{
    for (unsigned i = 0; i < ARRAY_SIZE(bd9571mwv_regs); i++) {
        if (bd9571mwv_regs[i].addr == addr) {
            return &bd9571mwv_regs[i];
        }
    }
    return NULL;
}

static uint8_t bd9571mwv_gpio_levels(BD9571MWVState *s)
{
    /* Outputs read what they drive; nothing drives the inputs */
    return s->regs[GPIO_OUT] & s->regs[GPIO_DIR];
}

static uint8_t bd9571mwv_read(BD9571MWVState *s, uint8_t addr)
{
    if (!bd9571mwv_find(addr)) {
        qemu_log_mask(LOG_GUEST_ERROR, "bd9571mwv: read of 0x%02x, which "
                      "is no register\n", addr);
        return 0;
    }
    if (addr == GPIO_IN) {
        return bd9571mwv_gpio_levels(s);
    }
    return s->regs[addr];
}

static void bd9571mwv_write(BD9571MWVState *s, uint8_t addr, uint8_t val)
{
    const BD9571MWVReg *r = bd9571mwv_find(addr);

    if (!r) {
        qemu_log_mask(LOG_GUEST_ERROR, "bd9571mwv: write of 0x%02x to "
                      "0x%02x, which is no register\n", val, addr);
        return;
    }
    switch (addr) {
    case INT_INTREQ:
        s->regs[addr] &= ~val;
        return;
    case DVFS_SETVID:
        /* The rail settles at once: the monitor reads the new voltage */
        s->regs[DVFS_MONIVDAC] = val & r->wmask;
        break;
    default:
        break;
    }
    if (val & ~r->wmask) {
        qemu_log_mask(LOG_GUEST_ERROR, "bd9571mwv: write of 0x%02x to "
                      "0x%02x sets bits 0x%02x that are read-only\n", val,
                      addr, val & ~r->wmask);
    }
    s->regs[addr] = (s->regs[addr] & ~r->wmask) | (val & r->wmask);
}

static uint8_t bd9571mwv_recv(I2CSlave *i2c)
{
    BD9571MWVState *s = BD9571MWV(i2c);
    uint8_t val = bd9571mwv_read(s, s->pointer);

    trace_bd9571mwv_read(DEVICE(i2c)->canonical_path, s->pointer, val);
    s->pointer++;
    return val;
}

static int bd9571mwv_send(I2CSlave *i2c, uint8_t data)
{
    BD9571MWVState *s = BD9571MWV(i2c);

    if (!s->pointer_set) {
        s->pointer = data;
        s->pointer_set = true;
        return 0;
    }
    trace_bd9571mwv_write(DEVICE(i2c)->canonical_path, s->pointer, data);
    bd9571mwv_write(s, s->pointer, data);
    s->pointer++;
    return 0;
}

static int bd9571mwv_event(I2CSlave *i2c, enum i2c_event event)
{
    BD9571MWVState *s = BD9571MWV(i2c);

    /* A write transfer starts with the register's address */
    if (event == I2C_START_SEND) {
        s->pointer_set = false;
    }
    return 0;
}

static void bd9571mwv_reset_hold(Object *obj, ResetType type)
{
    BD9571MWVState *s = BD9571MWV(obj);

    memset(s->regs, 0, sizeof(s->regs));
    for (unsigned i = 0; i < ARRAY_SIZE(bd9571mwv_regs); i++) {
        s->regs[bd9571mwv_regs[i].addr] = bd9571mwv_regs[i].reset;
    }
    s->pointer = 0;
    s->pointer_set = false;
}

static const VMStateDescription vmstate_bd9571mwv = {
    .name = TYPE_BD9571MWV,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_I2C_SLAVE(parent_obj, BD9571MWVState),
        VMSTATE_UINT8_ARRAY(regs, BD9571MWVState, BD9571MWV_NUM_REGS),
        VMSTATE_UINT8(pointer, BD9571MWVState),
        VMSTATE_BOOL(pointer_set, BD9571MWVState),
        VMSTATE_END_OF_LIST()
    }
};

static void bd9571mwv_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    I2CSlaveClass *k = I2C_SLAVE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "ROHM BD9571MWV power management IC";
    dc->vmsd = &vmstate_bd9571mwv;
    rc->phases.hold = bd9571mwv_reset_hold;
    k->event = bd9571mwv_event;
    k->recv = bd9571mwv_recv;
    k->send = bd9571mwv_send;
}

static const TypeInfo bd9571mwv_types[] = {
    {
        .name = TYPE_BD9571MWV,
        .parent = TYPE_I2C_SLAVE,
        .instance_size = sizeof(BD9571MWVState),
        .class_init = bd9571mwv_class_init,
    },
};

DEFINE_TYPES(bd9571mwv_types)
