/*
 * Renesas R-Car Gen3 I2C bus interface for DVFS (IIC)
 *
 * The IIC that serves the PMIC (i2c_dvfs), as Linux 6.12's
 * drivers/i2c/busses/i2c-sh_mobile.c drives it, byte by byte (the timing
 * diagrams at the top of that file), on a QEMU I2C bus that devices can
 * be put on (-device ...,bus=i2c-dvfs).  8-bit registers, 4 bytes apart:
 *
 * - ICCR: ICE enables the interface (0: everything idle again); with SCP
 *   0, BBSY 1 asks for a start (a repeated start while busy), BBSY 0 for a
 *   stop; TRS picks transmit or receive, RACK the master's answer to the
 *   bytes it receives (1: NACK).
 * - ICSR: BUSY from start to stop; DTE: ICDR empty (transmit) or full
 *   (receive); WAIT at the end of each byte, before its acknowledge bit;
 *   TACK when the slave did not acknowledge.  A 0 written to AL, TACK or
 *   WAIT clears it.  The interrupt is ICSR & ICIC in the low 4 bits.
 * - Transmitting, the first byte written to ICDR after a start is the
 *   address.  Each byte written goes out once WAIT and TACK are clear:
 *   the driver writes ICDR first and clears WAIT after
 *   (sh_mobile_i2c_isr()).  A NACK raises TACK only after that byte's WAIT
 *   was cleared, in an interrupt of its own: the driver does nothing else
 *   in an interrupt that has TACK.  As on the board, the bytes go on after
 *   a NACK until the driver stops, unless a stop was requested by then:
 *   it goes out with TACK (the driver polls for it, sh_mobile_xfer() in
 *   atomic mode).  The address byte sets the direction: data bytes sent
 *   in a read, or read in a write, reach no slave.
 * - Receiving, a byte waits in the shift register with WAIT set; when WAIT
 *   is cleared, RACK answers it, it moves to ICDR (DTE), and then a stop
 *   requested by now is sent, or else the next byte is received.
 *
 * Not modelled: bus timing (each step is done at the register access that
 * allows it), DMA (ICIC TDMAE/RDMAE are stored), arbitration loss, ICSTART.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/i2c/i2c.h"
#include "hw/i2c/rcar_iic.h"
#include "hw/irq.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

REG8(ICDR, 0x00)
REG8(ICCR, 0x04)
    FIELD(ICCR, SCP, 0, 1)
    FIELD(ICCR, BBSY, 2, 1)
    FIELD(ICCR, TRS, 4, 1)
    FIELD(ICCR, RACK, 6, 1)
    FIELD(ICCR, ICE, 7, 1)
REG8(ICSR, 0x08)
    FIELD(ICSR, DTE, 0, 1)
    FIELD(ICSR, WAIT, 1, 1)
    FIELD(ICSR, TACK, 2, 1)
    FIELD(ICSR, AL, 3, 1)
    FIELD(ICSR, BUSY, 4, 1)
REG8(ICIC, 0x0c)
    FIELD(ICIC, RDMAE, 4, 1)
    FIELD(ICIC, TDMAE, 5, 1)
REG8(ICCL, 0x10)
REG8(ICCH, 0x14)

/* ICSR bits that a 0 written clears */
#define RCAR_IIC_ICSR_W0C \
    (R_ICSR_AL_MASK | R_ICSR_TACK_MASK | R_ICSR_WAIT_MASK)
/* The interrupt sources: AL, TACK, WAIT, DTE in ICSR and ICIC alike */
#define RCAR_IIC_IRQ_MASK       0x0f
/* A bus with nothing driving it reads all ones */
#define RCAR_IIC_IDLE_BYTE      0xff

static bool rcar_iic_busy(RCarIICState *s)
{
    return FIELD_EX8(s->icsr, ICSR, BUSY);
}

static void rcar_iic_update_irq(RCarIICState *s)
{
    qemu_set_irq(s->irq, s->icsr & s->icic & RCAR_IIC_IRQ_MASK);
}

/* A start, or a repeated start: the next byte is an address */
static void rcar_iic_start(RCarIICState *s)
{
    trace_rcar_iic_start(DEVICE(s)->canonical_path, rcar_iic_busy(s));
    s->start_pending = false;
    s->stop_pending = false;
    s->address_next = true;
    s->rx_shift_full = false;
    s->icsr |= R_ICSR_BUSY_MASK | R_ICSR_DTE_MASK;
}

static void rcar_iic_stop(RCarIICState *s)
{
    trace_rcar_iic_stop(DEVICE(s)->canonical_path);
    if (s->addressed) {
        i2c_end_transfer(s->bus);
    }
    s->start_pending = false;
    s->stop_pending = false;
    s->tx_pending = false;
    s->addressed = false;
    s->address_next = false;
    s->rx_shift_full = false;
    s->icsr &= ~R_ICSR_BUSY_MASK;
}

/* The address byte after a (repeated) start: true if a slave answers */
static bool rcar_iic_send_address(RCarIICState *s, uint8_t byte)
{
    uint8_t address = byte >> 1;

    if (s->addressed && address != s->target) {
        /*
         * QEMU's I2C core gives a repeated start to the slave of the
         * transfer in flight without looking at the address: end that
         * transfer so that the new address is looked up.
         */
        i2c_end_transfer(s->bus);
    }
    s->target = address;
    s->receiving = byte & 1;
    s->addressed = !i2c_start_transfer(s->bus, address, s->receiving);
    if (!s->addressed) {
        /* A slave that refuses a repeated start leaves its transfer open */
        i2c_end_transfer(s->bus);
    }
    return s->addressed;
}

/* A data byte of a write transfer */
static bool rcar_iic_send_data(RCarIICState *s, uint8_t data)
{
    if (!s->addressed) {
        return false;
    }
    if (s->receiving) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: %s: byte 0x%02x sent in a read "
                      "transfer\n", __func__, DEVICE(s)->canonical_path, data);
        return false;
    }
    return !i2c_send(s->bus, data);
}

/* Send the byte of ICDR: the address after a start, or data */
static void rcar_iic_send_byte(RCarIICState *s)
{
    uint8_t data = s->tx_data;
    bool ack;

    s->tx_pending = false;
    if (s->address_next) {
        s->address_next = false;
        ack = rcar_iic_send_address(s, data);
    } else {
        ack = rcar_iic_send_data(s, data);
    }
    trace_rcar_iic_send(DEVICE(s)->canonical_path, data, ack);
    s->nack_pending = !ack;
    s->icsr |= R_ICSR_DTE_MASK | R_ICSR_WAIT_MASK;
}

/* The slave of a read transfer, if there is one */
static bool rcar_iic_reading(RCarIICState *s)
{
    return s->addressed && s->receiving;
}

/* The next byte from the slave into the shift register */
static void rcar_iic_recv_byte(RCarIICState *s)
{
    if (s->addressed && !s->receiving) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: %s: byte read in a write "
                      "transfer\n", __func__, DEVICE(s)->canonical_path);
    }
    s->shift = rcar_iic_reading(s) ? i2c_recv(s->bus) : RCAR_IIC_IDLE_BYTE;
    s->rx_shift_full = true;
    s->icsr |= R_ICSR_WAIT_MASK;
}

/*
 * The received byte's acknowledge bit, from RACK: then it is in ICDR.
 * A NACK ends what the slave sends.
 */
static void rcar_iic_answer_byte(RCarIICState *s)
{
    bool nack = FIELD_EX8(s->iccr, ICCR, RACK);

    trace_rcar_iic_recv(DEVICE(s)->canonical_path, s->shift, !nack);
    s->rx_shift_full = false;
    s->rx_data = s->shift;
    s->icsr |= R_ICSR_DTE_MASK;
    if (nack && rcar_iic_reading(s)) {
        i2c_nack(s->bus);
    }
    if (s->stop_pending) {
        rcar_iic_stop(s);
    } else if (!nack && !FIELD_EX8(s->iccr, ICCR, TRS)) {
        rcar_iic_recv_byte(s);
    }
}

/*
 * Take the bus one step further once the driver has dealt with WAIT and
 * TACK: one step per call, each ends with a status bit set or the bus
 * idle, so a guest cannot make this loop.
 */
static void rcar_iic_step(RCarIICState *s)
{
    bool transmit = FIELD_EX8(s->iccr, ICCR, TRS);

    if (!FIELD_EX8(s->iccr, ICCR, ICE) ||
        (s->icsr & (R_ICSR_WAIT_MASK | R_ICSR_TACK_MASK))) {
        return;
    }
    if (s->nack_pending) {
        s->nack_pending = false;
        s->icsr |= R_ICSR_TACK_MASK;
        if (s->stop_pending) {
            rcar_iic_stop(s);
        }
    } else if (!rcar_iic_busy(s)) {
        if (s->start_pending) {
            rcar_iic_start(s);
        }
    } else if (s->rx_shift_full) {
        rcar_iic_answer_byte(s);
    } else if (transmit && s->tx_pending) {
        rcar_iic_send_byte(s);
    } else if (s->start_pending) {
        rcar_iic_start(s);
    } else if (s->stop_pending) {
        rcar_iic_stop(s);
    } else if (!transmit && !s->address_next &&
               !FIELD_EX8(s->iccr, ICCR, RACK)) {
        rcar_iic_recv_byte(s);
    }
}

/* ICE 0: the interface and the bus are idle again */
static void rcar_iic_disable(RCarIICState *s)
{
    if (s->addressed) {
        i2c_end_transfer(s->bus);
    }
    s->icsr = 0;
    s->start_pending = false;
    s->stop_pending = false;
    s->tx_pending = false;
    s->address_next = false;
    s->addressed = false;
    s->receiving = false;
    s->nack_pending = false;
    s->rx_shift_full = false;
}

static void rcar_iic_write_iccr(RCarIICState *s, uint8_t val)
{
    s->iccr = val;
    if (!FIELD_EX8(val, ICCR, ICE)) {
        rcar_iic_disable(s);
        return;
    }
    if (FIELD_EX8(val, ICCR, SCP)) {
        return;                 /* no start or stop condition */
    }
    /* The last request written is the one carried out */
    s->start_pending = FIELD_EX8(val, ICCR, BBSY);
    s->stop_pending = !s->start_pending && rcar_iic_busy(s);
}

static uint64_t rcar_iic_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarIICState *s = RCAR_IIC(opaque);
    uint8_t val = 0;

    switch (offset) {
    case A_ICDR:
        val = s->rx_data;
        if (!FIELD_EX8(s->iccr, ICCR, TRS)) {
            s->icsr &= ~R_ICSR_DTE_MASK;    /* the received byte is taken */
            rcar_iic_update_irq(s);
        }
        break;
    case A_ICCR:
        val = FIELD_DP8(s->iccr, ICCR, BBSY, rcar_iic_busy(s));
        break;
    case A_ICSR:
        val = s->icsr;
        break;
    case A_ICIC:
        val = s->icic;
        break;
    case A_ICCL:
        val = s->iccl;
        break;
    case A_ICCH:
        val = s->icch;
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "%s: %s: unimplemented register 0x%03"
                      HWADDR_PRIx " reads as zero\n", __func__,
                      DEVICE(s)->canonical_path, offset);
        break;
    }
    trace_rcar_iic_read(DEVICE(s)->canonical_path, offset, val);
    return val;
}

static void rcar_iic_write(void *opaque, hwaddr offset, uint64_t value,
                           unsigned size)
{
    RCarIICState *s = RCAR_IIC(opaque);
    uint8_t val = value;

    trace_rcar_iic_write(DEVICE(s)->canonical_path, offset, val);
    switch (offset) {
    case A_ICDR:
        s->tx_data = val;
        if (rcar_iic_busy(s) && FIELD_EX8(s->iccr, ICCR, TRS)) {
            s->tx_pending = true;
            s->icsr &= ~R_ICSR_DTE_MASK;
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: %s: ICDR written while not "
                          "transmitting: 0x%02x dropped\n", __func__,
                          DEVICE(s)->canonical_path, val);
        }
        break;
    case A_ICCR:
        rcar_iic_write_iccr(s, val);
        break;
    case A_ICSR:
        s->icsr &= val | ~RCAR_IIC_ICSR_W0C;
        break;
    case A_ICIC:
        if (val & (R_ICIC_RDMAE_MASK | R_ICIC_TDMAE_MASK)) {
            qemu_log_mask(LOG_UNIMP, "%s: %s: DMA is not modelled\n",
                          __func__, DEVICE(s)->canonical_path);
        }
        s->icic = val;
        break;
    case A_ICCL:
        s->iccl = val;
        break;
    case A_ICCH:
        s->icch = val;
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "%s: %s: unimplemented register 0x%03"
                      HWADDR_PRIx " write of 0x%02x ignored\n", __func__,
                      DEVICE(s)->canonical_path, offset, val);
        return;
    }
    rcar_iic_step(s);
    rcar_iic_update_irq(s);
}

static const MemoryRegionOps rcar_iic_ops = {
    .read = rcar_iic_read,
    .write = rcar_iic_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* 8-bit registers: a wider access reaches the register's 8 bits only */
    .valid.min_access_size = 1,
    .valid.max_access_size = 4,
    .impl.min_access_size = 1,
    .impl.max_access_size = 4,
};

static void rcar_iic_reset_registers(RCarIICState *s)
{
    rcar_iic_disable(s);
    s->iccr = 0;
    s->icic = 0;
    s->iccl = 0;
    s->icch = 0;
    s->tx_data = 0;
    s->rx_data = 0;
    s->shift = 0;
    s->target = 0;
}

/* The CPG's module reset: the IIC's registers, not the devices on its bus */
static void rcar_iic_module_reset(void *opaque, int n, int level)
{
    RCarIICState *s = RCAR_IIC(opaque);

    if (level) {
        trace_rcar_iic_module_reset(DEVICE(s)->canonical_path);
        rcar_iic_reset_registers(s);
        rcar_iic_update_irq(s);
    }
}

static void rcar_iic_reset_hold(Object *obj, ResetType type)
{
    rcar_iic_reset_registers(RCAR_IIC(obj));
}

static void rcar_iic_reset_exit(Object *obj, ResetType type)
{
    rcar_iic_update_irq(RCAR_IIC(obj));
}

static void rcar_iic_init(Object *obj)
{
    RCarIICState *s = RCAR_IIC(obj);

    memory_region_init_io(&s->iomem, obj, &rcar_iic_ops, s, TYPE_RCAR_IIC,
                          RCAR_IIC_MMIO_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
    sysbus_init_irq(SYS_BUS_DEVICE(obj), &s->irq);
    qdev_init_gpio_in_named(DEVICE(obj), rcar_iic_module_reset,
                            "module-reset", 1);
}

static void rcar_iic_realize(DeviceState *dev, Error **errp)
{
    RCarIICState *s = RCAR_IIC(dev);
    const char *name = object_get_canonical_path_component(OBJECT(dev));

    /* The bus is named after the SoC's child: "i2c-dvfs" */
    s->bus = i2c_init_bus(dev, name);
}

/* The flags the bus can have: anything else is not a state of the model */
static int rcar_iic_post_load(void *opaque, int version_id)
{
    RCarIICState *s = RCAR_IIC(opaque);
    bool busy = rcar_iic_busy(s);

    if (!busy && (s->tx_pending || s->address_next || s->addressed ||
                  s->rx_shift_full || s->stop_pending || s->nack_pending)) {
        return -EINVAL;
    }
    if (busy && !FIELD_EX8(s->iccr, ICCR, ICE)) {
        return -EINVAL;
    }
    if (s->icsr & ~(R_ICSR_BUSY_MASK | RCAR_IIC_IRQ_MASK)) {
        return -EINVAL;
    }
    if (s->rx_shift_full &&
        (s->address_next || s->nack_pending ||
         !FIELD_EX8(s->icsr, ICSR, WAIT))) {
        return -EINVAL;
    }
    if (s->start_pending && s->stop_pending) {
        return -EINVAL;
    }
    if (s->target > 0x7f) {
        return -EINVAL;             /* a 7-bit address */
    }
    return 0;
}

static const VMStateDescription vmstate_rcar_iic = {
    .name = TYPE_RCAR_IIC,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = rcar_iic_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT8(iccr, RCarIICState),
        VMSTATE_UINT8(icsr, RCarIICState),
        VMSTATE_UINT8(icic, RCarIICState),
        VMSTATE_UINT8(iccl, RCarIICState),
        VMSTATE_UINT8(icch, RCarIICState),
        VMSTATE_UINT8(tx_data, RCarIICState),
        VMSTATE_UINT8(rx_data, RCarIICState),
        VMSTATE_UINT8(shift, RCarIICState),
        VMSTATE_BOOL(start_pending, RCarIICState),
        VMSTATE_BOOL(stop_pending, RCarIICState),
        VMSTATE_BOOL(tx_pending, RCarIICState),
        VMSTATE_BOOL(address_next, RCarIICState),
        VMSTATE_BOOL(addressed, RCarIICState),
        VMSTATE_BOOL(nack_pending, RCarIICState),
        VMSTATE_BOOL(rx_shift_full, RCarIICState),
        VMSTATE_BOOL(receiving, RCarIICState),
        VMSTATE_UINT8(target, RCarIICState),
        VMSTATE_END_OF_LIST()
    }
};

static void rcar_iic_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 I2C bus interface for DVFS";
    dc->realize = rcar_iic_realize;
    dc->vmsd = &vmstate_rcar_iic;
    rc->phases.hold = rcar_iic_reset_hold;
    rc->phases.exit = rcar_iic_reset_exit;
    /* Reason: part of the R-Car Gen3 SoC */
    dc->user_creatable = false;
}

static const TypeInfo rcar_iic_types[] = {
    {
        .name = TYPE_RCAR_IIC,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarIICState),
        .instance_init = rcar_iic_init,
        .class_init = rcar_iic_class_init,
    },
};

DEFINE_TYPES(rcar_iic_types)
