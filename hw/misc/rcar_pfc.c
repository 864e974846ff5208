/*
 * Renesas R-Car Gen3 Pin Function Controller (PFC)
 *
 * The PFC selects what each SoC pin does (GPSR, IPSR, MOD_SEL), its
 * pull-ups (PUEN, PUD), drive strength (DRVCTRL) and, for the SD/MMC
 * pins, the I/O voltage (POCCTRL: 1 = 3.3 V, 0 = 1.8 V).  Linux's sh-pfc
 * driver writes these when a device selects a pinctrl state; the SDHI
 * driver switches between the "default" and "state_uhs" states on every
 * signal voltage change and refuses 1.8 V (so HS200, HS400 and UHS)
 * without them (renesas_sdhi_start_signal_voltage_switch()).
 *
 * Every register is guarded by PMMR: a write is accepted only right after
 * PMMR was written with its inverse (drivers/pinctrl/renesas/core.c:
 * sh_pfc_write(), sh_pfc_unlock_reg()).  Nothing is connected to the
 * pins, so the registers are storage that reads back what was written.
 *
 * The SoCs differ in the size of the block and in which POCCTRL0 bits
 * are SD pins; each has its class.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/misc/rcar_pfc.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

REG32(PMMR, 0x000)
/* POC control of the SD pins, 1 bit each (the SoC's pin_to_pocctrl()) */
REG32(POCCTRL0, 0x380)

static uint64_t rcar_pfc_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarPfcState *s = RCAR_PFC(opaque);
    uint32_t val = offset == A_PMMR ? s->pmmr : s->regs[offset / 4];

    trace_rcar_pfc_read(offset, val);
    return val;
}

static void rcar_pfc_write(void *opaque, hwaddr offset, uint64_t value,
                           unsigned size)
{
    RCarPfcState *s = RCAR_PFC(opaque);
    bool unlocked = s->unlocked && s->pmmr == (uint32_t)~value;

    trace_rcar_pfc_write(offset, value);
    /* The key opens exactly the next write, whichever register it hits */
    s->unlocked = false;
    if (offset == A_PMMR) {
        s->pmmr = value;
        s->unlocked = true;
        return;
    }
    if (!unlocked) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: write of 0x%08" PRIx64 " to 0x%03"
                      HWADDR_PRIx " without its key in PMMR: ignored\n",
                      __func__, value, offset);
        return;
    }
    s->regs[offset / 4] = value;
}

static const MemoryRegionOps rcar_pfc_ops = {
    .read = rcar_pfc_read,
    .write = rcar_pfc_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void rcar_pfc_reset_hold(Object *obj, ResetType type)
{
    RCarPfcState *s = RCAR_PFC(obj);
    RCarPfcClass *pc = RCAR_PFC_GET_CLASS(s);

    memset(s->regs, 0, sizeof(s->regs));
    s->pmmr = 0;
    s->unlocked = false;
    /* The SD pins come up at 3.3 V, as the cards expect at power-on */
    s->regs[A_POCCTRL0 / 4] = pc->pocctrl0_reset;
}

static void rcar_pfc_init(Object *obj)
{
    RCarPfcState *s = RCAR_PFC(obj);
    RCarPfcClass *pc = RCAR_PFC_GET_CLASS(s);

    assert(pc->mmio_size <= RCAR_PFC_MAX_MMIO_SIZE);
    memory_region_init_io(&s->iomem, obj, &rcar_pfc_ops, s, TYPE_RCAR_PFC,
                          pc->mmio_size);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->iomem);
}

static const VMStateDescription vmstate_rcar_pfc = {
    .name = TYPE_RCAR_PFC,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_ARRAY(regs, RCarPfcState, RCAR_PFC_NUM_REGS),
        VMSTATE_UINT32(pmmr, RCarPfcState),
        VMSTATE_BOOL(unlocked, RCarPfcState),
        VMSTATE_END_OF_LIST()
    }
};

static void rcar_pfc_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 Pin Function Controller";
    dc->vmsd = &vmstate_rcar_pfc;
    rc->phases.hold = rcar_pfc_reset_hold;
    /* Reason: part of the R-Car Gen3 SoC, mapped by the SoC */
    dc->user_creatable = false;
}

/*
 * H3, and M3-N which has the same PFC size and POCCTRL0 layout: 0x50c
 * bytes (r8a77951.dtsi, r8a77965.dtsi); SD0-SD3 are GP3_0-11 (bits 0-11)
 * and GP4_0-17 (bits 12-29), r8a77951_pin_to_pocctrl() and
 * r8a77965_pin_to_pocctrl()
 */
static void rcar_pfc_r8a77951_class_init(ObjectClass *klass, const void *data)
{
    RCarPfcClass *pc = RCAR_PFC_CLASS(klass);

    pc->mmio_size = 0x50c;
    pc->pocctrl0_reset = 0x3fffffff;
}

/*
 * E3: 0x508 bytes (r8a77990.dtsi); SD0/SD1 are GP3_0-11 (bits 0-11) and
 * SD3 GP4_0-10 (bits 19-29), r8a77990_pin_to_pocctrl()
 */
static void rcar_pfc_r8a77990_class_init(ObjectClass *klass, const void *data)
{
    RCarPfcClass *pc = RCAR_PFC_CLASS(klass);

    pc->mmio_size = 0x508;
    pc->pocctrl0_reset = 0x3ff80fff;
}

static const TypeInfo rcar_pfc_types[] = {
    {
        .name = TYPE_RCAR_PFC,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarPfcState),
        .instance_init = rcar_pfc_init,
        .class_size = sizeof(RCarPfcClass),
        .class_init = rcar_pfc_class_init,
        .abstract = true,
    }, {
        .name = TYPE_RCAR_PFC_R8A77951,
        .parent = TYPE_RCAR_PFC,
        .class_init = rcar_pfc_r8a77951_class_init,
    }, {
        .name = TYPE_RCAR_PFC_R8A77965,
        .parent = TYPE_RCAR_PFC,
        .class_init = rcar_pfc_r8a77951_class_init,
    }, {
        .name = TYPE_RCAR_PFC_R8A77990,
        .parent = TYPE_RCAR_PFC,
        .class_init = rcar_pfc_r8a77990_class_init,
    },
};

DEFINE_TYPES(rcar_pfc_types)
