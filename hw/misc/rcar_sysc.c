/*
 * Renesas R-Car Gen3 System Controller (SYSC): power areas
 *
 * Linux 6.12 (drivers/pmdomain/renesas/rcar-sysc.c) turns each power
 * area on or off with a handshake: it waits for SYSCSR to say that a
 * request may be made (PONENB/POFFENB), writes the area's bit to PWRONCR
 * or PWROFFCR of the area's register block, waits for the area's bit in
 * SYSCISR, and clears it through SYSCISCR; PWRER says whether the
 * request was refused.  PWRSR tells an area that is off (rcar_sysc_power
 * and rcar_sysc_power_is_off()).  At boot it powers on every area that is
 * off, and genpd powers unused ones off again later.
 *
 * Requests complete at once: SYSCSR always allows one, PWRER is never
 * set.  Only the areas of the SoC's table exist; a request for any other
 * bit is logged and changes nothing (the real SoC would not answer).
 * The interrupt is not wired: Linux polls with it masked.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/misc/rcar_sysc.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

REG32(SYSCSR, 0x000)
    FIELD(SYSCSR, POFFENB, 0, 1)
    FIELD(SYSCSR, PONENB, 1, 1)
REG32(SYSCISR, 0x004)
REG32(SYSCISCR, 0x008)
REG32(SYSCIER, 0x00c)
REG32(SYSCIMR, 0x010)
/*
 * H3 ES3.0, M3-N and E3 have it (extmask_offs of each rcar_sysc_info;
 * only H3 ES2.x has none, NO_EXTMASK in r8a7795-sysc.c): Linux sets bit
 * 0 around each request.
 */
REG32(SYSCEXTMASK, 0x2f8)

/* Registers of a power control block, from its chan_offs */
#define PWRSR       0x00
#define PWROFFCR    0x04
#define PWROFFSR    0x08
#define PWRONCR     0x0c
#define PWRONSR     0x10
#define PWRER       0x14

/*
 * The areas of the R-Car H3 (r8a7795-sysc.c): register block and bit,
 * SYSCISR bit.  The CPU cores and their SCUs are on at reset, as the
 * firmware leaves them; every other area starts off, so that Linux's
 * boot-time power-on of each area runs through the handshake.
 */
static const RCarSyscArea r8a77951_areas[] = {
    { "ca57-scu", 0x1c0, 0, 12, true },
    { "ca57-cpu0", 0x80, 0, 0, true },
    { "ca57-cpu1", 0x80, 1, 1, true },
    { "ca57-cpu2", 0x80, 2, 2, true },
    { "ca57-cpu3", 0x80, 3, 3, true },
    { "ca53-scu", 0x140, 0, 21, true },
    { "ca53-cpu0", 0x200, 0, 5, true },
    { "ca53-cpu1", 0x200, 1, 6, true },
    { "ca53-cpu2", 0x200, 2, 7, true },
    { "ca53-cpu3", 0x200, 3, 8, true },
    { "a3vp", 0x340, 0, 9, false },
    { "cr7", 0x240, 0, 13, false },
    { "a3vc", 0x380, 0, 14, false },
    { "a2vc1", 0x3c0, 1, 26, false },
    { "3dg-a", 0x100, 0, 17, false },
    { "3dg-b", 0x100, 1, 18, false },
    { "3dg-c", 0x100, 2, 19, false },
    { "3dg-d", 0x100, 3, 20, false },
    { "3dg-e", 0x100, 4, 22, false },
    { "a3ir", 0x180, 0, 24, false },
};

/* R-Car M3-N (r8a77965-sysc.c): one Cortex-A57 cluster of two cores */
static const RCarSyscArea r8a77965_areas[] = {
    { "ca57-scu", 0x1c0, 0, 12, true },
    { "ca57-cpu0", 0x80, 0, 0, true },
    { "ca57-cpu1", 0x80, 1, 1, true },
    { "cr7", 0x240, 0, 13, false },
    { "a3vc", 0x380, 0, 14, false },
    { "a3vp", 0x340, 0, 9, false },
    { "a2vc1", 0x3c0, 1, 26, false },
    { "3dg-a", 0x100, 0, 17, false },
    { "3dg-b", 0x100, 1, 18, false },
};

/*
 * R-Car E3 (r8a77990-sysc.c): one Cortex-A53 cluster of two cores.  On
 * ES1.0 r8a77990_sysc_init() makes 3DG-B the parent of 3DG-A instead of
 * its child; that only changes the order in which Linux powers them on
 * and off, not their registers or bits.
 */
static const RCarSyscArea r8a77990_areas[] = {
    { "ca53-scu", 0x140, 0, 21, true },
    { "ca53-cpu0", 0x200, 0, 5, true },
    { "ca53-cpu1", 0x200, 1, 6, true },
    { "cr7", 0x240, 0, 13, false },
    { "a3vc", 0x380, 0, 14, false },
    { "a2vc1", 0x3c0, 1, 26, false },
    { "3dg-a", 0x100, 0, 17, false },
    { "3dg-b", 0x100, 1, 18, false },
};

static const RCarSyscArea *rcar_sysc_area(RCarSyscState *s, hwaddr chan,
                                          unsigned bit)
{
    RCarSyscClass *c = RCAR_SYSC_GET_CLASS(s);

    for (unsigned i = 0; i < c->num_areas; i++) {
        if (c->areas[i].chan_offs == chan && c->areas[i].chan_bit == bit) {
            return &c->areas[i];
        }
    }
    return NULL;
}

/* A PWRONCR or PWROFFCR write: each area named powers on or off */
static void rcar_sysc_power(RCarSyscState *s, hwaddr chan, uint32_t bits,
                            bool on)
{
    while (bits) {
        unsigned bit = ctz32(bits);
        const RCarSyscArea *area = rcar_sysc_area(s, chan, bit);

        bits &= bits - 1;
        if (!area) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: no power area at block 0x%03"
                          HWADDR_PRIx " bit %u\n", __func__, chan, bit);
            continue;
        }
        if (on) {
            s->pwrsr[chan / 0x40] &= ~BIT(bit);
        } else {
            s->pwrsr[chan / 0x40] |= BIT(bit);
        }
        s->syscisr |= BIT(area->isr_bit);
        trace_rcar_sysc_power(area->name, on);
    }
}

static uint64_t rcar_sysc_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarSyscState *s = RCAR_SYSC(opaque);
    uint32_t val = 0;

    switch (offset) {
    case A_SYSCSR:
        /* Always ready for a request: each one completes at once */
        val = R_SYSCSR_POFFENB_MASK | R_SYSCSR_PONENB_MASK;
        break;
    case A_SYSCISR:
        val = s->syscisr;
        break;
    case A_SYSCIER:
        val = s->syscier;
        break;
    case A_SYSCIMR:
        val = s->syscimr;
        break;
    case A_SYSCEXTMASK:
        val = s->syscextmask;
        break;
    default:
        if (offset >= 0x40 && offset % 0x40 == PWRSR) {
            val = s->pwrsr[offset / 0x40];
        } else if (offset >= 0x40 && offset % 0x40 <= PWRER) {
            /* PWRER 0: no request refused; the rest are write-only */
            val = 0;
        } else {
            qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03"
                          HWADDR_PRIx " reads as zero\n", __func__, offset);
        }
        break;
    }
    trace_rcar_sysc_read(offset, val);
    return val;
}

static void rcar_sysc_write(void *opaque, hwaddr offset, uint64_t value,
                            unsigned size)
{
    RCarSyscState *s = RCAR_SYSC(opaque);
    hwaddr chan = offset & ~(hwaddr)0x3f;

    trace_rcar_sysc_write(offset, value);
    switch (offset) {
    case A_SYSCISCR:
        s->syscisr &= ~value;
        return;
    case A_SYSCIER:
        s->syscier = value;
        return;
    case A_SYSCIMR:
        s->syscimr = value;
        return;
    case A_SYSCEXTMASK:
        s->syscextmask = value;
        return;
    }
    if (chan && offset % 0x40 == PWRONCR) {
        rcar_sysc_power(s, chan, value, true);
    } else if (chan && offset % 0x40 == PWROFFCR) {
        rcar_sysc_power(s, chan, value, false);
    } else {
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03"
                      HWADDR_PRIx " write of 0x%08" PRIx64 " ignored\n",
                      __func__, offset, value);
    }
}

static const MemoryRegionOps rcar_sysc_ops = {
    .read = rcar_sysc_read,
    .write = rcar_sysc_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
    .impl.min_access_size = 4,
    .impl.max_access_size = 4,
};

static void rcar_sysc_reset_hold(Object *obj, ResetType type)
{
    RCarSyscState *s = RCAR_SYSC(obj);
    RCarSyscClass *c = RCAR_SYSC_GET_CLASS(s);

    s->syscisr = 0;
    s->syscier = 0;
    s->syscimr = 0;
    s->syscextmask = 0;
    memset(s->pwrsr, 0, sizeof(s->pwrsr));
    for (unsigned i = 0; i < c->num_areas; i++) {
        const RCarSyscArea *a = &c->areas[i];

        if (!a->on_at_reset) {
            s->pwrsr[a->chan_offs / 0x40] |= BIT(a->chan_bit);
        }
    }
}

static void rcar_sysc_init(Object *obj)
{
    RCarSyscState *s = RCAR_SYSC(obj);

    memory_region_init_io(&s->iomem, obj, &rcar_sysc_ops, s, TYPE_RCAR_SYSC,
                          RCAR_SYSC_MMIO_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
}

static const VMStateDescription vmstate_rcar_sysc = {
    .name = TYPE_RCAR_SYSC,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(syscisr, RCarSyscState),
        VMSTATE_UINT32(syscier, RCarSyscState),
        VMSTATE_UINT32(syscimr, RCarSyscState),
        VMSTATE_UINT32(syscextmask, RCarSyscState),
        VMSTATE_UINT32_ARRAY(pwrsr, RCarSyscState, RCAR_SYSC_NUM_CHANS),
        VMSTATE_END_OF_LIST()
    }
};

static void rcar_sysc_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 SYSC";
    dc->vmsd = &vmstate_rcar_sysc;
    rc->phases.hold = rcar_sysc_reset_hold;
    /* Reason: part of the R-Car Gen3 SoC */
    dc->user_creatable = false;
}

static void rcar_sysc_r8a77951_class_init(ObjectClass *klass, const void *data)
{
    RCarSyscClass *c = RCAR_SYSC_CLASS(klass);

    c->areas = r8a77951_areas;
    c->num_areas = ARRAY_SIZE(r8a77951_areas);
}

static void rcar_sysc_r8a77965_class_init(ObjectClass *klass, const void *data)
{
    RCarSyscClass *c = RCAR_SYSC_CLASS(klass);

    c->areas = r8a77965_areas;
    c->num_areas = ARRAY_SIZE(r8a77965_areas);
}

static void rcar_sysc_r8a77990_class_init(ObjectClass *klass, const void *data)
{
    RCarSyscClass *c = RCAR_SYSC_CLASS(klass);

    c->areas = r8a77990_areas;
    c->num_areas = ARRAY_SIZE(r8a77990_areas);
}

static const TypeInfo rcar_sysc_types[] = {
    {
        .name = TYPE_RCAR_SYSC,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarSyscState),
        .instance_init = rcar_sysc_init,
        .class_size = sizeof(RCarSyscClass),
        .class_init = rcar_sysc_class_init,
        .abstract = true,
    }, {
        .name = TYPE_RCAR_SYSC_R8A77951,
        .parent = TYPE_RCAR_SYSC,
        .class_init = rcar_sysc_r8a77951_class_init,
    }, {
        .name = TYPE_RCAR_SYSC_R8A77965,
        .parent = TYPE_RCAR_SYSC,
        .class_init = rcar_sysc_r8a77965_class_init,
    }, {
        .name = TYPE_RCAR_SYSC_R8A77990,
        .parent = TYPE_RCAR_SYSC,
        .class_init = rcar_sysc_r8a77990_class_init,
    },
};

DEFINE_TYPES(rcar_sysc_types)
