/*
 * Renesas R-Car Gen3 general purpose I/O (GPIO) bank
 *
 * One bank of up to 32 pins, as Linux 6.12's drivers/gpio/gpio-rcar.c
 * drives it on Gen3 (has_outdtsel, has_both_edge_trigger, has_always_in):
 *
 * - INOUTSEL selects output pins, driven from OUTDT; INDT reads the pin
 *   levels, of outputs as well (gpio_rcar_get(): "always in").
 * - IOINTSEL selects interrupt pins.  EDGLEVEL picks edge or level,
 *   POSNEG inverts the sense (falling or low), BOTHEDGE takes both edges.
 *   INTDT holds the latched edges, cleared through INTCLR, or the live
 *   level; INTMSK reads 1 for an unmasked pin, a 0 written to it masks,
 *   a 1 written to MSKCLR unmasks (gpio_rcar_irq_disable/enable()).
 * - The bank's interrupt is high while an unmasked interrupt pin has
 *   INTDT set; the handler loops on INTDT & INTMSK (gpio_rcar_irq_handler).
 *
 * Input pins are the device's GPIO inputs, outputs its GPIO outputs.
 * Pins beyond "num-pins" read 0 and ignore writes.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/gpio/rcar_gpio.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

REG32(IOINTSEL, 0x00)
REG32(INOUTSEL, 0x04)
REG32(OUTDT, 0x08)
REG32(INDT, 0x0c)
REG32(INTDT, 0x10)
REG32(INTCLR, 0x14)
REG32(INTMSK, 0x18)
REG32(MSKCLR, 0x1c)
REG32(POSNEG, 0x20)
REG32(EDGLEVEL, 0x24)
REG32(FILONOFF, 0x28)
REG32(OUTDTSEL, 0x40)
REG32(BOTHEDGE, 0x4c)

static uint32_t rcar_gpio_pins(RCarGPIOState *s)
{
    return MAKE_64BIT_MASK(0, s->num_pins);
}

/* The level at each pin: outputs drive their own */
static uint32_t rcar_gpio_levels(RCarGPIOState *s)
{
    return ((s->in_level & ~s->inoutsel) | (s->outdt & s->inoutsel)) &
           rcar_gpio_pins(s);
}

/* INTDT: latched edges, and for level pins the level in its sense */
static uint32_t rcar_gpio_intdt(RCarGPIOState *s)
{
    uint32_t level = (rcar_gpio_levels(s) ^ s->posneg) & ~s->edglevel;

    return (s->intdt | level) & s->iointsel & rcar_gpio_pins(s);
}

static void rcar_gpio_update_irq(RCarGPIOState *s)
{
    qemu_set_irq(s->irq, !!(rcar_gpio_intdt(s) & s->intmsk));
}

/* Latch the edges of interrupt pins between levels @old and @new */
static void rcar_gpio_latch_edges(RCarGPIOState *s, uint32_t old,
                                  uint32_t new)
{
    uint32_t changed = (old ^ new) & s->iointsel & s->edglevel;
    /* Rising edge with POSNEG 0, falling with POSNEG 1 */
    uint32_t active = (new ^ s->posneg) | s->bothedge;

    s->intdt |= changed & active;
}

static void rcar_gpio_update_outputs(RCarGPIOState *s, uint32_t old_levels)
{
    uint32_t levels = rcar_gpio_levels(s);
    uint32_t changed = (old_levels ^ levels) & s->inoutsel;

    rcar_gpio_latch_edges(s, old_levels, levels);
    while (changed) {
        unsigned pin = ctz32(changed);

        changed &= changed - 1;
        trace_rcar_gpio_out(DEVICE(s)->canonical_path, pin,
                            !!(levels & BIT(pin)));
        qemu_set_irq(s->out[pin], !!(levels & BIT(pin)));
    }
    rcar_gpio_update_irq(s);
}

static void rcar_gpio_set_input(void *opaque, int pin, int level)
{
    RCarGPIOState *s = RCAR_GPIO(opaque);
    uint32_t old = rcar_gpio_levels(s);

    trace_rcar_gpio_in(DEVICE(s)->canonical_path, pin, level);
    s->in_level = deposit32(s->in_level, pin, 1, !!level);
    rcar_gpio_latch_edges(s, old, rcar_gpio_levels(s));
    rcar_gpio_update_irq(s);
}

static uint64_t rcar_gpio_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarGPIOState *s = RCAR_GPIO(opaque);
    uint32_t val = 0;

    switch (offset) {
    case A_IOINTSEL:
        val = s->iointsel;
        break;
    case A_INOUTSEL:
        val = s->inoutsel;
        break;
    case A_OUTDT:
        val = s->outdt;
        break;
    case A_INDT:
        val = rcar_gpio_levels(s);
        break;
    case A_INTDT:
        val = rcar_gpio_intdt(s);
        break;
    case A_INTMSK:
        val = s->intmsk;
        break;
    case A_POSNEG:
        val = s->posneg;
        break;
    case A_EDGLEVEL:
        val = s->edglevel;
        break;
    case A_FILONOFF:
        val = s->filonoff;
        break;
    case A_OUTDTSEL:
        val = s->outdtsel;
        break;
    case A_BOTHEDGE:
        val = s->bothedge;
        break;
    case A_INTCLR:
    case A_MSKCLR:
        break;                  /* write-only */
    default:
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%02"
                      HWADDR_PRIx " reads as zero\n", __func__, offset);
        break;
    }
    trace_rcar_gpio_read(DEVICE(s)->canonical_path, offset, val);
    return val;
}

static void rcar_gpio_write(void *opaque, hwaddr offset, uint64_t value,
                            unsigned size)
{
    RCarGPIOState *s = RCAR_GPIO(opaque);
    uint32_t old = rcar_gpio_levels(s);
    uint32_t val = value & rcar_gpio_pins(s);

    trace_rcar_gpio_write(DEVICE(s)->canonical_path, offset, value);
    switch (offset) {
    case A_IOINTSEL:
        s->iointsel = val;
        break;
    case A_INOUTSEL:
        s->inoutsel = val;
        break;
    case A_OUTDT:
        s->outdt = val;
        break;
    case A_INTCLR:
        s->intdt &= ~val;
        break;
    case A_INTMSK:
        s->intmsk &= val;       /* a 0 masks; a 1 does nothing */
        break;
    case A_MSKCLR:
        s->intmsk |= val;
        break;
    case A_POSNEG:
        s->posneg = val;
        break;
    case A_EDGLEVEL:
        s->edglevel = val;
        break;
    case A_FILONOFF:
        s->filonoff = val;
        break;
    case A_OUTDTSEL:
        s->outdtsel = val;
        break;
    case A_BOTHEDGE:
        s->bothedge = val;
        break;
    case A_INDT:
    case A_INTDT:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: register 0x%02" HWADDR_PRIx
                      " is read-only\n", __func__, offset);
        return;
    default:
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%02"
                      HWADDR_PRIx " write of 0x%08" PRIx64 " ignored\n",
                      __func__, offset, value);
        return;
    }
    /* Direction, data and sense changes move levels and edges too */
    rcar_gpio_update_outputs(s, old);
}

static const MemoryRegionOps rcar_gpio_ops = {
    .read = rcar_gpio_read,
    .write = rcar_gpio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
    .impl.min_access_size = 4,
    .impl.max_access_size = 4,
};

/*
 * All pins inputs, no interrupt function, everything masked.  The pins'
 * levels (in_level) are what the board drives: a reset keeps them.
 */
static void rcar_gpio_reset_hold(Object *obj, ResetType type)
{
    RCarGPIOState *s = RCAR_GPIO(obj);

    s->iointsel = 0;
    s->inoutsel = 0;
    s->outdt = 0;
    s->intdt = 0;
    s->intmsk = 0;
    s->posneg = 0;
    s->edglevel = 0;
    s->filonoff = 0;
    s->outdtsel = 0;
    s->bothedge = 0;
}

static void rcar_gpio_reset_exit(Object *obj, ResetType type)
{
    RCarGPIOState *s = RCAR_GPIO(obj);

    for (unsigned pin = 0; pin < s->num_pins; pin++) {
        qemu_irq_lower(s->out[pin]);
    }
    rcar_gpio_update_irq(s);
}

static void rcar_gpio_init(Object *obj)
{
    RCarGPIOState *s = RCAR_GPIO(obj);

    memory_region_init_io(&s->iomem, obj, &rcar_gpio_ops, s, TYPE_RCAR_GPIO,
                          RCAR_GPIO_MMIO_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
    sysbus_init_irq(SYS_BUS_DEVICE(obj), &s->irq);
}

static void rcar_gpio_realize(DeviceState *dev, Error **errp)
{
    RCarGPIOState *s = RCAR_GPIO(dev);

    if (!s->num_pins || s->num_pins > RCAR_GPIO_MAX_PINS) {
        error_setg(errp, TYPE_RCAR_GPIO ": 'num-pins' is %u, not 1 to %u",
                   s->num_pins, RCAR_GPIO_MAX_PINS);
        return;
    }
    qdev_init_gpio_in(dev, rcar_gpio_set_input, s->num_pins);
    qdev_init_gpio_out(dev, s->out, s->num_pins);
}

static const VMStateDescription vmstate_rcar_gpio = {
    .name = TYPE_RCAR_GPIO,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(iointsel, RCarGPIOState),
        VMSTATE_UINT32(inoutsel, RCarGPIOState),
        VMSTATE_UINT32(outdt, RCarGPIOState),
        VMSTATE_UINT32(intdt, RCarGPIOState),
        VMSTATE_UINT32(intmsk, RCarGPIOState),
        VMSTATE_UINT32(posneg, RCarGPIOState),
        VMSTATE_UINT32(edglevel, RCarGPIOState),
        VMSTATE_UINT32(filonoff, RCarGPIOState),
        VMSTATE_UINT32(outdtsel, RCarGPIOState),
        VMSTATE_UINT32(bothedge, RCarGPIOState),
        VMSTATE_UINT32(in_level, RCarGPIOState),
        VMSTATE_END_OF_LIST()
    }
};

static const Property rcar_gpio_properties[] = {
    DEFINE_PROP_UINT32("num-pins", RCarGPIOState, num_pins, 32),
};

static void rcar_gpio_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 GPIO bank";
    dc->realize = rcar_gpio_realize;
    dc->vmsd = &vmstate_rcar_gpio;
    device_class_set_props(dc, rcar_gpio_properties);
    rc->phases.hold = rcar_gpio_reset_hold;
    rc->phases.exit = rcar_gpio_reset_exit;
    /* Reason: part of the R-Car Gen3 SoC */
    dc->user_creatable = false;
}

static const TypeInfo rcar_gpio_types[] = {
    {
        .name = TYPE_RCAR_GPIO,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarGPIOState),
        .instance_init = rcar_gpio_init,
        .class_init = rcar_gpio_class_init,
    },
};

DEFINE_TYPES(rcar_gpio_types)
