/*
 * QTest for eMMC HS200/HS400 on the Renesas R-Car Gen3 SDHI: the eMMC 5.1
 * card (EXT_CSD, SWITCH, CMD21) and the SDHI's sampling clock controller
 * (SCC) that Linux 6.12 tunes (drivers/mmc/host/renesas_sdhi_core.c).
 *
 * The expected values come from JESD84-B51 (EXT_CSD fields, the tuning
 * block, which bus widths go with which timing) and from what the Linux
 * driver reads back, not from the model.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qemu/bitops.h"
#include "renesas-sdhi-util.h"

#define SCC_DT2FF           0x1010
#define SCC_CKSEL           0x1018
#define SCC_RVSCNTL         0x1020
#define SCC_TMPPORT4        0x1058
#define SCC_TMPPORT5        0x1060
#define SCC_TMPPORT6        0x1068
#define SCC_TMPPORT7        0x1070
#define SDIF_MODE           0x398

#define DTCNTL_TAPEN        BIT(0)
#define CKSEL_DTSEL         BIT(0)
#define RVSEN               BIT(0)
#define RVSREQ_REQTAPDOWN   BIT(0)
#define RVSREQ_REQTAPUP     BIT(1)
#define RVSREQ_RVSERR       BIT(2)
#define SMPCMP_CMD_REQDOWN  BIT(8)
#define SMPCMP_CMD_REQUP    BIT(24)
#define TMPPORT5_RW_SEL_R   BIT(8)
#define INFO2_CRCE          BIT(1)

/* EXT_CSD (JESD84-B51 7.4) */
#define EXT_CSD_BUS_WIDTH       183
#define EXT_CSD_HS_TIMING       185
#define EXT_CSD_REV             192
#define EXT_CSD_CARD_TYPE       196
#define EXT_CSD_DRIVER_STRENGTH 197
#define EXT_CSD_GENERIC_CMD6_TIME 248
#define CARD_TYPE_HS200_1_8V    BIT(4)
#define CARD_TYPE_HS400_1_8V    BIT(6)
#define BUS_WIDTH_8             2
#define BUS_WIDTH_4             1
#define DDR_BUS_WIDTH_8         6
#define TIMING_HS               1
#define TIMING_HS200            2
#define TIMING_HS400            3
#define R1_SWITCH_ERROR         BIT(7)

#define TUNING_BLKSZ_8BIT   128
#define TUNING_BLKSZ_4BIT   64
#define SCC_TAPS            8

/* JESD84-B51 Table 39: the tuning block on an 8-bit bus */
static const uint8_t tuning_block_8bit[TUNING_BLKSZ_8BIT] = {
    0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00,
    0xff, 0xff, 0xcc, 0xcc, 0xcc, 0x33, 0xcc, 0xcc,
    0xcc, 0x33, 0x33, 0xcc, 0xcc, 0xcc, 0xff, 0xff,
    0xff, 0xee, 0xff, 0xff, 0xff, 0xee, 0xee, 0xff,
    0xff, 0xff, 0xdd, 0xff, 0xff, 0xff, 0xdd, 0xdd,
    0xff, 0xff, 0xff, 0xbb, 0xff, 0xff, 0xff, 0xbb,
    0xbb, 0xff, 0xff, 0xff, 0x77, 0xff, 0xff, 0xff,
    0x77, 0x77, 0xff, 0x77, 0xbb, 0xdd, 0xee, 0xff,
    0xff, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0x00,
    0x00, 0xff, 0xff, 0xcc, 0xcc, 0xcc, 0x33, 0xcc,
    0xcc, 0xcc, 0x33, 0x33, 0xcc, 0xcc, 0xcc, 0xff,
    0xff, 0xff, 0xee, 0xff, 0xff, 0xff, 0xee, 0xee,
    0xff, 0xff, 0xff, 0xdd, 0xff, 0xff, 0xff, 0xdd,
    0xdd, 0xff, 0xff, 0xff, 0xbb, 0xff, 0xff, 0xff,
    0xbb, 0xbb, 0xff, 0xff, 0xff, 0x77, 0xff, 0xff,
    0xff, 0x77, 0x77, 0xff, 0x77, 0xbb, 0xdd, 0xee,
};

/* JESD84-B51 Table 38 (the SD 3.01 one): the tuning block, 4-bit bus */
static const uint8_t tuning_block_4bit[TUNING_BLKSZ_4BIT] = {
    0xff, 0x0f, 0xff, 0x00, 0xff, 0xcc, 0xc3, 0xcc,
    0xc3, 0x3c, 0xcc, 0xff, 0xfe, 0xff, 0xfe, 0xef,
    0xff, 0xdf, 0xff, 0xdd, 0xff, 0xfb, 0xff, 0xfb,
    0xbf, 0xff, 0x7f, 0xff, 0x77, 0xf7, 0xbd, 0xef,
    0xff, 0xf0, 0xff, 0xf0, 0x0f, 0xfc, 0xcc, 0x3c,
    0xcc, 0x33, 0xcc, 0xcf, 0xff, 0xef, 0xff, 0xee,
    0xff, 0xfd, 0xff, 0xfd, 0xdf, 0xff, 0xbf, 0xff,
    0xbb, 0xff, 0xf7, 0xff, 0xf7, 0x7f, 0x7b, 0xde,
};

static char emmc_img[] = "/tmp/qtest-sdhi-tuning-XXXXXX";

static QTestState *boot(const char *extra)
{
    return qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G "
                       "-drive if=sd,index=%d,file=%s,format=raw %s",
                       EMMC_SLOT, emmc_img, extra);
}

/*
 * A one-block PIO read of @len bytes by command @cmd, as
 * tmio_mmc_pio_irq() does it.  Returns the status at ACCESSEND; the data
 * is in @out if BRE came.
 */
static uint32_t pio_read_block(QTestState *qts, uint8_t cmd, uint32_t arg,
                               unsigned len, uint8_t *out)
{
    uint32_t status;

    sdhi_wr16(qts, EMMC_SLOT, SD_SIZE, len);
    sdhi_wr32(qts, EMMC_SLOT, SD_SECCNT, 1);
    if (!sdhi_cmd(qts, EMMC_SLOT, CMD_R1 | CMD_DATA | CMD_READ | cmd, arg,
                  NULL)) {
        return INFO2_RSPTO << 16;
    }
    status = sdhi_wait_status(qts, EMMC_SLOT,
                              INFO2_BRE << 16 | INFO1_ACCESSEND);
    if (status & (INFO2_BRE << 16)) {
        sdhi_ack(qts, EMMC_SLOT, INFO2_BRE << 16);
        for (unsigned i = 0; i < len; i += 2) {
            uint16_t v = sdhi_rd16(qts, EMMC_SLOT, SD_BUF0);

            out[i] = v;
            out[i + 1] = v >> 8;
        }
        status = sdhi_wait_status(qts, EMMC_SLOT, INFO1_ACCESSEND);
    }
    g_assert_true(status & INFO1_ACCESSEND);
    status = sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) |
             (uint32_t)sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) << 16;
    sdhi_ack(qts, EMMC_SLOT, 0xffffffff);
    return status;
}

/* CMD17 of block @sector with no CRC error and the image's data */
static void read_block_intact(QTestState *qts, uint32_t sector, uint8_t *blk)
{
    uint8_t expect[BLKSZ];

    memset(blk, 0, BLKSZ);
    g_assert_false(pio_read_block(qts, 17, sdhi_card_addr(sector), BLKSZ,
                                  blk) & (INFO2_CRCE << 16));
    sdhi_image_read(emmc_img, sector, expect, BLKSZ);
    g_assert_cmpmem(blk, BLKSZ, expect, BLKSZ);
}

static void read_ext_csd(QTestState *qts, uint8_t *ext_csd)
{
    uint32_t status = pio_read_block(qts, 8, 0, BLKSZ, ext_csd);

    g_assert_false(status & (INFO2_CRCE << 16));
}

/* CMD6 WRITE_BYTE, then CMD13: true if the card took it */
static bool emmc_switch(QTestState *qts, uint8_t index, uint8_t value)
{
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1B | 6,
                (3 << 24) | (index << 16) | (value << 8));
    return !(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA) & R1_SWITCH_ERROR);
}

/* Linux's mmc_select_hs200(): 8-bit bus, then HS200 with driver type 1 */
static void emmc_to_hs200(QTestState *qts)
{
    g_assert_true(emmc_switch(qts, EXT_CSD_BUS_WIDTH, BUS_WIDTH_8));
    g_assert_true(emmc_switch(qts, EXT_CSD_HS_TIMING, TIMING_HS200 | 1 << 4));
}

static void test_ext_csd_v51(void)
{
    QTestState *qts = boot("");
    uint8_t ext_csd[BLKSZ];

    sdhi_emmc_init(qts);
    read_ext_csd(qts, ext_csd);
    /* eMMC 5.1 is EXT_CSD_REV 8; HS200 needs >= 6 and HS400 >= 7 */
    g_assert_cmpuint(ext_csd[EXT_CSD_REV], ==, 8);
    g_assert_true(ext_csd[EXT_CSD_CARD_TYPE] & CARD_TYPE_HS200_1_8V);
    g_assert_true(ext_csd[EXT_CSD_CARD_TYPE] & CARD_TYPE_HS400_1_8V);
    /* fixed-emmc-driver-type = <1> on Salvator: the card must offer it */
    g_assert_true(ext_csd[EXT_CSD_DRIVER_STRENGTH] & BIT(1));
    /* A v4.5+ host waits GENERIC_CMD6_TIME for a switch; 0 is undefined */
    g_assert_cmpuint(ext_csd[EXT_CSD_GENERIC_CMD6_TIME], !=, 0);
    g_assert_cmpuint(ext_csd[EXT_CSD_HS_TIMING], ==, 0);
    qtest_quit(qts);
}

static void test_switch_rules(void)
{
    QTestState *qts = boot("");
    uint8_t ext_csd[BLKSZ];

    sdhi_emmc_init(qts);
    /* HS400 needs the 8-bit DDR bus, HS200 a 4 or 8-bit SDR bus */
    g_assert_true(emmc_switch(qts, EXT_CSD_BUS_WIDTH, BUS_WIDTH_8));
    g_assert_false(emmc_switch(qts, EXT_CSD_HS_TIMING, TIMING_HS400));
    g_assert_true(emmc_switch(qts, EXT_CSD_HS_TIMING, TIMING_HS));
    g_assert_true(emmc_switch(qts, EXT_CSD_BUS_WIDTH, DDR_BUS_WIDTH_8));
    g_assert_false(emmc_switch(qts, EXT_CSD_HS_TIMING, TIMING_HS200));
    /* A driver type the card does not offer, then an unknown timing */
    g_assert_false(emmc_switch(qts, EXT_CSD_HS_TIMING, TIMING_HS400 | 7 << 4));
    g_assert_false(emmc_switch(qts, EXT_CSD_HS_TIMING, 4));
    /* Enhanced strobe (bit 7) is not offered */
    g_assert_false(emmc_switch(qts, EXT_CSD_BUS_WIDTH, 0x80 | DDR_BUS_WIDTH_8));
    /* Linux's mmc_select_hs400() order works */
    g_assert_true(emmc_switch(qts, EXT_CSD_HS_TIMING, TIMING_HS400 | 1 << 4));
    read_ext_csd(qts, ext_csd);
    g_assert_cmphex(ext_csd[EXT_CSD_HS_TIMING], ==, TIMING_HS400 | 1 << 4);
    g_assert_cmphex(ext_csd[EXT_CSD_BUS_WIDTH], ==, DDR_BUS_WIDTH_8);
    /* A refused switch leaves the byte as it was */
    g_assert_false(emmc_switch(qts, EXT_CSD_HS_TIMING, TIMING_HS200));
    read_ext_csd(qts, ext_csd);
    g_assert_cmphex(ext_csd[EXT_CSD_HS_TIMING], ==, TIMING_HS400 | 1 << 4);
    qtest_quit(qts);
}

static void test_cmd21(void)
{
    QTestState *qts = boot("");
    uint8_t blk[TUNING_BLKSZ_8BIT];

    sdhi_emmc_init(qts);
    /* Illegal outside HS200: no response */
    g_assert_cmphex(pio_read_block(qts, 21, 0, TUNING_BLKSZ_8BIT, blk), ==,
                    INFO2_RSPTO << 16);
    emmc_to_hs200(qts);
    memset(blk, 0, sizeof(blk));
    pio_read_block(qts, 21, 0, TUNING_BLKSZ_8BIT, blk);
    g_assert_cmpmem(blk, sizeof(blk), tuning_block_8bit,
                    sizeof(tuning_block_8bit));
    /* By DMA, as when Linux's buffer is 128-byte aligned */
    qtest_memset(qts, 0x50000000, 0, TUNING_BLKSZ_8BIT);
    sdhi_wr16(qts, EMMC_SLOT, SD_SIZE, TUNING_BLKSZ_8BIT);
    sdhi_wr32(qts, EMMC_SLOT, SD_SECCNT, 1);
    sdhi_dma_setup(qts, EMMC_SLOT, true, 0x50000000);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | CMD_DATA | CMD_READ | 21, 0);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
    g_assert_true(sdhi_wait_status(qts, EMMC_SLOT, INFO1_ACCESSEND) &
                  INFO1_ACCESSEND);
    g_assert_true(sdhi_rd32(qts, EMMC_SLOT, DM_CM_INFO1) & DTRANEND1);
    qtest_memread(qts, 0x50000000, blk, TUNING_BLKSZ_8BIT);
    g_assert_cmpmem(blk, sizeof(blk), tuning_block_8bit,
                    sizeof(tuning_block_8bit));
    sdhi_ack(qts, EMMC_SLOT, 0xffffffff);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_INFO1, 0);
    sdhi_wr16(qts, EMMC_SLOT, CC_EXT_MODE, 0);
    /* 4-bit HS200: the 64-byte block */
    g_assert_true(emmc_switch(qts, EXT_CSD_BUS_WIDTH, BUS_WIDTH_4));
    pio_read_block(qts, 21, 0, TUNING_BLKSZ_4BIT, blk);
    g_assert_cmpmem(blk, TUNING_BLKSZ_4BIT, tuning_block_4bit,
                    sizeof(tuning_block_4bit));
    /* Back in transfer state: a normal read works */
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

/* renesas_sdhi_init_tuning(): TAPEN, DTSEL, no auto correction */
static void scc_init_tuning(QTestState *qts)
{
    sdhi_wr32(qts, EMMC_SLOT, SCC_DTCNTL, DTCNTL_TAPEN | SCC_TAPS << 16);
    sdhi_wr32(qts, EMMC_SLOT, SCC_CKSEL, CKSEL_DTSEL);
    sdhi_wr32(qts, EMMC_SLOT, SCC_RVSCNTL, 0);
    sdhi_wr32(qts, EMMC_SLOT, SCC_DT2FF, 0x300);
}

/* One CMD21 at @tap: true if the block came without a CRC error */
static bool tune_at(QTestState *qts, unsigned tap, uint32_t *smpcmp)
{
    uint8_t blk[TUNING_BLKSZ_8BIT] = { 0 };
    uint32_t status;

    sdhi_wr32(qts, EMMC_SLOT, SCC_TAPSET, tap);
    status = pio_read_block(qts, 21, 0, TUNING_BLKSZ_8BIT, blk);
    *smpcmp = sdhi_rd32(qts, EMMC_SLOT, SCC_SMPCMP);
    if (status & (INFO2_CRCE << 16)) {
        return false;
    }
    g_assert_cmpmem(blk, sizeof(blk), tuning_block_8bit,
                    sizeof(tuning_block_8bit));
    return true;
}

/*
 * Taps 2 and 3 outside the data eye: their CMD21 reads fail with a CRC
 * error, the others return the tuning block; SMPCMP at the edges of the
 * eye says which way to move, RVSREQ collects the requests.
 */
static void test_tuning_window(void)
{
    QTestState *qts = boot("-global renesas-sdhi.x-bad-taps=0x0c");
    uint32_t smpcmp[SCC_TAPS];
    uint32_t good = 0;

    sdhi_emmc_init(qts);
    emmc_to_hs200(qts);
    scc_init_tuning(qts);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_DTCNTL) >> 16 & 0xff, ==,
                    SCC_TAPS);
    for (unsigned tap = 0; tap < SCC_TAPS; tap++) {
        good |= tune_at(qts, tap, &smpcmp[tap]) << tap;
    }
    g_assert_cmphex(good, ==, 0xf3);
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi2",
                                       "x-tap-crc-errors"), ==, 2);
    /* Tap 1 has a bad tap above, tap 4 one below, 6 none around it */
    g_assert_cmphex(smpcmp[1], ==, SMPCMP_CMD_REQDOWN);
    g_assert_cmphex(smpcmp[4], ==, SMPCMP_CMD_REQUP);
    g_assert_cmphex(smpcmp[6], ==, 0);
    g_assert_cmphex(smpcmp[2], ==, SMPCMP_CMD_REQUP | SMPCMP_CMD_REQDOWN);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_RVSREQ), ==,
                    RVSREQ_REQTAPDOWN | RVSREQ_REQTAPUP | RVSREQ_RVSERR);
    /* renesas_sdhi_select_tuning() clears it by writing 0 */
    sdhi_wr32(qts, EMMC_SLOT, SCC_RVSREQ, 0);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_RVSREQ), ==, 0);
    /* In the middle of the eye nothing is requested */
    g_assert_true(tune_at(qts, 6, &smpcmp[6]));
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_RVSREQ), ==, 0);

    /* Without the SCC in the path (DTSEL off) the tap does not matter */
    sdhi_wr32(qts, EMMC_SLOT, SCC_CKSEL, 0);
    g_assert_true(tune_at(qts, 2, &smpcmp[2]));
    g_assert_cmphex(smpcmp[2], ==, 0);
    qtest_quit(qts);
}

/* HS400: data comes with the strobe, only the command line sees the tap */
static void test_hs400_sampling(void)
{
    QTestState *qts = boot("-global renesas-sdhi.x-bad-taps=0x0c");
    uint8_t blk[BLKSZ];
    uint32_t smpcmp;

    sdhi_emmc_init(qts);
    scc_init_tuning(qts);
    sdhi_wr16(qts, EMMC_SLOT, SDIF_MODE, 1);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TAPSET, 3);
    read_block_intact(qts, 1, blk);
    smpcmp = sdhi_rd32(qts, EMMC_SLOT, SCC_SMPCMP);
    g_assert_cmphex(smpcmp, ==, SMPCMP_CMD_REQUP | SMPCMP_CMD_REQDOWN);
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi2",
                                       "x-tap-crc-errors"), ==, 0);
    /* The same read in HS200 sampling fails */
    sdhi_wr16(qts, EMMC_SLOT, SDIF_MODE, 0);
    g_assert_true(pio_read_block(qts, 17, 0, BLKSZ, blk) & (INFO2_CRCE << 16));
    qtest_quit(qts);
}

/* RVSEN: the SCC moves the tap itself away from a failing neighbour */
static void test_auto_correction(void)
{
    QTestState *qts = boot("-global renesas-sdhi.x-bad-taps=0x02");
    uint8_t blk[BLKSZ];

    sdhi_emmc_init(qts);
    scc_init_tuning(qts);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TAPSET, 0);
    sdhi_wr32(qts, EMMC_SLOT, SCC_RVSCNTL, RVSEN);
    read_block_intact(qts, 2, blk);
    g_assert_cmpuint(sdhi_rd32(qts, EMMC_SLOT, SCC_TAPSET), ==, SCC_TAPS - 1);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_RVSREQ), ==,
                    RVSREQ_REQTAPDOWN);
    /* The eye drifts under the tap (qom-set): an error for the driver */
    qtest_qmp_assert_success(qts, "{ 'execute': 'qom-set', 'arguments': "
                             "{ 'path': '/machine/soc/sdhi2', 'property': "
                             "'x-bad-taps', 'value': 128 } }");
    sdhi_wr32(qts, EMMC_SLOT, SCC_RVSREQ, 0);
    g_assert_true(pio_read_block(qts, 17, 0, BLKSZ, blk) & (INFO2_CRCE << 16));
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_RVSREQ), ==, RVSREQ_RVSERR);
    g_assert_cmpuint(sdhi_rd32(qts, EMMC_SLOT, SCC_TAPSET), ==, SCC_TAPS - 1);
    qtest_quit(qts);
}

/* The DLL port: TMPPORT5 address and direction, TMPPORT4 starts */
static uint32_t dll_read(QTestState *qts, uint32_t adr)
{
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT5, TMPPORT5_RW_SEL_R | adr);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT4, 1);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT4, 0);
    return sdhi_rd32(qts, EMMC_SLOT, SCC_TMPPORT7);
}

static void dll_write(QTestState *qts, uint32_t adr, uint32_t val)
{
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT5, adr);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT6, val);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT4, 1);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT4, 0);
}

static void test_dll_port(void)
{
    QTestState *qts = boot("-global renesas-sdhi.scc-calib-code=0x15");

    /* renesas_sdhi_adjust_hs400_mode_enable(): unlock, calibration code */
    dll_write(qts, 0x00, 0xa5000000);
    g_assert_cmphex(dll_read(qts, 0x26) & 0x1f, ==, 0x15);
    dll_write(qts, 0x22, 0x80 | 0x0a);
    g_assert_cmphex(dll_read(qts, 0x22), ==, 0x8a);
    /* A second start without a stop does not access again */
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT5, TMPPORT5_RW_SEL_R | 0x26);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT4, 1);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT5, TMPPORT5_RW_SEL_R | 0x22);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TMPPORT4, 1);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_TMPPORT7), ==, 0x15);
    /* A module reset clears the DLL registers */
    qtest_set_irq_in(qts, "/machine/soc/sdhi2", "module-reset", 0, 1);
    qtest_set_irq_in(qts, "/machine/soc/sdhi2", "module-reset", 0, 0);
    g_assert_cmphex(dll_read(qts, 0x22), ==, 0);
    qtest_quit(qts);
}

static void test_no_tuning_scc(void)
{
    QTestState *qts = boot("-global renesas-sdhi.scc-taps=0");
    uint8_t blk[BLKSZ];

    /* TAPNUM 0: Linux skips tuning (renesas_sdhi_execute_tuning()) */
    sdhi_wr32(qts, EMMC_SLOT, SCC_DTCNTL, DTCNTL_TAPEN | SCC_TAPS << 16);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_DTCNTL), ==, DTCNTL_TAPEN);
    sdhi_emmc_init(qts);
    sdhi_wr32(qts, EMMC_SLOT, SCC_CKSEL, CKSEL_DTSEL);
    read_block_intact(qts, 3, blk);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_RVSREQ), ==, 0);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    /* Not zeros: a read that returns nothing must not pass */
    sdhi_make_image(emmc_img, 0x21);

    qtest_add_func("/renesas-sdhi-tuning/ext-csd-v51", test_ext_csd_v51);
    qtest_add_func("/renesas-sdhi-tuning/switch-rules", test_switch_rules);
    qtest_add_func("/renesas-sdhi-tuning/cmd21", test_cmd21);
    qtest_add_func("/renesas-sdhi-tuning/tuning-window", test_tuning_window);
    qtest_add_func("/renesas-sdhi-tuning/hs400-sampling",
                   test_hs400_sampling);
    qtest_add_func("/renesas-sdhi-tuning/auto-correction",
                   test_auto_correction);
    qtest_add_func("/renesas-sdhi-tuning/dll-port", test_dll_port);
    qtest_add_func("/renesas-sdhi-tuning/no-tuning-scc", test_no_tuning_scc);
    ret = g_test_run();
    unlink(emmc_img);
    return ret;
}
