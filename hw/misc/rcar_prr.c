/*
 * Renesas R-Car Gen3 Product Register (PRR)
 *
 * A single read-only 32-bit register at 0xfff00044 that identifies the
 * chip: PRODUCT in bits [14:8] and the cut (silicon revision) in bits
 * [7:0].  Linux reads it in renesas_soc_init() (an early_initcall,
 * drivers/soc/renesas/renesas-soc.c) to register the soc_device
 * that the IPMMU allow list, the CPG and the SDHI quirk tables match on;
 * it prints "ES<((cut >> 4) + 1)>.<cut & 0xf>".  Bits 31 and 26 report
 * a missing Cortex-A57 / Cortex-A53 cluster when set; all of ours are
 * present, so they read 0.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/misc/rcar_prr.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "qemu/log.h"
#include "trace.h"

REG32(PRR, 0x0)
    FIELD(PRR, CUT, 0, 8)
    FIELD(PRR, PRODUCT, 8, 7)

static uint32_t rcar_prr_value(RCarPrrState *s)
{
    uint32_t val = 0;

    val = FIELD_DP32(val, PRR, PRODUCT, s->product);
    val = FIELD_DP32(val, PRR, CUT, s->cut);
    return val;
}

static uint64_t rcar_prr_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarPrrState *s = RCAR_PRR(opaque);
    uint32_t val = rcar_prr_value(s);

    trace_rcar_prr_read(val);
    return val;
}

static void rcar_prr_write(void *opaque, hwaddr offset, uint64_t value,
                           unsigned size)
{
    qemu_log_mask(LOG_GUEST_ERROR,
                  "%s: write of 0x%" PRIx64 " to the read-only PRR ignored\n",
                  __func__, value);
}

static const MemoryRegionOps rcar_prr_ops = {
    .read = rcar_prr_read,
    .write = rcar_prr_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void rcar_prr_realize(DeviceState *dev, Error **errp)
{
    RCarPrrState *s = RCAR_PRR(dev);

    if (s->product > R_PRR_PRODUCT_MASK >> R_PRR_PRODUCT_SHIFT) {
        error_setg(errp, "rcar-prr: product 0x%x does not fit in 7 bits",
                   s->product);
        return;
    }
    memory_region_init_io(&s->iomem, OBJECT(s), &rcar_prr_ops, s,
                          TYPE_RCAR_PRR, RCAR_PRR_REG_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->iomem);
}

static const Property rcar_prr_properties[] = {
    DEFINE_PROP_UINT8("product", RCarPrrState, product, RCAR_PRR_PRODUCT_H3),
    /* 0x20 is ES3.0: ES1.x panics the H3 CPG driver, ES2.x has no IPMMU */
    DEFINE_PROP_UINT8("cut", RCarPrrState, cut, 0x20),
};

static void rcar_prr_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 Product Register";
    dc->realize = rcar_prr_realize;
    device_class_set_props(dc, rcar_prr_properties);
    /* No vmsd: the register is read-only and defined by the properties */
    /* Reason: part of the R-Car Gen3 SoC, mapped by the SoC */
    dc->user_creatable = false;
}

static const TypeInfo rcar_prr_types[] = {
    {
        .name = TYPE_RCAR_PRR,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarPrrState),
        .class_init = rcar_prr_class_init,
    },
};

DEFINE_TYPES(rcar_prr_types)
