/*
 * QTest for the Renesas R-Car Gen3 I2C and IIC bus interfaces
 *
 * Each test plays the part of Linux 6.12's driver, step for step:
 * i2c-rcar.c (rcar_i2c_master_xfer(), rcar_i2c_gen3_irq(),
 * rcar_i2c_irq_send/recv()) and i2c-sh_mobile.c (sh_mobile_xfer(),
 * sh_mobile_i2c_isr(), i2c_op()), taking an interrupt only when the
 * controller raises one, as the driver waits for it.  Against an empty
 * bus every transfer must end in a NACK (-ENXIO) at once; against QEMU's
 * at24c-eeprom on the bus, writes and reads of 1 to 3 bytes, with and
 * without a repeated start, must move the EEPROM's bytes, and a repeated
 * start to another address must reach that address, not the EEPROM.
 * Also: the CPG's module reset, i2c-sh_mobile's atomic (polled) mode, and
 * migration of a byte in the IIC's shift register.  And the board's chips:
 * the BD9571MWV PMIC on the IIC as drivers/mfd/bd9571mwv.c and
 * drivers/regulator/bd9571mwv-regulator.c use it, and the PCA9654 GPIO
 * expander as gpio-pca953x.c probes it.
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
#define EEPROM_ADDR 0x50
#define EMPTY_ADDR  0x31        /* no chip of the board answers here */
#define EEPROM2_ADDR 0x51
#define EEPROM_AT(bus) \
    "-device at24c-eeprom,bus=" bus ",address=0x50,rom-size=256 "
#define TWO_EEPROMS_AT(bus) EEPROM_AT(bus) \
    "-device at24c-eeprom,bus=" bus ",address=0x51,rom-size=256 "
#define SENSOR_ADDR 0x48
#define SENSOR_AT(bus) "-device tmp105,bus=" bus ",address=0x48 "

/* Interrupts a driver takes for one transfer, at most: a hang otherwise */
#define MAX_IRQS    64

typedef struct Msg {
    uint8_t addr;
    bool read;
    uint8_t *buf;
    int len;
} Msg;

/* i2c-rcar.c */
#define ICMCR       0x04
#define ICMSR       0x0c
#define ICMIER      0x14
#define ICCCR       0x18
#define ICMAR       0x20
#define ICRXTX      0x24
#define ICCCR2      0x28
#define ICFBSCR     0x38

#define MDBS        BIT(7)
#define FSDA        BIT(5)
#define MIE         BIT(3)
#define FSB         BIT(1)
#define ESG         BIT(0)

#define MNR         BIT(6)
#define MAL         BIT(5)
#define MST         BIT(4)
#define MDE         BIT(3)
#define MDR         BIT(1)
#define MAT         BIT(0)

#define PHASE_START (MDBS | MIE | ESG)
#define PHASE_DATA  (MDBS | MIE)
#define PHASE_STOP  (MDBS | MIE | FSB)
#define IRQ_SEND    (MNR | MAL | MST | MAT | MDE)
#define IRQ_RECV    (MNR | MAL | MST | MAT | MDR)

#define ID_LAST_MSG         BIT(0)
#define ID_REP_AFTER_RD     BIT(1)
#define ID_DONE             BIT(2)
#define ID_NACK             BIT(4)

typedef struct RCarI2C {
    QTestState *qts;
    uint64_t base;
    Msg *msg;
    int msgs_left;
    int pos;
    uint32_t flags;
} RCarI2C;

static uint32_t i2c_rd(RCarI2C *p, unsigned reg)
{
    return qtest_readl(p->qts, p->base + reg);
}

static void i2c_wr(RCarI2C *p, unsigned reg, uint32_t val)
{
    qtest_writel(p->qts, p->base + reg, val);
}

static void rcar_clear_irq(RCarI2C *p, uint32_t val)
{
    i2c_wr(p, ICMSR, ~val & 0x7f);
}

static void rcar_prepare_msg(RCarI2C *p)
{
    bool rep_start = !(p->flags & ID_REP_AFTER_RD);

    p->pos = 0;
    p->flags = 0;
    if (p->msgs_left == 1) {
        p->flags |= ID_LAST_MSG;
    }
    i2c_wr(p, ICMAR, p->msg->addr << 1 | p->msg->read);
    i2c_wr(p, ICMIER, p->msg->read ? IRQ_RECV : IRQ_SEND);
    if (rep_start) {
        i2c_wr(p, ICMCR, PHASE_START);
    }
}

static void rcar_next_msg(RCarI2C *p)
{
    p->msg++;
    p->msgs_left--;
    rcar_prepare_msg(p);
}

static void rcar_irq_send(RCarI2C *p, uint32_t msr)
{
    uint32_t irqs_to_clear = MDE;

    /* Linux WARNs ("spurious irq") here: a model bug */
    g_assert_true(msr & MDE);
    if (msr & MAT) {
        irqs_to_clear |= MAT;
    }
    if (p->pos < p->msg->len) {
        i2c_wr(p, ICRXTX, p->msg->buf[p->pos++]);
    } else if (p->flags & ID_LAST_MSG) {
        i2c_wr(p, ICMCR, PHASE_STOP);
    } else {
        rcar_next_msg(p);
    }
    rcar_clear_irq(p, irqs_to_clear);
}

static void rcar_irq_recv(RCarI2C *p, uint32_t msr)
{
    uint32_t irqs_to_clear = MDR;

    g_assert_true(msr & MDR);
    if (msr & MAT) {
        irqs_to_clear |= MAT;
    } else if (p->pos < p->msg->len) {
        p->msg->buf[p->pos++] = i2c_rd(p, ICRXTX);
    }
    if (p->pos + 1 == p->msg->len) {
        if (p->flags & ID_LAST_MSG) {
            i2c_wr(p, ICMCR, PHASE_STOP);
        } else {
            i2c_wr(p, ICMCR, PHASE_START);
            p->flags |= ID_REP_AFTER_RD;
        }
    }
    if (p->pos == p->msg->len && !(p->flags & ID_LAST_MSG)) {
        rcar_next_msg(p);
    }
    rcar_clear_irq(p, irqs_to_clear);
}

/* rcar_i2c_gen3_irq() and rcar_i2c_irq() */
static void rcar_isr(RCarI2C *p)
{
    uint32_t msr = i2c_rd(p, ICMSR) & i2c_rd(p, ICMIER);

    g_assert_cmphex(msr, !=, 0);        /* IRQ_NONE: a spurious interrupt */
    if (!(p->flags & ID_REP_AFTER_RD)) {
        i2c_wr(p, ICMCR, PHASE_DATA);
    }
    g_assert_false(msr & MAL);
    if (msr & MNR) {
        i2c_wr(p, ICMIER, MST);
        p->flags |= ID_NACK;
    } else if (msr & MST) {
        p->msgs_left--;
        p->flags |= ID_DONE;
    } else if (p->msg->read) {
        rcar_irq_recv(p, msr);
    } else {
        rcar_irq_send(p, msr);
    }
    if (p->flags & ID_DONE) {
        i2c_wr(p, ICMIER, 0);
        i2c_wr(p, ICMSR, 0);
    }
}

/* rcar_i2c_master_xfer(): 0, or -ENXIO for a NACK */
static int rcar_xfer(QTestState *qts, uint64_t base, Msg *msgs, int num)
{
    RCarI2C p = { .qts = qts, .base = base };

    /* rcar_i2c_bus_barrier() */
    g_assert_false(i2c_rd(&p, ICMCR) & FSDA);
    /* rcar_i2c_init() */
    i2c_wr(&p, ICMIER, 0);
    i2c_wr(&p, ICMCR, MDBS);
    i2c_wr(&p, ICMSR, 0);
    i2c_wr(&p, ICCCR2, 0x7);
    i2c_wr(&p, ICCCR, 0x6);
    i2c_wr(&p, ICFBSCR, 0x0f);
    /* rcar_i2c_first_msg() */
    p.msg = msgs;
    p.msgs_left = num;
    i2c_wr(&p, ICMSR, 0);
    rcar_prepare_msg(&p);

    for (int i = 0; !(p.flags & ID_DONE); i++) {
        g_assert_cmpint(i, <, MAX_IRQS);
        /* the driver sleeps until the interrupt: none is a timeout */
        g_assert_true(qtest_get_irq(qts, 0));
        rcar_isr(&p);
    }
    g_assert_false(qtest_get_irq(qts, 0));
    if (p.flags & ID_NACK) {
        return -ENXIO;
    }
    g_assert_cmpint(p.msgs_left, ==, 0);
    return 0;
}

static QTestState *boot_i2c(const char *extra)
{
    QTestState *qts = qtest_initf(MACHINE "%s", extra);

    qtest_irq_intercept_out_named(qts, "/machine/soc/i2c2", "sysbus-irq");
    return qts;
}

#define I2C2 rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_I2C, 2)

static void test_i2c_empty_bus(void)
{
    QTestState *qts = boot_i2c("");
    uint8_t reg = 0x10, buf[2];
    Msg write = { EMPTY_ADDR, false, &reg, 1 };
    Msg read[] = {
        { EMPTY_ADDR, false, &reg, 1 },
        { EMPTY_ADDR, true, buf, 2 },
    };

    /* bd9571mwv's probe: a register read, write then read */
    g_assert_cmpint(rcar_xfer(qts, I2C2, read, 2), ==, -ENXIO);
    g_assert_cmpint(rcar_xfer(qts, I2C2, &write, 1), ==, -ENXIO);
    g_assert_cmpint(rcar_xfer(qts, I2C2, read + 1, 1), ==, -ENXIO);
    qtest_quit(qts);
}

static void test_i2c_eeprom(void)
{
    QTestState *qts;
    uint8_t data[] = { 0x10, 0xa5, 0x5a, 0x3c };
    uint8_t reg = 0x10, one, two[2], three[3];
    Msg write = { EEPROM_ADDR, false, data, sizeof(data) };
    Msg set_pointer = { EEPROM_ADDR, false, &reg, 1 };
    Msg read1 = { EEPROM_ADDR, true, &one, 1 };
    Msg reg_read2[] = {
        { EEPROM_ADDR, false, &reg, 1 },
        { EEPROM_ADDR, true, two, 2 },
    };
    Msg read3[] = {
        { EEPROM_ADDR, false, &reg, 1 },
        { EEPROM_ADDR, true, three, 3 },
    };
    /* a repeated start after a read (ID_REP_AFTER_RD) */
    Msg read1_read2[] = {
        { EEPROM_ADDR, true, &one, 1 },
        { EEPROM_ADDR, true, two, 2 },
    };

    if (!qtest_has_device("at24c-eeprom")) {
        g_test_skip("at24c-eeprom is not in this QEMU");
        return;
    }
    qts = boot_i2c(TWO_EEPROMS_AT("i2c2"));

    g_assert_cmpint(rcar_xfer(qts, I2C2, &write, 1), ==, 0);
    g_assert_cmpint(rcar_xfer(qts, I2C2, &set_pointer, 1), ==, 0);
    g_assert_cmpint(rcar_xfer(qts, I2C2, &read1, 1), ==, 0);
    g_assert_cmphex(one, ==, 0xa5);

    g_assert_cmpint(rcar_xfer(qts, I2C2, reg_read2, 2), ==, 0);
    g_assert_cmphex(two[0], ==, 0xa5);
    g_assert_cmphex(two[1], ==, 0x5a);

    g_assert_cmpint(rcar_xfer(qts, I2C2, read3, 2), ==, 0);
    g_assert_cmphex(three[0], ==, 0xa5);
    g_assert_cmphex(three[1], ==, 0x5a);
    g_assert_cmphex(three[2], ==, 0x3c);

    g_assert_cmpint(rcar_xfer(qts, I2C2, &set_pointer, 1), ==, 0);
    g_assert_cmpint(rcar_xfer(qts, I2C2, read1_read2, 2), ==, 0);
    g_assert_cmphex(one, ==, 0xa5);
    g_assert_cmphex(two[0], ==, 0x5a);
    g_assert_cmphex(two[1], ==, 0x3c);

    /* Another address on the same bus still NACKs */
    set_pointer.addr = EMPTY_ADDR;
    g_assert_cmpint(rcar_xfer(qts, I2C2, &set_pointer, 1), ==, -ENXIO);

    /*
     * A repeated start reaches the address it names: the second EEPROM,
     * then no one
     */
    write.addr = EEPROM2_ADDR;
    data[1] = 0xde;
    data[2] = 0xad;
    g_assert_cmpint(rcar_xfer(qts, I2C2, &write, 1), ==, 0);
    set_pointer.addr = EEPROM2_ADDR;
    g_assert_cmpint(rcar_xfer(qts, I2C2, &set_pointer, 1), ==, 0);
    reg_read2[1].addr = EEPROM2_ADDR;
    g_assert_cmpint(rcar_xfer(qts, I2C2, reg_read2, 2), ==, 0);
    g_assert_cmphex(two[0], ==, 0xde);
    g_assert_cmphex(two[1], ==, 0xad);
    reg_read2[1].addr = EMPTY_ADDR;
    g_assert_cmpint(rcar_xfer(qts, I2C2, reg_read2, 2), ==, -ENXIO);
    qtest_quit(qts);
}

/* cpg_mssr_reset(): SRCR and SRSTCLR of the module's register */
static const uint16_t srcr[] = {
    0x0a0, 0x0a8, 0x0b0, 0x0b8, 0x0bc, 0x0c4, 0x1c8, 0x1cc,
    0x920, 0x924, 0x928, 0x92c,
};
#define SRSTCLR(n)  (0x940 + 4 * (n))

static void cpg_module_reset(QTestState *qts, RCarGen3DevKind kind,
                             unsigned index)
{
    const RCarGen3TestMachine *m = RCAR_GEN3_H3;
    const RCarGen3Dev *d = rcar_gen3_find_dev(m->devs, m->num_devs, kind,
                                              index);
    uint64_t cpg = rcar_gen3_test_base(m, RCAR_GEN3_CPG, 0);
    unsigned reg, bit;

    g_assert_nonnull(d);
    g_assert_cmpint(d->mstp, >=, 0);
    reg = d->mstp / 100;
    bit = d->mstp % 100;
    g_assert_cmpuint(reg, <, ARRAY_SIZE(srcr));
    qtest_writel(qts, cpg + srcr[reg], BIT(bit));
    qtest_writel(qts, cpg + SRSTCLR(reg), BIT(bit));
}

/*
 * i2c-rcar resets the module before each transfer on Gen3
 * (rcar_i2c_do_reset()): a transfer left half-way is gone after it
 */
static void test_i2c_module_reset(void)
{
    QTestState *qts = boot_i2c(EEPROM_AT("i2c2"));
    RCarI2C p = { .qts = qts, .base = I2C2 };
    uint8_t data[] = { 0x00, 0x77 }, one;
    Msg write = { EEPROM_ADDR, false, data, sizeof(data) };
    Msg read = { EEPROM_ADDR, true, &one, 1 };
    Msg nobody = { EMPTY_ADDR, false, data, 1 };

    i2c_wr(&p, ICMIER, IRQ_SEND);
    i2c_wr(&p, ICMAR, EEPROM_ADDR << 1);
    i2c_wr(&p, ICMCR, PHASE_START);
    g_assert_cmphex(i2c_rd(&p, ICMSR), ==, MAT | MDE);
    g_assert_true(qtest_get_irq(qts, 0));

    cpg_module_reset(qts, RCAR_GEN3_I2C, 2);
    g_assert_false(qtest_get_irq(qts, 0));
    g_assert_cmphex(i2c_rd(&p, ICMSR), ==, 0);
    g_assert_cmphex(i2c_rd(&p, ICMIER), ==, 0);
    g_assert_cmphex(i2c_rd(&p, ICMAR), ==, 0);
    g_assert_cmphex(i2c_rd(&p, ICMCR), ==, 0);

    /* The EEPROM's transfer was ended: the next one looks up its slave */
    g_assert_cmpint(rcar_xfer(qts, I2C2, &nobody, 1), ==, -ENXIO);
    g_assert_cmpint(rcar_xfer(qts, I2C2, &write, 1), ==, 0);
    g_assert_cmpint(rcar_xfer(qts, I2C2, &write, 1), ==, 0);
    write.len = 1;
    g_assert_cmpint(rcar_xfer(qts, I2C2, &write, 1), ==, 0);
    g_assert_cmpint(rcar_xfer(qts, I2C2, &read, 1), ==, 0);
    g_assert_cmphex(one, ==, 0x77);
    qtest_quit(qts);
}

/* i2c-sh_mobile.c */
#define ICDR        0x00
#define ICCR        0x04
#define ICSR        0x08
#define ICIC        0x0c
#define ICCL        0x10
#define ICCH        0x14

#define ICCR_ICE    0x80
#define ICCR_RACK   0x40
#define ICCR_TRS    0x10
#define ICCR_BBSY   0x04
#define ICCR_SCP    0x01

#define SW_DONE     0x20
#define ICSR_BUSY   0x10
#define ICSR_AL     0x08
#define ICSR_TACK   0x04
#define ICSR_WAIT   0x02
#define ICSR_DTE    0x01

#define ICIC_ALE    0x08
#define ICIC_TACKE  0x04
#define ICIC_WAITE  0x02
#define ICIC_DTEE   0x01

/* Register polls of poll_busy() and poll_dte(), at most */
#define MAX_POLLS   1000

typedef struct RCarIIC {
    QTestState *qts;
    uint64_t base;
    Msg *msg;
    int pos;
    uint8_t sr;
    bool send_stop;
} RCarIIC;

static uint8_t iic_rd(RCarIIC *p, unsigned reg)
{
    return qtest_readb(p->qts, p->base + reg);
}

static void iic_wr(RCarIIC *p, unsigned reg, uint8_t val)
{
    qtest_writeb(p->qts, p->base + reg, val);
}

static void iic_tx_first(RCarIIC *p)
{
    iic_wr(p, ICIC, ICIC_WAITE | ICIC_ALE | ICIC_TACKE);
    iic_wr(p, ICDR, p->msg->addr << 1 | p->msg->read);
}

static void iic_rx_stop(RCarIIC *p)
{
    iic_wr(p, ICIC, ICIC_DTEE | ICIC_WAITE | ICIC_ALE | ICIC_TACKE);
    iic_wr(p, ICCR, ICCR_ICE | ICCR_RACK);
}

static bool iic_isr_tx(RCarIIC *p)
{
    if (p->pos == p->msg->len) {
        /* OP_TX_STOP */
        iic_wr(p, ICCR, p->send_stop ? ICCR_ICE | ICCR_TRS
                                     : ICCR_ICE | ICCR_TRS | ICCR_BBSY);
        return true;
    }
    if (p->pos == -1) {
        iic_tx_first(p);
    } else {
        iic_wr(p, ICDR, p->msg->buf[p->pos]);
    }
    p->pos++;
    return false;
}

static bool iic_isr_rx(RCarIIC *p)
{
    int real_pos = p->pos - 2;

    if (p->pos == -1) {
        iic_tx_first(p);
    } else if (p->pos == 0) {
        iic_wr(p, ICCR, ICCR_ICE | ICCR_SCP);           /* OP_TX_TO_RX */
    } else if (p->pos == p->msg->len) {
        if (real_pos < 0) {
            iic_rx_stop(p);
        } else {                                        /* OP_RX_STOP_DATA */
            iic_wr(p, ICIC, ICIC_DTEE | ICIC_WAITE | ICIC_ALE | ICIC_TACKE);
            p->msg->buf[real_pos] = iic_rd(p, ICDR);
            iic_wr(p, ICCR, ICCR_ICE | ICCR_RACK);
        }
    } else if (real_pos >= 0) {
        p->msg->buf[real_pos] = iic_rd(p, ICDR);        /* OP_RX */
    }
    p->pos++;
    return p->pos == p->msg->len + 2;
}

/* sh_mobile_i2c_isr() */
static void iic_isr(RCarIIC *p)
{
    uint8_t sr = iic_rd(p, ICSR);
    bool wakeup = false;

    p->sr |= sr;
    if (sr & (ICSR_AL | ICSR_TACK)) {
        iic_wr(p, ICSR, sr & ~(ICSR_AL | ICSR_TACK));
    } else if (p->msg->read) {
        wakeup = iic_isr_rx(p);
    } else {
        wakeup = iic_isr_tx(p);
    }
    if (sr & ICSR_WAIT) {
        iic_wr(p, ICSR, sr & ~ICSR_WAIT);
    }
    if (wakeup) {
        p->sr |= SW_DONE;
    }
    iic_rd(p, ICSR);
}

/* Serve the interrupts that come while the driver polls ICSR */
static uint8_t iic_poll(RCarIIC *p)
{
    if (qtest_get_irq(p->qts, 0)) {
        iic_isr(p);
    }
    return iic_rd(p, ICSR);
}

/* poll_busy() and poll_dte(); in atomic mode nothing serves interrupts */
static int iic_poll_end(RCarIIC *p, bool atomic)
{
    for (int i = 0; i < MAX_POLLS; i++) {
        uint8_t val = atomic ? iic_rd(p, ICSR) : iic_poll(p);

        if (p->send_stop && !(val & ICSR_BUSY)) {
            return (val | p->sr) & ICSR_TACK ? -ENXIO : 0;
        }
        if (!p->send_stop && (val & ICSR_DTE)) {
            return 0;
        }
        if (!p->send_stop && (val & ICSR_TACK)) {
            return -ENXIO;
        }
    }
    g_assert_not_reached();                     /* -ETIMEDOUT */
}

/*
 * sh_mobile_xfer()'s wait for the interrupt handler: for the interrupt
 * and its wake_up(), or in atomic mode (interrupts off: the PMIC at
 * power-off) polling ICSR and calling the handler itself
 */
static void iic_wait(RCarIIC *p, bool atomic)
{
    for (int n = 0; n < MAX_IRQS; n++) {
        if (atomic) {
            if (p->sr & (ICSR_TACK | SW_DONE)) {
                return;
            }
            if (iic_rd(p, ICSR) &
                (ICSR_AL | ICSR_TACK | ICSR_WAIT | ICSR_DTE)) {
                iic_isr(p);
            }
        } else {
            /* Only a wake_up() (SW_DONE) ends the wait, or the timeout */
            if (p->sr & SW_DONE) {
                return;
            }
            g_assert_true(qtest_get_irq(p->qts, 0));
            iic_isr(p);
        }
    }
    g_assert_not_reached();                     /* -ETIMEDOUT */
}

/* sh_mobile_xfer(): 0, or -ENXIO for a NACK */
static int iic_xfer_mode(QTestState *qts, uint64_t base, Msg *msgs, int num,
                         bool atomic)
{
    RCarIIC p = { .qts = qts, .base = base };
    int err = 0;

    for (int i = 0; i < num && !err; i++) {
        bool do_start = p.send_stop || !i;

        p.send_stop = i == num - 1;
        p.msg = &msgs[i];
        if (do_start) {                         /* start_ch(), do_init */
            iic_wr(&p, ICCR, ICCR_SCP);
            iic_wr(&p, ICCR, ICCR_ICE | ICCR_SCP);
            iic_wr(&p, ICCL, 0x42);
            iic_wr(&p, ICCH, 0x37);
        }
        p.pos = -1;
        p.sr = 0;
        iic_wr(&p, ICIC, ICIC_DTEE | ICIC_WAITE | ICIC_ALE | ICIC_TACKE);
        if (do_start) {
            iic_wr(&p, ICCR, ICCR_ICE | ICCR_TRS | ICCR_BBSY);  /* OP_START */
        }
        iic_wait(&p, atomic);
        err = iic_poll_end(&p, atomic);
    }
    iic_wr(&p, ICCR, ICCR_SCP);
    g_assert_false(qtest_get_irq(qts, 0));
    return err;
}

static int iic_xfer(QTestState *qts, uint64_t base, Msg *msgs, int num)
{
    return iic_xfer_mode(qts, base, msgs, num, false);
}

static QTestState *boot_iic(const char *extra)
{
    QTestState *qts = qtest_initf(MACHINE "%s", extra);

    qtest_irq_intercept_out_named(qts, "/machine/soc/i2c-dvfs", "sysbus-irq");
    return qts;
}

#define IIC rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_IIC, 0)

static void test_iic_empty_bus(void)
{
    QTestState *qts = boot_iic("");
    uint8_t reg = 0x10, buf[2];
    Msg write = { EMPTY_ADDR, false, &reg, 1 };
    Msg read[] = {
        { EMPTY_ADDR, false, &reg, 1 },
        { EMPTY_ADDR, true, buf, 2 },
    };

    g_assert_cmpint(iic_xfer(qts, IIC, read, 2), ==, -ENXIO);
    g_assert_cmpint(iic_xfer(qts, IIC, &write, 1), ==, -ENXIO);
    g_assert_cmpint(iic_xfer(qts, IIC, read + 1, 1), ==, -ENXIO);
    read[1].len = 1;
    g_assert_cmpint(iic_xfer(qts, IIC, read + 1, 1), ==, -ENXIO);
    qtest_quit(qts);
}

static void test_iic_eeprom(void)
{
    QTestState *qts;
    uint8_t data[] = { 0x20, 0x11, 0x22, 0x33 };
    uint8_t reg = 0x20, one, two[2], three[3];
    Msg write = { EEPROM_ADDR, false, data, sizeof(data) };
    Msg set_pointer = { EEPROM_ADDR, false, &reg, 1 };
    Msg read1 = { EEPROM_ADDR, true, &one, 1 };
    Msg reg_read2[] = {
        { EEPROM_ADDR, false, &reg, 1 },
        { EEPROM_ADDR, true, two, 2 },
    };
    Msg read3[] = {
        { EEPROM_ADDR, false, &reg, 1 },
        { EEPROM_ADDR, true, three, 3 },
    };

    if (!qtest_has_device("at24c-eeprom")) {
        g_test_skip("at24c-eeprom is not in this QEMU");
        return;
    }
    qts = boot_iic(TWO_EEPROMS_AT("i2c-dvfs"));

    g_assert_cmpint(iic_xfer(qts, IIC, &write, 1), ==, 0);
    g_assert_cmpint(iic_xfer(qts, IIC, &set_pointer, 1), ==, 0);
    g_assert_cmpint(iic_xfer(qts, IIC, &read1, 1), ==, 0);
    g_assert_cmphex(one, ==, 0x11);

    g_assert_cmpint(iic_xfer(qts, IIC, reg_read2, 2), ==, 0);
    g_assert_cmphex(two[0], ==, 0x11);
    g_assert_cmphex(two[1], ==, 0x22);

    g_assert_cmpint(iic_xfer(qts, IIC, read3, 2), ==, 0);
    g_assert_cmphex(three[0], ==, 0x11);
    g_assert_cmphex(three[1], ==, 0x22);
    g_assert_cmphex(three[2], ==, 0x33);

    set_pointer.addr = EMPTY_ADDR;
    g_assert_cmpint(iic_xfer(qts, IIC, &set_pointer, 1), ==, -ENXIO);

    /*
     * A repeated start reaches the address it names: the second EEPROM,
     * then no one
     */
    write.addr = EEPROM2_ADDR;
    data[1] = 0xbe;
    data[2] = 0xef;
    g_assert_cmpint(iic_xfer(qts, IIC, &write, 1), ==, 0);
    set_pointer.addr = EEPROM2_ADDR;
    g_assert_cmpint(iic_xfer(qts, IIC, &set_pointer, 1), ==, 0);
    reg_read2[1].addr = EEPROM2_ADDR;
    g_assert_cmpint(iic_xfer(qts, IIC, reg_read2, 2), ==, 0);
    g_assert_cmphex(two[0], ==, 0xbe);
    g_assert_cmphex(two[1], ==, 0xef);
    reg_read2[1].addr = EMPTY_ADDR;
    g_assert_cmpint(iic_xfer(qts, IIC, reg_read2, 2), ==, -ENXIO);
    qtest_quit(qts);
}

/*
 * Atomic mode: sh_mobile_xfer() stops serving the controller at the
 * first TACK or SW_DONE and polls BUSY: a NACKed address with the stop
 * already requested (a zero-length message: i2cdetect's quick write)
 * must end with the bus free, not in -ETIMEDOUT.  (A longer message to
 * an absent slave does time out in atomic mode: after TACK the driver
 * never asks for the stop.)  The harness writes ICIC where the driver
 * skips it in atomic mode; the interrupt line is not looked at.
 */
static void test_iic_atomic(void)
{
    QTestState *qts;
    uint8_t data[] = { 0x40, 0x99 }, reg = 0x40, one;
    Msg quick = { EMPTY_ADDR, false, NULL, 0 };
    Msg write = { EEPROM_ADDR, false, data, sizeof(data) };
    Msg reg_read1[] = {
        { EEPROM_ADDR, false, &reg, 1 },
        { EEPROM_ADDR, true, &one, 1 },
    };

    if (!qtest_has_device("at24c-eeprom")) {
        g_test_skip("at24c-eeprom is not in this QEMU");
        return;
    }
    qts = boot_iic(EEPROM_AT("i2c-dvfs"));
    g_assert_cmpint(iic_xfer_mode(qts, IIC, &quick, 1, true), ==, -ENXIO);
    g_assert_cmpint(iic_xfer_mode(qts, IIC, &write, 1, true), ==, 0);
    g_assert_cmpint(iic_xfer_mode(qts, IIC, reg_read1, 2, true), ==, 0);
    g_assert_cmphex(one, ==, 0x99);
    quick.addr = EEPROM_ADDR;
    g_assert_cmpint(iic_xfer_mode(qts, IIC, &quick, 1, true), ==, 0);
    qtest_quit(qts);
}

/* Start a read from @addr; the IIC waits with WAIT after the address */
static void iic_start_read(RCarIIC *p, uint8_t addr)
{
    iic_wr(p, ICCR, ICCR_ICE | ICCR_SCP);
    iic_wr(p, ICIC, ICIC_DTEE | ICIC_WAITE | ICIC_ALE | ICIC_TACKE);
    iic_wr(p, ICCR, ICCR_ICE | ICCR_TRS | ICCR_BBSY);
    iic_wr(p, ICDR, addr << 1 | 1);
    g_assert_cmphex(iic_rd(p, ICSR), ==, ICSR_BUSY | ICSR_WAIT | ICSR_DTE);
}

/*
 * sh_mobile_i2c_init() runs with the module reset released (the CPG's
 * "resets" of the DT): a transfer left half-way is gone after it
 */
static void test_iic_module_reset(void)
{
    QTestState *qts;
    RCarIIC p = { .base = IIC };
    uint8_t reg = 0;
    Msg nobody = { EMPTY_ADDR, false, &reg, 1 };
    Msg set_pointer = { EEPROM_ADDR, false, &reg, 1 };

    if (!qtest_has_device("at24c-eeprom")) {
        g_test_skip("at24c-eeprom is not in this QEMU");
        return;
    }
    qts = boot_iic(EEPROM_AT("i2c-dvfs"));
    p.qts = qts;
    iic_start_read(&p, EEPROM_ADDR);
    g_assert_true(qtest_get_irq(qts, 0));

    cpg_module_reset(qts, RCAR_GEN3_IIC, 0);
    g_assert_false(qtest_get_irq(qts, 0));
    g_assert_cmphex(iic_rd(&p, ICSR), ==, 0);
    g_assert_cmphex(iic_rd(&p, ICCR), ==, 0);
    g_assert_cmphex(iic_rd(&p, ICIC), ==, 0);

    /* The EEPROM's transfer was ended: the next one looks up its slave */
    g_assert_cmpint(iic_xfer(qts, IIC, &nobody, 1), ==, -ENXIO);
    g_assert_cmpint(iic_xfer(qts, IIC, &set_pointer, 1), ==, 0);
    qtest_quit(qts);
}

/*
 * A byte received into the shift register (WAIT), then TRS set and ICDR
 * written, as a guest may: the state must migrate, and the destination
 * go on with the byte and with the slave's next one.  The slave is a
 * tmp105, whose state and transfer migrate (at24c-eeprom's do not): its
 * T_high register, 0x1230 as written.
 */
static void test_iic_migrate_shift_register(void)
{
    g_autofree char *stream = g_strdup("/tmp/qtest-rcar-iic-XXXXXX");
    g_autofree char *uri = NULL;
    uint8_t data[] = { 0x03, 0x12, 0x30 }, reg = 0x03;
    Msg write = { SENSOR_ADDR, false, data, sizeof(data) };
    Msg set_pointer = { SENSOR_ADDR, false, &reg, 1 };
    QTestState *src, *dst;
    RCarIIC p = { .base = IIC };
    int fd;

    if (!qtest_has_device("tmp105")) {
        g_test_skip("tmp105 is not in this QEMU");
        return;
    }
    fd = g_mkstemp(stream);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    uri = g_strdup_printf("file:%s", stream);

    src = boot_iic(SENSOR_AT("i2c-dvfs"));
    p.qts = src;
    g_assert_cmpint(iic_xfer(src, IIC, &write, 1), ==, 0);
    g_assert_cmpint(iic_xfer(src, IIC, &set_pointer, 1), ==, 0);
    iic_start_read(&p, SENSOR_ADDR);
    iic_wr(&p, ICCR, ICCR_ICE | ICCR_SCP);
    iic_wr(&p, ICSR, ICSR_BUSY | ICSR_DTE);
    g_assert_cmphex(iic_rd(&p, ICSR), ==, ICSR_BUSY | ICSR_WAIT | ICSR_DTE);
    iic_wr(&p, ICCR, ICCR_ICE | ICCR_TRS | ICCR_SCP);
    iic_wr(&p, ICDR, 0x5a);
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    rcar_gen3_wait_migration(src, "completed");
    qtest_quit(src);

    dst = qtest_initf(MACHINE SENSOR_AT("i2c-dvfs") "-incoming defer");
    qtest_irq_intercept_out_named(dst, "/machine/soc/i2c-dvfs", "sysbus-irq");
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    rcar_gen3_wait_migration(dst, "completed");
    p.qts = dst;
    /* Receive again: the byte goes to ICDR, the next one is received */
    iic_wr(&p, ICCR, ICCR_ICE | ICCR_SCP);
    iic_wr(&p, ICSR, ICSR_BUSY);
    g_assert_cmphex(iic_rd(&p, ICSR), ==, ICSR_BUSY | ICSR_WAIT | ICSR_DTE);
    g_assert_cmphex(iic_rd(&p, ICDR), ==, 0x12);
    /* RACK and stop for the last byte */
    iic_wr(&p, ICCR, ICCR_ICE | ICCR_RACK);
    iic_wr(&p, ICSR, ICSR_BUSY);
    g_assert_cmphex(iic_rd(&p, ICSR), ==, ICSR_DTE);
    g_assert_cmphex(iic_rd(&p, ICDR), ==, 0x30);
    qtest_quit(dst);
    unlink(stream);
}

/* The PMIC (bd9571mwv.h in Linux): its address and registers */
#define PMIC_ADDR           0x30
#define PMIC_VENDOR_CODE    0x00
#define PMIC_PRODUCT_CODE   0x01
#define PMIC_PRODUCT_REV    0x02
#define PMIC_AVS_VD09_VID0  0x32
#define PMIC_VD18_VID       0x42
#define PMIC_DVFS_SETVID    0x54
#define PMIC_DVFS_MONIVDAC  0x55
#define PMIC_INT_INTREQ     0x90
#define PMIC_INT_INTMASK    0x91

/* regmap-i2c's single register read: the register, then a repeated start */
static int pmic_read(QTestState *qts, uint8_t reg, uint8_t *val)
{
    Msg msgs[] = {
        { PMIC_ADDR, false, &reg, 1 },
        { PMIC_ADDR, true, val, 1 },
    };

    return iic_xfer(qts, IIC, msgs, 2);
}

static uint8_t pmic_get(QTestState *qts, uint8_t reg)
{
    uint8_t val = 0;

    g_assert_cmpint(pmic_read(qts, reg, &val), ==, 0);
    return val;
}

static void pmic_set(QTestState *qts, uint8_t reg, uint8_t val)
{
    uint8_t data[] = { reg, val };
    Msg msg = { PMIC_ADDR, false, data, sizeof(data) };

    g_assert_cmpint(iic_xfer(qts, IIC, &msg, 1), ==, 0);
}

/*
 * bd9571mwv_probe(): the product code (0x60, the BD9571MWV: 0x74 would
 * select the BD9574MWF's tables), bd957x_identify()'s vendor code 0xdb;
 * regmap-irq masks every interrupt and acknowledges what is pending (INTREQ
 * is written 1 to clear: nothing was pending).  The DVFS regulator reads
 * MONIVDAC, 0.83 V at reset (the A57 OPP of the boot clock), and sets
 * SETVID, which the monitor then reads (selector = mV / 10).
 */
static void test_pmic(void)
{
    QTestState *qts = boot_iic("");
    uint8_t reg = PMIC_VENDOR_CODE, two[2];
    Msg read2[] = {
        { PMIC_ADDR, false, &reg, 1 },
        { PMIC_ADDR, true, two, 2 },
    };

    g_assert_cmphex(pmic_get(qts, PMIC_PRODUCT_CODE), ==, 0x60);
    g_assert_cmphex(pmic_get(qts, PMIC_VENDOR_CODE), ==, 0xdb);
    /* The register pointer moves on after each byte... */
    g_assert_cmpint(iic_xfer(qts, IIC, read2, 2), ==, 0);
    g_assert_cmphex(two[0], ==, 0xdb);
    g_assert_cmphex(two[1], ==, 0x60);
    /* ...and a read without a register goes on from there */
    two[0] = 0xaa;
    g_assert_cmpint(iic_xfer(qts, IIC, read2 + 1, 1), ==, 0);
    g_assert_cmphex(two[0], ==, 0);     /* PRODUCT_REVISION */
    g_assert_cmphex(pmic_get(qts, PMIC_PRODUCT_REV), ==, two[0]);
    /* ...in writes too: VD09's AVS VIDs 0 and 1 in one transfer */
    {
        uint8_t vids[] = { PMIC_AVS_VD09_VID0, 80, 81 };
        Msg write = { PMIC_ADDR, false, vids, sizeof(vids) };

        g_assert_cmpint(iic_xfer(qts, IIC, &write, 1), ==, 0);
        g_assert_cmphex(pmic_get(qts, PMIC_AVS_VD09_VID0), ==, 80);
        g_assert_cmphex(pmic_get(qts, PMIC_AVS_VD09_VID0 + 1), ==, 81);
    }
    /* The codes are read-only */
    pmic_set(qts, PMIC_VENDOR_CODE, 0x12);
    g_assert_cmphex(pmic_get(qts, PMIC_VENDOR_CODE), ==, 0xdb);

    /*
     * regmap_add_irq_chip(): mask all, ack what is pending (no interrupt
     * source is modelled: nothing is, and the ack leaves it so)
     */
    pmic_set(qts, PMIC_INT_INTMASK, 0x5a);
    g_assert_cmphex(pmic_get(qts, PMIC_INT_INTMASK), ==, 0x5a);
    pmic_set(qts, PMIC_INT_INTMASK, 0xff);
    g_assert_cmphex(pmic_get(qts, PMIC_INT_INTMASK), ==, 0xff);
    g_assert_cmphex(pmic_get(qts, PMIC_INT_INTREQ), ==, 0);
    pmic_set(qts, PMIC_INT_INTREQ, 0xff);
    g_assert_cmphex(pmic_get(qts, PMIC_INT_INTREQ), ==, 0);

    /* VD18: 1.625 V + 7 * 25 mV */
    g_assert_cmphex(pmic_get(qts, PMIC_VD18_VID), ==, 7);
    g_assert_cmphex(pmic_get(qts, PMIC_DVFS_MONIVDAC), ==, 83);
    /* bd9571mwv_reg_set_voltage_sel_regmap(): 0.96 V for 1.7 GHz */
    pmic_set(qts, PMIC_DVFS_SETVID, 96);
    g_assert_cmphex(pmic_get(qts, PMIC_DVFS_SETVID), ==, 96);
    g_assert_cmphex(pmic_get(qts, PMIC_DVFS_MONIVDAC), ==, 96);
    /* The selector has 7 bits */
    pmic_set(qts, PMIC_DVFS_SETVID, 0x80 | 90);
    g_assert_cmphex(pmic_get(qts, PMIC_DVFS_MONIVDAC), ==, 90);

    /* A board reset puts the rail back at its boot voltage */
    qtest_system_reset(qts);
    g_assert_cmphex(pmic_get(qts, PMIC_DVFS_MONIVDAC), ==, 83);
    qtest_quit(qts);
}

/*
 * pca953x_probe() on Salvator-XS's PCA9654 (I2C4, 0x20): the first access
 * writes the polarity register; a NACK there is "failed writing register"
 */
static void test_gpio_expander(void)
{
    QTestState *qts = qtest_init(MACHINE);
    uint8_t polarity[] = { 2, 0 }, reg = 3, dir = 0;
    Msg write = { 0x20, false, polarity, sizeof(polarity) };
    Msg read_dir[] = {
        { 0x20, false, &reg, 1 },
        { 0x20, true, &dir, 1 },
    };
    uint64_t i2c4 = rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_I2C, 4);

    qtest_irq_intercept_out_named(qts, "/machine/soc/i2c4", "sysbus-irq");
    g_assert_cmpint(rcar_xfer(qts, i2c4, &write, 1), ==, 0);
    /* pca953x_gpio_get_direction(): all pins inputs at reset */
    g_assert_cmpint(rcar_xfer(qts, i2c4, read_dir, 2), ==, 0);
    g_assert_cmphex(dir, ==, 0xff);
    qtest_quit(qts);
}

#define GPIO_INDT   0x0c

/*
 * Ebisu's PCA9654 is on I2C0; its INT_N (GPIO2 22, level low to Linux)
 * reads high, also after a reset, since the model never pulls it.  The
 * ULCB has no expander: its I2C4 has nothing at 0x20.
 */
static void test_gpio_expander_other_boards(void)
{
    const RCarGen3TestMachine *e3 = &rcar_gen3_test_machines[2];
    QTestState *qts = qtest_init("-M r8a77990-ebisu -smp 1 ");
    uint8_t polarity[] = { 2, 0 };
    Msg write = { 0x20, false, polarity, sizeof(polarity) };
    uint64_t gpio2 = rcar_gen3_test_base(e3, RCAR_GEN3_GPIO, 2);

    g_assert_cmpstr(e3->name, ==, "r8a77990-ebisu");
    qtest_irq_intercept_out_named(qts, "/machine/soc/i2c0", "sysbus-irq");
    g_assert_cmpint(rcar_xfer(qts, rcar_gen3_test_base(e3, RCAR_GEN3_I2C, 0),
                              &write, 1), ==, 0);
    g_assert_cmphex(qtest_readl(qts, gpio2 + GPIO_INDT) & BIT(22), ==,
                    BIT(22));
    qtest_system_reset(qts);
    g_assert_cmphex(qtest_readl(qts, gpio2 + GPIO_INDT) & BIT(22), ==,
                    BIT(22));
    qtest_quit(qts);

    qts = qtest_init("-M r8a77951-ulcb -smp 1 -m 1G ");
    qtest_irq_intercept_out_named(qts, "/machine/soc/i2c4", "sysbus-irq");
    g_assert_cmpint(rcar_xfer(qts, rcar_gen3_test_base(RCAR_GEN3_H3,
                                                       RCAR_GEN3_I2C, 4),
                              &write, 1), ==, -ENXIO);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("rcar-i2c/empty-bus", test_i2c_empty_bus);
    qtest_add_func("rcar-i2c/eeprom", test_i2c_eeprom);
    qtest_add_func("rcar-i2c/module-reset", test_i2c_module_reset);
    qtest_add_func("rcar-iic/empty-bus", test_iic_empty_bus);
    qtest_add_func("rcar-iic/eeprom", test_iic_eeprom);
    qtest_add_func("rcar-iic/atomic", test_iic_atomic);
    qtest_add_func("rcar-iic/module-reset", test_iic_module_reset);
    qtest_add_func("rcar-iic/pmic", test_pmic);
    qtest_add_func("rcar-i2c/gpio-expander", test_gpio_expander);
    qtest_add_func("rcar-i2c/gpio-expander-other-boards",
                   test_gpio_expander_other_boards);
    qtest_add_func("rcar-iic/migrate-shift-register",
                   test_iic_migrate_shift_register);
    return g_test_run();
}
