/*
 * Renesas R-Car Gen3 Clock Pulse Generator / Module Standby and Software
 * Reset (CPG-MSSR)
 *
 * What Linux 6.12's drivers/clk/renesas/ (renesas-cpg-mssr.c,
 * rcar-gen3-cpg.c, rcar-cpg-lib.c) do with it, and so what is modelled:
 *
 * - Module stop: SMSTPCRn bit set stops module n; the driver polls the
 *   bit in MSTPSRn to be 0 for 10 us after starting a module
 *   (cpg_mstp_clock_endisable()).  MSTPSRn follows SMSTPCRn at once.
 *   Stopped modules keep working: earlycon writes to SCIF2 before the
 *   CPG driver probes, and clk_disable_unused() stops every module that
 *   Linux has not claimed.
 * - Software reset: a 1 written to SRCRn asserts the reset of a module
 *   until a 1 is written to the same bit of SRSTCLRn; SRCRn reads the
 *   state (cpg_mssr_reset(), cpg_mssr_status()).  Each module has a
 *   "module-reset" output, high while it is held in reset.
 * - Clocks: PLLnCR, FRQCRB/C, SDnCKCR, RPCCKCR, RCKCR and the DIV6
 *   registers are storage, read back as written; their reset values are
 *   what MODEMR = 0 and the divider tables of the driver need.  Each SoC
 *   class lists the ones its driver uses.  FRQCRB's KICK clears itself
 *   (the new setting applies at once), and PLLECR, on the SoCs where
 *   Linux polls it, says every PLL is locked.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/irq.h"
#include "hw/misc/rcar_cpg.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

/*
 * renesas-cpg-mssr.c: smstpcr[], mstpsr[], srcr[], srstclr[], the same
 * on every R-Car Gen3 (CLK_REG_LAYOUT_RCAR_GEN2_AND_GEN3)
 */
static const uint16_t smstpcr_offset[RCAR_CPG_NUM_MSTP_REGS] = {
    0x130, 0x134, 0x138, 0x13c, 0x140, 0x144, 0x148, 0x14c,
    0x990, 0x994, 0x998, 0x99c,
};
static const uint16_t mstpsr_offset[RCAR_CPG_NUM_MSTP_REGS] = {
    0x030, 0x038, 0x040, 0x048, 0x04c, 0x03c, 0x1c0, 0x1c4,
    0x9a0, 0x9a4, 0x9a8, 0x9ac,
};
static const uint16_t srcr_offset[RCAR_CPG_NUM_MSTP_REGS] = {
    0x0a0, 0x0a8, 0x0b0, 0x0b8, 0x0bc, 0x0c4, 0x1c8, 0x1cc,
    0x920, 0x924, 0x928, 0x92c,
};
static const uint16_t srstclr_offset[RCAR_CPG_NUM_MSTP_REGS] = {
    0x940, 0x944, 0x948, 0x94c, 0x950, 0x954, 0x958, 0x95c,
    0x960, 0x964, 0x968, 0x96c,
};

REG32(FRQCRB, 0x004)
    FIELD(FRQCRB, KICK, 31, 1)
REG32(PLLECR, 0x0d0)

/*
 * R-Car H3 with MODEMR = 0 (r8a7795-cpg-mssr.c cpg_pll_configs[0]:
 * EXTAL 16.66 MHz, PLL0 x180, PLL2 x144, PLL4 x144; the PLLs multiply by
 * (STC + 1) x 2, STC in bits 30:24).  The divider reset values are not
 * from a manual: each is one that Linux's tables accept (a value outside
 * them makes clk-divider.c warn, as RPCCKCR 0 did):
 * - SDnCKCR 0x1: SDnH = SDSRC / 1, SDn = SDnH / 4 (cpg_sdh_div_table,
 *   cpg_sd_div_table); Linux rewrites them at each SD clock change;
 * - RPCCKCR 0x17: RPCSRC / 5 (bits 4:3 = 2), RPC / 8 (bits 2:0 = 7), both
 *   clocks running (cpg_rpcsrc_div_table, cpg_rpc_div_table);
 * - the DIV6 clocks (CSI0, MSO, CANFD, HDMI) stopped (CKSTP, bit 8) at the
 *   largest divider, as Linux leaves a disabled one (0x13f).
 */
static const RCarCPGReg r8a77951_cpg_regs[] = {
    { "FRQCRB",   0x004, 0 },
    { "CSI0CKCR", 0x00c, 0x13f },
    { "MSOCKCR",  0x014, 0x13f },
    { "PLL2CR",   0x02c, 0x47000000 },
    { "SD0CKCR",  0x074, 0x1 },
    { "SD1CKCR",  0x078, 0x1 },
    { "PLLECR",   0x0d0, 0x00001f00 },     /* PLL0-4 locked (PLLnST) */
    { "PLL0CR",   0x0d8, 0x59000000 },
    { "FRQCRC",   0x0e0, 0 },
    { "PLL4CR",   0x1f4, 0x47000000 },
    { "RPCCKCR",  0x238, 0x17 },
    { "RCKCR",    0x240, 0 },
    { "CANFDCKCR", 0x244, 0x13f },
    { "HDMICKCR", 0x250, 0x13f },
    { "SD2CKCR",  0x268, 0x1 },
    { "SD3CKCR",  0x26c, 0x1 },
    { "CPGWPR",   0x900, 0 },
    { "CPGWPCR",  0x904, 0 },
};

/*
 * R-Car M3-N with MODEMR = 0 (r8a77965-cpg-mssr.c cpg_pll_configs[0]:
 * PLL0 x180, PLL4 x144, as on H3), with H3's divider values.  M3-N has
 * no Cortex-A53 cluster and so no PLL2: Linux reads PLL0CR and PLL4CR
 * only, and polls PLLECR's PLL0ST when cpufreq changes PLL0.
 */
static const RCarCPGReg r8a77965_cpg_regs[] = {
    { "FRQCRB",   0x004, 0 },
    { "CSI0CKCR", 0x00c, 0x13f },
    { "MSOCKCR",  0x014, 0x13f },
    { "SD0CKCR",  0x074, 0x1 },
    { "SD1CKCR",  0x078, 0x1 },
    { "PLLECR",   0x0d0, 0x00001b00 },     /* PLL0, 1, 3, 4 locked */
    { "PLL0CR",   0x0d8, 0x59000000 },
    { "FRQCRC",   0x0e0, 0 },
    { "PLL4CR",   0x1f4, 0x47000000 },
    { "RPCCKCR",  0x238, 0x17 },
    { "RCKCR",    0x240, 0 },
    { "CANFDCKCR", 0x244, 0x13f },
    { "HDMICKCR", 0x250, 0x13f },
    { "SD2CKCR",  0x268, 0x1 },
    { "SD3CKCR",  0x26c, 0x1 },
    { "CPGWPR",   0x900, 0 },
    { "CPGWPCR",  0x904, 0 },
};

/*
 * R-Car E3 (r8a77990-cpg-mssr.c): PLL0 is a fixed x100 of EXTAL and
 * there is no PLL2 or PLL4, so Linux reads no PLLnCR and no PLLECR;
 * MODEMR = 0 only picks PLL1/PLL3 (cpg_pll_configs[0]).  There is no
 * SDHI2 (no SD2CKCR) and no HDMI clock.  Linux reads:
 * - FRQCRC for Z2 (bits 12:8; 0 = PLL0 / 4), FRQCRB for its KICK;
 * - RPCCKCR bits 4:3 once, as a fixed RPCSRC (CLK_TYPE_GEN3_E3_RPCSRC;
 *   any value is valid, 2 = PLL0 / 8), then bits 2:0 as on H3
 *   (cpg_rpc_div_table), so H3's 0x17 fits;
 * - RCKCR: CKSEL (bit 15) 0 takes RCLK from the 8 MHz OCO / 244
 *   (CLK_TYPE_GEN3_RCKSEL), bits 5:0 divide ".r" and "osc"
 *   (CLK_TYPE_DIV6_RO).
 * SDnCKCR and the DIV6 clocks are as on H3.
 */
static const RCarCPGReg r8a77990_cpg_regs[] = {
    { "FRQCRB",   0x004, 0 },
    { "CSI0CKCR", 0x00c, 0x13f },
    { "MSOCKCR",  0x014, 0x13f },
    { "SD0CKCR",  0x074, 0x1 },
    { "SD1CKCR",  0x078, 0x1 },
    { "FRQCRC",   0x0e0, 0 },
    { "RPCCKCR",  0x238, 0x17 },
    { "RCKCR",    0x240, 0 },
    { "CANFDCKCR", 0x244, 0x13f },
    { "SD3CKCR",  0x26c, 0x1 },
    { "CPGWPR",   0x900, 0 },
    { "CPGWPCR",  0x904, 0 },
};

/* What the register at an offset is */
typedef enum RCarCPGRegKind {
    CPG_UNIMP,
    CPG_SMSTPCR,
    CPG_MSTPSR,
    CPG_SRCR,
    CPG_SRSTCLR,
    CPG_CLK,
} RCarCPGRegKind;

static bool rcar_cpg_find(const uint16_t *offsets, unsigned n, hwaddr offset,
                          unsigned *index)
{
    for (unsigned i = 0; i < n; i++) {
        if (offsets[i] == offset) {
            *index = i;
            return true;
        }
    }
    return false;
}

static RCarCPGRegKind rcar_cpg_decode(RCarCPGState *s, hwaddr offset,
                                      unsigned *index)
{
    RCarCPGClass *c = RCAR_CPG_GET_CLASS(s);

    if (rcar_cpg_find(smstpcr_offset, RCAR_CPG_NUM_MSTP_REGS, offset, index)) {
        return CPG_SMSTPCR;
    }
    if (rcar_cpg_find(mstpsr_offset, RCAR_CPG_NUM_MSTP_REGS, offset, index)) {
        return CPG_MSTPSR;
    }
    if (rcar_cpg_find(srcr_offset, RCAR_CPG_NUM_MSTP_REGS, offset, index)) {
        return CPG_SRCR;
    }
    if (rcar_cpg_find(srstclr_offset, RCAR_CPG_NUM_MSTP_REGS, offset, index)) {
        return CPG_SRSTCLR;
    }
    for (unsigned i = 0; i < c->num_regs; i++) {
        if (c->regs[i].offset == offset) {
            *index = i;
            return CPG_CLK;
        }
    }
    return CPG_UNIMP;
}

/* Drive the reset outputs of SRCR register @reg whose bits changed */
static void rcar_cpg_update_resets(RCarCPGState *s, unsigned reg,
                                   uint32_t old)
{
    uint32_t changed = old ^ s->srcr[reg];

    while (changed) {
        unsigned bit = ctz32(changed);
        bool level = s->srcr[reg] & BIT(bit);

        changed &= changed - 1;
        trace_rcar_cpg_module_reset(reg * 100 + bit, level);
        qemu_set_irq(s->module_reset[reg * 32 + bit], level);
    }
}

static uint64_t rcar_cpg_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarCPGState *s = RCAR_CPG(opaque);
    uint32_t val = 0;
    unsigned i;

    switch (rcar_cpg_decode(s, offset, &i)) {
    case CPG_SMSTPCR:
    case CPG_MSTPSR:            /* modules stop and start at once */
        val = s->smstpcr[i];
        break;
    case CPG_SRCR:
        val = s->srcr[i];
        break;
    case CPG_SRSTCLR:           /* write-only */
        break;
    case CPG_CLK:
        val = s->clk[i];
        break;
    case CPG_UNIMP:
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03"
                      HWADDR_PRIx " reads as zero\n", __func__, offset);
        break;
    }
    trace_rcar_cpg_read(offset, val);
    return val;
}

static void rcar_cpg_write(void *opaque, hwaddr offset, uint64_t value,
                           unsigned size)
{
    RCarCPGState *s = RCAR_CPG(opaque);
    uint32_t old;
    unsigned i;

    trace_rcar_cpg_write(offset, value);
    switch (rcar_cpg_decode(s, offset, &i)) {
    case CPG_SMSTPCR:
        s->smstpcr[i] = value;
        break;
    case CPG_SRCR:
        old = s->srcr[i];
        s->srcr[i] |= value;        /* a 1 asserts, a 0 does nothing */
        rcar_cpg_update_resets(s, i, old);
        break;
    case CPG_SRSTCLR:
        old = s->srcr[i];
        s->srcr[i] &= ~value;       /* a 1 releases */
        rcar_cpg_update_resets(s, i, old);
        break;
    case CPG_MSTPSR:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: MSTPSR%u is read-only\n",
                      __func__, i);
        break;
    case CPG_CLK:
        if (offset == A_PLLECR) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: PLLECR is read-only\n",
                          __func__);
        } else if (offset == A_FRQCRB) {
            /* KICK applies the new frequencies at once, then clears */
            s->clk[i] = value & ~R_FRQCRB_KICK_MASK;
        } else {
            s->clk[i] = value;
        }
        break;
    case CPG_UNIMP:
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03"
                      HWADDR_PRIx " write of 0x%08" PRIx64 " ignored\n",
                      __func__, offset, value);
        break;
    }
}

static const MemoryRegionOps rcar_cpg_ops = {
    .read = rcar_cpg_read,
    .write = rcar_cpg_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
    .impl.min_access_size = 4,
    .impl.max_access_size = 4,
};

/* Every module running (as the firmware leaves them), none in reset */
static void rcar_cpg_reset_hold(Object *obj, ResetType type)
{
    RCarCPGState *s = RCAR_CPG(obj);
    RCarCPGClass *c = RCAR_CPG_GET_CLASS(s);

    memset(s->smstpcr, 0, sizeof(s->smstpcr));
    memset(s->srcr, 0, sizeof(s->srcr));
    for (unsigned i = 0; i < c->num_regs; i++) {
        s->clk[i] = c->regs[i].reset;
    }
}

static void rcar_cpg_reset_exit(Object *obj, ResetType type)
{
    RCarCPGState *s = RCAR_CPG(obj);

    for (unsigned i = 0; i < RCAR_CPG_NUM_MODULES; i++) {
        qemu_irq_lower(s->module_reset[i]);
    }
}

static void rcar_cpg_init(Object *obj)
{
    RCarCPGState *s = RCAR_CPG(obj);
    memory_region_init_io(&s->iomem, obj, &rcar_cpg_ops, s, TYPE_RCAR_CPG,
                          RCAR_CPG_MMIO_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(obj), &s->iomem);
    qdev_init_gpio_out_named(DEVICE(obj), s->module_reset, "module-reset",
                             RCAR_CPG_NUM_MODULES);
}

static const VMStateDescription vmstate_rcar_cpg = {
    .name = TYPE_RCAR_CPG,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_ARRAY(smstpcr, RCarCPGState, RCAR_CPG_NUM_MSTP_REGS),
        VMSTATE_UINT32_ARRAY(srcr, RCarCPGState, RCAR_CPG_NUM_MSTP_REGS),
        VMSTATE_UINT32_ARRAY(clk, RCarCPGState, RCAR_CPG_MAX_CLK_REGS),
        VMSTATE_END_OF_LIST()
    }
};

static void rcar_cpg_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 CPG-MSSR";
    dc->vmsd = &vmstate_rcar_cpg;
    rc->phases.hold = rcar_cpg_reset_hold;
    rc->phases.exit = rcar_cpg_reset_exit;
    /* Reason: part of the R-Car Gen3 SoC, wired to its modules */
    dc->user_creatable = false;
}

static void rcar_cpg_r8a77951_class_init(ObjectClass *klass, const void *data)
{
    RCarCPGClass *c = RCAR_CPG_CLASS(klass);

    c->regs = r8a77951_cpg_regs;
    c->num_regs = ARRAY_SIZE(r8a77951_cpg_regs);
    QEMU_BUILD_BUG_ON(ARRAY_SIZE(r8a77951_cpg_regs) > RCAR_CPG_MAX_CLK_REGS);
}

static void rcar_cpg_r8a77965_class_init(ObjectClass *klass, const void *data)
{
    RCarCPGClass *c = RCAR_CPG_CLASS(klass);

    c->regs = r8a77965_cpg_regs;
    c->num_regs = ARRAY_SIZE(r8a77965_cpg_regs);
    QEMU_BUILD_BUG_ON(ARRAY_SIZE(r8a77965_cpg_regs) > RCAR_CPG_MAX_CLK_REGS);
}

static void rcar_cpg_r8a77990_class_init(ObjectClass *klass, const void *data)
{
    RCarCPGClass *c = RCAR_CPG_CLASS(klass);

    c->regs = r8a77990_cpg_regs;
    c->num_regs = ARRAY_SIZE(r8a77990_cpg_regs);
    QEMU_BUILD_BUG_ON(ARRAY_SIZE(r8a77990_cpg_regs) > RCAR_CPG_MAX_CLK_REGS);
}

static const TypeInfo rcar_cpg_types[] = {
    {
        .name = TYPE_RCAR_CPG,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarCPGState),
        .instance_init = rcar_cpg_init,
        .class_size = sizeof(RCarCPGClass),
        .class_init = rcar_cpg_class_init,
        .abstract = true,
    }, {
        .name = TYPE_RCAR_CPG_R8A77951,
        .parent = TYPE_RCAR_CPG,
        .class_init = rcar_cpg_r8a77951_class_init,
    }, {
        .name = TYPE_RCAR_CPG_R8A77965,
        .parent = TYPE_RCAR_CPG,
        .class_init = rcar_cpg_r8a77965_class_init,
    }, {
        .name = TYPE_RCAR_CPG_R8A77990,
        .parent = TYPE_RCAR_CPG,
        .class_init = rcar_cpg_r8a77990_class_init,
    },
};

DEFINE_TYPES(rcar_cpg_types)
