/*
 * Renesas R-Car Gen3 I2C bus interface (I2C)
 *
 * The master of the I2C channels (i2c0-i2c6 on H3 and M3-N, i2c0-i2c7 on
 * E3), as Linux 6.12's
 * drivers/i2c/busses/i2c-rcar.c drives it on Gen3 (rcar_i2c_gen3_irq()),
 * on a QEMU I2C bus that devices can be put on (-device ...,bus=i2c2):
 *
 * - A write of ICMCR with MIE and ESG starts a transfer to the address in
 *   ICMAR (bit 0: read).  A slave that answers sets MAT and MDE (write) or
 *   MAT and MDR (read); none sets MNR and, as the hardware sends the stop
 *   by itself after a NACK, MST.
 * - Each following step of the bus waits until the driver has cleared the
 *   status bits of the previous one (a 0 written to an ICMSR bit clears
 *   it): the driver writes ICRXTX or ICMCR first and clears MDE/MDR after
 *   (rcar_i2c_irq_send/recv()), and on the board the bus is far slower
 *   than the CPU.  Then a byte written to ICRXTX goes out (MDE again), or
 *   a requested repeated start (ESG) or stop (FSB, then MST) happens.
 * - Reading, the next byte is received when MDR is cleared; it is the
 *   last one, which the master NACKs, if a stop or a repeated start was
 *   requested before, as the driver does one byte ahead.  That request is
 *   carried out once the last byte's MDR is cleared, even though the
 *   driver has meanwhile written RCAR_BUS_PHASE_DATA to ICMCR.
 * - The interrupt is high while ICMSR & ICMIER has a bit set.
 *
 * Not modelled: slave mode (ICSSR stays 0), bus timing (every step is
 * done at the register access that allows it), DMA (ICDMAER is stored;
 * i2c-rcar only uses DMA for messages of 8 bytes or more and needs the
 * SYS-DMAC for it, which is not modelled), arbitration loss.  With OBPC
 * set, FSCL and FSDA read back what was written, as the pins of an idle
 * bus with pull-ups would; without it FSDA reads 0: the bus is free.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/i2c/i2c.h"
#include "hw/i2c/rcar_i2c.h"
#include "hw/irq.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

REG32(ICSCR, 0x00)
    FIELD(ICSCR, SIE, 2, 1)
REG32(ICMCR, 0x04)
    FIELD(ICMCR, ESG, 0, 1)
    FIELD(ICMCR, FSB, 1, 1)
    FIELD(ICMCR, MIE, 3, 1)
    FIELD(ICMCR, OBPC, 4, 1)
    FIELD(ICMCR, FSDA, 5, 1)
REG32(ICSSR, 0x08)
REG32(ICMSR, 0x0c)
    FIELD(ICMSR, MAT, 0, 1)
    FIELD(ICMSR, MDR, 1, 1)
    FIELD(ICMSR, MDE, 3, 1)
    FIELD(ICMSR, MST, 4, 1)
    FIELD(ICMSR, MNR, 6, 1)
REG32(ICSIER, 0x10)
REG32(ICMIER, 0x14)
REG32(ICCCR, 0x18)
REG32(ICSAR, 0x1c)
REG32(ICMAR, 0x20)
REG32(ICRXTX, 0x24)
REG32(ICCCR2, 0x28)
REG32(ICMPR, 0x2c)
REG32(ICHPR, 0x30)
REG32(ICLPR, 0x34)
REG32(ICFBSCR, 0x38)
REG32(ICDMAER, 0x3c)

/* The status and enable bits: 7 of them, in ICMSR/ICMIER and ICSSR/ICSIER */
#define RCAR_I2C_STATUS_MASK    0x7f
/* The events that the driver acknowledges before the bus goes on */
#define RCAR_I2C_STEP_EVENTS \
    (R_ICMSR_MAT_MASK | R_ICMSR_MDE_MASK | R_ICMSR_MDR_MASK)

static void rcar_i2c_update_irq(RCarI2CState *s)
{
    bool master = s->regs[R_ICMSR] & s->regs[R_ICMIER];
    bool slave = s->regs[R_ICSSR] & s->regs[R_ICSIER];

    qemu_set_irq(s->irq, master || slave);
}

static void rcar_i2c_set_status(RCarI2CState *s, uint32_t bits)
{
    s->regs[R_ICMSR] |= bits;
}

/* The transfer is over: the master sent a stop */
static void rcar_i2c_stop(RCarI2CState *s)
{
    trace_rcar_i2c_stop(DEVICE(s)->canonical_path);
    i2c_end_transfer(s->bus);
    s->active = false;
    s->start_pending = false;
    s->stop_pending = false;
    s->tx_pending = false;
    s->last_byte_read = false;
    rcar_i2c_set_status(s, R_ICMSR_MST_MASK);
}

/* No slave acknowledged: the hardware sends the stop by itself */
static void rcar_i2c_nack(RCarI2CState *s)
{
    rcar_i2c_set_status(s, R_ICMSR_MNR_MASK);
    rcar_i2c_stop(s);
}

/* A start or repeated start, and the address phase with ICMAR */
static void rcar_i2c_start(RCarI2CState *s)
{
    uint8_t address = extract32(s->regs[R_ICMAR], 1, 7);
    bool recv = s->regs[R_ICMAR] & 1;

    if (s->active && address != s->target) {
        /*
         * QEMU's I2C core gives a repeated start to the slave of the
         * transfer in flight without looking at the address: end that
         * transfer so that the new address is looked up.
         */
        i2c_end_transfer(s->bus);
    }
    s->start_pending = false;
    s->stop_pending = false;
    s->tx_pending = false;
    s->last_byte_read = false;
    s->active = true;
    s->recv = recv;
    s->target = address;
    if (i2c_start_transfer(s->bus, address, recv)) {
        trace_rcar_i2c_start(DEVICE(s)->canonical_path, address, recv, false);
        rcar_i2c_nack(s);
        return;
    }
    trace_rcar_i2c_start(DEVICE(s)->canonical_path, address, recv, true);
    rcar_i2c_set_status(s, R_ICMSR_MAT_MASK |
                        (recv ? R_ICMSR_MDR_MASK : R_ICMSR_MDE_MASK));
}

static void rcar_i2c_send_byte(RCarI2CState *s)
{
    uint8_t data = s->regs[R_ICRXTX];

    s->tx_pending = false;
    if (i2c_send(s->bus, data)) {
        trace_rcar_i2c_send(DEVICE(s)->canonical_path, data, false);
        rcar_i2c_nack(s);
        return;
    }
    trace_rcar_i2c_send(DEVICE(s)->canonical_path, data, true);
    rcar_i2c_set_status(s, R_ICMSR_MDE_MASK);
}

/*
 * Receive a byte.  A stop or repeated start requested by now makes it the
 * last one: the master NACKs it, and the request is kept for when the
 * driver has taken the byte.
 */
static void rcar_i2c_recv_byte(RCarI2CState *s)
{
    uint8_t data = i2c_recv(s->bus);

    s->regs[R_ICRXTX] = data;
    if (s->start_pending || s->stop_pending) {
        i2c_nack(s->bus);
        s->last_byte_read = true;
    }
    trace_rcar_i2c_recv(DEVICE(s)->canonical_path, data, s->last_byte_read);
    rcar_i2c_set_status(s, R_ICMSR_MDR_MASK);
}

/*
 * Take the bus one step further if the driver has acknowledged the last
 * step: one step per call, each ends with a status bit set or the bus
 * idle, so a guest cannot make this loop.
 */
static void rcar_i2c_step(RCarI2CState *s)
{
    if (s->regs[R_ICMSR] & RCAR_I2C_STEP_EVENTS) {
        return;
    }
    if (!s->active) {
        if (s->start_pending) {
            rcar_i2c_start(s);
        }
        return;
    }
    if (s->recv && !s->last_byte_read) {
        rcar_i2c_recv_byte(s);
    } else if (s->tx_pending) {
        rcar_i2c_send_byte(s);
    } else if (s->start_pending) {
        rcar_i2c_start(s);
    } else if (s->stop_pending) {
        rcar_i2c_stop(s);
    }
}

/* Master interface off (MIE 0): a transfer in flight ends there */
static void rcar_i2c_master_off(RCarI2CState *s)
{
    if (s->active) {
        i2c_end_transfer(s->bus);
    }
    s->active = false;
    s->start_pending = false;
    s->stop_pending = false;
    s->tx_pending = false;
    s->last_byte_read = false;
    s->recv = false;
    s->target = 0;
}

static void rcar_i2c_write_icmcr(RCarI2CState *s, uint32_t val)
{
    bool mie = FIELD_EX32(val, ICMCR, MIE);

    s->regs[R_ICMCR] = val & 0xff;
    if (!mie) {
        rcar_i2c_master_off(s);
        return;
    }
    /*
     * A request stays until it is carried out; RCAR_BUS_PHASE_DATA, which
     * rcar_i2c_gen3_irq() writes on entry, takes none back.
     */
    if (FIELD_EX32(val, ICMCR, ESG)) {
        s->start_pending = true;
    }
    if (FIELD_EX32(val, ICMCR, FSB)) {
        s->stop_pending = true;
    }
}

static uint64_t rcar_i2c_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarI2CState *s = RCAR_I2C(opaque);
    uint32_t val = s->regs[offset >> 2];

    if (offset == A_ICMCR && !FIELD_EX32(val, ICMCR, OBPC)) {
        /* FSDA 0: the bus is free (rcar_i2c_bus_barrier()) */
        val = FIELD_DP32(val, ICMCR, FSDA, 0);
    }
    trace_rcar_i2c_read(DEVICE(s)->canonical_path, offset, val);
    return val;
}

static void rcar_i2c_write(void *opaque, hwaddr offset, uint64_t value,
                           unsigned size)
{
    RCarI2CState *s = RCAR_I2C(opaque);
    uint32_t val = value;

    trace_rcar_i2c_write(DEVICE(s)->canonical_path, offset, val);
    switch (offset) {
    case A_ICMCR:
        rcar_i2c_write_icmcr(s, val);
        break;
    case A_ICMSR:
        /* A 0 clears a bit, a 1 leaves it */
        s->regs[R_ICMSR] &= val;
        break;
    case A_ICSSR:
        s->regs[R_ICSSR] &= val;
        break;
    case A_ICMIER:
    case A_ICSIER:
        s->regs[offset >> 2] = val & RCAR_I2C_STATUS_MASK;
        break;
    case A_ICRXTX:
        s->regs[R_ICRXTX] = val & 0xff;
        if (s->active && !s->recv) {
            s->tx_pending = true;
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: %s: ICRXTX written while not "
                          "sending: 0x%02x dropped\n", __func__,
                          DEVICE(s)->canonical_path, val & 0xff);
        }
        break;
    case A_ICSCR:
        if (FIELD_EX32(val, ICSCR, SIE)) {
            qemu_log_mask(LOG_UNIMP, "%s: %s: slave mode is not modelled\n",
                          __func__, DEVICE(s)->canonical_path);
        }
        s->regs[R_ICSCR] = val & 0xff;
        break;
    case A_ICDMAER:
        if (val & 0xff) {
            qemu_log_mask(LOG_UNIMP, "%s: %s: DMA is not modelled\n",
                          __func__, DEVICE(s)->canonical_path);
        }
        s->regs[R_ICDMAER] = val & 0xff;
        break;
    case A_ICMAR:
    case A_ICSAR:
    case A_ICCCR:
    case A_ICCCR2:
    case A_ICFBSCR:
        s->regs[offset >> 2] = val & 0xff;
        break;
    case A_ICMPR:
    case A_ICHPR:
    case A_ICLPR:
        s->regs[offset >> 2] = val & 0xffff;
        break;
    }
    rcar_i2c_step(s);
    rcar_i2c_update_irq(s);
}

static const MemoryRegionOps rcar_i2c_ops = {
    .read = rcar_i2c_read,
    .write = rcar_i2c_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
    .impl.min_access_size = 4,
    .impl.max_access_size = 4,
};

/* Every register 0, the master idle */
static void rcar_i2c_reset_registers(RCarI2CState *s)
{
    rcar_i2c_master_off(s);
    memset(s->regs, 0, sizeof(s->regs));
}

/*
 * The CPG's module reset (SRCR), which i2c-rcar asserts before each
 * transfer on Gen3 (rcar_i2c_do_reset()): the controller's registers, not
 * the devices on its bus, as a device_cold_reset() would.
 */
static void rcar_i2c_module_reset(void *opaque, int n, int level)
{
    RCarI2CState *s = RCAR_I2C(opaque);

    if (level) {
        trace_rcar_i2c_module_reset(DEVICE(s)->canonical_path);
        rcar_i2c_reset_registers(s);
        rcar_i2c_update_irq(s);
    }
}

static void rcar_i2c_reset_hold(Object *obj, ResetType type)
{
    rcar_i2c_reset_registers(RCAR_I2C(obj));
}

static void rcar_i2c_reset_exit(Object *obj, ResetType type)
{
    rcar_i2c_update_irq(RCAR_I2C(obj));
}

static void rcar_i2c_init(Object *obj)
{
    RCarI2CState *s = RCAR_I2C(obj);

    memory_region_init_io(&s->iomem, obj, &rcar_i2c_ops, s, TYPE_RCAR_I2C,
                          RCAR_I2C_MMIO_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
    sysbus_init_irq(SYS_BUS_DEVICE(obj), &s->irq);
    qdev_init_gpio_in_named(DEVICE(obj), rcar_i2c_module_reset,
                            "module-reset", 1);
}

static void rcar_i2c_realize(DeviceState *dev, Error **errp)
{
    RCarI2CState *s = RCAR_I2C(dev);
    const char *name = object_get_canonical_path_component(OBJECT(dev));

    /* The bus is named after the channel: "i2c2" for the SoC's child i2c2 */
    s->bus = i2c_init_bus(dev, name);
}

/* The flags the bus can have: anything else is not a state of the model */
static int rcar_i2c_post_load(void *opaque, int version_id)
{
    RCarI2CState *s = RCAR_I2C(opaque);

    if (!s->active && (s->tx_pending || s->last_byte_read)) {
        return -EINVAL;
    }
    /* A byte is the last one read only when a request made it so */
    if (s->last_byte_read && !s->start_pending && !s->stop_pending) {
        return -EINVAL;
    }
    if ((s->regs[R_ICMSR] | s->regs[R_ICMIER] | s->regs[R_ICSSR] |
         s->regs[R_ICSIER]) & ~RCAR_I2C_STATUS_MASK) {
        return -EINVAL;
    }
    if ((s->recv && s->tx_pending) || (!s->recv && s->last_byte_read)) {
        return -EINVAL;
    }
    if (s->target > 0x7f) {
        return -EINVAL;             /* a 7-bit address */
    }
    return 0;
}

static const VMStateDescription vmstate_rcar_i2c = {
    .name = TYPE_RCAR_I2C,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = rcar_i2c_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_ARRAY(regs, RCarI2CState, RCAR_I2C_NUM_REGS),
        VMSTATE_BOOL(active, RCarI2CState),
        VMSTATE_BOOL(recv, RCarI2CState),
        VMSTATE_BOOL(start_pending, RCarI2CState),
        VMSTATE_BOOL(stop_pending, RCarI2CState),
        VMSTATE_BOOL(tx_pending, RCarI2CState),
        VMSTATE_BOOL(last_byte_read, RCarI2CState),
        VMSTATE_UINT8(target, RCarI2CState),
        VMSTATE_END_OF_LIST()
    }
};

static void rcar_i2c_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 I2C bus interface";
    dc->realize = rcar_i2c_realize;
    dc->vmsd = &vmstate_rcar_i2c;
    rc->phases.hold = rcar_i2c_reset_hold;
    rc->phases.exit = rcar_i2c_reset_exit;
    /* Reason: part of the R-Car Gen3 SoC */
    dc->user_creatable = false;
}

static const TypeInfo rcar_i2c_types[] = {
    {
        .name = TYPE_RCAR_I2C,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarI2CState),
        .instance_init = rcar_i2c_init,
        .class_init = rcar_i2c_class_init,
    },
};

DEFINE_TYPES(rcar_i2c_types)
