/*
 * QTest for the Renesas R-Car Gen3 CPG-MSSR on r8a77951-salvator-xs
 *
 * What Linux 6.12's renesas-cpg-mssr.c and rcar-gen3-cpg.c rely on:
 * module stop and its status, software resets that reset the module,
 * FRQCRB.KICK, and clock registers whose values the driver's tables
 * accept.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "rcar-gen3-machines.h"
#include "qemu/bitops.h"
#include "renesas-sdhi-util.h"

#define MACHINE     "-M r8a77951-salvator-xs -smp 1 -m 1G"
#define CPG         rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_CPG, 0)

/* renesas-cpg-mssr.c: smstpcr[3], mstpsr[3], srcr[3], srstclr[3] */
#define SMSTPCR3    0x13c
#define MSTPSR3     0x048
#define SRCR3       0x0b8
#define SRSTCLR3    0x94c
/* rcar-gen3-cpg.c, r8a7795-cpg-mssr.c */
#define FRQCRB      0x004
#define FRQCRB_KICK BIT(31)
#define PLLECR      0x0d0
#define PLL0CR      0x0d8
#define PLL2CR      0x02c
#define PLL4CR      0x1f4
#define RPCCKCR     0x238
static const uint32_t sdnckcr[] = { 0x074, 0x078, 0x268, 0x26c };

/* Module 314 - n is SDHI n: SRCR3/SMSTPCR3 bit 14 - n */
#define SDHI_BIT(n) BIT(14 - (n))

static uint32_t cpg_rd(QTestState *qts, unsigned reg)
{
    return qtest_readl(qts, CPG + reg);
}

static void cpg_wr(QTestState *qts, unsigned reg, uint32_t val)
{
    qtest_writel(qts, CPG + reg, val);
}

/* cpg_mstp_clock_endisable(): the status follows within 10 us */
static void test_module_stop(void)
{
    QTestState *qts = qtest_init(MACHINE);

    /* The firmware left every module running */
    g_assert_cmphex(cpg_rd(qts, SMSTPCR3), ==, 0);
    g_assert_cmphex(cpg_rd(qts, MSTPSR3), ==, 0);
    cpg_wr(qts, SMSTPCR3, SDHI_BIT(0) | SDHI_BIT(3));
    g_assert_cmphex(cpg_rd(qts, MSTPSR3), ==, SDHI_BIT(0) | SDHI_BIT(3));
    cpg_wr(qts, SMSTPCR3, SDHI_BIT(3));
    g_assert_cmphex(cpg_rd(qts, MSTPSR3), ==, SDHI_BIT(3));
    /* A stopped module still answers: no MMIO gating */
    g_assert_cmphex(sdhi_rd16(qts, 3, VERSION), ==, 0xcc10);
    qtest_quit(qts);
}

/*
 * cpg_mssr_reset(): a 1 in SRCR asserts, a 1 in SRSTCLR releases, SRCR
 * reads the state.  SDHI0 comes back with its reset values; SDHI1, whose
 * bit was not written, keeps what it had.
 */
static void test_software_reset(void)
{
    QTestState *qts = qtest_init(MACHINE);

    sdhi_wr16(qts, 0, SD_SIZE, 0x40);
    sdhi_wr32(qts, 0, DM_DTRAN_ADDR, 0x48000000);
    sdhi_wr16(qts, 1, SD_SIZE, 0x80);
    cpg_wr(qts, SRCR3, SDHI_BIT(0));
    g_assert_cmphex(cpg_rd(qts, SRCR3), ==, SDHI_BIT(0));
    g_assert_cmphex(sdhi_rd16(qts, 0, SD_SIZE), ==, BLKSZ);
    g_assert_cmphex(sdhi_rd32(qts, 0, DM_DTRAN_ADDR), ==, 0);
    g_assert_cmphex(sdhi_rd16(qts, 0, SOFT_RST), ==, 0x0007);
    g_assert_cmphex(sdhi_rd16(qts, 1, SD_SIZE), ==, 0x80);
    /* A 0 written does not release; SRSTCLR does */
    cpg_wr(qts, SRCR3, 0);
    g_assert_cmphex(cpg_rd(qts, SRCR3), ==, SDHI_BIT(0));
    cpg_wr(qts, SRSTCLR3, SDHI_BIT(0));
    g_assert_cmphex(cpg_rd(qts, SRCR3), ==, 0);
    /* The module works again */
    sdhi_wr16(qts, 0, SD_SIZE, 0x40);
    g_assert_cmphex(sdhi_rd16(qts, 0, SD_SIZE), ==, 0x40);
    qtest_quit(qts);
}

/* cpg_z_clk_set_rate(): KICK applies the new ratio and clears itself */
static void test_frqcrb_kick(void)
{
    QTestState *qts = qtest_init(MACHINE);

    cpg_wr(qts, FRQCRB, FRQCRB_KICK | 0x0a000000);
    g_assert_cmphex(cpg_rd(qts, FRQCRB), ==, 0x0a000000);
    qtest_quit(qts);
}

/* clk-divider.c warns about a value outside the table: none may be */
static bool in_table(uint32_t val, const uint32_t *table, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (table[i] == val) {
            return true;
        }
    }
    return false;
}

static void test_reset_values_in_linux_tables(void)
{
    /* rcar-cpg-lib.c cpg_sdh_div_table (bits 9:2), cpg_sd_div_table */
    static const uint32_t sdh[] = { 0, 1, 0x82, 0x83, 0x84, 0x80, 0x81,
                                    2, 3, 4 };
    static const uint32_t sd[] = { 0, 1 };
    /* rcar-cpg-lib.c cpg_rpc_div_table; rcar-gen3-cpg.c rpcsrc table */
    static const uint32_t rpc[] = { 1, 3, 5, 7 };
    static const uint32_t rpcsrc[] = { 2, 3 };
    QTestState *qts = qtest_init(MACHINE);
    uint32_t val;

    for (size_t i = 0; i < ARRAY_SIZE(sdnckcr); i++) {
        val = cpg_rd(qts, sdnckcr[i]);
        g_assert_true(in_table(extract32(val, 2, 8), sdh, ARRAY_SIZE(sdh)));
        g_assert_true(in_table(extract32(val, 0, 2), sd, ARRAY_SIZE(sd)));
        /* Linux rewrites them at every SD clock change */
        cpg_wr(qts, sdnckcr[i], 0x209);
        g_assert_cmphex(cpg_rd(qts, sdnckcr[i]), ==, 0x209);
    }
    val = cpg_rd(qts, RPCCKCR);
    g_assert_true(in_table(extract32(val, 0, 3), rpc, ARRAY_SIZE(rpc)));
    g_assert_true(in_table(extract32(val, 3, 2), rpcsrc, ARRAY_SIZE(rpcsrc)));

    /*
     * MODEMR 0 (r8a7795-cpg-mssr.c cpg_pll_configs[0], rcar-gen3-cpg.c):
     * PLL0 x180, PLL2 x144, PLL4 x144 of EXTAL, as (STC + 1) x 2
     */
    g_assert_cmpuint((extract32(cpg_rd(qts, PLL0CR), 24, 7) + 1) * 2, ==, 180);
    g_assert_cmpuint((extract32(cpg_rd(qts, PLL2CR), 24, 7) + 1) * 2, ==, 144);
    g_assert_cmpuint((extract32(cpg_rd(qts, PLL4CR), 24, 7) + 1) * 2, ==, 144);
    /* cpg_pll_clk_set_rate() waits for PLLnST: PLL0 and PLL2 lock */
    g_assert_cmphex(cpg_rd(qts, PLLECR) & (BIT(8) | BIT(10)), ==,
                    BIT(8) | BIT(10));
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/rcar-cpg/module-stop", test_module_stop);
    qtest_add_func("/rcar-cpg/software-reset", test_software_reset);
    qtest_add_func("/rcar-cpg/frqcrb-kick", test_frqcrb_kick);
    qtest_add_func("/rcar-cpg/reset-values-in-linux-tables",
                   test_reset_values_in_linux_tables);
    return g_test_run();
}
