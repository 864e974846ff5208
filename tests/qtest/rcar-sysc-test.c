/*
 * QTest for the Renesas R-Car Gen3 SYSC power areas on r8a77951-salvator-xs
 *
 * The power-on and power-off handshake of Linux 6.12's rcar-sysc.c
 * (rcar_sysc_pwr_on_off(), rcar_sysc_power()) on the R-Car H3's areas
 * (r8a7795-sysc.c, dt-bindings/power/r8a7795-sysc.h).
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "rcar-gen3-machines.h"
#include "qemu/bitops.h"

#define MACHINE     "-M r8a77951-salvator-xs -smp 1 -m 1G"
#define SYSC        rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_SYSC, 0)

/* rcar-sysc.c */
#define SYSCSR      0x000
#define SYSCISR     0x004
#define SYSCISCR    0x008
#define SYSCEXTMASK 0x2f8
#define PWRSR       0x00
#define PWROFFCR    0x04
#define PWRONCR     0x0c
#define PWRER       0x14
#define PONENB      BIT(1)
#define POFFENB     BIT(0)

/* r8a7795-sysc.c: { name, chan_offs, chan_bit, isr_bit } */
#define CR7_CHAN    0x240
#define CR7_BIT     0
#define CR7_ISR     13          /* R8A7795_PD_CR7 */
#define DG_CHAN     0x100       /* 3DG-A..E: bits 0-4 */
#define DG_E_BIT    4
#define DG_E_ISR    22          /* R8A7795_PD_3DG_E */
#define CA57_CHAN   0x080

static uint32_t sysc_rd(QTestState *qts, unsigned reg)
{
    return qtest_readl(qts, SYSC + reg);
}

static void sysc_wr(QTestState *qts, unsigned reg, uint32_t val)
{
    qtest_writel(qts, SYSC + reg, val);
}

/* rcar_sysc_pwr_on_off() and the SYSCISR poll of rcar_sysc_power() */
static void power(QTestState *qts, unsigned chan, unsigned bit,
                  unsigned isr, bool on)
{
    sysc_wr(qts, SYSCEXTMASK, 1);
    sysc_wr(qts, SYSCISCR, BIT(isr));
    g_assert_cmphex(sysc_rd(qts, SYSCSR) & (on ? PONENB : POFFENB), !=, 0);
    sysc_wr(qts, chan + (on ? PWRONCR : PWROFFCR), BIT(bit));
    g_assert_cmphex(sysc_rd(qts, chan + PWRER) & BIT(bit), ==, 0);
    g_assert_cmphex(sysc_rd(qts, SYSCISR) & BIT(isr), ==, BIT(isr));
    sysc_wr(qts, SYSCISCR, BIT(isr));
    g_assert_cmphex(sysc_rd(qts, SYSCISR) & BIT(isr), ==, 0);
    sysc_wr(qts, SYSCEXTMASK, 0);
    /* rcar_sysc_power_is_off(): a PWRSR bit set means off */
    g_assert_cmphex(sysc_rd(qts, chan + PWRSR) & BIT(bit), ==,
                    on ? 0 : BIT(bit));
}

static void test_reset_state(void)
{
    QTestState *qts = qtest_init(MACHINE);

    /* The CPU cores are on, as the firmware leaves them */
    g_assert_cmphex(sysc_rd(qts, CA57_CHAN + PWRSR) & 0xf, ==, 0);
    /* The other areas are off, so that Linux's power-on runs */
    g_assert_cmphex(sysc_rd(qts, CR7_CHAN + PWRSR) & BIT(CR7_BIT), ==,
                    BIT(CR7_BIT));
    g_assert_cmphex(sysc_rd(qts, DG_CHAN + PWRSR) & 0x1f, ==, 0x1f);
    g_assert_cmphex(sysc_rd(qts, SYSCISR), ==, 0);
    qtest_quit(qts);
}

static void test_power_on_off(void)
{
    QTestState *qts = qtest_init(MACHINE);

    power(qts, CR7_CHAN, CR7_BIT, CR7_ISR, true);
    power(qts, DG_CHAN, DG_E_BIT, DG_E_ISR, true);
    /* genpd's power-off of an unused area at the end of boot */
    power(qts, CR7_CHAN, CR7_BIT, CR7_ISR, false);
    /* 3DG-E is still on, CR7 does not touch it */
    g_assert_cmphex(sysc_rd(qts, DG_CHAN + PWRSR) & BIT(DG_E_BIT), ==, 0);
    power(qts, DG_CHAN, DG_E_BIT, DG_E_ISR, false);
    qtest_quit(qts);
}

/* A bit with no area behind it completes nothing and changes nothing */
static void test_no_such_area(void)
{
    QTestState *qts = qtest_init(MACHINE);

    sysc_wr(qts, CR7_CHAN + PWRONCR, BIT(5));
    g_assert_cmphex(sysc_rd(qts, SYSCISR), ==, 0);
    g_assert_cmphex(sysc_rd(qts, CR7_CHAN + PWRSR), ==, BIT(CR7_BIT));
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/rcar-sysc/reset-state", test_reset_state);
    qtest_add_func("/rcar-sysc/power-on-off", test_power_on_off);
    qtest_add_func("/rcar-sysc/no-such-area", test_no_such_area);
    return g_test_run();
}
