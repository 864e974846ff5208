/*
 * QTest: guest register sequences that aborted or hung QEMU, found by
 * fuzzing the Renesas R-Car Gen3 SDHI, its DMAC and the IPMMU (in the
 * style of fuzz-sdcard-test.c).  Each case replays what the fuzzer or a
 * review found and checks that QEMU is alive and that the guest sees
 * what the hardware gives: an error bit, a data timeout, a fault.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qemu/bitops.h"
#include "qobject/qdict.h"
#include "renesas-sdhi-util.h"

#define SDHI0               0xee100000
#define SDHI2               0xee120000
#define IPMMU_MM            0xe67b0000
#define IPMMU_DS1           0xe7740000
#define RAM_BUF             0x48000000

/* R1 card status bits */
#define R1_OUT_OF_RANGE     BIT(31)
#define R1_ADDRESS_ERROR    BIT(30)
#define R1_BLOCK_LEN_ERROR  BIT(29)
#define R1_SWITCH_ERROR     BIT(7)

#define EXT_CSD_PART_CONFIG 179

static char sd_img[] = "/tmp/qtest-sdhi-fuzz-XXXXXX";
static uint16_t sd_rca;

static QTestState *boot_sd(const char *drive_opts)
{
    return qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 256M -seed 1 "
                       "-drive if=sd,index=%d,format=raw,%s", SD_SLOT,
                       drive_opts);
}

static QTestState *boot_sd_card(void)
{
    g_autofree char *opts = g_strdup_printf("file=%s", sd_img);
    QTestState *qts = boot_sd(opts);

    sd_rca = sdhi_sd_init_slot(qts, SD_SLOT);
    return qts;
}

/* The host ended the data phase with a data timeout, and is idle again */
static void assert_data_timeout(QTestState *qts, int slot)
{
    uint32_t info = sdhi_wait_status(qts, slot, INFO2_DTO << 16);

    g_assert_cmphex(info & (INFO2_DTO << 16), !=, 0);
    g_assert_false(sdhi_rd16(qts, slot, SD_INFO2) & INFO2_CBSY);
}

/* The host's clean-up after a failed request (tmio_mmc_finish_request) */
static void host_cleanup(QTestState *qts, int slot)
{
    sdhi_ack(qts, slot, 0xffffffff);
    sdhi_wr32(qts, slot, DM_CM_INFO1, 0);
    sdhi_wr32(qts, slot, DM_CM_INFO2, 0);
    sdhi_wr32(qts, slot, DM_CM_INFO1_MASK, 0xffffffff);
    sdhi_wr16(qts, slot, CC_EXT_MODE, 0);
    sdhi_wr16(qts, slot, SD_STOP, 0);
}

/*
 * IMTTBCR 0x80000082 (EAE, SL0 = level 1, T0SZ = 2): a 30-bit IOVA whose
 * first level would index with no bits.  The walk asserted; now it is a
 * translation fault.  No card: the data phase then times out at once.
 */
static void test_ipmmu_zero_index_walk(void)
{
    QTestState *s = qtest_init("-M r8a77951-salvator-xs -smp 1 -m 256M "
                               "-accel qtest -seed 1");

    qtest_writeq(s, 0x48000000, 0x0310004800000000);
    qtest_writel(s, 0xe67b0008, 0x80000082);
    qtest_writel(s, 0xe67b0010, 0x48000000);
    qtest_writel(s, 0xe67b0000, 0x1);
    qtest_writel(s, 0xe7740610, 0x1);
    qtest_writew(s, 0xee120360, 0x2);
    qtest_writew(s, 0xee120098, 0x200);
    qtest_writew(s, 0xee120000, 0xb18);
    qtest_writel(s, 0xee120820, 0x1);
    qtest_writel(s, 0xee120880, 0x1000);
    qtest_writel(s, 0xee120828, 0x1);
    qtest_clock_step(s, 1000);
    /* No card on SDHI2 in this machine: no data phase, a data timeout */
    g_assert_cmphex(qtest_readw(s, SDHI2 + SD_INFO2) & INFO2_DTO, !=, 0);
    qtest_quit(s);
}

/*
 * A DMA read from the card aimed at the SDHI's own register window: the
 * card data would stop the phase, set SD_SIZE to 0 and issue commands
 * in the middle of the DMA step, which then divided by zero.  The DMA
 * runs under the device's re-entrancy guard: the bus refuses it.
 */
static void test_dma_into_own_registers(void)
{
    QTestState *qts = boot_sd_card();

    sdhi_dma_command(qts, SD_SLOT, true, 0, 8, SDHI0, 0);
    sdhi_wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    sdhi_wait_bus_idle(qts, SD_SLOT);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO2) & DTRANERR1, !=, 0);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1) & DTRANEND1, ==, 0);
    g_assert_cmphex(sdhi_rd16(qts, SD_SLOT, SD_SIZE), ==, BLKSZ);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_DTRAN_ADDR), ==, SDHI0);
    g_assert_false(sdhi_rd16(qts, SD_SLOT, SD_INFO2) & INFO2_CBSY);
    host_cleanup(qts, SD_SLOT);
    /* The host and the card still work (the automatic CMD12 went out) */
    g_assert_cmphex(sdhi_dma_transfer(qts, SD_SLOT, true, 0, 8, RAM_BUF, 0) &
                    DTRANEND1, ==, DTRANEND1);
    qtest_quit(qts);
}

/*
 * CMD25 without a data phase leaves the card receiving; CMD24 with no
 * response asked for is illegal there, and its write data aborted in
 * sd_write_byte().  The card never accepted the command: data timeout.
 */
static void test_write_data_for_refused_command(void)
{
    QTestState *s = boot_sd_card();

    qtest_writew(s, 0xee100000, 0x419);
    qtest_writew(s, 0xee100360, 0x2);
    qtest_writew(s, 0xee100098, 0x200);
    qtest_writel(s, 0xee100820, 0x1);
    qtest_writel(s, 0xee100880, 0x48000000);
    qtest_writew(s, 0xee100000, 0xb18);
    qtest_writel(s, 0xee100828, 0x1);
    qtest_clock_step(s, 1000);
    assert_data_timeout(s, SD_SLOT);
    qtest_quit(s);
}

/*
 * CMD18 or CMD25 from the last sector with SD_SECCNT 0xffffffff: the
 * card meets ADDRESS_ERROR after one block and stops driving the data
 * lines; the host sees a data timeout instead of 2^32 dummy blocks (the
 * transfer timer also re-armed at the same instant, so under qtest the
 * main loop never returned).
 */
static void run_past_end_with_huge_count(bool read)
{
    QTestState *s = boot_sd_card();
    uint32_t r1;

    qtest_writew(s, 0xee100360, 0x2);
    qtest_writel(s, 0xee100820, read ? DTRAN_MODE_READ : DTRAN_MODE_WRITE);
    qtest_writel(s, 0xee100880, 0x48000000);
    qtest_writew(s, 0xee100098, 0x200);
    qtest_writel(s, 0xee100028, 0xffffffff);
    qtest_writew(s, 0xee100020, 0x100);
    qtest_writew(s, 0xee100010, 0xfe00);
    qtest_writew(s, 0xee100018, 0x3f);
    qtest_writew(s, 0xee100000, read ? 0x3c12 : 0x2c19);
    qtest_writel(s, 0xee100828, 0x1);
    qtest_clock_step(s, 1000000);
    assert_data_timeout(s, SD_SLOT);
    /* The status of the automatic CMD12 says why */
    r1 = sdhi_response(s, SD_SLOT);
    g_assert_cmphex(r1 & (R1_OUT_OF_RANGE | R1_ADDRESS_ERROR), !=, 0);
    host_cleanup(s, SD_SLOT);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(s, SD_SLOT, sd_rca)), ==,
                     STATE_TRAN);
    qtest_quit(s);
}

static void test_read_past_end_huge_count(void)
{
    run_past_end_with_huge_count(true);
}

static void test_write_past_end_huge_count(void)
{
    run_past_end_with_huge_count(false);
}

#define EXT_CSD_BUS_WIDTH   183
#define EXT_CSD_HS_TIMING   185
#define PART_ACCESS_BOOT1   1
#define PART_ACCESS_RPMB    3
#define BOOT_PART_BLOCKS    (1 * MiB / BLKSZ)

static QTestState *boot_emmc(const char *globals)
{
    QTestState *qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 256M "
                                  "%s -drive if=sd,index=%d,file=%s,"
                                  "format=raw", globals, EMMC_SLOT, sd_img);

    sdhi_emmc_init(qts);
    return qts;
}

/* SWITCH, write byte (mmc_switch(): MMC_SWITCH_MODE_WRITE_BYTE) */
static uint32_t emmc_switch(QTestState *qts, uint8_t index, uint8_t value)
{
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1B | 6,
                3 << 24 | index << 16 | value << 8);
    /* mmc_switch_status(): the status after the switch says how it went */
    return sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA);
}

/*
 * SWITCH of PARTITION_CONFIG to access 3-7 (RPMB, general purpose
 * partitions): the next block command aborted in sd_bootpart_offset().
 * The card refuses the switch with SWITCH_ERROR and stays on its user
 * area.
 */
static void test_emmc_partition_access(void)
{
    QTestState *qts = boot_emmc("-global emmc.boot-partition-size=1048576");
    uint8_t buf[BLKSZ], expect[BLKSZ];

    for (unsigned access = 3; access < 8; access++) {
        g_assert_cmphex(emmc_switch(qts, EXT_CSD_PART_CONFIG, access) &
                        R1_SWITCH_ERROR, !=, 0);
        g_assert_cmphex(sdhi_dma_transfer(qts, EMMC_SLOT, true, 0, 1,
                                          RAM_BUF, 0) & DTRANEND1, ==,
                        DTRANEND1);
        /* The user area starts after the two boot partitions */
        qtest_memread(qts, RAM_BUF, buf, BLKSZ);
        sdhi_image_read(sd_img, 2 * 2048, expect, BLKSZ);
        g_assert_cmpmem(buf, BLKSZ, expect, BLKSZ);
    }
    qtest_quit(qts);
}

/*
 * Migration: a destination must refuse a DMA phase that the device could
 * not be in (here SD_SIZE 0 latched as the block size), which divided by
 * zero at the next DM_START.  The stream comes from a real source: the
 * SDHI is waiting for DM_START, and the block size is patched to 0 in
 * the file.
 */
#define MIGRATE_MARK        0x5a17c0deu

/*
 * Offset of the SDHI's latched block size from SD_ARG in its section: the
 * 32-bit registers of regs[] from SD_ARG (the third) to the last of the
 * 39 (RenesasSDHIReg), 5 bytes of data phase, then blksz.
 */
#define VMSTATE_ARG_TO_BLKSZ (4 * (39 - 2) + 5)

/*
 * Migrate an SD card's SDHI waiting for DM_START, with SD_ARG set to
 * MIGRATE_MARK; in the stream, @len bytes at @off from SD_ARG must hold
 * @was, and become @now; the destination must refuse the stream
 */
static void migrate_patched(size_t off, const uint8_t *was,
                            const uint8_t *now, size_t len)
{
    g_autofree char *stream = g_strdup("/tmp/qtest-sdhi-mig-XXXXXX");
    g_autofree char *uri = NULL;
    g_autofree char *data = NULL;
    uint8_t mark[4] = { 0x5a, 0x17, 0xc0, 0xde };   /* SD_ARG, big endian */
    QTestState *src, *dst;
    gsize size;
    char *at;
    int fd = g_mkstemp(stream);

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    uri = g_strdup_printf("file:%s", stream);

    src = boot_sd_card();
    sdhi_dma_command(src, SD_SLOT, true, 0, 8, RAM_BUF, 0);
    sdhi_wr32(src, SD_SLOT, SD_ARG, MIGRATE_MARK);
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    rcar_gen3_wait_migration(src, "completed");
    qtest_quit(src);

    g_assert_true(g_file_get_contents(stream, &data, &size, NULL));
    at = memmem(data, size, mark, sizeof(mark));
    g_assert_nonnull(at);
    g_assert_null(memmem(at + 1, size - (at + 1 - data), mark, sizeof(mark)));
    g_assert_cmpuint(at + off + len - data, <=, size);
    g_assert_cmpmem(at + off, len, was, len);
    memcpy(at + off, now, len);
    g_assert_true(g_file_set_contents(stream, data, size, NULL));

    dst = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 256M -seed 1 "
                      "-drive if=sd,index=%d,file=%s,format=raw "
                      "-incoming defer", SD_SLOT, sd_img);
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    rcar_gen3_wait_migration(dst, "failed");
    qtest_quit(dst);
    unlink(stream);
}

static void test_migration_rejects_zero_block_size(void)
{
    const uint8_t was[] = { BLKSZ >> 8, BLKSZ & 0xff }, now[2] = { 0 };

    /* Had the state been taken, the next DM_START divided by zero */
    migrate_patched(VMSTATE_ARG_TO_BLKSZ, was, now, sizeof(was));
}

/*
 * A register holding bits it does not have: SD_SIZE (the 20th register
 * of regs[], 32-bit big endian) 0x1200 where LEN has 10 bits.  The
 * destination took it and latched a block size of 0x1200 & 0x3ff at the
 * next command; now post_load refuses the stream.
 */
#define VMSTATE_ARG_TO_SD_SIZE (4 * (19 - 2))

static void test_migration_rejects_register_bits(void)
{
    const uint8_t was[] = { 0, 0, BLKSZ >> 8, BLKSZ & 0xff };
    const uint8_t now[] = { 0, 0, 0x12, 0x00 };

    migrate_patched(VMSTATE_ARG_TO_SD_SIZE, was, now, sizeof(was));
}

/*
 * ERASE from block 4096 to the block just past the 4 MiB card: the card
 * reported success and erased nothing of the last 1 MiB piece (its
 * write ran past the backend).  Now OUT_OF_RANGE, and nothing erased.
 */
static void test_erase_one_block_past_end(void)
{
    QTestState *qts = boot_sd_card();
    const size_t len = IMG_SIZE / 2;
    g_autofree uint8_t *before = g_malloc(len);
    g_autofree uint8_t *after = g_malloc(len);
    uint32_t r1;

    sdhi_image_read(sd_img, 4096, before, len);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 32, sdhi_card_addr(4096));
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 33, IMG_SIZE);
    r1 = sdhi_cmd_ok(qts, SD_SLOT, CMD_R1B | 38, 0);
    g_assert_cmphex(r1 & R1_OUT_OF_RANGE, !=, 0);
    sdhi_image_read(sd_img, 4096, after, len);
    g_assert_cmpmem(before, len, after, len);
    qtest_quit(qts);
}

/*
 * SD_SIZE 1023 on a card whose block length is 512: the data is one
 * stream either way (no CRC is modelled), so 4 host blocks are the first
 * 4092 bytes of the card.  The bulk path dropped or repeated pieces.
 */
static void test_sd_size_not_card_block(void)
{
    QTestState *qts = boot_sd_card();
    const size_t len = 4 * 1023;
    g_autofree uint8_t *buf = g_malloc(len);
    g_autofree uint8_t *expect = g_malloc(8 * BLKSZ);

    sdhi_wr16(qts, SD_SLOT, SD_SIZE, 1023);
    sdhi_wr32(qts, SD_SLOT, SD_SECCNT, 4);
    sdhi_wr16(qts, SD_SLOT, SD_STOP, SD_STOP_SEC);
    sdhi_dma_setup(qts, SD_SLOT, true, RAM_BUF);
    sdhi_cmd_ok(qts, SD_SLOT, sdhi_rw_cmd(true, 4), 0);
    sdhi_wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    g_assert_true(sdhi_wait_status(qts, SD_SLOT, INFO1_ACCESSEND) &
                  INFO1_ACCESSEND);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1) & DTRANEND1, ==,
                    DTRANEND1);
    qtest_memread(qts, RAM_BUF, buf, len);
    sdhi_image_read(sd_img, 0, expect, 8 * BLKSZ);
    g_assert_cmpmem(buf, len, expect, len);
    qtest_quit(qts);
}

/*
 * The backend fails the reads and writes of sector 16 (blkdebug): the
 * transfer ends with a data timeout and the stop command's status has
 * ERROR, where it used to succeed with stale data or lost writes.
 */
static char blkdebug_conf[] = "/tmp/qtest-sdhi-blkdebug-XXXXXX";

static QTestState *boot_failing_sd(void)
{
    g_autofree char *opts = g_strdup_printf("file=blkdebug:%s:%s",
                                            blkdebug_conf, sd_img);
    QTestState *qts = boot_sd(opts);

    sd_rca = sdhi_sd_init_slot(qts, SD_SLOT);
    return qts;
}

/*
 * ACMD22, SEND_NUM_WR_BLOCKS: how many blocks of the last write the card
 * stored, as Linux asks after a failed write (mmc_sd_num_wr_blocks())
 */
static uint32_t sd_written_blocks(QTestState *qts)
{
    uint16_t hi, lo;

    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 55, sd_rca << 16);
    sdhi_wr16(qts, SD_SLOT, SD_SIZE, 4);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | CMD_DATA | CMD_READ | 22, 0);
    g_assert_true(sdhi_wait_status(qts, SD_SLOT, INFO2_BRE << 16) &
                  (INFO2_BRE << 16));
    sdhi_ack(qts, SD_SLOT, INFO2_BRE << 16);
    hi = bswap16(sdhi_rd16(qts, SD_SLOT, SD_BUF0));
    lo = bswap16(sdhi_rd16(qts, SD_SLOT, SD_BUF0));
    g_assert_true(sdhi_wait_status(qts, SD_SLOT, INFO1_ACCESSEND) &
                  INFO1_ACCESSEND);
    sdhi_ack(qts, SD_SLOT, 0xffffffff);
    sdhi_wr16(qts, SD_SLOT, SD_SIZE, BLKSZ);
    return (uint32_t)hi << 16 | lo;
}

static void io_error(bool read, uint32_t blocks)
{
    QTestState *qts = boot_failing_sd();

    qtest_memset(qts, RAM_BUF, 0xa5, blocks * BLKSZ);
    sdhi_dma_command(qts, SD_SLOT, read, 16, blocks, RAM_BUF, 0);
    sdhi_wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    assert_data_timeout(qts, SD_SLOT);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1) &
                    (DTRANEND0 | DTRANEND1), ==, 0);
    /* The status of the automatic CMD12, or of CMD17 itself */
    g_assert_cmphex(sdhi_response(qts, SD_SLOT) & R1_ERROR, !=, 0);
    host_cleanup(qts, SD_SLOT);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, SD_SLOT, sd_rca)), ==,
                     STATE_TRAN);
    if (!read) {
        /* None of them reached the medium: none is counted */
        g_assert_cmpuint(sd_written_blocks(qts), ==, 0);
    }
    if (read) {
        uint8_t buf[BLKSZ], expect[BLKSZ];

        /* No stale buffer contents reached memory */
        memset(expect, 0xa5, BLKSZ);
        qtest_memread(qts, RAM_BUF, buf, BLKSZ);
        g_assert_cmpmem(buf, BLKSZ, expect, BLKSZ);
    }
    qtest_quit(qts);
}

/*
 * ACMD22 after a write that ended well: the count of its blocks, most
 * significant byte first, as mmc_sd_num_wr_blocks() reads it (ntohl).
 * This also shows that sd_written_blocks() reads a count at all.
 */
#define WRITTEN_SECTOR  4096

static void test_written_blocks(void)
{
    QTestState *qts = boot_sd_card();

    sdhi_dma_command(qts, SD_SLOT, false, WRITTEN_SECTOR, 8, RAM_BUF, 0);
    sdhi_wr32(qts, SD_SLOT, DM_CM_DTRAN_CTRL, 1);
    g_assert_cmphex(sdhi_wait_status(qts, SD_SLOT, INFO1_ACCESSEND) &
                    INFO1_ACCESSEND, !=, 0);
    g_assert_cmphex(sdhi_rd32(qts, SD_SLOT, DM_CM_INFO1) & DTRANEND0, !=, 0);
    host_cleanup(qts, SD_SLOT);
    g_assert_cmpuint(sd_written_blocks(qts), ==, 8);
    qtest_quit(qts);
}

static void test_io_error_read(void)
{
    io_error(true, 8);
}

static void test_io_error_read_single(void)
{
    io_error(true, 1);
}

static void test_io_error_write(void)
{
    io_error(false, 8);
}

/*
 * CMD16 with a block length of 0: a multiple-block read then never moved
 * on (each byte a "block", the address unchanged), and a DMA chunk took
 * seconds of host time with the BQL held.  Now BLOCK_LEN_ERROR, and the
 * card keeps its 512-byte blocks.
 */
static void test_block_length_zero(void)
{
    QTestState *qts = boot_sd_card();
    uint8_t buf[2 * BLKSZ], expect[2 * BLKSZ];

    g_assert_cmphex(sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 16, 0) &
                    R1_BLOCK_LEN_ERROR, !=, 0);
    g_assert_cmphex(sdhi_dma_transfer(qts, SD_SLOT, true, 4, 2, RAM_BUF, 0) &
                    DTRANEND1, ==, DTRANEND1);
    qtest_memread(qts, RAM_BUF, buf, sizeof(buf));
    sdhi_image_read(sd_img, 4, expect, sizeof(expect));
    g_assert_cmpmem(buf, sizeof(buf), expect, sizeof(expect));
    qtest_quit(qts);
}

/*
 * A standard-capacity card takes byte addresses for ERASE_WR_BLK_START
 * and END, each naming the block that holds it.  An end address in the
 * last block erased 512 bytes from that byte, past the end of the card
 * (a host write error), and a start address inside a block left the
 * first bytes of the block.
 */
static void test_erase_unaligned_byte_addresses(void)
{
    char img[] = "/tmp/qtest-sdhi-erase-XXXXXX";
    const uint32_t first = IMG_SIZE / BLKSZ - 4;
    uint8_t data[4 * BLKSZ], erased[4 * BLKSZ], before[BLKSZ], after[BLKSZ];
    g_autofree char *opts = NULL;
    QTestState *qts;
    uint16_t rca;
    uint32_t r1;

    sdhi_make_image(img, 0x5e);
    opts = g_strdup_printf("file=%s", img);
    qts = boot_sd(opts);
    rca = sdhi_sd_init_slot(qts, SD_SLOT);
    sdhi_image_read(img, first - 1, before, BLKSZ);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 32, sdhi_card_addr(first) + 100);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 33, IMG_SIZE - 1);
    r1 = sdhi_cmd_ok(qts, SD_SLOT, CMD_R1B | 38, 0);
    g_assert_cmphex(r1 & (R1_OUT_OF_RANGE | R1_ERROR), ==, 0);
    g_assert_cmphex(sdhi_card_status(qts, SD_SLOT, rca) &
                    (R1_OUT_OF_RANGE | R1_ERROR), ==, 0);
    qtest_quit(qts);

    sdhi_image_read(img, first, data, sizeof(data));
    sdhi_image_read(img, first - 1, after, BLKSZ);
    unlink(img);
    /* The SCR's DATA_STAT_AFTER_ERASE is 0: erased blocks read 0 */
    memset(erased, 0, sizeof(erased));
    g_assert_cmpmem(data, sizeof(data), erased, sizeof(erased));
    g_assert_cmpmem(before, BLKSZ, after, BLKSZ);
}

/*
 * With a 1 MiB boot partition selected, a block command addresses that
 * partition: a block past its end is an ADDRESS_ERROR, not a block of the
 * second boot partition behind it.  The last block is in range.
 */
static void test_emmc_boot_partition_end(void)
{
    QTestState *qts = boot_emmc("-global emmc.boot-partition-size=1048576");
    uint8_t buf[BLKSZ], expect[BLKSZ];
    uint32_t r1;

    g_assert_cmphex(emmc_switch(qts, EXT_CSD_PART_CONFIG, PART_ACCESS_BOOT1) &
                    R1_SWITCH_ERROR, ==, 0);
    g_assert_cmphex(sdhi_dma_transfer(qts, EMMC_SLOT, true,
                                      BOOT_PART_BLOCKS - 1, 1, RAM_BUF, 0) &
                    DTRANEND1, ==, DTRANEND1);
    qtest_memread(qts, RAM_BUF, buf, BLKSZ);
    sdhi_image_read(sd_img, BOOT_PART_BLOCKS - 1, expect, BLKSZ);
    g_assert_cmpmem(buf, BLKSZ, expect, BLKSZ);

    /* No data flag: the R1 alone tells whether the card would take data */
    r1 = sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 24,
                     sdhi_card_addr(BOOT_PART_BLOCKS));
    g_assert_cmphex(r1 & R1_ADDRESS_ERROR, !=, 0);
    r1 = sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 17,
                     sdhi_card_addr(BOOT_PART_BLOCKS));
    g_assert_cmphex(r1 & R1_ADDRESS_ERROR, !=, 0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)),
                     ==, STATE_TRAN);
    qtest_quit(qts);
}

/*
 * The RPMB partition moves authenticated frames only (CMD23 + CMD25 or
 * CMD18): CMD17, CMD24 and ERASE there are illegal, where they read,
 * wrote and erased its data without the key.
 */
static void test_emmc_rpmb_plain_commands(void)
{
    QTestState *qts = boot_emmc("-global emmc.rpmb-partition-size=2097152");
    static const uint16_t cmds[] = { CMD_R1 | 17, CMD_R1 | 24, CMD_R1B | 38 };

    g_assert_cmphex(emmc_switch(qts, EXT_CSD_PART_CONFIG, PART_ACCESS_RPMB) &
                    R1_SWITCH_ERROR, ==, 0);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 35, 0);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 36, 1);
    for (unsigned i = 0; i < ARRAY_SIZE(cmds); i++) {
        uint32_t status;

        /* An illegal command gets no response */
        g_assert_false(sdhi_cmd(qts, EMMC_SLOT, cmds[i], 0, NULL));
        status = sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA);
        g_assert_cmphex(status & R1_ILLEGAL_COMMAND, !=, 0);
        g_assert_cmpuint(R1_STATE(status), ==, STATE_TRAN);
    }
    qtest_quit(qts);
}

/*
 * SWITCH_ERROR says how the last SWITCH went (mmc_switch_status()): HS200
 * timing and the 8-bit DDR bus on upstream's v4.41 card, which
 * offers HS26 and HS52 only, are refused; the 4-bit bus and HS timing
 * after each are taken, and their status has no SWITCH_ERROR.  The bit
 * used to stay set for good after the first refusal.
 */
static void test_emmc_switch_error_per_switch(void)
{
    /* -device emmc: upstream's default card, not the board's (hs400=on) */
    QTestState *qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 256M "
                                  "-drive if=none,id=emmc0,file=%s,format=raw "
                                  "-device emmc,drive=emmc0,bus=sdhi2.sd-bus",
                                  sd_img);

    sdhi_emmc_init(qts);

    g_assert_cmphex(emmc_switch(qts, EXT_CSD_HS_TIMING, 2) & R1_SWITCH_ERROR,
                    !=, 0);
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_BUS_WIDTH, 1) & R1_SWITCH_ERROR,
                    ==, 0);
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_BUS_WIDTH, 6) & R1_SWITCH_ERROR,
                    !=, 0);
    g_assert_cmphex(emmc_switch(qts, EXT_CSD_HS_TIMING, 1) & R1_SWITCH_ERROR,
                    ==, 0);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    int fd, ret;

    g_test_init(&argc, &argv, NULL);
    sdhi_make_image(sd_img, 0x3c);
    fd = g_mkstemp(blkdebug_conf);
    g_assert_cmpint(fd, >=, 0);
    g_assert_true(g_file_set_contents(blkdebug_conf,
        "[inject-error]\nevent = \"read_aio\"\nerrno = \"5\"\n"
        "sector = \"16\"\n\n"
        "[inject-error]\nevent = \"write_aio\"\nerrno = \"5\"\n"
        "sector = \"16\"\n", -1, NULL));
    close(fd);

    qtest_add_func("/renesas-sdhi-fuzz/ipmmu-zero-index-walk",
                   test_ipmmu_zero_index_walk);
    qtest_add_func("/renesas-sdhi-fuzz/dma-into-own-registers",
                   test_dma_into_own_registers);
    qtest_add_func("/renesas-sdhi-fuzz/write-data-for-refused-command",
                   test_write_data_for_refused_command);
    qtest_add_func("/renesas-sdhi-fuzz/read-past-end-huge-count",
                   test_read_past_end_huge_count);
    qtest_add_func("/renesas-sdhi-fuzz/write-past-end-huge-count",
                   test_write_past_end_huge_count);
    qtest_add_func("/renesas-sdhi-fuzz/emmc-partition-access",
                   test_emmc_partition_access);
    qtest_add_func("/renesas-sdhi-fuzz/migration-zero-block-size",
                   test_migration_rejects_zero_block_size);
    qtest_add_func("/renesas-sdhi-fuzz/migration-register-bits",
                   test_migration_rejects_register_bits);
    qtest_add_func("/renesas-sdhi-fuzz/erase-one-block-past-end",
                   test_erase_one_block_past_end);
    qtest_add_func("/renesas-sdhi-fuzz/sd-size-not-card-block",
                   test_sd_size_not_card_block);
    qtest_add_func("/renesas-sdhi-fuzz/io-error-read", test_io_error_read);
    qtest_add_func("/renesas-sdhi-fuzz/io-error-read-single",
                   test_io_error_read_single);
    qtest_add_func("/renesas-sdhi-fuzz/io-error-write", test_io_error_write);
    qtest_add_func("/renesas-sdhi-fuzz/written-blocks", test_written_blocks);
    qtest_add_func("/renesas-sdhi-fuzz/block-length-zero",
                   test_block_length_zero);
    qtest_add_func("/renesas-sdhi-fuzz/erase-unaligned-byte-addresses",
                   test_erase_unaligned_byte_addresses);
    qtest_add_func("/renesas-sdhi-fuzz/emmc-boot-partition-end",
                   test_emmc_boot_partition_end);
    qtest_add_func("/renesas-sdhi-fuzz/emmc-rpmb-plain-commands",
                   test_emmc_rpmb_plain_commands);
    qtest_add_func("/renesas-sdhi-fuzz/emmc-switch-error-per-switch",
                   test_emmc_switch_error_per_switch);
    ret = g_test_run();
    unlink(sd_img);
    unlink(blkdebug_conf);
    return ret;
}
