/*
 * The R-Car Gen3 SDHI's timing mode (x-timing, which timing=board sets):
 * a DMA transfer ends when the bus and the card would be done with it,
 * not before, and with the mode off at once, as ever.
 *
 * The expected times come from the bus's definition and the card figures
 * each case gives the card: the SD clock is SDn (200 MHz, the clock of
 * the board's device tree) over SD_CLK_CTRL's divider, a 4-bit bus moves
 * half a byte per clock, an 8-bit bus in HS400 two bytes per SDn clock
 * (200 MHz DDR); the card adds its latency once per command and streams
 * no faster than its sustained rate.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "rcar-gen3-machines.h"
#include "renesas-sdhi-util.h"

#define RAM_BUF         0x50000000ULL
#define BLOCKS          (1 * MiB / BLKSZ)
#define NS_PER_SEC      1000000000ULL
#define SDN_HZ          200000000ULL
/* Around the modelled end: the DMA's own steps are 1 us apart */
#define MARGIN_NS       20000
#define SCLKEN          BIT(8)
#define DIV_1_1         0xff
#define DIV_1_2         0x00
#define DIV_1_512       0x80
#define OPT_WIDTH8      BIT(13)
#define SDIF_MODE       0x398
#define SDIF_HS400      BIT(0)

typedef struct Timed {
    char img[32];
    QTestState *qts;
} Timed;

static QTestState *timed_boot(Timed *t, const char *opts)
{
    t->qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G %s "
                         "-drive if=sd,index=%d,file=%s,format=raw",
                         opts, EMMC_SLOT, t->img);
    return t->qts;
}

static QTestState *timed_start(Timed *t, const char *opts)
{
    strcpy(t->img, "/tmp/qtest-sdhi-timing-XXXXXX");
    sdhi_make_image(t->img, 3);
    timed_boot(t, opts);
    sdhi_emmc_init(t->qts);
    return t->qts;
}

static void timed_finish(Timed *t)
{
    qtest_quit(t->qts);
    unlink(t->img);
}

/* The clock Linux sets (renesas_sdhi_set_clock()) and the bus width */
static void set_bus(QTestState *qts, uint16_t div, bool width8, bool hs400)
{
    sdhi_wr16(qts, EMMC_SLOT, SD_CLK_CTRL, div | SCLKEN);
    sdhi_wr16(qts, EMMC_SLOT, SD_OPTION, width8 ? OPT_WIDTH8 : 0);
    sdhi_wr16(qts, EMMC_SLOT, SDIF_MODE, hs400 ? SDIF_HS400 : 0);
}

static bool transfer_ended(QTestState *qts)
{
    return sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_ACCESSEND;
}

/*
 * Give the card's backend, which runs in real time, a moment to finish
 * what the last clock step started; true if the transfer ended meanwhile.
 * Its completion hands the data to the SDHI's transfer timer (so that
 * nothing reaches the guest inside a drained section), which runs when
 * virtual time moves, and starts each next DMA step 1 us after the last:
 * 50 ns a poll, 10 us in all, half of MARGIN_NS.
 */
static bool ends_without_clock(QTestState *qts)
{
    for (int i = 0; i < 200; i++) {
        if (transfer_ended(qts)) {
            return true;
        }
        g_usleep(1000);
        qtest_clock_step(qts, 50);
    }
    return false;
}

/*
 * A DMA transfer of @blocks starts now; it must still be on at @ns -
 * MARGIN_NS of virtual time and over at @ns + MARGIN_NS
 */
static void check_transfer_takes(QTestState *qts, bool read, uint32_t blocks,
                                 uint64_t ns)
{
    uint32_t info1;

    sdhi_dma_command(qts, EMMC_SLOT, read, 0, blocks, RAM_BUF, 0);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
    if (ns > MARGIN_NS) {
        qtest_clock_step(qts, ns - MARGIN_NS);
        g_assert_false(ends_without_clock(qts));
        g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, DM_CM_INFO1) &
                        (DTRANEND0 | DTRANEND1), ==, 0);
        g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
    }
    qtest_clock_step(qts, MIN(ns, MARGIN_NS) + MARGIN_NS);
    g_assert_true(ends_without_clock(qts));
    info1 = sdhi_rd32(qts, EMMC_SLOT, DM_CM_INFO1);
    g_assert_cmphex(info1 & (DTRANEND0 | DTRANEND1), ==,
                    read ? DTRANEND1 : DTRANEND0);
    g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) &
                   (INFO2_DTO | INFO2_RSPTO));
    sdhi_dma_finish(qts, EMMC_SLOT, info1);
}

static uint64_t ns_for(uint64_t bytes, uint64_t bytes_per_sec)
{
    return bytes * NS_PER_SEC / bytes_per_sec;
}

/* A card that takes no time: 1 MiB over 4 bits at SDn / 1, 100 MB/s */
static void test_bus_limits(void)
{
    Timed t;
    QTestState *qts = timed_start(&t, "-global rcar-gen3-soc.x-sdhi-timing=on");
    uint64_t rate = SDN_HZ * 4 / 8;

    set_bus(qts, DIV_1_1, false, false);
    check_transfer_takes(qts, true, BLOCKS, ns_for(1 * MiB, rate));
    check_transfer_takes(qts, false, BLOCKS, ns_for(1 * MiB, rate));
    /* SDn / 4: a quarter of the rate */
    set_bus(qts, 0x01, false, false);
    check_transfer_takes(qts, true, BLOCKS, ns_for(1 * MiB, rate / 4));
    timed_finish(&t);
}

/*
 * HS400: 8 bits, DDR at 200 MHz, 400 MB/s; the card is slower and has a
 * latency per command
 */
static void test_card_limits(void)
{
    Timed t;
    QTestState *qts = timed_start(&t, "-global rcar-gen3-soc.x-sdhi-timing=on "
                                  "-global emmc.x-read-latency-ns=50000 "
                                  "-global emmc.x-read-bytes-per-sec=50000000 "
                                  "-global emmc.x-write-latency-ns=20000 "
                                  "-global emmc.x-write-bytes-per-sec=25000000");

    set_bus(qts, DIV_1_2, true, true);
    check_transfer_takes(qts, true, BLOCKS,
                         50000 + ns_for(1 * MiB, 50000000));
    check_transfer_takes(qts, false, BLOCKS,
                         20000 + ns_for(1 * MiB, 25000000));
    /* 4 KiB: the latency is a large share of it */
    check_transfer_takes(qts, true, 8, 50000 + ns_for(4 * KiB, 50000000));
    timed_finish(&t);
}

/* The card's figures only matter when the host models time */
static void test_timing_off(void)
{
    Timed t;
    QTestState *qts = timed_start(&t, "-global emmc.x-read-latency-ns=50000 "
                                  "-global emmc.x-read-bytes-per-sec=50000000");

    set_bus(qts, DIV_1_1, false, false);
    /* 1 MiB moves at once: one DMA step, a microsecond */
    check_transfer_takes(qts, true, BLOCKS, 0);
    timed_finish(&t);
}

/*
 * A guest that stops the card's clock during a transfer gets the slowest
 * clock, SDn / 512 over 4 bits, not a transfer that never ends
 */
static void test_clock_stopped(void)
{
    Timed t;
    QTestState *qts = timed_start(&t, "-global rcar-gen3-soc.x-sdhi-timing=on");

    sdhi_wr16(qts, EMMC_SLOT, SD_CLK_CTRL, DIV_1_1);
    check_transfer_takes(qts, true, 16, ns_for(16 * BLKSZ, SDN_HZ / 512 / 2));
    timed_finish(&t);
}

/*
 * timing=board: the eMMC in HS400 can beat neither the bus, 400 MB/s,
 * nor the slowest sequential read an eMMC 5.1 part claims (100 MB/s)
 */
static void test_board_timing(void)
{
    Timed t;
    QTestState *qts = timed_start(&t, "-M timing=board");
    uint64_t bus_ns = ns_for(1 * MiB, SDN_HZ * 2);

    g_assert_true(rcar_qom_get_bool(qts, "/machine/soc/sdhi2", "x-timing"));
    set_bus(qts, DIV_1_2, true, true);
    sdhi_dma_command(qts, EMMC_SLOT, true, 0, BLOCKS, RAM_BUF, 0);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
    qtest_clock_step(qts, bus_ns);
    g_assert_false(ends_without_clock(qts));
    qtest_clock_step(qts, ns_for(1 * MiB, 100000000) - bus_ns);
    g_assert_true(ends_without_clock(qts));
    timed_finish(&t);
}

/* The eMMC of timing=board (rcar-gen3-boards.c: Samsung's figures) */
#define CARD_WRITE_RATE     125000000ULL
#define CARD_WRITE_LATENCY  44100ULL
#define CARD_CACHE          (8 * MiB)
#define EXT_CSD_FLUSH_CACHE 32
#define EXT_CSD_CACHE_CTRL  33

/* SWITCH, write byte (mmc_switch()), sent as R1b */
static void emmc_switch_start(QTestState *qts, uint8_t index, uint8_t value)
{
    sdhi_ack(qts, EMMC_SLOT, 0xffffffff);
    sdhi_wr16(qts, EMMC_SLOT, SD_ARG, value << 8);
    sdhi_wr16(qts, EMMC_SLOT, SD_ARG1, 3 << 8 | index);
    sdhi_wr16(qts, EMMC_SLOT, SD_CMD, CMD_R1B | 6);
}

static bool rspend(QTestState *qts)
{
    return sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_RSPEND;
}

/*
 * timing=board's write cache (8 MiB, programmed at 125 MB/s): once Linux
 * has turned it on, a write that fits takes the HS400 bus's time only,
 * and the FLUSH_CACHE after it holds DAT0 busy, RSPEND with it, until the
 * card has programmed it all; a write larger than the cache goes on at
 * the card's rate once the cache is full.  With the cache off, a write
 * takes the card's latency and rate, as before.
 */
static void test_write_cache(void)
{
    Timed t;
    QTestState *qts = timed_start(&t, "-M timing=board");
    uint64_t start, end;

    set_bus(qts, DIV_1_2, true, true);
    check_transfer_takes(qts, false, 4 * BLOCKS,
                         CARD_WRITE_LATENCY +
                         ns_for(4 * MiB, CARD_WRITE_RATE));

    emmc_switch_start(qts, EXT_CSD_CACHE_CTRL, 1);
    g_assert_true(sdhi_wait_status(qts, EMMC_SLOT, INFO1_RSPEND) &
                  INFO1_RSPEND);
    /* Programming starts with the write: it ends 4 MiB at 125 MB/s on */
    start = qtest_clock_step(qts, 1);
    end = start + ns_for(4 * MiB, CARD_WRITE_RATE);
    check_transfer_takes(qts, false, 4 * BLOCKS, ns_for(4 * MiB, SDN_HZ * 2));
    emmc_switch_start(qts, EXT_CSD_FLUSH_CACHE, 1);
    g_assert_false(rspend(qts));
    qtest_clock_set(qts, end - MARGIN_NS);
    g_assert_false(rspend(qts));
    g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
    qtest_clock_set(qts, end + MARGIN_NS);
    g_assert_true(rspend(qts));
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)),
                     ==, STATE_TRAN);

    /*
     * 16 MiB in writes of 4 MiB (the image's size) back to back: they go
     * at the bus's rate until the cache holds 8 MiB, then as fast as the
     * card makes room, programming from the first on without a pause
     */
    start = qtest_clock_step(qts, 1);
    for (unsigned mib = 4; mib <= 16; mib += 4) {
        /* When the card has room for the last of this write */
        uint64_t room_at = start + ns_for(MAX(mib * MiB, CARD_CACHE) -
                                          CARD_CACHE, CARD_WRITE_RATE);
        uint64_t now = qtest_clock_step(qts, 1);

        check_transfer_takes(qts, false, 4 * BLOCKS,
                             MAX(ns_for(4 * MiB, SDN_HZ * 2),
                                 room_at > now ? room_at - now : 0));
    }
    timed_finish(&t);
}

/*
 * A flush migrated while the card programs its cache: the destination's
 * card holds DAT0, and the SWITCH's RSPEND, until the source's card would
 * have been done.  The qtest clock is not migrated (see
 * test_migrate_mid_transfer()): the destination's is set to the source's,
 * as KVM's and TCG's virtual clock would be.
 */
static void test_migrate_mid_flush(void)
{
    g_autofree char *stream = g_strdup("/tmp/qtest-sdhi-timing-mig-XXXXXX");
    g_autofree char *uri = NULL;
    int fd = g_mkstemp(stream);
    Timed t;
    QTestState *qts = timed_start(&t, "-M timing=board");
    uint64_t end, now;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    uri = g_strdup_printf("file:%s", stream);
    set_bus(qts, DIV_1_2, true, true);
    emmc_switch_start(qts, EXT_CSD_CACHE_CTRL, 1);
    g_assert_true(sdhi_wait_status(qts, EMMC_SLOT, INFO1_RSPEND) &
                  INFO1_RSPEND);
    end = qtest_clock_step(qts, 1) + ns_for(4 * MiB, CARD_WRITE_RATE);
    check_transfer_takes(qts, false, 4 * BLOCKS, ns_for(4 * MiB, SDN_HZ * 2));
    emmc_switch_start(qts, EXT_CSD_FLUSH_CACHE, 1);
    qtest_clock_step(qts, 1000);
    g_assert_false(rspend(qts));
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    rcar_gen3_wait_migration(qts, "completed");
    now = qtest_clock_step(qts, 1) - 1;
    qtest_quit(qts);

    qts = timed_boot(&t, "-M timing=board -incoming defer");
    qtest_clock_set(qts, now);
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    rcar_gen3_wait_migration(qts, "completed");
    for (now = qtest_clock_step(qts, 1); !rspend(qts);
         now = qtest_clock_step(qts, MARGIN_NS)) {
        g_assert_cmpuint(now, <, end + MARGIN_NS);
    }
    g_assert_cmpuint(now, >=, end - MARGIN_NS);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)),
                     ==, STATE_TRAN);
    timed_finish(&t);
    unlink(stream);
}

/*
 * A transfer migrated in its first 1 MiB still takes all of its time on
 * the destination: the end of the first chunk is in the migrated timer,
 * and when the bus is done with the data, from which each later chunk
 * counts, goes with the device's state.  (The qtest clock is not
 * migrated: the destination's starts again near 0, below the source's, so
 * it has to reach the source's end time.)
 */
static void test_migrate_mid_transfer(void)
{
    const char *opts = "-global rcar-gen3-soc.x-sdhi-timing=on "
                       "-global emmc.x-read-bytes-per-sec=50000000";
    g_autofree char *stream = g_strdup("/tmp/qtest-sdhi-timing-mig-XXXXXX");
    g_autofree char *uri = NULL;
    g_autofree char *dst_opts = g_strdup_printf("%s -incoming defer", opts);
    g_autofree uint8_t *data = g_malloc(3 * MiB);
    uint64_t ns = ns_for(3 * MiB, 50000000);
    int fd = g_mkstemp(stream);
    Timed t;
    QTestState *qts = timed_start(&t, opts);
    uint64_t end, now;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    uri = g_strdup_printf("file:%s", stream);
    set_bus(qts, DIV_1_2, true, true);
    sdhi_dma_command(qts, EMMC_SLOT, true, 0, 3 * BLOCKS, RAM_BUF, 0);
    end = qtest_clock_step(qts, 1) + ns;
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
    qtest_clock_step(qts, ns / 6);
    g_assert_false(ends_without_clock(qts));
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    rcar_gen3_wait_migration(qts, "completed");
    qtest_quit(qts);

    qts = timed_boot(&t, dst_opts);
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    rcar_gen3_wait_migration(qts, "completed");
    g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
    for (now = qtest_clock_step(qts, 1); !transfer_ended(qts);
         now = qtest_clock_step(qts, MARGIN_NS)) {
        g_assert_cmpuint(now, <, end + ns);
    }
    g_assert_cmpuint(now, >=, end - MARGIN_NS);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, DM_CM_INFO1) & DTRANEND1, ==,
                    DTRANEND1);
    qtest_memread(qts, RAM_BUF, data, 3 * MiB);
    sdhi_check_against_image(t.img, 0, data, 3 * BLOCKS);
    timed_finish(&t);
    unlink(stream);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/renesas-sdhi/timing/bus-limits", test_bus_limits);
    qtest_add_func("/renesas-sdhi/timing/card-limits", test_card_limits);
    qtest_add_func("/renesas-sdhi/timing/off", test_timing_off);
    qtest_add_func("/renesas-sdhi/timing/clock-stopped", test_clock_stopped);
    qtest_add_func("/renesas-sdhi/timing/board", test_board_timing);
    qtest_add_func("/renesas-sdhi/timing/write-cache", test_write_cache);
    qtest_add_func("/renesas-sdhi/timing/migrate-mid-flush",
                   test_migrate_mid_flush);
    qtest_add_func("/renesas-sdhi/timing/migrate-mid-transfer",
                   test_migrate_mid_transfer);
    return g_test_run();
}
