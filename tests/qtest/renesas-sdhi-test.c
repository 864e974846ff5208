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
#include "qobject/qlist.h"
#include "renesas-sdhi-util.h"

#define RAM_BUF             0x50000000ULL
#define SD_RCA              0x1234

static char sd_img[] = "/tmp/qtest-sdhi-sd-XXXXXX";
static char emmc_img[] = "/tmp/qtest-sdhi-emmc-XXXXXX";

static QTestState *sdhi_boot(void)
{
    return qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G "
                       "-drive if=sd,index=%d,file=%s,format=raw,id=sd0 "
                       "-drive if=sd,index=%d,file=%s,format=raw",
                       SD_SLOT, sd_img, EMMC_SLOT, emmc_img);
}

static uint16_t sd_init(QTestState *qts)
{
    return sdhi_sd_init_slot(qts, SD_SLOT);
}

static void test_reset_values(void)
{
    QTestState *qts = sdhi_boot();

    /* An idle bus: renesas_sdhi_write16_hook() polls for these */
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_INFO2) &
                    (INFO2_SCLKDIVEN | INFO2_CBSY | INFO2_DAT0), ==,
                    INFO2_SCLKDIVEN | INFO2_DAT0);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, VERSION), ==, 0xcc10);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_INFO1_MASK), ==, 0x031d);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_INFO2_MASK), ==, 0x8b7f);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_SIZE), ==, 0x0200);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_RST), ==, 0xffffffff);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1_MASK), ==, 0xffffffff);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO2_MASK), ==, 0xffffffff);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1), ==, 0);
    /* Card present and writable in the slot with a card, not elsewhere */
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_INFO1) &
                    (INFO1_SIGSTATE | BIT(7)),
                    ==, INFO1_SIGSTATE | BIT(7));
    g_assert_false(sdhi_rd16(qts, EMPTY_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    qtest_quit(qts);
}

static void test_status_write_semantics(void)
{
    QTestState *qts = sdhi_boot();

    sdhi_wr16(qts, SD_SLOT, SD_ARG, 0);
    sdhi_wr16(qts, SD_SLOT, SD_CMD, CMD_NORSP | 0);
    g_assert_true(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    /* Writing 1 never sets and never clears (the IRQ entry does this) */
    sdhi_wr16(qts, SD_SLOT, SD_INFO1, 0xffff);
    g_assert_true(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    /* Writing 0 clears events, but not the card state bits (trap T1) */
    sdhi_wr16(qts, SD_SLOT, SD_INFO1, 0);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    g_assert_true(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    sdhi_wr16(qts, SD_SLOT, SD_INFO2, 0);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_INFO2) &
                    (INFO2_SCLKDIVEN | INFO2_DAT0), ==,
                    INFO2_SCLKDIVEN | INFO2_DAT0);
    /* Writing 1 to a clear event bit does not set it */
    sdhi_wr16(qts, SD_SLOT, SD_INFO2, INFO2_RSPTO | INFO2_BRE);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO2) &
                   (INFO2_RSPTO | INFO2_BRE));
    /* VERSION is read-only */
    sdhi_wr16(qts, SD_SLOT, VERSION, 0);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, VERSION), ==, 0xcc10);
    qtest_quit(qts);
}

static void test_irq_masking(void)
{
    QTestState *qts = sdhi_boot();

    qtest_irq_intercept_out_named(qts, "/machine/soc/sdhi0", "sysbus-irq");
    /* State bits have mask bits Linux never sets: no IRQ from them (T2) */
    sdhi_wr16(qts, SD_SLOT, SD_INFO1_MASK, 0);
    sdhi_wr16(qts, SD_SLOT, SD_INFO2_MASK, 0);
    g_assert_false(qtest_get_irq(qts, 0));

    sdhi_wr16(qts, SD_SLOT, SD_INFO1_MASK, 0x031d);
    sdhi_wr16(qts, SD_SLOT, SD_INFO2_MASK, 0x8b7f);
    sdhi_wr16(qts, SD_SLOT, SD_CMD, CMD_NORSP | 0);
    g_assert_true(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    g_assert_false(qtest_get_irq(qts, 0));
    /* TMIO_MASK_CMD unmasked: the pending RSPEND raises the line */
    sdhi_wr16(qts, SD_SLOT, SD_INFO1_MASK, 0x031d & ~INFO1_RSPEND);
    g_assert_true(qtest_get_irq(qts, 0));
    sdhi_ack(qts, SD_SLOT, INFO1_RSPEND);
    g_assert_false(qtest_get_irq(qts, 0));

    /* A response timeout is an interrupt source too */
    sdhi_wr16(qts, SD_SLOT, SD_INFO2_MASK, 0x8b7f & ~INFO2_RSPTO);
    sdhi_wr16(qts, SD_SLOT, SD_CMD, CMD_R1 | 13);
    g_assert_true(sdhi_rd16(qts, SD_SLOT, SD_INFO2) & INFO2_RSPTO);
    g_assert_true(qtest_get_irq(qts, 0));
    sdhi_ack(qts, SD_SLOT, INFO2_RSPTO << 16);
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_quit(qts);
}

static void test_sd_identification(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t cid[8], cid2[8];
    uint16_t rca;

    g_assert_true(sdhi_cmd(qts, SD_SLOT, CMD_NORSP | 0, 0, NULL));
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 8, 0x1aa);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 55, 0);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R3 | 41, 0x40ff8000);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R2 | 2, 0);
    for (int i = 0; i < 8; i++) {
        cid[i] = sdhi_rd16(qts, SD_SLOT, SD_RSP(i));
    }
    /*
     * R2 goes in shifted right by 8 bits (the driver shifts it back,
     * tmio_mmc_cmd_irq()): CID[127:120] = MID and CID[119:104] = OID, which
     * QEMU's sd-card sets to 0xaa and "XY".
     */
    g_assert_cmphex(cid[7], ==, 0x00aa);
    g_assert_cmphex(cid[6], ==, ('X' << 8) | 'Y');
    rca = sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 3, 0) >> 16;
    g_assert_cmpuint(rca, !=, 0);
    /* SEND_CID in standby state returns the same register */
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R2 | 10, rca << 16);
    for (int i = 0; i < 8; i++) {
        cid2[i] = sdhi_rd16(qts, SD_SLOT, SD_RSP(i));
    }
    g_assert_cmpmem(cid, sizeof(cid), cid2, sizeof(cid2));
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1B | 7, rca << 16);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_no_card(void)
{
    QTestState *qts = sdhi_boot();

    /* mmc_rescan probes CMD52/CMD8/CMD55 on an empty slot: all time out */
    g_assert_false(sdhi_cmd(qts, EMPTY_SLOT, CMD_R1 | 8, 0x1aa, NULL));
    g_assert_false(sdhi_cmd(qts, EMPTY_SLOT, CMD_R1 | 55, 0, NULL));
    g_assert_false(sdhi_rd16(qts, EMPTY_SLOT, SD_INFO2) & INFO2_CBSY);
    qtest_quit(qts);
}

static void test_pio_read(void)
{
    QTestState *qts = sdhi_boot();
    uint8_t data[4 * BLKSZ];
    uint16_t rca = sd_init(qts);

    sdhi_pio_read(qts, SD_SLOT, 5, 1, data);
    sdhi_check_against_image(sd_img, 5, data, 1);
    sdhi_pio_read(qts, SD_SLOT, 100, 4, data);
    sdhi_check_against_image(sd_img, 100, data, 4);
    /* Auto-CMD12 ended the open-ended read: back in transfer state */
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
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
    sdhi_pio_write(qts, SD_SLOT, 20, 1, data);
    sdhi_pio_write(qts, SD_SLOT, 40, 4, data);
    sdhi_check_against_image(sd_img, 20, data, 1);
    sdhi_check_against_image(sd_img, 40, data, 4);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    /* And the card gives it back */
    sdhi_pio_read(qts, SD_SLOT, 40, 4, back);
    g_assert_cmpmem(back, sizeof(back), data, sizeof(data));
    qtest_quit(qts);
}

static void dma_read_check(QTestState *qts, int slot, const char *img,
                           uint32_t sector, uint32_t blocks)
{
    g_autofree uint8_t *data = g_malloc(blocks * BLKSZ);
    uint32_t info1;

    info1 = sdhi_dma_transfer(qts, slot, true, sector, blocks, RAM_BUF, 0);
    /* Reads end on CH1: DTRANEND1 is bit 20 on Gen3 (INFO1_DTRANEND1) */
    g_assert_cmphex(info1 & (DTRANEND0 | DTRANEND1), ==, DTRANEND1);
    qtest_memread(qts, RAM_BUF, data, blocks * BLKSZ);
    sdhi_check_against_image(img, sector, data, blocks);
}

static void dma_write_check(QTestState *qts, int slot, const char *img,
                            uint32_t sector, uint32_t blocks, uint8_t seed)
{
    g_autofree uint8_t *data = g_malloc(blocks * BLKSZ);
    uint32_t info1;

    for (uint32_t i = 0; i < blocks * BLKSZ; i++) {
        data[i] = sdhi_pattern(i / BLKSZ, i % BLKSZ, seed);
    }
    qtest_memwrite(qts, RAM_BUF, data, blocks * BLKSZ);
    info1 = sdhi_dma_transfer(qts, slot, false, sector, blocks, RAM_BUF, 0);
    g_assert_cmphex(info1 & (DTRANEND0 | DTRANEND1), ==, DTRANEND0);
    sdhi_check_against_image(img, sector, data, blocks);
}

static void test_dma_read(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    dma_read_check(qts, SD_SLOT, sd_img, 3, 1);
    dma_read_check(qts, SD_SLOT, sd_img, 64, 8);
    dma_read_check(qts, SD_SLOT, sd_img, 2048, 2048);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    /* One DM_START each; the largest moved 1 MiB in one transfer */
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi0",
                                       "x-dma-transfers"), ==, 3);
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi0",
                                       "x-dma-bytes"), ==,
                     (1 + 8 + 2048) * BLKSZ);
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi0",
                                       "x-dma-largest-transfer"), ==,
                     2048 * BLKSZ);
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi0",
                                       "x-pio-blocks"), ==, 0);
    qtest_quit(qts);
}

static void test_dma_write(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    dma_write_check(qts, SD_SLOT, sd_img, 7, 1, 0x11);
    dma_write_check(qts, SD_SLOT, sd_img, 300, 8, 0x22);
    dma_write_check(qts, SD_SLOT, sd_img, 4096, 2048, 0x33);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

/*
 * The card sends fewer blocks than SD_SECCNT asks for (CMD23 said 4):
 * the DMAC gets the 4 blocks, then times out (DTO) at the block boundary,
 * and nothing lands beyond them.
 */
static void test_emmc_cmd23_shorter_than_seccnt(void)
{
    QTestState *qts = sdhi_boot();
    g_autofree uint8_t *data = g_malloc(5 * BLKSZ);
    g_autofree uint8_t *ff = g_malloc(BLKSZ);

    sdhi_emmc_init(qts);
    qtest_memset(qts, RAM_BUF, 0xff, 16 * BLKSZ);
    memset(ff, 0xff, BLKSZ);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 23, 4);
    sdhi_dma_command(qts, EMMC_SLOT, true, 500, 16, RAM_BUF, CMD_NO_CMD12);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
    g_assert_true(sdhi_wait_status(qts, EMMC_SLOT, INFO1_ACCESSEND) &
                  INFO1_ACCESSEND);
    g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_DTO);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, DM_CM_INFO1) & DTRANEND1, ==, 0);
    qtest_memread(qts, RAM_BUF, data, 5 * BLKSZ);
    sdhi_check_against_image(emmc_img, 500, data, 4);
    g_assert_cmpmem(data + 4 * BLKSZ, BLKSZ, ff, BLKSZ);
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi2",
                                       "x-dma-bytes"), ==, 4 * BLKSZ);
    qtest_quit(qts);
}

/*
 * A multiple-block read that runs off the end of the card: the blocks
 * inside it arrive intact, and the card reports OUT_OF_RANGE/ADDRESS_ERROR
 * in its status (sd.c's byte path, which the bulk path leaves it to).
 */
static void test_dma_read_past_end(void)
{
    QTestState *qts = sdhi_boot();
    const uint32_t first = IMG_SIZE / BLKSZ - 8;
    g_autofree uint8_t *data = g_malloc(8 * BLKSZ);
    uint16_t rca = sd_init(qts);
    uint32_t status;

    sdhi_dma_transfer(qts, SD_SLOT, true, first, 16, RAM_BUF, 0);
    qtest_memread(qts, RAM_BUF, data, 8 * BLKSZ);
    sdhi_check_against_image(sd_img, first, data, 8);
    /* The response of the auto CMD12 that ended the transfer */
    status = sdhi_response(qts, SD_SLOT);
    g_assert_cmphex(status & (BIT(31) | BIT(30)), !=, 0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_emmc_cmd23_dma(void)
{
    QTestState *qts = sdhi_boot();
    g_autofree uint8_t *data = g_malloc(16 * BLKSZ);
    uint32_t status;

    sdhi_emmc_init(qts);
    /* CMD23 then CMD18 with NO_CMD12_ISSUE: the card counts the blocks */
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 23, 16);
    sdhi_dma_transfer(qts, EMMC_SLOT, true, 1000, 16, RAM_BUF, CMD_NO_CMD12);
    qtest_memread(qts, RAM_BUF, data, 16 * BLKSZ);
    sdhi_check_against_image(emmc_img, 1000, data, 16);
    /*
     * A CMD12 sent anyway would be illegal in the transfer state and show
     * up as ILLEGAL_COMMAND in the next R1 (trap T7).
     */
    status = sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA);
    g_assert_cmpuint(R1_STATE(status), ==, STATE_TRAN);
    g_assert_false(status & R1_ILLEGAL_COMMAND);
    qtest_quit(qts);
}

/* EXT_CSD ERASED_MEM_CONT (JESD84-B51 7.4.58): 0 or 0xff after an erase */
#define EXT_CSD_ERASED_MEM_CONT 181

/*
 * ERASE over a range that spans several 2 MiB write protect groups:
 * exactly the blocks from the start to the end address become what
 * EXT_CSD ERASED_MEM_CONT says, 0 (Linux's erased_byte, which lets it
 * zero ranges with TRIM: mmc_queue_setup_discard()), and the card
 * answers at once, however large the range.  On a drive opened with
 * discard=unmap the range no longer takes space in the image.
 */
static void test_emmc_erase(void)
{
    char img[] = "/tmp/qtest-sdhi-erase-XXXXXX";
    const uint32_t first = 1000, last = 6000;
    g_autofree uint8_t *data = g_malloc((last - first + 3) * BLKSZ);
    uint8_t ext_csd[BLKSZ];
    QTestState *qts;
    struct stat before, after;

    sdhi_make_image(img, 9);
    g_assert_cmpint(stat(img, &before), ==, 0);
    qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G "
                      "-drive if=sd,index=%d,file=%s,format=raw,discard=unmap",
                      EMMC_SLOT, img);
    sdhi_emmc_init(qts);
    sdhi_pio_read_cmd(qts, EMMC_SLOT, CMD_R1 | CMD_DATA | CMD_READ | 8, 0, 1,
                      ext_csd);
    g_assert_cmphex(ext_csd[EXT_CSD_ERASED_MEM_CONT], ==, 0);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 35, sdhi_card_addr(first));
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 36, sdhi_card_addr(last));
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1B | 38, 0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)), ==,
                     STATE_TRAN);
    qtest_quit(qts);

    g_assert_cmpint(stat(img, &after), ==, 0);
    /* At least the whole 4 KiB blocks of the range were given back */
    g_assert_cmpint((before.st_blocks - after.st_blocks) * 512, >=,
                    QEMU_ALIGN_DOWN((last + 1) * BLKSZ, 4096) -
                    QEMU_ALIGN_UP(first * BLKSZ, 4096));
    sdhi_image_read(img, first - 1, data, (last - first + 3) * BLKSZ);
    unlink(img);
    for (uint32_t sector = first - 1; sector <= last + 1; sector++) {
        const uint8_t *blk = data + (sector - first + 1) * BLKSZ;

        for (unsigned i = 0; i < BLKSZ; i++) {
            uint8_t want = sector < first || sector > last ?
                           sdhi_pattern(sector, i, 9) :
                           ext_csd[EXT_CSD_ERASED_MEM_CONT] ? 0xff : 0;

            if (blk[i] != want) {
                g_error("sector %u byte %u: 0x%02x, expected 0x%02x",
                        sector, i, blk[i], want);
            }
        }
    }
}

/* The write cache's EXT_CSD bytes (JESD84-B51 7.4) */
#define EXT_CSD_FLUSH_CACHE             32
#define EXT_CSD_CACHE_CTRL              33
#define EXT_CSD_POWER_OFF_NOTIFICATION  34
#define EXT_CSD_CACHE_SIZE              249
#define R1_SWITCH_ERROR                 BIT(7)

static void emmc_read_ext_csd(QTestState *qts, uint8_t *ext_csd)
{
    sdhi_pio_read_cmd(qts, EMMC_SLOT, CMD_R1 | CMD_DATA | CMD_READ | 8, 0, 1,
                      ext_csd);
}

/*
 * SWITCH, write byte, as mmc_switch() sends it; the card status after it
 * says how it went (mmc_switch_status())
 */
static uint32_t emmc_switch(QTestState *qts, uint8_t index, uint8_t value)
{
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1B | 6,
                3 << 24 | index << 16 | value << 8);
    return sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA);
}

/* Whether QEMU's drive @id has its write cache on (query-block) */
static bool drive_writeback(QTestState *qts, const char *id)
{
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-block' }");
    QList *list = qdict_get_qlist(rsp, "return");
    const QListEntry *e;
    bool found = false, writeback = false;

    QLIST_FOREACH_ENTRY(list, e) {
        QDict *dev = qobject_to(QDict, qlist_entry_obj(e));

        if (!strcmp(qdict_get_str(dev, "device"), id)) {
            QDict *inserted = qdict_get_qdict(dev, "inserted");

            writeback = qdict_get_bool(qdict_get_qdict(inserted, "cache"),
                                       "writeback");
            found = true;
        }
    }
    qobject_unref(rsp);
    g_assert_true(found);
    return writeback;
}

/*
 * The board's eMMC has a volatile write cache as Linux finds it
 * (mmc_decode_ext_csd(), mmc_init_card(), _mmc_flush_cache()): CACHE_SIZE
 * 8 MiB in kilobits, off at power-on, on and off with SWITCH CACHE_CTRL,
 * flushed with SWITCH FLUSH_CACHE, which reads back 0.  While it is on,
 * QEMU's drive caches writes; off, it writes through.  No barrier, no
 * reserved bits, no reserved power-off notification.  A reset turns the
 * cache off.
 */
static void test_emmc_cache(void)
{
    QTestState *qts = sdhi_boot();
    uint8_t ext_csd[BLKSZ];

    sdhi_emmc_init(qts);
    emmc_read_ext_csd(qts, ext_csd);
    g_assert_cmphex(ldl_le_p(&ext_csd[EXT_CSD_CACHE_SIZE]), ==,
                    8 * MiB * 8 / KiB);
    g_assert_cmphex(ext_csd[EXT_CSD_CACHE_CTRL], ==, 0);
    g_assert_false(drive_writeback(qts, "sd2"));

    g_assert_cmphex(emmc_switch(qts, EXT_CSD_CACHE_CTRL, 1) &
                    R1_SWITCH_ERROR, ==, 0);
    emmc_read_ext_csd(qts, ext_csd);
    g_assert_cmphex(ext_csd[EXT_CSD_CACHE_CTRL], ==, 1);
    g_assert_true(drive_writeback(qts, "sd2"));

    g_assert_cmphex(emmc_switch(qts, EXT_CSD_FLUSH_CACHE, 1) &
                    (R1_SWITCH_ERROR | R1_ERROR), ==, 0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)),
                     ==, STATE_TRAN);
    emmc_read_ext_csd(qts, ext_csd);
    g_assert_cmphex(ext_csd[EXT_CSD_FLUSH_CACHE], ==, 0);

    /* BARRIER (bit 1), reserved bits, notification 5 and up */
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_FLUSH_CACHE, 2) &
                    R1_SWITCH_ERROR, !=, 0);
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_CACHE_CTRL, 3) &
                    R1_SWITCH_ERROR, !=, 0);
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_POWER_OFF_NOTIFICATION, 5) &
                    R1_SWITCH_ERROR, !=, 0);
    emmc_read_ext_csd(qts, ext_csd);
    g_assert_cmphex(ext_csd[EXT_CSD_CACHE_CTRL], ==, 1);
    g_assert_cmphex(ext_csd[EXT_CSD_POWER_OFF_NOTIFICATION], ==, 0);
    /* mmc_init_card(), then mmc_poweroff_notify() at shutdown */
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_POWER_OFF_NOTIFICATION, 1) &
                    R1_SWITCH_ERROR, ==, 0);
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_POWER_OFF_NOTIFICATION, 3) &
                    R1_SWITCH_ERROR, ==, 0);

    g_assert_cmphex(emmc_switch(qts, EXT_CSD_CACHE_CTRL, 0) &
                    R1_SWITCH_ERROR, ==, 0);
    g_assert_false(drive_writeback(qts, "sd2"));
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_CACHE_CTRL, 1) &
                    R1_SWITCH_ERROR, ==, 0);
    g_assert_true(drive_writeback(qts, "sd2"));
    /* CMD0: the card's power-on state again */
    g_assert_true(sdhi_cmd(qts, EMMC_SLOT, CMD_NORSP | 0, 0, NULL));
    g_assert_false(drive_writeback(qts, "sd2"));
    sdhi_emmc_init(qts);
    emmc_read_ext_csd(qts, ext_csd);
    g_assert_cmphex(ext_csd[EXT_CSD_CACHE_CTRL], ==, 0);
    qtest_quit(qts);
}

/*
 * QEMU's own eMMC without a cache-size: CACHE_SIZE 0, and neither
 * CACHE_CTRL nor FLUSH_CACHE to switch; the drive's cache is the user's
 */
static void test_emmc_without_cache(void)
{
    QTestState *qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G "
                                  "-drive if=none,id=emmc0,file=%s,format=raw "
                                  "-device emmc,drive=emmc0,hs400=on,"
                                  "bus=sdhi%d.sd-bus", emmc_img, EMMC_SLOT);
    uint8_t ext_csd[BLKSZ];

    sdhi_emmc_init(qts);
    emmc_read_ext_csd(qts, ext_csd);
    g_assert_cmphex(ldl_le_p(&ext_csd[EXT_CSD_CACHE_SIZE]), ==, 0);
    g_assert_true(drive_writeback(qts, "emmc0"));
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_CACHE_CTRL, 1) &
                    R1_SWITCH_ERROR, !=, 0);
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_FLUSH_CACHE, 1) &
                    R1_SWITCH_ERROR, !=, 0);
    g_assert_true(drive_writeback(qts, "emmc0"));
    qtest_quit(qts);
}

static void test_dma_fault(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    /* 0x40000000 is no RAM and in no window of the SoC (a bus error) */
    sdhi_setup_data(qts, SD_SLOT, 8);
    sdhi_dma_setup(qts, SD_SLOT, true, 0x40000000);
    sdhi_cmd_ok(qts, SD_SLOT, sdhi_rw_cmd(true, 8), sdhi_card_addr(0));
    sdhi_wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    sdhi_wait_bus_idle(qts, SD_SLOT);
    /* The DMAC reports it; nothing claims the transfer went well */
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO2) & DTRANERR1, ==,
                    DTRANERR1);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1) &
                    (DTRANEND0 | DTRANEND1), ==, 0);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_ACCESSEND);
    /*
     * The bus is free again, and the stop command the transfer asked for
     * (no NO_CMD12_ISSUE) went out: the card is back in transfer state.
     */
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    sdhi_wr32(qts, SD_SLOT, DM_CM_INFO2, 0);
    sdhi_wr16(qts, SD_SLOT, CC_EXT_MODE, 0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
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
    sdhi_setup_data(qts, SD_SLOT, 4);
    sdhi_dma_setup(qts, SD_SLOT, false, RAM_BUF);
    sdhi_cmd_ok(qts, SD_SLOT, sdhi_rw_cmd(true, 4), sdhi_card_addr(0));
    sdhi_wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO2) &
                    (DTRANERR0 | DTRANERR1),
                    ==, DTRANERR0);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1) &
                    (DTRANEND0 | DTRANEND1), ==, 0);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_ACCESSEND);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_dma_address_alignment(void)
{
    QTestState *qts = sdhi_boot();

    /* The DMAC addresses 128-byte units: bits [6:0] do not exist */
    sdhi_wr32(qts, SD_SLOT, DM_DTRAN_ADDR, 0x48000041);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_DTRAN_ADDR), ==, 0x48000000);
    sdhi_wr32(qts, SD_SLOT, DM_DTRAN_ADDR, 0x48000080);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_DTRAN_ADDR), ==, 0x48000080);

    /*
     * A transfer moves it by its bytes, off the 128-byte units with blocks
     * of 8 bytes (an SCR, say); the next address replaces all of it
     */
    sd_init(qts);
    sdhi_setup_data(qts, SD_SLOT, 1);
    sdhi_wr16(qts, SD_SLOT, SD_SIZE, 8);
    sdhi_dma_setup(qts, SD_SLOT, true, RAM_BUF);
    sdhi_cmd_ok(qts, SD_SLOT, sdhi_rw_cmd(true, 1), sdhi_card_addr(0));
    sdhi_wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    sdhi_wait_status(qts, SD_SLOT, INFO1_ACCESSEND);
    sdhi_dma_finish(qts, SD_SLOT, sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1));
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_DTRAN_ADDR), ==, RAM_BUF + 8);
    sdhi_wr32(qts, SD_SLOT, DM_DTRAN_ADDR, RAM_BUF + 0x1000);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_DTRAN_ADDR), ==,
                    RAM_BUF + 0x1000);
    qtest_quit(qts);
}

/*
 * Linux never writes SD_CMD while CBSY is set: renesas_sdhi_write16_hook()
 * waits for the bus in renesas_sdhi_wait_idle() first.  A command written
 * anyway is not issued: the card gets nothing and there is no response.
 * (What else the hardware reports for it, ILA in SD_INFO2, is not
 * checked here.)
 */
static void test_busy_drops_commands(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);
    uint64_t commands;

    sdhi_setup_data(qts, SD_SLOT, 4);
    sdhi_dma_setup(qts, SD_SLOT, true, RAM_BUF);
    sdhi_cmd_ok(qts, SD_SLOT, sdhi_rw_cmd(true, 4), sdhi_card_addr(0));
    /* Waiting for DM_START: the command sequence is still running */
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_INFO2) &
                    (INFO2_CBSY | INFO2_SCLKDIVEN), ==, INFO2_CBSY);
    commands = rcar_qom_get_uint(qts, "/machine/soc/sdhi0", "x-commands");
    sdhi_wr16(qts, SD_SLOT, SD_ARG1, rca);
    sdhi_wr16(qts, SD_SLOT, SD_CMD, CMD_R1 | 13);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_RSPEND);
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi0", "x-commands"),
                     ==, commands);
    /* DM_CM_RST, as renesas_sdhi_internal_dmac_abort_dma() does */
    sdhi_wr32(qts, SD_SLOT, DM_CM_RST, 0xfffffcff);
    sdhi_wr32(qts, SD_SLOT, DM_CM_RST, 0xffffffff);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1B | 12, 0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_soft_reset_mid_transfer(void)
{
    QTestState *qts = sdhi_boot();
    uint8_t data[4 * BLKSZ];
    uint16_t rca = sd_init(qts);

    sdhi_setup_data(qts, SD_SLOT, 4);
    sdhi_cmd_ok(qts, SD_SLOT, sdhi_rw_cmd(true, 4), sdhi_card_addr(8));
    g_assert_true(sdhi_wait_status(qts, SD_SLOT, INFO2_BRE << 16) &
                  (INFO2_BRE << 16));
    sdhi_rd16(qts, SD_SLOT, SD_BUF0);
    sdhi_wr16(qts, SD_SLOT, SD_INFO1_MASK, 0);

    /* tmio_mmc_reset(): SOFT_RST 0 then 1 */
    sdhi_wr16(qts, SD_SLOT, SOFT_RST, 0);
    sdhi_wr16(qts, SD_SLOT, SOFT_RST, 1);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_INFO1_MASK), ==, 0x031d);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO2) &
                   (INFO2_CBSY | INFO2_BRE));
    for (int i = 0; i < 10; i++) {
        qtest_clock_step(qts, 100);
    }
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_ACCESSEND);

    /*
     * The card was not reset: it still has its RCA and is still sending
     * (a reset card would not answer CMD13 at all).
     */
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_DATA);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1B | 12, 0);
    sdhi_pio_read(qts, SD_SLOT, 8, 4, data);
    sdhi_check_against_image(sd_img, 8, data, 4);
    qtest_quit(qts);
}

static void test_sd_stop_ends_transfer(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    sdhi_setup_data(qts, SD_SLOT, 8);
    sdhi_cmd_ok(qts, SD_SLOT, sdhi_rw_cmd(true, 8), sdhi_card_addr(0));
    g_assert_true(sdhi_wait_status(qts, SD_SLOT, INFO2_BRE << 16) &
                  (INFO2_BRE << 16));
    /* SD_STOP.STP in the middle: the host stops the card with CMD12 */
    sdhi_wr16(qts, SD_SLOT, SD_STOP, SD_STOP_SEC | 1);
    g_assert_true(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_ACCESSEND);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    sdhi_wr16(qts, SD_SLOT, SD_STOP, 0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
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
    g_assert_true(sdhi_rd16(qts, 3, SD_INFO1) & INFO1_SIGSTATE);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    sdhi_sd_init_slot(qts, 3);
    sdhi_pio_read(qts, 3, 9, 1, data);
    sdhi_check_against_image(sd_img, 9, data, 1);
    qtest_quit(qts);
}

static void test_module_reset_keeps_card(void)
{
    QTestState *qts = sdhi_boot();
    uint16_t rca = sd_init(qts);

    sdhi_wr32(qts, SD_SLOT, DM_CM_INFO1_MASK, 0);
    sdhi_wr16(qts, SD_SLOT, SD_CLK_CTRL, 0x0100);
    qtest_set_irq_in(qts, "/machine/soc/sdhi0", "module-reset", 0, 1);
    qtest_set_irq_in(qts, "/machine/soc/sdhi0", "module-reset", 0, 0);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1_MASK), ==, 0xffffffff);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_CLK_CTRL), ==, 0x0020);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, rca)), ==,
                     STATE_TRAN);
    qtest_quit(qts);
}

static void test_scc(void)
{
    QTestState *qts = sdhi_boot();

    /* renesas_sdhi_init_tuning() reads TAPNUM back from DTCNTL */
    sdhi_wr32(qts, EMMC_SLOT, SCC_DTCNTL, 1);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_DTCNTL), ==, 0x00080001);
    sdhi_wr32(qts, EMMC_SLOT, SCC_TAPSET, 5);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_TAPSET), ==, 5);
    /* Nothing to correct: no retune request, samples match */
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_RVSREQ), ==, 0);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, SCC_SMPCMP), ==, 0);
    qtest_quit(qts);
}

static void test_card_eject(void)
{
    QTestState *qts = sdhi_boot();
    QDict *resp;

    g_assert_true(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_SIGSTATE);
    resp = qtest_qmp(qts, "{ 'execute': 'eject',"
                     "  'arguments': { 'device': 'sd0', 'force': true } }");
    qobject_unref(resp);
    /*
     * Native hot-plug: CARD_REMOVE and SIGSTATE low
     * (__tmio_mmc_card_detect_irq())
     */
    g_assert_true(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_CARD_REMOVE);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO1) & INFO1_SIGSTATE);
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

    sdhi_setup_data(qts, SD_SLOT, 2);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 25, sdhi_card_addr(0));
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | CMD_DATA | 13, rca << 16);
    status = sdhi_wait_status(qts, SD_SLOT, INFO1_ACCESSEND | INFO2_BWE << 16);
    g_assert_cmphex(status & (INFO1_ACCESSEND | (INFO2_DTO | INFO2_BWE) << 16),
                    ==, INFO1_ACCESSEND | INFO2_DTO << 16);
    for (int i = 0; i < BLKSZ; i += 2) {
        sdhi_wr16(qts, SD_SLOT, SD_BUF0, 0xdead);
    }
    qtest_clock_step(qts, 1000);
    /* Still alive, and the card still answers */
    sdhi_card_status(qts, SD_SLOT, rca);
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
    sdhi_emmc_init(qts);
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
            sdhi_rd16(qts, slot, off);
            break;
        case 1:
            sdhi_wr32(qts, slot, off & ~3, val);
            break;
        default:
            sdhi_wr16(qts, slot, off, val);
            break;
        }
        if (!(i % 16)) {
            qtest_clock_step(qts, 1000);
        }
    }
    g_rand_free(rand);
    /* Alive and decoding */
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, VERSION), ==, 0xcc10);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    int ret;

    sdhi_make_image(sd_img, 0x5d);
    sdhi_make_image(emmc_img, 0xec);
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
    qtest_add_func("/renesas-sdhi/emmc-cmd23-shorter-than-seccnt",
                   test_emmc_cmd23_shorter_than_seccnt);
    qtest_add_func("/renesas-sdhi/dma-read-past-end", test_dma_read_past_end);
    qtest_add_func("/renesas-sdhi/emmc-erase", test_emmc_erase);
    qtest_add_func("/renesas-sdhi/emmc-cache", test_emmc_cache);
    qtest_add_func("/renesas-sdhi/emmc-without-cache",
                   test_emmc_without_cache);
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
