/*
 * QTest for the Renesas R-Car Gen3 EtherAVB and its KSZ9031 PHY on
 * r8a77951-salvator-xs
 *
 * What Linux 6.12's ravb driver relies on: CSR.OPS following CCC.OPC
 * (ravb_set_opmode()), MAHR/MALR holding the boot loader's address
 * (ravb_read_mac_address()), MDIO bit-banged through PIR as
 * mdio-bitbang.c does it to the PHY at address 0 (salvator-common.dtsi),
 * the PHY's INT_N on GPIO2 11, one frame out and one frame in through the
 * descriptor rings of ravb_ring_format() with their interrupt lines, the
 * RX checksum trailer of ravb_rx_csum(), descriptor chains a guest
 * could get wrong, and a TX run migrated half way.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "rcar-gen3-machines.h"
#include "qemu/bitops.h"
#include "qemu/bswap.h"
#include "qemu/iov.h"
#include "qemu/sockets.h"

#define AVB         rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_AVB, 0)
#define GPIO2       rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_GPIO, 2)
#define GPIO_INDT   0x0c
#define PHY_INT_PIN 11

/* ravb.h */
#define CCC         0x000
#define DBAT        0x004
#define CSR         0x00c
#define TCCR        0x304
#define RIC0        0x360
#define RIS0        0x364
#define TIC         0x378
#define TIS         0x37c
#define RIE0        0x460
#define RID0        0x464
#define ECMR        0x500
#define RFLR        0x508
#define PIR         0x520
#define MAHR        0x5c0
#define MALR        0x5c8
#define ECMR_VAL    0x00880062  /* ZPF | RCSC | RE | TE | DM */
#define PIR_MDC     BIT(0)
#define PIR_MMD     BIT(1)
#define PIR_MDO     BIT(2)
#define PIR_MDI     BIT(3)

/* Descriptor types */
#define DT_FSINGLE  0x70
#define DT_LINKFIX  0x90
#define DT_EOS      0xa0
#define DT_FEMPTY   0xc0
#define DT_EEMPTY   0x30

/* Where the test puts the table, rings and buffers: the board's RAM */
#define RAM         0x48000000ull
#define TABLE       (RAM + 0x1000)
#define TX_RING     (RAM + 0x2000)
#define RX_RING     (RAM + 0x3000)
#define TX_BUF      (RAM + 0x4000)
#define RX_BUF      (RAM + 0x5000)
#define RX_BUF_SIZE 2046

#define MAC         "02:11:22:33:44:55"

/* Interrupt lines of the AVB ("chN") */
#define IRQ_RX_BE   0
#define IRQ_TX_BE   18

typedef struct AVBTest {
    QTestState *qts;
    int sock;                   /* the other end of the -nic socket */
} AVBTest;

static uint32_t avb_rd(AVBTest *t, unsigned reg)
{
    return qtest_readl(t->qts, AVB + reg);
}

static void avb_wr(AVBTest *t, unsigned reg, uint32_t val)
{
    qtest_writel(t->qts, AVB + reg, val);
}

static void avb_start_with(AVBTest *t, const char *extra)
{
    int sv[2];

    g_assert_cmpint(socketpair(PF_UNIX, SOCK_STREAM, 0, sv), ==, 0);
    t->qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G "
                         "-nic socket,fd=%d,mac=" MAC " %s", sv[1], extra);
    close(sv[1]);
    t->sock = sv[0];
    qtest_irq_intercept_out_named(t->qts, "/machine/soc/avb", "sysbus-irq");
}

static void avb_start(AVBTest *t)
{
    avb_start_with(t, "");
}

static void avb_stop(AVBTest *t)
{
    close(t->sock);
    qtest_quit(t->qts);
}

/* ravb_set_opmode(): CCC.OPC, then CSR.OPS must say 1 << OPC */
static void test_opmode(void)
{
    AVBTest t;

    avb_start(&t);
    g_assert_cmphex(avb_rd(&t, CSR) & 0xf, ==, 1);
    for (unsigned opc = 1; opc <= 3; opc++) {
        avb_wr(&t, CCC, 0x10080 | opc);
        g_assert_cmphex(avb_rd(&t, CSR) & 0xf, ==, 1 << opc);
    }
    avb_wr(&t, CCC, 0);
    g_assert_cmphex(avb_rd(&t, CSR) & 0xf, ==, 1);
    /* ravb_read_mac_address(): byte 0 in MAHR's top byte */
    g_assert_cmphex(avb_rd(&t, MAHR), ==, 0x02112233);
    g_assert_cmphex(avb_rd(&t, MALR), ==, 0x4455);
    avb_stop(&t);
}

/* mdio-bitbang.c through ravb_mdio_ctrl(): one bit, PIR RMW per line */
static void mdio_send_bit(AVBTest *t, int bit)
{
    uint32_t pir = PIR_MMD | (bit ? PIR_MDO : 0);

    avb_wr(t, PIR, pir);
    avb_wr(t, PIR, pir | PIR_MDC);
    avb_wr(t, PIR, pir);
}

static int mdio_get_bit(AVBTest *t)
{
    avb_wr(t, PIR, PIR_MDC);
    avb_wr(t, PIR, 0);
    return !!(avb_rd(t, PIR) & PIR_MDI);
}

static void mdio_send_num(AVBTest *t, uint32_t val, int bits)
{
    for (int i = bits - 1; i >= 0; i--) {
        mdio_send_bit(t, (val >> i) & 1);
    }
}

static void mdio_cmd(AVBTest *t, int op, int phy, int reg)
{
    for (int i = 0; i < 32; i++) {
        mdio_send_bit(t, 1);
    }
    mdio_send_num(t, 1, 2);             /* ST 01 */
    mdio_send_num(t, op, 2);
    mdio_send_num(t, phy, 5);
    mdio_send_num(t, reg, 5);
}

/* mdiobb_read(): 0xffff when no PHY drives the turnaround's 0 */
static int mdio_read(AVBTest *t, int phy, int reg)
{
    int val = 0;

    mdio_cmd(t, 2, phy, reg);
    avb_wr(t, PIR, 0);                  /* the PHY drives MDIO */
    if (mdio_get_bit(t) != 0) {
        for (int i = 0; i < 32; i++) {
            mdio_get_bit(t);
        }
        return 0xffff;
    }
    for (int i = 0; i < 16; i++) {
        val = val << 1 | mdio_get_bit(t);
    }
    mdio_get_bit(t);
    return val;
}

static void mdio_write(AVBTest *t, int phy, int reg, uint16_t val)
{
    mdio_cmd(t, 1, phy, reg);
    mdio_send_num(t, 2, 2);             /* TA 10 */
    mdio_send_num(t, val, 16);
    avb_wr(t, PIR, 0);
    mdio_get_bit(t);
}

static bool phy_int_asserted(AVBTest *t)
{
    /* salvator-common.dtsi: interrupts = <11 IRQ_TYPE_LEVEL_LOW> */
    return !(qtest_readl(t->qts, GPIO2 + GPIO_INDT) & BIT(PHY_INT_PIN));
}

static void set_link(AVBTest *t, bool up)
{
    qtest_qmp_assert_success(t->qts, "{ 'execute': 'set_link', 'arguments':"
                             " { 'name': 'rcar-avb.0', 'up': %i } }", up);
}

static void test_mdio_phy(void)
{
    AVBTest t;

    avb_start(&t);
    /* PHY_ID_KSZ9031 0x00221620 with micrel.c's mask 0x00fffff0 */
    g_assert_cmphex(mdio_read(&t, 0, 2), ==, 0x0022);
    g_assert_cmphex(mdio_read(&t, 0, 3) & 0xfff0, ==, 0x1620);
    g_assert_cmphex(mdio_read(&t, 1, 2), ==, 0xffff);
    /* genphy_soft_reset() polls BMCR.RESET to clear */
    mdio_write(&t, 0, 0, 0x9140);
    g_assert_cmphex(mdio_read(&t, 0, 0) & 0x8200, ==, 0);
    g_assert_cmphex(mdio_read(&t, 0, 1) & 0x24, ==, 0x24);
    mdio_write(&t, 0, 4, 0x0101);
    g_assert_cmphex(mdio_read(&t, 0, 4), ==, 0x0101);
    /* ksz9031_read_status(): the idle error count must not be 0xff */
    g_assert_cmphex(mdio_read(&t, 0, 10) & 0xff, !=, 0xff);
    /* An MMD register through 13/14, as phy_write_mmd() does */
    mdio_write(&t, 0, 13, 2);
    mdio_write(&t, 0, 14, 8);
    mdio_write(&t, 0, 13, 0x4002);
    mdio_write(&t, 0, 14, 0x01f9);
    mdio_write(&t, 0, 13, 2);
    mdio_write(&t, 0, 14, 8);
    mdio_write(&t, 0, 13, 0x4002);
    g_assert_cmphex(mdio_read(&t, 0, 14), ==, 0x01f9);

    /* kszphy_config_intr(): active low, link up and down enabled */
    mdio_write(&t, 0, 0x1f, mdio_read(&t, 0, 0x1f) & ~BIT(14));
    mdio_read(&t, 0, 0x1b);
    mdio_write(&t, 0, 0x1b, 0x0500);
    g_assert_false(phy_int_asserted(&t));
    set_link(&t, false);
    g_assert_true(phy_int_asserted(&t));
    /* kszphy_handle_interrupt(): reading 0x1b clears it */
    g_assert_cmphex(mdio_read(&t, 0, 0x1b) & 0x5, ==, 0x4);
    g_assert_false(phy_int_asserted(&t));
    set_link(&t, true);
    g_assert_true(phy_int_asserted(&t));
    g_assert_cmphex(mdio_read(&t, 0, 0x1b) & 0x5, ==, 0x1);
    /* Link status latches low: the first read after a drop says down */
    g_assert_cmphex(mdio_read(&t, 0, 1) & 0x4, ==, 0);
    g_assert_cmphex(mdio_read(&t, 0, 1) & 0x4, ==, 0x4);
    avb_stop(&t);
}

static void put_desc(AVBTest *t, uint64_t addr, uint16_t ds, uint8_t die_dt,
                     uint32_t dptr)
{
    uint8_t d[8];

    stw_le_p(d, ds);
    d[2] = 0;
    d[3] = die_dt;
    stl_le_p(d + 4, dptr);
    qtest_memwrite(t->qts, addr, d, sizeof(d));
}

/*
 * ravb_ring_format() and ravb_dmac_init() for one TX and one RX slot of
 * the best-effort queues: DBAT[0] and DBAT[4] link to the rings, each
 * ring ends in a LINKFIX back to its start
 */
static void avb_open(AVBTest *t)
{
    for (unsigned i = 0; i < 22; i++) {
        put_desc(t, TABLE + 8 * i, 0, DT_EOS, 0);
    }
    put_desc(t, TABLE + 8 * 0, 0, DT_LINKFIX, TX_RING);
    put_desc(t, TABLE + 8 * 4, 0, DT_LINKFIX, RX_RING);
    put_desc(t, TX_RING, 0, DT_EEMPTY, 0);
    put_desc(t, TX_RING + 8, 0, DT_LINKFIX, TX_RING);
    qtest_memset(t->qts, RX_RING, 0, 40);
    put_desc(t, RX_RING, RX_BUF_SIZE, DT_FEMPTY, RX_BUF);
    put_desc(t, RX_RING + 20, 0, DT_LINKFIX, RX_RING);

    avb_wr(t, CCC, 0x10081);
    avb_wr(t, DBAT, TABLE);
    avb_wr(t, RIC0, 3);
    avb_wr(t, TIC, 0x103);
    avb_wr(t, CCC, 0x10082);
    g_assert_cmphex(avb_rd(t, CSR) & 0xf, ==, 4);
    avb_wr(t, RFLR, 2052);
    avb_wr(t, ECMR, ECMR_VAL);
}

/* Wait for the TX bottom half to empty queue 0 */
static void wait_tx_done(AVBTest *t)
{
    for (int i = 0; i < 1000 && (avb_rd(t, TCCR) & 1); i++) {
        qtest_clock_step(t->qts, 1000);
    }
    g_assert_cmphex(avb_rd(t, TCCR) & 1, ==, 0);
}

static uint8_t desc_dt(AVBTest *t, uint64_t addr)
{
    return qtest_readb(t->qts, addr + 3);
}

/* The 16-bit one's complement sum after the Ethernet header, unfolded */
static uint16_t ones_sum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;

    for (size_t i = 14; i < len; i += 2) {
        sum += p[i] << 8 | (i + 1 < len ? p[i + 1] : 0);
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

static void test_tx_rx(void)
{
    static const uint8_t dst[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
    uint8_t frame[98], got[128];
    uint32_t len_be;
    AVBTest t;

    for (unsigned i = 0; i < sizeof(frame); i++) {
        frame[i] = i * 7 + 3;
    }
    memcpy(frame, dst, sizeof(dst));
    avb_start(&t);
    avb_open(&t);

    /* One frame out: FSINGLE, TSRQ0; FEMPTY back, TIS.FTF0 on ch18 */
    qtest_memwrite(t.qts, TX_BUF, frame, sizeof(frame));
    put_desc(&t, TX_RING, sizeof(frame), DT_FSINGLE, TX_BUF);
    avb_wr(&t, TCCR, 0x101);
    wait_tx_done(&t);
    g_assert_cmphex(desc_dt(&t, TX_RING), ==, DT_FEMPTY);
    g_assert_cmphex(avb_rd(&t, TIS) & 1, ==, 1);
    g_assert_true(qtest_get_irq(t.qts, IRQ_TX_BE));
    g_assert_cmpint(recv(t.sock, &len_be, 4, MSG_WAITALL), ==, 4);
    g_assert_cmpint(be32_to_cpu(len_be), ==, sizeof(frame));
    g_assert_cmpint(recv(t.sock, got, sizeof(frame), MSG_WAITALL), ==,
                    sizeof(frame));
    g_assert_cmpmem(got, sizeof(frame), frame, sizeof(frame));
    avb_wr(&t, TIS, ~1u);
    g_assert_false(qtest_get_irq(t.qts, IRQ_TX_BE));

    /* One frame in: FSINGLE with the frame and the checksum trailer */
    frame[20] ^= 0xff;
    len_be = cpu_to_be32(sizeof(frame));
    g_assert_cmpint(send(t.sock, &len_be, 4, 0), ==, 4);
    g_assert_cmpint(send(t.sock, frame, sizeof(frame), 0), ==, sizeof(frame));
    for (int i = 0; i < 1000 && desc_dt(&t, RX_RING) == DT_FEMPTY; i++) {
        qtest_clock_step(t.qts, 1000);
    }
    g_assert_cmphex(desc_dt(&t, RX_RING), ==, DT_FSINGLE);
    g_assert_cmpint(qtest_readw(t.qts, RX_RING) & 0xfff, ==,
                    sizeof(frame) + 2);
    qtest_memread(t.qts, RX_BUF, got, sizeof(frame) + 2);
    g_assert_cmpmem(got, sizeof(frame), frame, sizeof(frame));
    g_assert_cmphex(lduw_be_p(got + sizeof(frame)), ==,
                    ones_sum(frame, sizeof(frame)));
    g_assert_cmphex(avb_rd(&t, RIS0) & 1, ==, 1);
    g_assert_true(qtest_get_irq(t.qts, IRQ_RX_BE));
    /* ravb_queue_interrupt() masks the queue: the line falls */
    avb_wr(&t, RID0, 1);
    g_assert_false(qtest_get_irq(t.qts, IRQ_RX_BE));
    g_assert_cmphex(avb_rd(&t, RIC0), ==, 2);

    /*
     * A frame with the ring full waits in QEMU's queue; the guest gives
     * the descriptor back without a register write, as U-Boot does, and
     * the DMAC finds it on its next look (1 ms)
     */
    avb_wr(&t, RIE0, 1);
    avb_wr(&t, RIS0, ~1u);
    frame[20] ^= 0x55;
    g_assert_cmpint(send(t.sock, &len_be, 4, 0), ==, 4);
    g_assert_cmpint(send(t.sock, frame, sizeof(frame), 0), ==, sizeof(frame));
    for (int i = 0; i < 100; i++) {
        qtest_clock_step(t.qts, 10000);
    }
    g_assert_cmphex(avb_rd(&t, RIS0) & 1, ==, 0);
    put_desc(&t, RX_RING, RX_BUF_SIZE, DT_FEMPTY, RX_BUF);
    for (int i = 0; i < 1000 && desc_dt(&t, RX_RING) == DT_FEMPTY; i++) {
        qtest_clock_step(t.qts, 10000);
    }
    g_assert_cmphex(desc_dt(&t, RX_RING), ==, DT_FSINGLE);
    qtest_memread(t.qts, RX_BUF, got, sizeof(frame));
    g_assert_cmpmem(got, sizeof(frame), frame, sizeof(frame));

    /* Close: reset mode stops both directions and clears the status */
    avb_wr(&t, CCC, 0x10081);
    avb_wr(&t, CCC, 0x10080);
    g_assert_cmphex(avb_rd(&t, RIS0) | avb_rd(&t, TIS), ==, 0);
    avb_stop(&t);
}

/*
 * Back to config mode and into operation, so that TX queue 0 starts from
 * the table again (avb_open()'s DBAT), and send what it holds
 */
static void restart_tx(AVBTest *t)
{
    avb_wr(t, CCC, 0x10081);
    avb_wr(t, CCC, 0x10082);
    avb_wr(t, TCCR, 0x101);
    wait_tx_done(t);
}

/*
 * The next frame the guest sent on the -nic socket, of @len bytes; its
 * first byte.  The RARP frames that QEMU announces a migrated NIC with
 * (qemu_announce_self()) are not the guest's.
 */
static uint8_t recv_frame(AVBTest *t, unsigned len)
{
    uint8_t buf[RX_BUF_SIZE];
    uint32_t len_be, got;

    do {
        g_assert_cmpint(recv(t->sock, &len_be, 4, MSG_WAITALL), ==, 4);
        got = be32_to_cpu(len_be);
        g_assert_cmpint(got, <=, sizeof(buf));
        g_assert_cmpint(recv(t->sock, buf, got, MSG_WAITALL), ==, got);
    } while (got >= 14 && lduw_be_p(buf + 12) == 0x8035);
    g_assert_cmpint(got, ==, len);
    return buf[0];
}

static bool socket_idle(AVBTest *t)
{
    uint8_t c;

    return recv(t->sock, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

/*
 * A guest's broken chains: a LINKFIX to itself, a buffer in MMIO, a frame
 * longer than the DMAC takes.  Each ends the queue; QEMU goes on.
 */
static void test_bad_chains(void)
{
    AVBTest t;

    avb_start(&t);
    avb_open(&t);
    put_desc(&t, TX_RING, 0, DT_LINKFIX, TX_RING);
    avb_wr(&t, TCCR, 0x101);
    wait_tx_done(&t);

    put_desc(&t, TX_RING, 64, DT_FSINGLE, AVB);
    restart_tx(&t);

    put_desc(&t, TX_RING, 0xfff, DT_FSINGLE, TX_BUF);
    restart_tx(&t);
    g_assert_cmphex(desc_dt(&t, TX_RING), ==, DT_FEMPTY);

    /*
     * A frame of more descriptors than the DMAC takes (FSTART, 100 FMID,
     * FEND) is dropped: each descriptor comes back empty, nothing is sent
     */
    put_desc(&t, RAM + 0x20000, 60, 0x50, TX_BUF);
    for (unsigned i = 1; i <= 100; i++) {
        put_desc(&t, RAM + 0x20000 + 8 * i, 0, 0x40, TX_BUF);
    }
    put_desc(&t, RAM + 0x20000 + 8 * 101, 0, 0x60, TX_BUF);
    put_desc(&t, RAM + 0x20000 + 8 * 102, 0, DT_EEMPTY, 0);
    put_desc(&t, TX_RING, 0, DT_LINKFIX, RAM + 0x20000);
    restart_tx(&t);
    for (unsigned i = 0; i <= 101; i++) {
        g_assert_cmphex(desc_dt(&t, RAM + 0x20000 + 8 * i), ==, DT_FEMPTY);
    }
    g_assert_true(socket_idle(&t));

    /* The device still works: CSR follows CCC */
    avb_wr(&t, CCC, 0x10080);
    g_assert_cmphex(avb_rd(&t, CSR) & 0xf, ==, 1);
    avb_stop(&t);
}

#define MIG_FRAMES      300
#define MIG_FRAME_LEN   60
#define MIG_BUFS        (RAM + 0x10000)
#define TX_BUDGET       256     /* descriptors a run of the TX BH takes */

/*
 * Migrated in the middle of a TX run: the bottom half has sent its 256
 * frames and left the rest to its timer.  The destination sends the other
 * 44 when its clock gets there, each once, in order.
 */
static void test_migrate_mid_tx(void)
{
    g_autofree char *path = g_strdup_printf("%s/avb-mig-%d",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    uint8_t frame[MIG_FRAME_LEN];
    AVBTest src, dst;
    int64_t now;

    avb_start(&src);
    avb_open(&src);
    for (unsigned i = 0; i < MIG_FRAMES; i++) {
        memset(frame, i, sizeof(frame));
        qtest_memwrite(src.qts, MIG_BUFS + i * 64, frame, sizeof(frame));
        put_desc(&src, TX_RING + 8 * i, sizeof(frame), DT_FSINGLE,
                 MIG_BUFS + i * 64);
    }
    put_desc(&src, TX_RING + 8 * MIG_FRAMES, 0, DT_LINKFIX, TX_RING);
    avb_wr(&src, TCCR, 0x101);
    for (unsigned i = 0; i < TX_BUDGET; i++) {
        g_assert_cmpint(recv_frame(&src, sizeof(frame)), ==, (uint8_t)i);
    }
    g_assert_true(socket_idle(&src));
    g_assert_cmphex(avb_rd(&src, TCCR) & 1, ==, 1);

    qtest_qmp_assert_success(src.qts, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    rcar_gen3_wait_migration(src.qts, "completed");
    /* qtest's clock is not in the stream (see renesas-sdhi-async-test.c) */
    now = qtest_clock_step(src.qts, 1) - 1;
    avb_stop(&src);
    avb_start_with(&dst, "-incoming defer");
    g_assert_cmpint(qtest_clock_set(dst.qts, now), ==, now);
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    rcar_gen3_wait_migration(dst.qts, "completed");
    unlink(path);

    wait_tx_done(&dst);
    for (unsigned i = TX_BUDGET; i < MIG_FRAMES; i++) {
        g_assert_cmpint(recv_frame(&dst, sizeof(frame)), ==, (uint8_t)i);
    }
    for (unsigned i = 0; i < MIG_FRAMES; i++) {
        g_assert_cmphex(desc_dt(&dst, TX_RING + 8 * i), ==, DT_FEMPTY);
    }
    avb_stop(&dst);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/rcar-avb/opmode", test_opmode);
    qtest_add_func("/rcar-avb/mdio-phy", test_mdio_phy);
    qtest_add_func("/rcar-avb/tx-rx", test_tx_rx);
    qtest_add_func("/rcar-avb/bad-chains", test_bad_chains);
    qtest_add_func("/rcar-avb/migrate-mid-tx", test_migrate_mid_tx);
    return g_test_run();
}
