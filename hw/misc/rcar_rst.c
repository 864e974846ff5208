/*
 * Renesas R-Car Gen3 Reset controller (RST)
 *
 * Linux only reads MODEMR, the boot mode pins latched at power-on, once:
 * rcar_rst_read_mode_pins() (drivers/soc/renesas/rcar-rst.c) on
 * behalf of the CPG driver, which picks its PLL configuration from them
 * and is probed exactly once, so MODEMR must be readable before the CPG's
 * subsys_initcall.  CR7BAR is written when the Cortex-R7 is started by
 * remoteproc (rcar_rst_set_rproc_boot_addr()) and WDTRSTCR by the Gen2 watchdog
 * setup; both are plain storage here.  Nothing else in the block is
 * touched by Linux.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/misc/rcar_rst.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

REG32(WDTRSTCR, 0x54)
REG32(MODEMR, 0x60)
REG32(CR7BAR, 0x70)

static uint64_t rcar_rst_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarRstState *s = RCAR_RST(opaque);
    uint32_t val = 0;

    switch (offset) {
    case A_WDTRSTCR:
        val = s->wdtrstcr;
        break;
    case A_MODEMR:
        val = s->modemr;
        break;
    case A_CR7BAR:
        val = s->cr7bar;
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03" HWADDR_PRIx
                      " reads as zero\n", __func__, offset);
        break;
    }
    trace_rcar_rst_read(offset, val);
    return val;
}

static void rcar_rst_write(void *opaque, hwaddr offset, uint64_t value,
                           unsigned size)
{
    RCarRstState *s = RCAR_RST(opaque);

    trace_rcar_rst_write(offset, value);
    switch (offset) {
    case A_WDTRSTCR:
        s->wdtrstcr = value;
        break;
    case A_MODEMR:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: MODEMR is read-only\n", __func__);
        break;
    case A_CR7BAR:
        s->cr7bar = value;
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03" HWADDR_PRIx
                      " write of 0x%" PRIx64 " ignored\n",
                      __func__, offset, value);
        break;
    }
}

static const MemoryRegionOps rcar_rst_ops = {
    .read = rcar_rst_read,
    .write = rcar_rst_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void rcar_rst_reset_hold(Object *obj, ResetType type)
{
    RCarRstState *s = RCAR_RST(obj);

    s->wdtrstcr = 0;
    s->cr7bar = 0;
}

static void rcar_rst_init(Object *obj)
{
    RCarRstState *s = RCAR_RST(obj);

    memory_region_init_io(&s->iomem, obj, &rcar_rst_ops, s, TYPE_RCAR_RST,
                          RCAR_RST_MMIO_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->iomem);
}

static const VMStateDescription vmstate_rcar_rst = {
    .name = TYPE_RCAR_RST,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(wdtrstcr, RCarRstState),
        VMSTATE_UINT32(cr7bar, RCarRstState),
        VMSTATE_END_OF_LIST()
    }
};

static const Property rcar_rst_properties[] = {
    DEFINE_PROP_UINT32("modemr", RCarRstState, modemr, 0),
};

static void rcar_rst_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 Reset controller";
    dc->vmsd = &vmstate_rcar_rst;
    device_class_set_props(dc, rcar_rst_properties);
    rc->phases.hold = rcar_rst_reset_hold;
    /* Reason: part of the R-Car Gen3 SoC, mapped by the SoC */
    dc->user_creatable = false;
}

static const TypeInfo rcar_rst_types[] = {
    {
        .name = TYPE_RCAR_RST,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarRstState),
        .instance_init = rcar_rst_init,
        .class_init = rcar_rst_class_init,
    },
};

DEFINE_TYPES(rcar_rst_types)
