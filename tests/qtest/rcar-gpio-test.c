/*
 * QTest for the Renesas R-Car Gen3 GPIO banks on r8a77951-salvator-xs
 *
 * Directions, input data that reads outputs too, and every interrupt mode
 * of Linux 6.12's gpio-rcar.c (gpio_rcar_config_interrupt_input_mode(),
 * gpio_rcar_irq_enable/disable(), gpio_rcar_irq_handler()); then the
 * board's wiring: the SD slot's card-detect switch on GPIO3 pin 12
 * (salvator-common.dtsi, active low) following QMP eject and insert.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "rcar-gen3-machines.h"
#include "qemu/bitops.h"
#include "qobject/qdict.h"

#define MACHINE     "-M r8a77951-salvator-xs -smp 1 -m 1G "
#define GPIO0       rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_GPIO, 0)
#define GPIO3       rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_GPIO, 3)

/* gpio-rcar.c */
#define IOINTSEL    0x00
#define INOUTSEL    0x04
#define OUTDT       0x08
#define INDT        0x0c
#define INTDT       0x10
#define INTCLR      0x14
#define INTMSK      0x18
#define MSKCLR      0x1c
#define POSNEG      0x20
#define EDGLEVEL    0x24
#define BOTHEDGE    0x4c

#define PIN         5

static uint32_t gpio_rd(QTestState *qts, uint64_t bank, unsigned reg)
{
    return qtest_readl(qts, bank + reg);
}

static void gpio_wr(QTestState *qts, uint64_t bank, unsigned reg,
                    uint32_t val)
{
    qtest_writel(qts, bank + reg, val);
}

static void set_pin(QTestState *qts, int pin, int level)
{
    qtest_set_irq_in(qts, "/machine/soc/gpio0", NULL, pin, level);
}

/* The bank's interrupt, as the GIC sees it */
static bool bank_irq(QTestState *qts)
{
    return qtest_get_irq(qts, 0);
}

static QTestState *boot_bank0(void)
{
    QTestState *qts = qtest_init(MACHINE);

    qtest_irq_intercept_out_named(qts, "/machine/soc/gpio0", "sysbus-irq");
    return qts;
}

/* gpio_rcar_config_interrupt_input_mode(), then enable as Linux does */
static void irq_mode(QTestState *qts, bool active_low, bool edge, bool both)
{
    gpio_wr(qts, GPIO0, POSNEG, active_low ? BIT(PIN) : 0);
    gpio_wr(qts, GPIO0, EDGLEVEL, edge ? BIT(PIN) : 0);
    gpio_wr(qts, GPIO0, BOTHEDGE, both ? BIT(PIN) : 0);
    gpio_wr(qts, GPIO0, IOINTSEL, BIT(PIN));
    if (edge) {
        gpio_wr(qts, GPIO0, INTCLR, BIT(PIN));
    }
    gpio_wr(qts, GPIO0, MSKCLR, BIT(PIN));
}

static void test_directions(void)
{
    QTestState *qts = qtest_init(MACHINE);

    qtest_irq_intercept_out(qts, "/machine/soc/gpio0");
    /* Inputs at reset: INDT shows the pins */
    set_pin(qts, 3, 1);
    g_assert_cmphex(gpio_rd(qts, GPIO0, INOUTSEL), ==, 0);
    g_assert_cmphex(gpio_rd(qts, GPIO0, INDT), ==, BIT(3));
    /* Outputs drive the pins; INDT reads them back (has_always_in) */
    gpio_wr(qts, GPIO0, OUTDT, BIT(2) | BIT(3));
    gpio_wr(qts, GPIO0, INOUTSEL, BIT(2));
    g_assert_true(qtest_get_irq(qts, 2));
    g_assert_cmphex(gpio_rd(qts, GPIO0, INDT), ==, BIT(2) | BIT(3));
    gpio_wr(qts, GPIO0, OUTDT, BIT(3));
    g_assert_false(qtest_get_irq(qts, 2));
    g_assert_cmphex(gpio_rd(qts, GPIO0, INDT), ==, BIT(3));
    /* Bank 0 has 16 pins: the others read 0 */
    gpio_wr(qts, GPIO0, INOUTSEL, 0xffffffff);
    g_assert_cmphex(gpio_rd(qts, GPIO0, INOUTSEL), ==, 0xffff);
    qtest_quit(qts);
}

static void test_level_irq(void)
{
    QTestState *qts = boot_bank0();

    irq_mode(qts, false, false, false);
    g_assert_false(bank_irq(qts));
    set_pin(qts, PIN, 1);
    g_assert_cmphex(gpio_rd(qts, GPIO0, INTDT), ==, BIT(PIN));
    g_assert_true(bank_irq(qts));
    /* gpio_rcar_irq_disable(): a 0 masks, the 1s leave the others */
    gpio_wr(qts, GPIO0, INTMSK, (uint32_t)~BIT(PIN));
    g_assert_cmphex(gpio_rd(qts, GPIO0, INTMSK), ==, 0);
    g_assert_false(bank_irq(qts));
    g_assert_cmphex(gpio_rd(qts, GPIO0, INTDT), ==, BIT(PIN));
    gpio_wr(qts, GPIO0, MSKCLR, BIT(PIN));
    g_assert_true(bank_irq(qts));
    /* A level interrupt follows the pin; INTCLR does not latch it off */
    set_pin(qts, PIN, 0);
    g_assert_false(bank_irq(qts));
    /* Active low */
    irq_mode(qts, true, false, false);
    g_assert_true(bank_irq(qts));
    set_pin(qts, PIN, 1);
    g_assert_false(bank_irq(qts));
    qtest_quit(qts);
}

static void test_edge_irq(void)
{
    QTestState *qts = boot_bank0();

    /* Rising edge: latched until INTCLR */
    irq_mode(qts, false, true, false);
    set_pin(qts, PIN, 1);
    set_pin(qts, PIN, 0);
    g_assert_true(bank_irq(qts));
    g_assert_cmphex(gpio_rd(qts, GPIO0, INTDT), ==, BIT(PIN));
    gpio_wr(qts, GPIO0, INTCLR, BIT(PIN));
    g_assert_false(bank_irq(qts));
    g_assert_cmphex(gpio_rd(qts, GPIO0, INTDT), ==, 0);

    /* Falling edge: the rising one does nothing */
    irq_mode(qts, true, true, false);
    set_pin(qts, PIN, 1);
    g_assert_false(bank_irq(qts));
    set_pin(qts, PIN, 0);
    g_assert_true(bank_irq(qts));
    gpio_wr(qts, GPIO0, INTCLR, BIT(PIN));

    /* Both edges */
    irq_mode(qts, false, true, true);
    set_pin(qts, PIN, 1);
    g_assert_true(bank_irq(qts));
    gpio_wr(qts, GPIO0, INTCLR, BIT(PIN));
    g_assert_false(bank_irq(qts));
    set_pin(qts, PIN, 0);
    g_assert_true(bank_irq(qts));
    gpio_wr(qts, GPIO0, INTCLR, BIT(PIN));

    /* A masked edge is latched, and interrupts when unmasked */
    gpio_wr(qts, GPIO0, INTMSK, (uint32_t)~BIT(PIN));
    set_pin(qts, PIN, 1);
    g_assert_false(bank_irq(qts));
    gpio_wr(qts, GPIO0, MSKCLR, BIT(PIN));
    g_assert_true(bank_irq(qts));
    /* A pin without the interrupt function never interrupts */
    gpio_wr(qts, GPIO0, IOINTSEL, 0);
    g_assert_false(bank_irq(qts));
    qtest_quit(qts);
}

/*
 * Salvator-XS: the SD slot of SDHI0 has its card-detect switch on GPIO3
 * pin 12, low while a card is in, and write protect on pin 13.  QMP eject
 * and blockdev-change-medium move it, with an interrupt on both edges as
 * mmc_gpiod_request_cd_irq() asks for.
 */
static void test_card_detect(void)
{
    char img[] = "/tmp/qtest-rcar-gpio-sd-XXXXXX";
    int fd = g_mkstemp(img);
    QTestState *qts;

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, 4 * 1024 * 1024), ==, 0);
    close(fd);
    qts = qtest_initf(MACHINE "-drive if=sd,index=0,file=%s,format=raw",
                      img);
    qtest_irq_intercept_out_named(qts, "/machine/soc/gpio3", "sysbus-irq");
    gpio_wr(qts, GPIO3, EDGLEVEL, BIT(12));
    gpio_wr(qts, GPIO3, BOTHEDGE, BIT(12));
    gpio_wr(qts, GPIO3, IOINTSEL, BIT(12));
    gpio_wr(qts, GPIO3, INTCLR, BIT(12));
    gpio_wr(qts, GPIO3, MSKCLR, BIT(12));

    g_assert_cmphex(gpio_rd(qts, GPIO3, INDT) & (BIT(12) | BIT(13)), ==, 0);
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_qmp_assert_success(qts, "{ 'execute': 'eject', 'arguments': "
                             "{ 'device': 'sd0', 'force': true } }");
    g_assert_cmphex(gpio_rd(qts, GPIO3, INDT) & BIT(12), ==, BIT(12));
    g_assert_true(qtest_get_irq(qts, 0));
    gpio_wr(qts, GPIO3, INTCLR, BIT(12));
    g_assert_false(qtest_get_irq(qts, 0));

    qtest_qmp_assert_success(qts, "{ 'execute': 'blockdev-change-medium', "
                             "'arguments': { 'device': 'sd0', "
                             "'filename': %s, 'format': 'raw' } }", img);
    g_assert_cmphex(gpio_rd(qts, GPIO3, INDT) & BIT(12), ==, 0);
    g_assert_true(qtest_get_irq(qts, 0));
    /* QEMU's SD card takes writable images only: never write-protected */
    g_assert_cmphex(gpio_rd(qts, GPIO3, INDT) & BIT(13), ==, 0);
    qtest_quit(qts);
    unlink(img);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/rcar-gpio/directions", test_directions);
    qtest_add_func("/rcar-gpio/level-irq", test_level_irq);
    qtest_add_func("/rcar-gpio/edge-irq", test_edge_irq);
    qtest_add_func("/rcar-gpio/card-detect", test_card_detect);
    return g_test_run();
}
