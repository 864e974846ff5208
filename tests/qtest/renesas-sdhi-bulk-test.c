/*
 * QEMU's SD card model moves whole blocks in bulk (sd_read_blocks() and
 * sd_write_blocks() in hw/sd/sd.c); its byte-wise path, kept behind
 * x-bulk-data=off, is the reference.  Each case here runs the same
 * transfer through the R-Car Gen3 SDHI on both paths, and the two runs
 * must leave the same host registers, the same card status, the same
 * guest memory and the same image; each case also checks what the SD or
 * eMMC protocol says should happen, so that a fault shared by both paths
 * fails too.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "renesas-sdhi-util.h"

#define RAM_BUF             0x50000000ULL
#define BUF_BLOCKS          24
#define IMG_BLOCKS          (IMG_SIZE / BLKSZ)
/* Data the host writes: a seed of its own, unlike any image sector */
#define WRITE_SEED          0x5a
#define IMG_SEED            3

/* R1 card status bits (SD 4.10.1, JESD84-B51 6.13) */
#define R1_OUT_OF_RANGE     BIT(31)
#define R1_ADDRESS_ERROR    BIT(30)
#define R1_WP_VIOLATION     BIT(26)

/* sd.c: WPGROUP_SIZE, the write protect group of a standard-capacity card */
#define WP_GROUP_BLOCKS     (2 * MiB / BLKSZ)

/* EXT_CSD PARTITION_CONFIG (JESD84-B51 7.4.69) */
#define EXT_CSD_PART_CONFIG 179
#define PART_ACCESS_USER    0
#define PART_ACCESS_BOOT1   1
#define BOOT_PART_SIZE      (1 * MiB)

/* What a transfer left behind, to compare between the two data paths */
typedef struct Outcome {
    uint32_t info;          /* SD_INFO1 | SD_INFO2 << 16 after the data */
    uint32_t dm_info1;
    uint32_t dm_info2;
    uint32_t last_rsp;      /* SD_RSP10: the response of the stop command */
    uint32_t status;        /* CMD13 afterwards */
    uint64_t dma_bytes;     /* the SDHI's counter */
    uint8_t mem[BUF_BLOCKS * BLKSZ];
    uint8_t img[IMG_SIZE];
} Outcome;

typedef struct Card {
    char img[32];
    QTestState *qts;
    int slot;
    uint16_t rca;
} Card;

static const char *sdhi_path(int slot)
{
    return slot == EMMC_SLOT ? "/machine/soc/sdhi2" : "/machine/soc/sdhi0";
}

/*
 * Boot with one card on @slot, its bulk path on or off.  The card is
 * found through its bus, so that the test sees the property took.
 */
static void card_start(Card *c, int slot, bool bulk, const char *extra)
{
    g_autofree char *card = g_strdup_printf("%s/sdhi%d.sd-bus/child[0]",
                                            sdhi_path(slot), slot);

    strcpy(c->img, "/tmp/qtest-sdhi-bulk-XXXXXX");
    sdhi_make_image(c->img, IMG_SEED);
    c->slot = slot;
    c->qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G "
                         "-global sd-card.x-bulk-data=%s "
                         "-global emmc.x-bulk-data=%s %s "
                         "-drive if=sd,index=%d,file=%s,format=raw",
                         bulk ? "on" : "off", bulk ? "on" : "off", extra,
                         slot, c->img);
    g_assert_cmpint(rcar_qom_get_bool(c->qts, card, "x-bulk-data"), ==, bulk);
    if (slot == EMMC_SLOT) {
        sdhi_emmc_init(c->qts);
        c->rca = EMMC_RCA;
    } else {
        c->rca = sdhi_sd_init_slot(c->qts, slot);
    }
    qtest_memset(c->qts, RAM_BUF, 0xee, BUF_BLOCKS * BLKSZ);
}

/* The host's write data in guest memory, @blocks blocks */
static void fill_write_data(Card *c, uint32_t blocks)
{
    g_autofree uint8_t *data = g_malloc(blocks * BLKSZ);

    for (uint32_t b = 0; b < blocks; b++) {
        for (unsigned i = 0; i < BLKSZ; i++) {
            data[b * BLKSZ + i] = sdhi_pattern(b, i, WRITE_SEED);
        }
    }
    qtest_memwrite(c->qts, RAM_BUF, data, blocks * BLKSZ);
}

/*
 * A DMA transfer as the driver starts it, run to ACCESSEND whatever the
 * outcome; the registers are recorded before the driver would clear
 * them, then cleaned up as tmio_mmc_finish_request() does.
 */
static void dma_transfer(Card *c, bool read, uint32_t sector,
                         uint32_t blocks, uint16_t extra_cmd_bits,
                         Outcome *o)
{
    QTestState *qts = c->qts;

    sdhi_dma_command(qts, c->slot, read, sector, blocks, RAM_BUF,
                     extra_cmd_bits);
    sdhi_wr32(qts, c->slot, DM_CM_DTRAN_CTRL, 1);
    o->info = sdhi_wait_status(qts, c->slot, INFO1_ACCESSEND);
    g_assert_true(o->info & INFO1_ACCESSEND);
    o->dm_info1 = sdhi_rd32(qts, c->slot, DM_CM_INFO1);
    o->dm_info2 = sdhi_rd32(qts, c->slot, DM_CM_INFO2);
    o->last_rsp = sdhi_response(qts, c->slot);
    sdhi_ack(qts, c->slot, 0xffffffff);
    sdhi_wr32(qts, c->slot, DM_CM_INFO1, 0);
    sdhi_wr32(qts, c->slot, DM_CM_INFO2, 0);
    sdhi_wr32(qts, c->slot, DM_CM_INFO1_MASK, 0xffffffff);
    sdhi_wr16(qts, c->slot, CC_EXT_MODE, 0);
    sdhi_wr16(qts, c->slot, SD_STOP, 0);
}

/* PIO write as tmio_mmc_pio_irq() does, while the host asks for data */
static void pio_write(Card *c, uint32_t sector, uint32_t blocks, Outcome *o)
{
    QTestState *qts = c->qts;
    g_autofree uint8_t *data = g_malloc(blocks * BLKSZ);

    qtest_memread(qts, RAM_BUF, data, blocks * BLKSZ);
    sdhi_setup_data(qts, c->slot, blocks);
    sdhi_cmd_ok(qts, c->slot, sdhi_rw_cmd(false, blocks),
                sdhi_card_addr(sector));
    for (uint32_t b = 0; b < blocks; b++) {
        uint32_t status = sdhi_wait_status(qts, c->slot,
                                           INFO2_BWE << 16 | INFO1_ACCESSEND);

        if (!(status & (INFO2_BWE << 16))) {
            break;
        }
        sdhi_ack(qts, c->slot, INFO2_BWE << 16);
        sdhi_pio_write_block(qts, c->slot, data + b * BLKSZ);
    }
    o->info = sdhi_wait_status(qts, c->slot, INFO1_ACCESSEND);
    g_assert_true(o->info & INFO1_ACCESSEND);
    o->last_rsp = sdhi_response(qts, c->slot);
    sdhi_ack(qts, c->slot, 0xffffffff);
    sdhi_wr16(qts, c->slot, SD_STOP, 0);
}

/* Status, counters, memory and image after the transfer; ends the run */
static void card_finish(Card *c, Outcome *o)
{
    o->status = sdhi_card_status(c->qts, c->slot, c->rca);
    o->dma_bytes = rcar_qom_get_uint(c->qts, sdhi_path(c->slot),
                                     "x-dma-bytes");
    qtest_memread(c->qts, RAM_BUF, o->mem, sizeof(o->mem));
    qtest_quit(c->qts);
    sdhi_image_read(c->img, 0, o->img, sizeof(o->img));
    unlink(c->img);
}

static void assert_same_outcome(const Outcome *bulk, const Outcome *bytes)
{
    g_assert_cmphex(bulk->info, ==, bytes->info);
    g_assert_cmphex(bulk->dm_info1, ==, bytes->dm_info1);
    g_assert_cmphex(bulk->dm_info2, ==, bytes->dm_info2);
    g_assert_cmphex(bulk->last_rsp, ==, bytes->last_rsp);
    g_assert_cmphex(bulk->status, ==, bytes->status);
    g_assert_cmpuint(bulk->dma_bytes, ==, bytes->dma_bytes);
    g_assert_cmpmem(bulk->mem, sizeof(bulk->mem), bytes->mem,
                    sizeof(bytes->mem));
    g_assert_cmpmem(bulk->img, sizeof(bulk->img), bytes->img,
                    sizeof(bytes->img));
}

/* Image blocks [first, first + n) hold the host's write data block 0.. */
static void assert_written(const Outcome *o, uint32_t first, uint32_t n)
{
    for (uint32_t b = 0; b < n; b++) {
        for (unsigned i = 0; i < BLKSZ; i++) {
            g_assert_cmphex(o->img[(first + b) * BLKSZ + i], ==,
                            sdhi_pattern(b, i, WRITE_SEED));
        }
    }
}

/* Image blocks [first, first + n) are as the image was made */
static void assert_untouched(const Outcome *o, uint32_t first, uint32_t n)
{
    for (uint32_t s = first; s < first + n; s++) {
        for (unsigned i = 0; i < BLKSZ; i++) {
            g_assert_cmphex(o->img[s * BLKSZ + i], ==,
                            sdhi_pattern(s, i, IMG_SEED));
        }
    }
}

/* Guest memory blocks [0, n) hold image blocks [first, first + n) */
static void assert_read(const Outcome *o, uint32_t first, uint32_t n)
{
    g_assert_cmpmem(o->mem, n * BLKSZ, o->img + first * BLKSZ, n * BLKSZ);
}

typedef void (*Scenario)(Card *c, Outcome *o);

/*
 * Run @run on the bulk path and on the byte path, check that they agree,
 * and return the outcome for the checks against the protocol.
 */
static Outcome *run_both(int slot, const char *extra, Scenario run)
{
    Outcome *bulk = g_new0(Outcome, 1);
    g_autofree Outcome *bytes = g_new0(Outcome, 1);
    Card c;

    card_start(&c, slot, true, extra);
    run(&c, bulk);
    card_finish(&c, bulk);
    card_start(&c, slot, false, extra);
    run(&c, bytes);
    card_finish(&c, bytes);
    assert_same_outcome(bulk, bytes);
    return bulk;
}

/*
 * CMD25 from 8 blocks before a write-protected group (CMD28) into it:
 * the 8 blocks are written, nothing in the group is, and the stop
 * command's R1 reports WP_VIOLATION (sd.c rejects the first protected
 * block and drops the rest of the data).
 */
static const uint32_t wp_first = WP_GROUP_BLOCKS - 8;

static void protect_group_after(Card *c)
{
    sdhi_cmd_ok(c->qts, c->slot, CMD_R1B | 28,
                sdhi_card_addr(WP_GROUP_BLOCKS));
    fill_write_data(c, 16);
}

static void dma_write_into_protected_group(Card *c, Outcome *o)
{
    protect_group_after(c);
    dma_transfer(c, false, wp_first, 16, 0, o);
}

static void pio_write_into_protected_group(Card *c, Outcome *o)
{
    protect_group_after(c);
    pio_write(c, wp_first, 16, o);
}

static void assert_stopped_at_protected_group(const Outcome *o)
{
    assert_written(o, wp_first, 8);
    assert_untouched(o, WP_GROUP_BLOCKS, 8);
    g_assert_cmphex(o->last_rsp & R1_WP_VIOLATION, !=, 0);
    g_assert_cmpuint(R1_STATE(o->status), ==, STATE_TRAN);
}

static void test_write_protect_dma(void)
{
    g_autofree Outcome *o = run_both(SD_SLOT, "",
                                     dma_write_into_protected_group);

    assert_stopped_at_protected_group(o);
}

static void test_write_protect_pio(void)
{
    g_autofree Outcome *o = run_both(SD_SLOT, "",
                                     pio_write_into_protected_group);

    assert_stopped_at_protected_group(o);
}

/*
 * CMD18 and CMD25 of 16 blocks from 8 blocks before the end of the card:
 * the 8 blocks inside it move, and the stop command's R1 reports
 * OUT_OF_RANGE / ADDRESS_ERROR.
 */
static const uint32_t end_first = IMG_BLOCKS - 8;

static void read_past_end(Card *c, Outcome *o)
{
    dma_transfer(c, true, end_first, 16, 0, o);
}

static void write_past_end(Card *c, Outcome *o)
{
    fill_write_data(c, 16);
    dma_transfer(c, false, end_first, 16, 0, o);
}

static void test_read_past_end(void)
{
    g_autofree Outcome *o = run_both(SD_SLOT, "", read_past_end);

    assert_read(o, end_first, 8);
    g_assert_cmphex(o->last_rsp & (R1_OUT_OF_RANGE | R1_ADDRESS_ERROR),
                    !=, 0);
}

static void test_write_past_end(void)
{
    g_autofree Outcome *o = run_both(SD_SLOT, "", write_past_end);

    assert_written(o, end_first, 8);
    g_assert_cmphex(o->last_rsp & (R1_OUT_OF_RANGE | R1_ADDRESS_ERROR),
                    !=, 0);
}

/*
 * eMMC CMD23 with 4 blocks, then a 16-block CMD25 without auto CMD12:
 * the card takes 4 blocks and goes back to the transfer state, the host
 * times out waiting to give it the fifth (DTO).
 */
static void write_cmd23_short(Card *c, Outcome *o)
{
    fill_write_data(c, 16);
    sdhi_cmd_ok(c->qts, c->slot, CMD_R1 | 23, 4);
    dma_transfer(c, false, 100, 16, CMD_NO_CMD12, o);
}

static void test_emmc_cmd23_write(void)
{
    g_autofree Outcome *o = run_both(EMMC_SLOT, "", write_cmd23_short);

    assert_written(o, 100, 4);
    assert_untouched(o, 104, 12);
    g_assert_cmphex(o->info & (INFO2_DTO << 16), !=, 0);
    g_assert_cmpuint(o->dma_bytes, ==, 4 * BLKSZ);
    g_assert_cmpuint(R1_STATE(o->status), ==, STATE_TRAN);
}

/*
 * The first boot partition (EXT_CSD PARTITION_CONFIG access 1), which
 * sd.c keeps at the start of the image, before the second one and the
 * user area: a write and a read there, then a read of the user area.
 */
static const uint32_t user_first = 2 * BOOT_PART_SIZE / BLKSZ;

static void switch_partition(Card *c, uint8_t access)
{
    /* SWITCH, write byte (mmc_switch(): MMC_SWITCH_MODE_WRITE_BYTE) */
    sdhi_cmd_ok(c->qts, c->slot, CMD_R1B | 6,
                3 << 24 | EXT_CSD_PART_CONFIG << 16 | access << 8);
}

static void boot_partition_io(Card *c, Outcome *o)
{
    switch_partition(c, PART_ACCESS_BOOT1);
    fill_write_data(c, 8);
    dma_transfer(c, false, 16, 8, 0, o);
    dma_transfer(c, true, 8, 16, 0, o);
    switch_partition(c, PART_ACCESS_USER);
    /* Over the first 8 blocks of the buffer: the start of the user area */
    dma_transfer(c, true, 0, 8, 0, o);
}

static void test_emmc_boot_partition(void)
{
    g_autofree char *extra = g_strdup_printf(
        "-global emmc.boot-partition-size=%u", (unsigned)BOOT_PART_SIZE);
    g_autofree Outcome *o = run_both(EMMC_SLOT, extra, boot_partition_io);

    assert_written(o, 16, 8);
    assert_untouched(o, user_first, 8);
    /*
     * The 16-block read of boot blocks 8-23 was overwritten at 0-7 by the
     * read of the user area; boot blocks 16-23 are in buffer blocks 8-15.
     */
    g_assert_cmpmem(o->mem, 8 * BLKSZ, o->img + user_first * BLKSZ,
                    8 * BLKSZ);
    g_assert_cmpmem(o->mem + 8 * BLKSZ, 8 * BLKSZ, o->img + 16 * BLKSZ,
                    8 * BLKSZ);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/renesas-sdhi-bulk/write-protect-dma",
                   test_write_protect_dma);
    qtest_add_func("/renesas-sdhi-bulk/write-protect-pio",
                   test_write_protect_pio);
    qtest_add_func("/renesas-sdhi-bulk/read-past-end", test_read_past_end);
    qtest_add_func("/renesas-sdhi-bulk/write-past-end", test_write_past_end);
    qtest_add_func("/renesas-sdhi-bulk/emmc-cmd23-write",
                   test_emmc_cmd23_write);
    qtest_add_func("/renesas-sdhi-bulk/emmc-boot-partition",
                   test_emmc_boot_partition);
    return g_test_run();
}
