/*
 * QTest for the Renesas R-Car Gen3 SDHI (SD/MMC host with internal DMAC)
 *
 * Each test drives the registers the way Linux 6.12's renesas_sdhi
 * driver does (drivers/mmc/host/tmio_mmc_core.c, renesas_sdhi_core.c,
 * renesas_sdhi_internal_dmac.c) and checks the result against the card
 * image and the SD/MMC protocol, not against the model.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qemu/bitops.h"
#include "qemu/units.h"
#include "qobject/qdict.h"

#define SDHI_BASE(n)        (0xee100000 + (n) * 0x20000)
#define SD_SLOT             0           /* SD card on SDHI0 */
#define EMPTY_SLOT          1           /* nothing on SDHI1 */
#define EMMC_SLOT           2           /* eMMC on SDHI2 */

#define SD_CMD              0x000
#define SD_ARG              0x010
#define SD_ARG1             0x018
#define SD_STOP             0x020
#define SD_SECCNT           0x028
#define SD_RSP10            0x030
#define SD_RSP(n)           (SD_RSP10 + (n) * 8)
#define SD_INFO1            0x070
#define SD_INFO2            0x078
#define SD_INFO1_MASK       0x080
#define SD_INFO2_MASK       0x088
#define SD_CLK_CTRL         0x090
#define SD_SIZE             0x098
#define SD_OPTION           0x0a0
#define SD_BUF0             0x0c0
#define CC_EXT_MODE         0x360
#define SOFT_RST            0x380
#define VERSION             0x388
#define DM_CM_DTRAN_MODE    0x820
#define DM_CM_DTRAN_CTRL    0x828
#define DM_CM_RST           0x830
#define DM_CM_INFO1         0x840
#define DM_CM_INFO1_MASK    0x848
#define DM_CM_INFO2         0x850
#define DM_CM_INFO2_MASK    0x858
#define DM_DTRAN_ADDR       0x880
#define SCC_DTCNTL          0x1000
#define SCC_TAPSET          0x1008
#define SCC_RVSREQ          0x1028
#define SCC_SMPCMP          0x1030

/* tmio_mmc.h:53-78 */
#define INFO1_RSPEND        BIT(0)
#define INFO1_ACCESSEND     BIT(2)
#define INFO1_CARD_REMOVE   BIT(3)
#define INFO1_SIGSTATE      BIT(5)
#define INFO2_DTO           BIT(3)
#define INFO2_RSPTO         BIT(6)
#define INFO2_DAT0          BIT(7)
#define INFO2_BRE           BIT(8)
#define INFO2_BWE           BIT(9)
#define INFO2_SCLKDIVEN     BIT(13)
#define INFO2_CBSY          BIT(14)
/* renesas_sdhi_internal_dmac.c:38-60 */
#define DTRANEND0           BIT(16)     /* CH0: write to the card */
#define DTRANEND1           BIT(20)     /* CH1: read from the card */
#define DTRANERR0           BIT(16)
#define DTRANERR1           BIT(17)
#define DTRAN_MODE_READ     0x00010031
#define DTRAN_MODE_WRITE    0x00000031
#define DMASDRW             BIT(1)

/* SD_CMD values built as tmio_mmc_start_command() does */
#define CMD_NORSP           0x0300
#define CMD_R1              0x0400
#define CMD_R1B             0x0500
#define CMD_R2              0x0600
#define CMD_R3              0x0700
#define CMD_DATA            0x0800
#define CMD_READ            0x1000
#define CMD_MULTI           0x2000
#define CMD_NO_CMD12        0x4000
#define SD_STOP_SEC         0x0100

/* R1 card status (SD spec 4.10.1) */
#define R1_ILLEGAL_COMMAND  BIT(22)
#define R1_STATE(r)         (((r) >> 9) & 0xf)
#define STATE_TRAN          4
#define STATE_DATA          5

#define BLKSZ               512
#define IMG_SIZE            (4 * MiB)
#define RAM_BUF             0x50000000ULL
#define SD_RCA              0x1234
#define EMMC_RCA            0x0001

static char sd_img[] = "/tmp/qtest-sdhi-sd-XXXXXX";
static char emmc_img[] = "/tmp/qtest-sdhi-emmc-XXXXXX";

/* Sector n of an image: recognisable bytes that differ per sector */
static uint8_t pattern(uint32_t sector, unsigned i, uint8_t seed)
{
    return (sector * 7 + i * 13 + seed) ^ (i >> 8);
}

static void make_image(char *path, uint8_t seed)
{
    int fd = mkstemp(path);
    g_autofree uint8_t *data = g_malloc(IMG_SIZE);

    g_assert_cmpint(fd, >=, 0);
    for (size_t off = 0; off < IMG_SIZE; off++) {
        data[off] = pattern(off / BLKSZ, off % BLKSZ, seed);
    }
    g_assert_cmpint(write(fd, data, IMG_SIZE), ==, IMG_SIZE);
    close(fd);
}

static void image_read(const char *path, uint32_t sector, void *buf,
                       size_t len)
{
    int fd = open(path, O_RDONLY);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(pread(fd, buf, len, (off_t)sector * BLKSZ), ==, len);
    close(fd);
}

static QTestState *sdhi_boot(void)
{
    return qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G "
                       "-drive if=sd,index=%d,file=%s,format=raw,id=sd0 "
                       "-drive if=sd,index=%d,file=%s,format=raw",
                       SD_SLOT, sd_img, EMMC_SLOT, emmc_img);
}

static uint16_t rd16(QTestState *qts, int slot, unsigned reg)
{
    return qtest_readw(qts, SDHI_BASE(slot) + reg);
}

static void wr16(QTestState *qts, int slot, unsigned reg, uint16_t val)
{
    qtest_writew(qts, SDHI_BASE(slot) + reg, val);
}

static uint32_t rd32(QTestState *qts, int slot, unsigned reg)
{
    return qtest_readl(qts, SDHI_BASE(slot) + reg);
}

static void wr32(QTestState *qts, int slot, unsigned reg, uint32_t val)
{
    qtest_writel(qts, SDHI_BASE(slot) + reg, val);
}

static uint64_t qom_get_uint(QTestState *qts, const char *path,
                             const char *prop)
{
    QDict *resp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                            "{ 'path': %s, 'property': %s } }", path, prop);
    uint64_t val;

    g_assert(qdict_haskey(resp, "return"));
    val = qdict_get_int(resp, "return");
    qobject_unref(resp);
    return val;
}

/* Run the model's timers until (INFO1 | INFO2 << 16) has one of @bits */
static uint32_t wait_status(QTestState *qts, int slot, uint32_t bits)
{
    uint32_t status = 0;

    for (int i = 0; i < 100000; i++) {
        status = rd16(qts, slot, SD_INFO1) |
                 (uint32_t)rd16(qts, slot, SD_INFO2) << 16;
        if (status & bits) {
            return status;
        }
        qtest_clock_step(qts, 100);
    }
    return status;
}

/* Acknowledge event bits the way the driver does: write 0 to them */
static void ack(QTestState *qts, int slot, uint32_t bits)
{
    wr16(qts, slot, SD_INFO1, ~bits);
    wr16(qts, slot, SD_INFO2, ~(bits >> 16));
}

/*
 * Issue a command; returns true on a response (RSPEND) with the R1/R3/R6
 * payload in *resp, false on a response timeout.
 */
static bool cmd(QTestState *qts, int slot, uint16_t sd_cmd, uint32_t arg,
                uint32_t *resp)
{
    uint32_t status;

    ack(qts, slot, 0xffffffff);
    g_assert_false(rd16(qts, slot, SD_INFO2) & INFO2_CBSY);
    wr16(qts, slot, SD_ARG, arg);
    wr16(qts, slot, SD_ARG1, arg >> 16);
    wr16(qts, slot, SD_CMD, sd_cmd);
    status = wait_status(qts, slot, INFO1_RSPEND | INFO2_RSPTO << 16);
    ack(qts, slot, INFO1_RSPEND | INFO2_RSPTO << 16);
    if (resp) {
        *resp = rd16(qts, slot, SD_RSP10) | rd16(qts, slot, SD_RSP(1)) << 16;
    }
    return status & INFO1_RSPEND;
}

static uint32_t cmd_ok(QTestState *qts, int slot, uint16_t sd_cmd,
                       uint32_t arg)
{
    uint32_t resp;

    g_assert_true(cmd(qts, slot, sd_cmd, arg, &resp));
    return resp;
}

/* SD card: idle -> transfer state (mmc_sd_init_card), RCA chosen by card */
static uint16_t sd_init_slot(QTestState *qts, int slot)
{
    uint32_t ocr = 0;
    uint16_t rca;

    g_assert_true(cmd(qts, slot, CMD_NORSP | 0, 0, NULL));
    g_assert_cmphex(cmd_ok(qts, slot, CMD_R1 | 8, 0x1aa) & 0xfff, ==, 0x1aa);
    for (int i = 0; i < 100 && !(ocr & BIT(31)); i++) {
        cmd_ok(qts, slot, CMD_R1 | 55, 0);
        ocr = cmd_ok(qts, slot, CMD_R3 | 41, 0x40ff8000);
        qtest_clock_step(qts, 1000000);
    }
    g_assert_true(ocr & BIT(31));
    cmd_ok(qts, slot, CMD_R2 | 2, 0);
    rca = cmd_ok(qts, slot, CMD_R1 | 3, 0) >> 16;
    cmd_ok(qts, slot, CMD_R1B | 7, rca << 16);
    cmd_ok(qts, slot, CMD_R1 | 16, BLKSZ);
    return rca;
}

static uint16_t sd_init(QTestState *qts)
{
    return sd_init_slot(qts, SD_SLOT);
}

/* eMMC: idle -> transfer state (mmc_init_card), RCA chosen by the host */
static void emmc_init(QTestState *qts)
{
    uint32_t ocr = 0;

    g_assert_true(cmd(qts, EMMC_SLOT, CMD_NORSP | 0, 0, NULL));
    for (int i = 0; i < 100 && !(ocr & BIT(31)); i++) {
        ocr = cmd_ok(qts, EMMC_SLOT, CMD_R3 | 1, 0x40ff8080);
        qtest_clock_step(qts, 1000000);
    }
    g_assert_true(ocr & BIT(31));
    cmd_ok(qts, EMMC_SLOT, CMD_R2 | 2, 0);
    cmd_ok(qts, EMMC_SLOT, CMD_R1 | 3, EMMC_RCA << 16);
    cmd_ok(qts, EMMC_SLOT, CMD_R1B | 7, EMMC_RCA << 16);
    cmd_ok(qts, EMMC_SLOT, CMD_R1 | 16, BLKSZ);
}

static uint32_t card_status(QTestState *qts, int slot, uint16_t rca)
{
    return cmd_ok(qts, slot, CMD_R1 | 13, rca << 16);
}

/* Small cards use byte addresses (standard capacity) */
static uint32_t card_addr(uint32_t sector)
{
    return sector * BLKSZ;
}

static uint16_t rw_cmd(bool read, uint32_t blocks)
{
    uint16_t c = CMD_R1 | CMD_DATA | (read ? CMD_READ : 0);

    if (blocks > 1) {
        c |= CMD_MULTI | (read ? 18 : 25);
    } else {
        c |= read ? 17 : 24;
    }
    return c;
}

static void setup_data(QTestState *qts, int slot, uint32_t blocks)
{
    wr16(qts, slot, SD_SIZE, BLKSZ);
    wr32(qts, slot, SD_SECCNT, blocks);
    if (blocks > 1) {
        wr16(qts, slot, SD_STOP, SD_STOP_SEC);
    }
}

/* PIO read as tmio_mmc_pio_irq() does: 16-bit reads of SD_BUF0 */
static void pio_read(QTestState *qts, int slot, uint32_t sector,
                     uint32_t blocks, uint8_t *out)
{
    setup_data(qts, slot, blocks);
    cmd_ok(qts, slot, rw_cmd(true, blocks), card_addr(sector));
    for (uint32_t b = 0; b < blocks; b++) {
        uint32_t status = wait_status(qts, slot, INFO2_BRE << 16);

        g_assert_true(status & (INFO2_BRE << 16));
        ack(qts, slot, INFO2_BRE << 16);
        for (int i = 0; i < BLKSZ; i += 2) {
            uint16_t v = rd16(qts, slot, SD_BUF0);

            out[b * BLKSZ + i] = v;
            out[b * BLKSZ + i + 1] = v >> 8;
        }
    }
    g_assert_true(wait_status(qts, slot, INFO1_ACCESSEND) & INFO1_ACCESSEND);
    ack(qts, slot, INFO1_ACCESSEND);
    wr16(qts, slot, SD_STOP, 0);
}

static void pio_write(QTestState *qts, int slot, uint32_t sector,
                      uint32_t blocks, const uint8_t *in)
{
    setup_data(qts, slot, blocks);
    cmd_ok(qts, slot, rw_cmd(false, blocks), card_addr(sector));
    for (uint32_t b = 0; b < blocks; b++) {
        uint32_t status = wait_status(qts, slot, INFO2_BWE << 16);

        g_assert_true(status & (INFO2_BWE << 16));
        ack(qts, slot, INFO2_BWE << 16);
        for (int i = 0; i < BLKSZ; i += 2) {
            wr16(qts, slot, SD_BUF0,
                 in[b * BLKSZ + i] | in[b * BLKSZ + i + 1] << 8);
        }
    }
    g_assert_true(wait_status(qts, slot, INFO1_ACCESSEND) & INFO1_ACCESSEND);
    ack(qts, slot, INFO1_ACCESSEND);
    wr16(qts, slot, SD_STOP, 0);
}

/* The DMA set-up of renesas_sdhi_internal_dmac_start_dma() */
static void dma_setup(QTestState *qts, int slot, bool read, uint64_t addr)
{
    wr32(qts, slot, DM_CM_INFO1_MASK, ~(uint32_t)(DTRANEND0 | DTRANEND1));
    wr16(qts, slot, CC_EXT_MODE, DMASDRW);
    wr32(qts, slot, DM_CM_DTRAN_MODE, read ? DTRAN_MODE_READ :
                                             DTRAN_MODE_WRITE);
    wr32(qts, slot, DM_DTRAN_ADDR, addr);
}

/*
 * A whole DMA transfer: command, RSPEND, DM_START, then ACCESSEND and
 * DTRANEND.  Returns DM_CM_INFO1 as it was at the end.
 */
static uint32_t dma_transfer(QTestState *qts, int slot, bool read,
                             uint32_t sector, uint32_t blocks, uint64_t addr,
                             uint16_t extra_cmd_bits)
{
    uint32_t info1;

    setup_data(qts, slot, blocks);
    dma_setup(qts, slot, read, addr);
    cmd_ok(qts, slot, rw_cmd(read, blocks) | extra_cmd_bits,
           card_addr(sector));
    /* No data before DM_START: the driver handles RSPEND first (T5) */
    g_assert_false(rd16(qts, slot, SD_INFO1) & INFO1_ACCESSEND);
    g_assert_false(rd16(qts, slot, SD_INFO2) & (INFO2_BRE | INFO2_BWE));
    wr32(qts, slot, DM_CM_DTRAN_CTRL, 1);
    g_assert_true(wait_status(qts, slot, INFO1_ACCESSEND) & INFO1_ACCESSEND);
    info1 = rd32(qts, slot, DM_CM_INFO1);
    /* tmio_mmc_data_irq() for a DMA write needs SCLKDIVEN already */
    g_assert_true(rd16(qts, slot, SD_INFO2) & INFO2_SCLKDIVEN);
    ack(qts, slot, INFO1_ACCESSEND);
    /* renesas_sdhi_internal_dmac_dma_irq(): status ^ dma_irqs */
    wr32(qts, slot, DM_CM_INFO1, info1 ^ (DTRANEND0 | DTRANEND1));
    /* renesas_sdhi_internal_dmac_enable_dma(false) */
    wr32(qts, slot, DM_CM_INFO1_MASK, 0xffffffff);
    wr16(qts, slot, CC_EXT_MODE, 0);
    wr16(qts, slot, SD_STOP, 0);
    return info1;
}

static void check_against_image(const char *img, uint32_t sector,
                                const uint8_t *data, uint32_t blocks)
{
    g_autofree uint8_t *expect = g_malloc(blocks * BLKSZ);

    image_read(img, sector, expect, blocks * BLKSZ);
    g_assert_cmpmem(data, blocks * BLKSZ, expect, blocks * BLKSZ);
}

static void test_reset_values(void)
{
    QTestState *qts = sdhi_boot();

    /* An idle bus: Linux's write hook polls these (sdhi.c:854-875) */
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_INFO2) &
                    (INFO2_SCLKDIVEN | INFO2_CBSY | INFO2_DAT0), ==,
                    INFO2_SCLKDIVEN | INFO2_DAT0);
    g_assert_cmphex(rd16(qts, SD_SLOT, VERSION), ==, 0xcc10);
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_INFO1_MASK), ==, 0x031d);
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_INFO2_MASK), ==, 0x8b7f);
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_SIZE), ==, 0x0200);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_RST), ==, 0xffffffff);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_INFO1_MASK), ==, 0xffffffff);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_INFO2_MASK), ==, 0xffffffff);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_INFO1), ==, 0);
    /* Card present and writable in the slot with a card, not elsewhere */
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_INFO1) & (INFO1_SIGSTATE | BIT(7)),
                    ==, INFO1_SIGSTATE | BIT(7));
    g_assert_false(rd16(qts, EMPTY_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    qtest_quit(qts);
}

static void test_status_write_semantics(void)
{
    QTestState *qts = sdhi_boot();

    wr16(qts, SD_SLOT, SD_ARG, 0);
    wr16(qts, SD_SLOT, SD_CMD, CMD_NORSP | 0);
    g_assert_true(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    /* Writing 1 never sets and never clears (the IRQ entry does this) */
    wr16(qts, SD_SLOT, SD_INFO1, 0xffff);
    g_assert_true(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    /* Writing 0 clears events, but not the card state bits (trap T1) */
    wr16(qts, SD_SLOT, SD_INFO1, 0);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    g_assert_true(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    wr16(qts, SD_SLOT, SD_INFO2, 0);
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_INFO2) &
                    (INFO2_SCLKDIVEN | INFO2_DAT0), ==,
                    INFO2_SCLKDIVEN | INFO2_DAT0);
    /* Writing 1 to a clear event bit does not set it */
    wr16(qts, SD_SLOT, SD_INFO2, INFO2_RSPTO | INFO2_BRE);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO2) & (INFO2_RSPTO | INFO2_BRE));
    /* VERSION is read-only */
    wr16(qts, SD_SLOT, VERSION, 0);
    g_assert_cmphex(rd16(qts, SD_SLOT, VERSION), ==, 0xcc10);
    qtest_quit(qts);
}

static void test_irq_masking(void)
{
    QTestState *qts = sdhi_boot();

    qtest_irq_intercept_out_named(qts, "/machine/soc/sdhi0", "sysbus-irq");
    /* State bits have mask bits Linux never sets: no IRQ from them (T2) */
    wr16(qts, SD_SLOT, SD_INFO1_MASK, 0);
    wr16(qts, SD_SLOT, SD_INFO2_MASK, 0);
    g_assert_false(qtest_get_irq(qts, 0));

    wr16(qts, SD_SLOT, SD_INFO1_MASK, 0x031d);
    wr16(qts, SD_SLOT, SD_INFO2_MASK, 0x8b7f);
    wr16(qts, SD_SLOT, SD_CMD, CMD_NORSP | 0);
    g_assert_true(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    g_assert_false(qtest_get_irq(qts, 0));
    /* TMIO_MASK_CMD unmasked: the pending RSPEND raises the line */
    wr16(qts, SD_SLOT, SD_INFO1_MASK, 0x031d & ~INFO1_RSPEND);
    g_assert_true(qtest_get_irq(qts, 0));
    ack(qts, SD_SLOT, INFO1_RSPEND);
    g_assert_false(qtest_get_irq(qts, 0));

    /* A response timeout is an interrupt source too */
    wr16(qts, SD_SLOT, SD_INFO2_MASK, 0x8b7f & ~INFO2_RSPTO);
    wr16(qts, SD_SLOT, SD_CMD, CMD_R1 | 13);
    g_assert_true(rd16(qts, SD_SLOT, SD_INFO2) & INFO2_RSPTO);
    g_assert_true(qtest_get_irq(qts, 0));
    ack(qts, SD_SLOT, INFO2_RSPTO << 16);
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_quit(qts);
}

static void test_sd_identification(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t cid[8], cid2[8];
    uint16_t rca;

    g_assert_true(cmd(qts, SD_SLOT, CMD_NORSP | 0, 0, NULL));
    cmd_ok(qts, SD_SLOT, CMD_R1 | 8, 0x1aa);
    cmd_ok(qts, SD_SLOT, CMD_R1 | 55, 0);
    cmd_ok(qts, SD_SLOT, CMD_R3 | 41, 0x40ff8000);
    cmd_ok(qts, SD_SLOT, CMD_R2 | 2, 0);
    for (int i = 0; i < 8; i++) {
        cid[i] = rd16(qts, SD_SLOT, SD_RSP(i));
    }
    /*
     * R2 goes in shifted right by 8 bits (the driver shifts it back,
     * core.c:585-589): CID[127:120] = MID and CID[119:104] = OID, which
     * QEMU's sd-card sets to 0xaa and "XY".
     */
    g_assert_cmphex(cid[7], ==, 0x00aa);
    g_assert_cmphex(cid[6], ==, ('X' << 8) | 'Y');
    rca = cmd_ok(qts, SD_SLOT, CMD_R1 | 3, 0) >> 16;
    g_assert_cmpuint(rca, !=, 0);
    /* SEND_CID in standby state returns the same register */
    cmd_ok(qts, SD_SLOT, CMD_R2 | 10, rca << 16);
    for (int i = 0; i < 8; i++) {
        cid2[i] = rd16(qts, SD_SLOT, SD_RSP(i));
    }
    g_assert_cmpmem(cid, sizeof(cid), cid2, sizeof(cid2));
    cmd_ok(qts, SD_SLOT, CMD_R1B | 7, rca << 16);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_no_card(void)
{
    QTestState *qts = sdhi_boot();

    /* mmc_rescan probes CMD52/CMD8/CMD55 on an empty slot: all time out */
    g_assert_false(cmd(qts, EMPTY_SLOT, CMD_R1 | 8, 0x1aa, NULL));
    g_assert_false(cmd(qts, EMPTY_SLOT, CMD_R1 | 55, 0, NULL));
    g_assert_false(rd16(qts, EMPTY_SLOT, SD_INFO2) & INFO2_CBSY);
    qtest_quit(qts);
}

static void test_pio_read(void)
{
    QTestState *qts = sdhi_boot();
    uint8_t data[4 * BLKSZ];
    uint16_t rca = sd_init(qts);

    pio_read(qts, SD_SLOT, 5, 1, data);
    check_against_image(sd_img, 5, data, 1);
    pio_read(qts, SD_SLOT, 100, 4, data);
    check_against_image(sd_img, 100, data, 4);
    /* Auto-CMD12 ended the open-ended read: back in transfer state */
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_pio_write(void)
{
    QTestState *qts = sdhi_boot();
    uint8_t data[4 * BLKSZ], back[4 * BLKSZ];
    uint16_t rca = sd_init(qts);

    for (int i = 0; i < sizeof(data); i++) {
        data[i] = 0xa5 ^ (i * 3);
    }
    pio_write(qts, SD_SLOT, 20, 1, data);
    pio_write(qts, SD_SLOT, 40, 4, data);
    check_against_image(sd_img, 20, data, 1);
    check_against_image(sd_img, 40, data, 4);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    /* And the card gives it back */
    pio_read(qts, SD_SLOT, 40, 4, back);
    g_assert_cmpmem(back, sizeof(back), data, sizeof(data));
    qtest_quit(qts);
}

static void dma_read_check(QTestState *qts, int slot, const char *img,
                           uint32_t sector, uint32_t blocks)
{
    g_autofree uint8_t *data = g_malloc(blocks * BLKSZ);
    uint32_t info1;

    info1 = dma_transfer(qts, slot, true, sector, blocks, RAM_BUF, 0);
    /* Reads end on CH1: DTRANEND1 is bit 20 on Gen3 (idmac.c:53-55) */
    g_assert_cmphex(info1 & (DTRANEND0 | DTRANEND1), ==, DTRANEND1);
    qtest_memread(qts, RAM_BUF, data, blocks * BLKSZ);
    check_against_image(img, sector, data, blocks);
}

static void dma_write_check(QTestState *qts, int slot, const char *img,
                            uint32_t sector, uint32_t blocks, uint8_t seed)
{
    g_autofree uint8_t *data = g_malloc(blocks * BLKSZ);
    uint32_t info1;

    for (uint32_t i = 0; i < blocks * BLKSZ; i++) {
        data[i] = pattern(i / BLKSZ, i % BLKSZ, seed);
    }
    qtest_memwrite(qts, RAM_BUF, data, blocks * BLKSZ);
    info1 = dma_transfer(qts, slot, false, sector, blocks, RAM_BUF, 0);
    g_assert_cmphex(info1 & (DTRANEND0 | DTRANEND1), ==, DTRANEND0);
    check_against_image(img, sector, data, blocks);
}

static void test_dma_read(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    dma_read_check(qts, SD_SLOT, sd_img, 3, 1);
    dma_read_check(qts, SD_SLOT, sd_img, 64, 8);
    dma_read_check(qts, SD_SLOT, sd_img, 2048, 2048);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    /* One DM_START each; the largest moved 1 MiB in one transfer */
    g_assert_cmpuint(qom_get_uint(qts, "/machine/soc/sdhi0",
                                       "dma-transfers"), ==, 3);
    g_assert_cmpuint(qom_get_uint(qts, "/machine/soc/sdhi0",
                                       "dma-bytes"), ==,
                     (1 + 8 + 2048) * BLKSZ);
    g_assert_cmpuint(qom_get_uint(qts, "/machine/soc/sdhi0",
                                       "dma-largest-transfer"), ==,
                     2048 * BLKSZ);
    g_assert_cmpuint(qom_get_uint(qts, "/machine/soc/sdhi0",
                                       "pio-blocks"), ==, 0);
    qtest_quit(qts);
}

static void test_dma_write(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    dma_write_check(qts, SD_SLOT, sd_img, 7, 1, 0x11);
    dma_write_check(qts, SD_SLOT, sd_img, 300, 8, 0x22);
    dma_write_check(qts, SD_SLOT, sd_img, 4096, 2048, 0x33);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_emmc_cmd23_dma(void)
{
    QTestState *qts = sdhi_boot();
    g_autofree uint8_t *data = g_malloc(16 * BLKSZ);
    uint32_t status;

    emmc_init(qts);
    /* CMD23 then CMD18 with NO_CMD12_ISSUE: the card counts the blocks */
    cmd_ok(qts, EMMC_SLOT, CMD_R1 | 23, 16);
    dma_transfer(qts, EMMC_SLOT, true, 1000, 16, RAM_BUF, CMD_NO_CMD12);
    qtest_memread(qts, RAM_BUF, data, 16 * BLKSZ);
    check_against_image(emmc_img, 1000, data, 16);
    /*
     * A CMD12 sent anyway would be illegal in the transfer state and show
     * up as ILLEGAL_COMMAND in the next R1 (trap T7).
     */
    status = card_status(qts, EMMC_SLOT, EMMC_RCA);
    g_assert_cmpuint(R1_STATE(status), ==, STATE_TRAN);
    g_assert_false(status & R1_ILLEGAL_COMMAND);
    qtest_quit(qts);
}

static void test_dma_fault(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    /* 0x30000000 is no RAM and no device on R-Car H3 */
    setup_data(qts, SD_SLOT, 8);
    dma_setup(qts, SD_SLOT, true, 0x30000000);
    cmd_ok(qts, SD_SLOT, rw_cmd(true, 8), card_addr(0));
    wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    for (int i = 0; i < 10; i++) {
        qtest_clock_step(qts, 100);
    }
    /* The DMAC reports it; nothing claims the transfer went well */
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_INFO2) & DTRANERR1, ==,
                    DTRANERR1);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_INFO1) &
                    (DTRANEND0 | DTRANEND1), ==, 0);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_ACCESSEND);
    /*
     * The bus is free again, and the stop command the transfer asked for
     * (no NO_CMD12_ISSUE) went out: the card is back in transfer state.
     */
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    wr32(qts, SD_SLOT, DM_CM_INFO2, 0);
    wr16(qts, SD_SLOT, CC_EXT_MODE, 0);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    /* And the next transfer works */
    dma_read_check(qts, SD_SLOT, sd_img, 8, 8);
    qtest_quit(qts);
}

static void test_dma_wrong_channel(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    /* A read command, but the DMAC set up for CH0 (memory to card) */
    setup_data(qts, SD_SLOT, 4);
    dma_setup(qts, SD_SLOT, false, RAM_BUF);
    cmd_ok(qts, SD_SLOT, rw_cmd(true, 4), card_addr(0));
    wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_INFO2) & (DTRANERR0 | DTRANERR1),
                    ==, DTRANERR0);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_INFO1) &
                    (DTRANEND0 | DTRANEND1), ==, 0);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_ACCESSEND);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_dma_address_alignment(void)
{
    QTestState *qts = sdhi_boot();

    /* The DMAC addresses 128-byte units: bits [6:0] do not exist */
    wr32(qts, SD_SLOT, DM_DTRAN_ADDR, 0x48000041);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_DTRAN_ADDR), ==, 0x48000000);
    wr32(qts, SD_SLOT, DM_DTRAN_ADDR, 0x48000080);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_DTRAN_ADDR), ==, 0x48000080);
    qtest_quit(qts);
}

static void test_busy_drops_commands(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);
    uint64_t commands;

    setup_data(qts, SD_SLOT, 4);
    dma_setup(qts, SD_SLOT, true, RAM_BUF);
    cmd_ok(qts, SD_SLOT, rw_cmd(true, 4), card_addr(0));
    /* Waiting for DM_START: the command sequence is still running */
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_INFO2) &
                    (INFO2_CBSY | INFO2_SCLKDIVEN), ==, INFO2_CBSY);
    commands = qom_get_uint(qts, "/machine/soc/sdhi0", "commands");
    wr16(qts, SD_SLOT, SD_ARG1, rca);
    wr16(qts, SD_SLOT, SD_CMD, CMD_R1 | 13);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    g_assert_cmpuint(qom_get_uint(qts, "/machine/soc/sdhi0", "commands"),
                     ==, commands);
    /* DM_CM_RST, as renesas_sdhi_internal_dmac_abort_dma() does */
    wr32(qts, SD_SLOT, DM_CM_RST, 0xfffffcff);
    wr32(qts, SD_SLOT, DM_CM_RST, 0xffffffff);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    cmd_ok(qts, SD_SLOT, CMD_R1B | 12, 0);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_soft_reset_mid_transfer(void)
{
    QTestState *qts = sdhi_boot();
    uint8_t data[4 * BLKSZ];
    uint16_t rca = sd_init(qts);

    setup_data(qts, SD_SLOT, 4);
    cmd_ok(qts, SD_SLOT, rw_cmd(true, 4), card_addr(8));
    g_assert_true(wait_status(qts, SD_SLOT, INFO2_BRE << 16) &
                  (INFO2_BRE << 16));
    rd16(qts, SD_SLOT, SD_BUF0);
    wr16(qts, SD_SLOT, SD_INFO1_MASK, 0);

    /* tmio_mmc_reset(): SOFT_RST 0 then 1 */
    wr16(qts, SD_SLOT, SOFT_RST, 0);
    wr16(qts, SD_SLOT, SOFT_RST, 1);
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_INFO1_MASK), ==, 0x031d);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO2) & (INFO2_CBSY | INFO2_BRE));
    for (int i = 0; i < 10; i++) {
        qtest_clock_step(qts, 100);
    }
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_ACCESSEND);

    /*
     * The card was not reset: it still has its RCA and is still sending
     * (a reset card would not answer CMD13 at all).
     */
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_DATA);
    cmd_ok(qts, SD_SLOT, CMD_R1B | 12, 0);
    pio_read(qts, SD_SLOT, 8, 4, data);
    check_against_image(sd_img, 8, data, 4);
    qtest_quit(qts);
}

static void test_sd_stop_ends_transfer(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    setup_data(qts, SD_SLOT, 8);
    cmd_ok(qts, SD_SLOT, rw_cmd(true, 8), card_addr(0));
    g_assert_true(wait_status(qts, SD_SLOT, INFO2_BRE << 16) &
                  (INFO2_BRE << 16));
    /* SD_STOP.STP in the middle: the host stops the card with CMD12 */
    wr16(qts, SD_SLOT, SD_STOP, SD_STOP_SEC | 1);
    g_assert_true(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_ACCESSEND);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    wr16(qts, SD_SLOT, SD_STOP, 0);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_device_sd_card_on_bus(void)
{
    QTestState *qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G "
                                  "-drive if=none,id=d3,file=%s,format=raw "
                                  "-device sd-card,drive=d3,bus=sdhi3.sd-bus",
                                  sd_img);
    uint8_t data[BLKSZ];

    /* The card sits on SDHI3, nowhere else */
    g_assert_true(rd16(qts, 3, SD_INFO1) & INFO1_SIGSTATE);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    sd_init_slot(qts, 3);
    pio_read(qts, 3, 9, 1, data);
    check_against_image(sd_img, 9, data, 1);
    qtest_quit(qts);
}

static void test_module_reset_keeps_card(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    wr32(qts, SD_SLOT, DM_CM_INFO1_MASK, 0);
    wr16(qts, SD_SLOT, SD_CLK_CTRL, 0x0100);
    qtest_set_irq_in(qts, "/machine/soc/sdhi0", "module-reset", 0, 1);
    qtest_set_irq_in(qts, "/machine/soc/sdhi0", "module-reset", 0, 0);
    g_assert_cmphex(rd32(qts, SD_SLOT, DM_CM_INFO1_MASK), ==, 0xffffffff);
    g_assert_cmphex(rd16(qts, SD_SLOT, SD_CLK_CTRL), ==, 0x0020);
    g_assert_cmpuint(R1_STATE(card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_scc(void)
{
    QTestState *qts = sdhi_boot();

    /* renesas_sdhi_init_tuning() reads TAPNUM back from DTCNTL */
    wr32(qts, EMMC_SLOT, SCC_DTCNTL, 1);
    g_assert_cmphex(rd32(qts, EMMC_SLOT, SCC_DTCNTL), ==, 0x00080001);
    wr32(qts, EMMC_SLOT, SCC_TAPSET, 5);
    g_assert_cmphex(rd32(qts, EMMC_SLOT, SCC_TAPSET), ==, 5);
    /* Nothing to correct: no retune request, samples match */
    g_assert_cmphex(rd32(qts, EMMC_SLOT, SCC_RVSREQ), ==, 0);
    g_assert_cmphex(rd32(qts, EMMC_SLOT, SCC_SMPCMP), ==, 0);
    qtest_quit(qts);
}

static void test_card_eject(void)
{
    QTestState *qts = sdhi_boot();
    QDict *resp;

    g_assert_true(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    resp = qtest_qmp(qts, "{ 'execute': 'eject',"
                     "  'arguments': { 'device': 'sd0', 'force': true } }");
    qobject_unref(resp);
    /* Native hot-plug: CARD_REMOVE and SIGSTATE low (core.c:631-648) */
    g_assert_true(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_CARD_REMOVE);
    g_assert_false(rd16(qts, SD_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    qtest_quit(qts);
}

/*
 * A guest puts the card in the receiving state with CMD25 given without
 * the data bit, then starts a write data phase with CMD13.  QEMU's card
 * would abort on the data (sd.c sd_write_byte()); the host must refuse
 * it with a data timeout instead.
 */
static void test_write_data_after_wrong_command(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);
    uint32_t status;

    setup_data(qts, SD_SLOT, 2);
    cmd_ok(qts, SD_SLOT, CMD_R1 | 25, card_addr(0));
    cmd_ok(qts, SD_SLOT, CMD_R1 | CMD_DATA | 13, rca << 16);
    status = wait_status(qts, SD_SLOT, INFO1_ACCESSEND | INFO2_BWE << 16);
    g_assert_cmphex(status & (INFO1_ACCESSEND | (INFO2_DTO | INFO2_BWE) << 16),
                    ==, INFO1_ACCESSEND | INFO2_DTO << 16);
    for (int i = 0; i < BLKSZ; i += 2) {
        wr16(qts, SD_SLOT, SD_BUF0, 0xdead);
    }
    qtest_clock_step(qts, 1000);
    /* Still alive, and the card still answers */
    card_status(qts, SD_SLOT, rca);
    qtest_quit(qts);
}

/*
 * Random accesses all over the window, with commands and DMA starts
 * among them: QEMU must neither abort nor hang (the guest is hostile).
 */
static void test_random_accesses(void)
{
    QTestState *qts = sdhi_boot();
    static const unsigned hot[] = {
        SD_CMD, SD_ARG, SD_ARG1, SD_STOP, SD_SECCNT, SD_INFO1, SD_INFO2,
        SD_SIZE, SD_BUF0, CC_EXT_MODE, SOFT_RST, DM_CM_DTRAN_MODE,
        DM_CM_DTRAN_CTRL, DM_CM_RST, DM_DTRAN_ADDR, SCC_DTCNTL,
    };
    GRand *rand = g_rand_new_with_seed(0x5d41);

    sd_init(qts);
    emmc_init(qts);
    for (int i = 0; i < 20000; i++) {
        int slot = g_rand_int_range(rand, 0, 4);
        unsigned off = g_rand_boolean(rand) ?
                       hot[g_rand_int_range(rand, 0, ARRAY_SIZE(hot))] :
                       g_rand_int_range(rand, 0, 0x2000) & ~1;
        uint32_t val = g_rand_int(rand);

        if (off == DM_DTRAN_ADDR && g_rand_boolean(rand)) {
            /* Mostly RAM, sometimes holes */
            val = 0x48000000 + (val & 0x0fffff80);
        }
        if (off == SD_SECCNT) {
            val &= 0x3ff;
        }
        switch (g_rand_int_range(rand, 0, 4)) {
        case 0:
            rd16(qts, slot, off);
            break;
        case 1:
            wr32(qts, slot, off & ~3, val);
            break;
        default:
            wr16(qts, slot, off, val);
            break;
        }
        if (!(i % 16)) {
            qtest_clock_step(qts, 1000);
        }
    }
    g_rand_free(rand);
    /* Alive and decoding */
    g_assert_cmphex(rd16(qts, SD_SLOT, VERSION), ==, 0xcc10);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    int ret;

    make_image(sd_img, 0x5d);
    make_image(emmc_img, 0xec);
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/renesas-sdhi/reset-values", test_reset_values);
    qtest_add_func("/renesas-sdhi/status-write-semantics",
                   test_status_write_semantics);
    qtest_add_func("/renesas-sdhi/irq-masking", test_irq_masking);
    qtest_add_func("/renesas-sdhi/sd-identification", test_sd_identification);
    qtest_add_func("/renesas-sdhi/no-card", test_no_card);
    qtest_add_func("/renesas-sdhi/pio-read", test_pio_read);
    qtest_add_func("/renesas-sdhi/pio-write", test_pio_write);
    qtest_add_func("/renesas-sdhi/dma-read", test_dma_read);
    qtest_add_func("/renesas-sdhi/dma-write", test_dma_write);
    qtest_add_func("/renesas-sdhi/emmc-cmd23-dma", test_emmc_cmd23_dma);
    qtest_add_func("/renesas-sdhi/dma-fault", test_dma_fault);
    qtest_add_func("/renesas-sdhi/dma-wrong-channel", test_dma_wrong_channel);
    qtest_add_func("/renesas-sdhi/dma-address-alignment",
                   test_dma_address_alignment);
    qtest_add_func("/renesas-sdhi/busy-drops-commands",
                   test_busy_drops_commands);
    qtest_add_func("/renesas-sdhi/soft-reset-mid-transfer",
                   test_soft_reset_mid_transfer);
    qtest_add_func("/renesas-sdhi/sd-stop-ends-transfer",
                   test_sd_stop_ends_transfer);
    qtest_add_func("/renesas-sdhi/device-sd-card-on-bus",
                   test_device_sd_card_on_bus);
    qtest_add_func("/renesas-sdhi/module-reset-keeps-card",
                   test_module_reset_keeps_card);
    qtest_add_func("/renesas-sdhi/scc", test_scc);
    qtest_add_func("/renesas-sdhi/card-eject", test_card_eject);
    qtest_add_func("/renesas-sdhi/write-data-after-wrong-command",
                   test_write_data_after_wrong_command);
    qtest_add_func("/renesas-sdhi/random-accesses", test_random_accesses);

    ret = g_test_run();
    unlink(sd_img);
    unlink(emmc_img);
    return ret;
}
