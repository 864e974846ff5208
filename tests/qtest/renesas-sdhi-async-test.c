/*
 * The R-Car Gen3 SDHI's DMA hands runs of blocks to the card's backend
 * without holding the BQL (sdbus_start_read_blocks() and
 * sdbus_start_write_blocks() in hw/sd/core.c): a slow image must stall
 * neither the vCPUs nor the monitor.  These cases give the eMMC a drive
 * with throttling limits, which under qtest run on the virtual clock: a
 * request over the limit waits until the test steps the clock.  Had the
 * model waited for the backend with the BQL held, QEMU would wait for a
 * clock that only the test, stuck behind it, can step.
 *
 * Each case checks that the transfer ends later, with its interrupt and
 * the image's data, and that a reset, an abort or a migration while a
 * request is in flight leaves a device that works.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qobject/qdict.h"
#include "rcar-gen3-machines.h"
#include "renesas-sdhi-util.h"

#define RAM_BUF         0x50000000ULL
#define RAM_BUF2        0x58000000ULL
#define LIMIT_BPS       (1 * MiB)
/*
 * 3 MiB: the DMA moves 1 MiB per step, the throttle lets the first
 * request through at once and makes each later one wait about 0.9 s
 */
#define BIG_BLOCKS      (3 * MiB / BLKSZ)
#define SMALL_BLOCKS    16
#define STEP_NS         (10 * 1000 * 1000)
#define PENDING_NS      (100 * 1000 * 1000)
#define GIVE_UP_NS      (10ULL * 1000 * 1000 * 1000)
#define FILL            0xee
#define WRITE_SEED      0x5a

typedef struct Emmc {
    char img[32];
    QTestState *qts;
} Emmc;

static QTestState *emmc_boot(Emmc *e, const char *extra,
                             const char *drive_opts)
{
    e->qts = qtest_initf("-M r8a77951-salvator-xs -smp 1 -m 1G %s "
                         "-drive if=sd,index=%d,file=%s,format=raw%s",
                         extra, EMMC_SLOT, e->img, drive_opts);
    /* The SDHI's interrupt line, as the GIC would see it */
    qtest_irq_intercept_out_named(e->qts, "/machine/soc/sdhi2",
                                  "sysbus-irq");
    return e->qts;
}

/*
 * Limit the drive to @bps (LIMIT_BPS) in one direction.  Set now, not on
 * the command line, so that the throttle runs on the virtual clock: a
 * throttle group made before the qtest accelerator is up uses real time.
 */
static void emmc_throttle_bps(QTestState *qts, bool read, unsigned bps)
{
    qtest_qmp_assert_success(qts, "{ 'execute': 'block_set_io_throttle', "
                             "'arguments': { 'device': 'sd2', 'bps': 0, "
                             "'bps_rd': %u, 'bps_wr': %u, 'iops': 0, "
                             "'iops_rd': 0, 'iops_wr': 0 } }",
                             read ? bps : 0, read ? 0 : bps);
}

static void emmc_throttle(QTestState *qts, bool read)
{
    emmc_throttle_bps(qts, read, LIMIT_BPS);
}

/* A fresh image for the eMMC of @e */
static void emmc_new_image(Emmc *e)
{
    strcpy(e->img, "/tmp/qtest-sdhi-async-XXXXXX");
    sdhi_make_image(e->img, 7);
}

/* A file for a migration stream: its name in *@path; returns its URI */
static char *new_stream(char **path)
{
    int fd;

    *path = g_strdup("/tmp/qtest-sdhi-async-mig-XXXXXX");
    fd = g_mkstemp(*path);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    return g_strdup_printf("file:%s", *path);
}

static QTestState *emmc_start(Emmc *e, bool throttle_reads)
{
    emmc_new_image(e);
    emmc_boot(e, "", "");
    emmc_throttle(e->qts, throttle_reads);
    sdhi_emmc_init(e->qts);
    return e->qts;
}

static void emmc_finish(Emmc *e)
{
    qtest_quit(e->qts);
    unlink(e->img);
}

/*
 * Migrate @src through @uri into a fresh QEMU on the same image, started
 * with @extra as the source was, which it quits; returns the destination
 * once the stream is loaded.  KVM and TCG carry the virtual clock in the
 * stream (vmstate "timer" in system/cpu-timers.c), the qtest accelerator
 * does not: the destination's clock is set to the source's by hand, as
 * those would, before the device timers in the stream are loaded.
 */
static QTestState *migrate_to_new_qemu(Emmc *e, QTestState *src,
                                       const char *uri, const char *extra)
{
    g_autofree char *args = g_strdup_printf("-incoming defer %s", extra);
    QTestState *dst;
    int64_t now;

    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    rcar_gen3_wait_migration(src, "completed");
    /* The time the stream was saved at: qtest answers only a step */
    now = qtest_clock_step(src, 1) - 1;
    qtest_quit(src);
    dst = emmc_boot(e, args, "");
    g_assert_cmpint(qtest_clock_set(dst, now), ==, now);
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    rcar_gen3_wait_migration(dst, "completed");
    return dst;
}

static bool query_status_answers(QTestState *qts)
{
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-status' }");
    bool ok = qdict_haskey(rsp, "return");

    qobject_unref(rsp);
    return ok;
}

/* Step the clock until the data phase ends; returns the virtual time */
static uint64_t wait_accessend(QTestState *qts)
{
    uint64_t waited;

    for (waited = 0; waited < GIVE_UP_NS; waited += STEP_NS) {
        if (sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_ACCESSEND) {
            return waited;
        }
        qtest_clock_step(qts, STEP_NS);
    }
    g_assert_not_reached();
}

/*
 * After an abort or a reset the host is free at once, whatever the
 * card's backend still does: Linux waits 1000 x 1 us for CBSY == 0 and
 * SCLKDIVEN == 1 before it writes SD_CMD, SD_SIZE, SD_OPTION, ... and
 * drops the write if they do not come (renesas_sdhi_write16_hook()), so
 * its recovery right after an abort would be lost.  No clock step here.
 */
static void assert_bus_free(QTestState *qts)
{
    uint16_t info2 = sdhi_rd16(qts, EMMC_SLOT, SD_INFO2);

    g_assert_false(info2 & INFO2_CBSY);
    g_assert_true(info2 & INFO2_SCLKDIVEN);
}

/*
 * A command, issued right after an abort, that may have to wait for the
 * card's backend: step the clock until its response, as the driver
 * waits for the interrupt
 */
static uint32_t cmd_after_abort(QTestState *qts, uint16_t cmd, uint32_t arg)
{
    sdhi_ack(qts, EMMC_SLOT, 0xffffffff);
    sdhi_wr16(qts, EMMC_SLOT, SD_ARG, arg);
    sdhi_wr16(qts, EMMC_SLOT, SD_ARG1, arg >> 16);
    sdhi_wr16(qts, EMMC_SLOT, SD_CMD, cmd);
    for (uint64_t waited = 0; waited < GIVE_UP_NS; waited += STEP_NS) {
        if (sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_RSPEND) {
            g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) &
                           (INFO2_RSPTO | INFO2_ILA));
            sdhi_ack(qts, EMMC_SLOT, INFO1_RSPEND);
            return sdhi_response(qts, EMMC_SLOT);
        }
        qtest_clock_step(qts, STEP_NS);
    }
    g_assert_not_reached();
}

/*
 * The transfer is in flight for PENDING_NS of virtual time, with the
 * monitor answering and no interrupt
 */
static void assert_in_flight(QTestState *qts)
{
    for (uint64_t t = 0; t < PENDING_NS; t += STEP_NS) {
        qtest_clock_step(qts, STEP_NS);
        g_assert_true(query_status_answers(qts));
        g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) &
                       INFO1_ACCESSEND);
        g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
        g_assert_false(qtest_get_irq(qts, 0));
    }
}

static void start_dma(QTestState *qts, bool read, uint32_t sector,
                      uint32_t blocks, uint64_t addr)
{
    sdhi_dma_command(qts, EMMC_SLOT, read, sector, blocks, addr, 0);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
}

/* The end of a DMA transfer as the driver handles it */
static void finish_dma(QTestState *qts, bool read)
{
    uint32_t info1 = sdhi_rd32(qts, EMMC_SLOT, DM_CM_INFO1);

    g_assert_true(qtest_get_irq(qts, 0));
    g_assert_cmphex(info1 & (DTRANEND0 | DTRANEND1), ==,
                    read ? DTRANEND1 : DTRANEND0);
    g_assert_cmphex(sdhi_rd32(qts, EMMC_SLOT, DM_CM_INFO2), ==, 0);
    g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) &
                   (INFO2_DTO | INFO2_RSPTO));
    sdhi_ack(qts, EMMC_SLOT, 0xffffffff);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_INFO1, 0);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_INFO1_MASK, 0xffffffff);
    sdhi_wr16(qts, EMMC_SLOT, CC_EXT_MODE, 0);
    sdhi_wr16(qts, EMMC_SLOT, SD_STOP, 0);
    g_assert_false(qtest_get_irq(qts, 0));
}

static void check_memory(Emmc *e, uint64_t addr, uint32_t sector,
                         uint32_t blocks)
{
    g_autofree uint8_t *data = g_malloc(blocks * BLKSZ);

    qtest_memread(e->qts, addr, data, blocks * BLKSZ);
    sdhi_check_against_image(e->img, sector, data, blocks);
}

/*
 * A read into RAM: the DMA takes the whole of the next transfers at once.
 * It may wait behind a request the throttle holds.
 */
static void small_read(Emmc *e, uint32_t sector, uint64_t addr)
{
    start_dma(e->qts, true, sector, SMALL_BLOCKS, addr);
    wait_accessend(e->qts);
    finish_dma(e->qts, true);
    check_memory(e, addr, sector, SMALL_BLOCKS);
}

/*
 * A read of BIG_BLOCKS into RAM_BUF (filled with FILL first), after a
 * small one that lets its steps take whole chunks, left in flight.
 * Returns the SDHI's x-dma-bytes before it.
 */
static uint64_t start_big_read(Emmc *e)
{
    uint64_t base;

    small_read(e, 100, RAM_BUF2);
    qtest_memset(e->qts, RAM_BUF, FILL, BIG_BLOCKS * BLKSZ);
    base = rcar_qom_get_uint(e->qts, "/machine/soc/sdhi2", "x-dma-bytes");
    start_dma(e->qts, true, 0, BIG_BLOCKS, RAM_BUF);
    assert_in_flight(e->qts);
    return base;
}

static void test_throttled_read(void)
{
    Emmc e;
    QTestState *qts = emmc_start(&e, true);
    uint64_t took;

    start_big_read(&e);
    took = wait_accessend(qts);
    /* Two of the three MiB waited for the throttle's 1 MiB/s */
    g_assert_cmpuint(took, >, 1000 * 1000 * 1000);
    finish_dma(qts, true);
    check_memory(&e, RAM_BUF, 0, BIG_BLOCKS);
    emmc_finish(&e);
}

/* BIG_BLOCKS of WRITE_SEED's pattern into @data and RAM_BUF */
static void write_data_to_ram(QTestState *qts, uint8_t *data)
{
    for (uint32_t i = 0; i < BIG_BLOCKS * BLKSZ; i++) {
        data[i] = sdhi_pattern(i / BLKSZ, i % BLKSZ, WRITE_SEED);
    }
    qtest_memwrite(qts, RAM_BUF, data, BIG_BLOCKS * BLKSZ);
}

static void test_throttled_write(void)
{
    Emmc e;
    QTestState *qts = emmc_start(&e, false);
    g_autofree uint8_t *data = g_malloc(BIG_BLOCKS * BLKSZ);
    g_autofree uint8_t *img = g_malloc(BIG_BLOCKS * BLKSZ);

    write_data_to_ram(qts, data);
    start_dma(qts, false, 0, BIG_BLOCKS, RAM_BUF);
    assert_in_flight(qts);
    g_assert_cmpuint(wait_accessend(qts), >, 1000 * 1000 * 1000);
    finish_dma(qts, false);
    /* The image file has the data once the card said it was written */
    sdhi_image_read(e.img, 0, img, BIG_BLOCKS * BLKSZ);
    g_assert_cmpmem(img, BIG_BLOCKS * BLKSZ, data, BIG_BLOCKS * BLKSZ);
    emmc_finish(&e);
}

/*
 * The driver gives up on a transfer whose request is in flight: the DMAC
 * channel reset aborts it, CMD12 stops the card (tmio_mmc_reset_work()
 * and the mmc core's recovery).  Nothing of the aborted transfer reaches
 * memory after the abort, and the next transfer gets its own data.
 */
static void test_abort_in_flight(void)
{
    Emmc e;
    QTestState *qts = emmc_start(&e, true);
    g_autofree uint8_t *after = g_malloc(BIG_BLOCKS * BLKSZ);
    g_autofree uint8_t *fill = g_malloc(BIG_BLOCKS * BLKSZ);
    uint64_t base = start_big_read(&e);
    uint64_t moved;

    moved = rcar_qom_get_uint(qts, "/machine/soc/sdhi2", "x-dma-bytes") -
            base;
    g_assert_cmpuint(moved, >, 0);
    g_assert_cmpuint(moved, <, BIG_BLOCKS * BLKSZ);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_RST, 0xfffffcff);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_RST, 0xffffffff);
    assert_bus_free(qts);
    sdhi_wr16(qts, EMMC_SLOT, CC_EXT_MODE, 0);
    g_assert_cmphex(sdhi_rd16(qts, EMMC_SLOT, CC_EXT_MODE), ==, 0);
    cmd_after_abort(qts, CMD_R1B | 12, 0);

    small_read(&e, 200, RAM_BUF2);
    /* What moved before the abort is there, nothing came after it */
    check_memory(&e, RAM_BUF, 0, moved / BLKSZ);
    memset(fill, FILL, BIG_BLOCKS * BLKSZ - moved);
    qtest_memread(qts, RAM_BUF + moved, after, BIG_BLOCKS * BLKSZ - moved);
    g_assert_cmpmem(after, BIG_BLOCKS * BLKSZ - moved, fill,
                    BIG_BLOCKS * BLKSZ - moved);
    small_read(&e, 300, RAM_BUF2);
    emmc_finish(&e);
}

/*
 * SD_STOP.STP while a step's blocks are with the card's backend: the
 * transfer ends with DTRANEND, and all that it says moved is in memory,
 * the blocks of that step included, which the card has already sent.
 */
static void test_stop_in_flight(void)
{
    Emmc e;
    QTestState *qts = emmc_start(&e, true);
    uint64_t base = start_big_read(&e);
    uint64_t before, moved;

    before = rcar_qom_get_uint(qts, "/machine/soc/sdhi2", "x-dma-bytes") -
             base;
    sdhi_wr16(qts, EMMC_SLOT, SD_STOP, SD_STOP_SEC | 1);
    wait_accessend(qts);
    finish_dma(qts, true);
    moved = rcar_qom_get_uint(qts, "/machine/soc/sdhi2", "x-dma-bytes") -
            base;
    g_assert_cmpuint(moved, >, before);
    g_assert_cmpuint(moved, <, BIG_BLOCKS * BLKSZ);
    check_memory(&e, RAM_BUF, 0, moved / BLKSZ);
    /* The automatic CMD12 stopped the card: it takes the next command */
    small_read(&e, 200, RAM_BUF2);
    emmc_finish(&e);
}

/*
 * SD_CMD written while CBSY is 1: the command is not sent, and ILA says
 * so, an event that can interrupt; the transfer goes on untouched
 */
static void test_command_while_busy(void)
{
    Emmc e;
    QTestState *qts = emmc_start(&e, true);

    start_big_read(&e);
    sdhi_wr16(qts, EMMC_SLOT, SD_INFO2_MASK, 0);
    sdhi_wr16(qts, EMMC_SLOT, SD_CMD, CMD_R1 | 13);
    g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_ILA);
    g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_RSPEND);
    g_assert_true(qtest_get_irq(qts, 0));
    sdhi_wr16(qts, EMMC_SLOT, SD_INFO2, (uint16_t)~INFO2_ILA);
    sdhi_wr16(qts, EMMC_SLOT, SD_INFO2_MASK, 0x8b7f);
    g_assert_false(qtest_get_irq(qts, 0));
    wait_accessend(qts);
    finish_dma(qts, true);
    check_memory(&e, RAM_BUF, 0, BIG_BLOCKS);
    emmc_finish(&e);
}

/* A machine reset with a request in flight: the card starts afresh */
static void test_system_reset_in_flight(void)
{
    Emmc e;
    QTestState *qts = emmc_start(&e, true);

    start_big_read(&e);
    qtest_qmp_assert_success(qts, "{ 'execute': 'system_reset' }");
    qtest_qmp_eventwait(qts, "RESET");
    g_assert_false(qtest_get_irq(qts, 0));
    assert_bus_free(qts);
    cmd_after_abort(qts, CMD_NORSP | 0, 0);
    sdhi_emmc_init(qts);
    small_read(&e, 200, RAM_BUF2);
    small_read(&e, 300, RAM_BUF2);
    emmc_finish(&e);
}

/*
 * A read DMA aimed at another SDHI's registers, with its blocks in
 * flight when the VM stops.  The blocks are a command word for SDHI0's
 * SD_CMD: CMD38, which erases blocks of the SD card there with
 * synchronous block I/O.  "stop" drains block I/O; had the completion
 * done the DMA inside that drain, the erase would wait for the drain to
 * end, for ever, with the BQL held.  The monitor must answer, and after
 * "cont" the DMA and the erase happen.
 */
#define ERASE_SECTOR    64
#define ERASE_BLOCKS    8
#define CMD_SECTOR      1000
#define MONITOR_BOUND_S 20

static pid_t qemu_under_alarm;

static void on_alarm(int sig)
{
    /*
     * async-signal-safe: write(2), kill(2), _exit(2).  A QEMU that hangs
     * with the BQL held does not act on its exit-with-parent SIGTERM, so
     * it is killed here rather than left behind.
     */
    static const char msg[] = "the monitor did not answer in time\n";

    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing better to do: the exit status says it */
    }
    kill(qemu_under_alarm, SIGKILL);
    _exit(1);
}

/* Fail the test, and kill QEMU, if the monitor has not answered by then */
static void monitor_alarm(QTestState *qts, unsigned seconds)
{
    struct sigaction sa = { .sa_handler = on_alarm };

    qemu_under_alarm = qtest_pid(qts);
    sigemptyset(&sa.sa_mask);
    g_assert_cmpint(sigaction(SIGALRM, &sa, NULL), ==, 0);
    alarm(seconds);
}

#define STOP_BPS            (16 * KiB)
#define STOP_PRIME_BLOCKS   (64 * KiB / BLKSZ)

static void test_stop_with_dma_into_other_sdhi(void)
{
    g_autofree char *sd_img = g_strdup("/tmp/qtest-sdhi-async-sd-XXXXXX");
    g_autofree char *sd_drive = NULL;
    g_autofree uint8_t *erased = g_malloc(ERASE_BLOCKS * BLKSZ);
    uint8_t block[2 * BLKSZ] = { 0 };
    Emmc e;
    QTestState *qts;
    int fd;

    emmc_new_image(&e);
    sdhi_make_image(sd_img, 9);
    /*
     * The eMMC's block CMD_SECTOR holds SD_CMD = CMD38 at offset 0, and
     * zeros after it and in the next block, so the rest of SDHI0's
     * registers are written with zeros.
     */
    stw_le_p(block, CMD_R1B | 38);
    fd = open(e.img, O_WRONLY);
    g_assert_cmpint(pwrite(fd, block, sizeof(block), CMD_SECTOR * BLKSZ), ==,
                    sizeof(block));
    close(fd);
    sd_drive = g_strdup_printf("-drive if=sd,index=%d,format=raw,file=%s",
                               SD_SLOT, sd_img);
    qts = emmc_boot(&e, sd_drive, "");
    sdhi_emmc_init(qts);
    sdhi_sd_init_slot(qts, SD_SLOT);
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 32, sdhi_card_addr(ERASE_SECTOR));
    sdhi_cmd_ok(qts, SD_SLOT, CMD_R1 | 33,
                sdhi_card_addr(ERASE_SECTOR + ERASE_BLOCKS - 1));
    /*
     * Fill the throttle's bucket: the next request waits for the clock.
     * Slowly, so that the clock that wait_accessend() steps while a busy
     * host reads does not drain it: at STOP_BPS the 64 KiB take 4 s.
     */
    emmc_throttle_bps(qts, true, STOP_BPS);
    start_dma(qts, true, 0, STOP_PRIME_BLOCKS, RAM_BUF2);
    wait_accessend(qts);
    finish_dma(qts, true);
    /* Two blocks: CMD18 goes to the card's asynchronous path */
    start_dma(qts, true, CMD_SECTOR, 2, SDHI_BASE(SD_SLOT));
    qtest_clock_step(qts, 1);
    g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);

    monitor_alarm(qts, MONITOR_BOUND_S);
    qtest_qmp_assert_success(qts, "{ 'execute': 'stop' }");
    g_assert_true(query_status_answers(qts));
    alarm(0);
    /* Nothing reached SDHI0 while the VM was stopped */
    sdhi_image_read(sd_img, ERASE_SECTOR, erased, ERASE_BLOCKS * BLKSZ);
    for (int i = 0; i < ERASE_BLOCKS * BLKSZ; i++) {
        g_assert_cmphex(erased[i], ==,
                        sdhi_pattern(ERASE_SECTOR + i / BLKSZ, i % BLKSZ, 9));
    }

    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    wait_accessend(qts);
    finish_dma(qts, true);
    /*
     * SDHI0 took the command: the blocks read 0, as the SCR says, once
     * the card has erased them.  The zeros the DMA wrote after SD_CMD
     * reset SDHI0 (SOFT_RST), which frees the host at once: the card's
     * DAT0 busy, not CBSY, says when the erase is done.
     */
    sdhi_wait_info2(qts, SD_SLOT, INFO2_DAT0, true);
    sdhi_image_read(sd_img, ERASE_SECTOR, erased, ERASE_BLOCKS * BLKSZ);
    for (int i = 0; i < ERASE_BLOCKS * BLKSZ; i++) {
        g_assert_cmphex(erased[i], ==, 0);
    }
    emmc_finish(&e);
    unlink(sd_img);
}

/* ERASE_GROUP_START and _END over the first BIG_BLOCKS of the eMMC */
static void select_erase_range(QTestState *qts)
{
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 35, sdhi_card_addr(0));
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 36, sdhi_card_addr(BIG_BLOCKS - 1));
}

/* The card holds DAT0 low and the host is busy, or neither */
static void assert_erase_busy(QTestState *qts, bool busy)
{
    uint16_t info2 = sdhi_rd16(qts, EMMC_SLOT, SD_INFO2);

    g_assert_cmpint(!!(info2 & INFO2_CBSY), ==, busy);
    g_assert_cmpint(!!(info2 & INFO2_DAT0), ==, !busy);
}

/*
 * CMD38 over 3 MiB of a drive throttled to LIMIT_BPS for writes.  The card
 * answers at once and holds DAT0 low while its backend zeroes the range;
 * RSPEND, and the end of CBSY, wait for the busy to end, as Linux expects
 * of a host with MMC_CAP_WAIT_WHILE_BUSY (mmc_do_erase()).  The monitor
 * answers meanwhile, and "stop" drains the erase without a word to the
 * guest: the zeroes are on the image, RSPEND comes after "cont".  Before,
 * the SD_CMD write itself waited for the throttle with the BQL held.
 */
static void test_erase_throttled(void)
{
    g_autofree uint8_t *data = g_malloc(BIG_BLOCKS * BLKSZ);
    Emmc e;
    QTestState *qts = emmc_start(&e, false);
    uint64_t waited;

    select_erase_range(qts);
    monitor_alarm(qts, MONITOR_BOUND_S);
    sdhi_ack(qts, EMMC_SLOT, 0xffffffff);
    sdhi_wr16(qts, EMMC_SLOT, SD_ARG, 0);
    sdhi_wr16(qts, EMMC_SLOT, SD_ARG1, 0);
    sdhi_wr16(qts, EMMC_SLOT, SD_CMD, CMD_R1B | 38);
    for (waited = 0; waited < PENDING_NS; waited += STEP_NS) {
        qtest_clock_step(qts, STEP_NS);
        g_assert_true(query_status_answers(qts));
        g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_RSPEND);
        assert_erase_busy(qts, true);
    }
    /* A command now is an illegal access, as during any busy */
    sdhi_wr16(qts, EMMC_SLOT, SD_CMD, CMD_R1 | 13);
    g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_ILA);
    sdhi_ack(qts, EMMC_SLOT, INFO2_ILA << 16);

    qtest_qmp_assert_success(qts, "{ 'execute': 'stop' }");
    g_assert_true(query_status_answers(qts));
    alarm(0);
    sdhi_image_read(e.img, 0, data, BIG_BLOCKS * BLKSZ);
    for (size_t i = 0; i < BIG_BLOCKS * BLKSZ; i++) {
        g_assert_cmphex(data[i], ==, 0);
    }
    g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_RSPEND);

    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    qtest_clock_step(qts, STEP_NS);
    g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_RSPEND);
    assert_erase_busy(qts, false);
    g_assert_cmphex(sdhi_response(qts, EMMC_SLOT) & R1_ERROR, ==, 0);
    sdhi_ack(qts, EMMC_SLOT, 0xffffffff);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)), ==,
                     STATE_TRAN);
    emmc_finish(&e);
}

/*
 * An erase sent with an R1 response, as Linux sends one longer than its
 * busy timeout (mmc_do_erase()): RSPEND at once, DAT0 low, and the card
 * answers SEND_STATUS with the programming state, which Linux polls for
 * (mmc_poll_for_busy()).  A machine reset then does not forget it: DAT0
 * stays low until its zeroes have landed, so that no write after the
 * reset is overtaken by them, and the first command waits for that.
 */
static void test_erase_then_reset(void)
{
    Emmc e;
    QTestState *qts = emmc_start(&e, false);
    uint64_t waited;

    select_erase_range(qts);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 38, 0);
    g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_DAT0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)), ==,
                     STATE_PRG);

    qtest_qmp_assert_success(qts, "{ 'execute': 'system_reset' }");
    g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_DAT0);
    sdhi_wr16(qts, EMMC_SLOT, SOFT_RST, 7);
    sdhi_wr16(qts, EMMC_SLOT, SD_CMD, CMD_NORSP | 0);
    /* Until the throttle's clock lets the zeroes go, the command waits */
    assert_erase_busy(qts, true);
    g_assert_false(sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_RSPEND);
    for (waited = 0; !(sdhi_rd16(qts, EMMC_SLOT, SD_INFO1) & INFO1_RSPEND);
         waited += STEP_NS) {
        g_assert_cmpuint(waited, <, GIVE_UP_NS);
        qtest_clock_step(qts, STEP_NS);
    }
    assert_erase_busy(qts, false);
    /* The card works again after the reset; past the erased blocks */
    sdhi_emmc_init(qts);
    small_read(&e, BIG_BLOCKS + 100, RAM_BUF2);
    emmc_finish(&e);
}

/*
 * Migration with a request in flight: the source drains it (the
 * throttle lets it go at once) and its data reaches memory before the
 * state is saved; the destination moves the rest and ends the transfer.
 */
static void test_migrate_in_flight(void)
{
    g_autofree char *stream = NULL;
    g_autofree char *uri = new_stream(&stream);
    Emmc e;
    QTestState *src = emmc_start(&e, true);
    QTestState *dst;

    start_big_read(&e);
    dst = migrate_to_new_qemu(&e, src, uri, "");
    g_assert_true(sdhi_rd16(dst, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
    wait_accessend(dst);
    finish_dma(dst, true);
    check_memory(&e, RAM_BUF, 0, BIG_BLOCKS);
    small_read(&e, 200, RAM_BUF2);
    emmc_finish(&e);
    unlink(stream);
}

/*
 * timing=board migrated mid-transfer: when the bus is free again
 * (timing_until) and the transfer timer are times of the virtual clock,
 * which goes on from the source's time on the destination; the source
 * is well past the longest wait of a transfer (a whole chunk at the
 * slowest clock), so a destination that read those times against a clock
 * of its own would refuse the stream or wait for ever.
 */
#define TIMED_SOURCE_NS (100ULL * 1000 * 1000 * 1000)

static void test_migrate_timed_in_flight(void)
{
    g_autofree char *stream = NULL;
    g_autofree char *uri = new_stream(&stream);
    Emmc e;
    QTestState *src, *dst;

    emmc_new_image(&e);
    src = emmc_boot(&e, "-M timing=board", "");
    sdhi_emmc_init(src);
    qtest_clock_step(src, TIMED_SOURCE_NS);
    qtest_memset(src, RAM_BUF, FILL, SMALL_BLOCKS * BLKSZ);
    start_dma(src, true, 0, SMALL_BLOCKS, RAM_BUF);
    qtest_clock_step(src, 1000);
    g_assert_true(sdhi_rd16(src, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
    dst = migrate_to_new_qemu(&e, src, uri, "-M timing=board");
    g_assert_true(sdhi_rd16(dst, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
    wait_accessend(dst);
    finish_dma(dst, true);
    check_memory(&e, RAM_BUF, 0, SMALL_BLOCKS);
    emmc_finish(&e);
    unlink(stream);
}

/*
 * A stopped VM migrated with a write under way: the destination stays
 * paused, its drive inactive until "cont", and moves nothing meanwhile
 * (a write would fail the block layer's assertion that nothing writes to
 * an inactive drive); after "cont" the transfer ends with all the data.
 */
static void test_migrate_stopped_write(void)
{
    g_autofree char *stream = NULL;
    g_autofree char *uri = new_stream(&stream);
    g_autofree uint8_t *data = g_malloc(BIG_BLOCKS * BLKSZ);
    g_autofree uint8_t *img = g_malloc(BIG_BLOCKS * BLKSZ);
    Emmc e;
    QTestState *src = emmc_start(&e, false);
    QTestState *dst;

    write_data_to_ram(src, data);
    start_dma(src, false, 0, BIG_BLOCKS, RAM_BUF);
    assert_in_flight(src);
    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    dst = migrate_to_new_qemu(&e, src, uri, "");
    for (int i = 0; i < 10; i++) {
        qtest_clock_step(dst, STEP_NS);
        g_assert_true(query_status_answers(dst));
        g_assert_false(sdhi_rd16(dst, EMMC_SLOT, SD_INFO1) & INFO1_ACCESSEND);
    }
    qtest_qmp_assert_success(dst, "{ 'execute': 'cont' }");
    wait_accessend(dst);
    finish_dma(dst, false);
    sdhi_image_read(e.img, 0, img, BIG_BLOCKS * BLKSZ);
    g_assert_cmpmem(img, BIG_BLOCKS * BLKSZ, data, BIG_BLOCKS * BLKSZ);
    emmc_finish(&e);
    unlink(stream);
}

/*
 * SD_SIZE 500 on a card of 512-byte blocks: a DMA step ends inside a card
 * block, which only the card's byte path can give, so the card's backend
 * works under the BQL for such a step, as before.  Had the card started
 * the whole blocks alone, the rest would be read in the completion, which
 * may run in the drain of a migration and wait there for ever.  Here the
 * drive is throttled from the command line, on real time; a first read
 * fills the throttle's bucket, so the odd transfer's first request waits,
 * and "stop" comes right after it: stopping the VM drains block I/O.
 * The stopped VM is migrated, and the destination ends the transfer with
 * the image's bytes.
 */
#define ODD_BLKSZ       500
#define ODD_BLOCKS      4000

static void test_odd_block_size_migrate(void)
{
    g_autofree char *stream = NULL;
    g_autofree char *uri = new_stream(&stream);
    g_autofree uint8_t *data = g_malloc(ODD_BLOCKS * ODD_BLKSZ);
    g_autofree uint8_t *expect = g_malloc(ODD_BLOCKS * ODD_BLKSZ);
    Emmc e;
    QTestState *src, *dst;

    emmc_new_image(&e);
    src = emmc_boot(&e, "", ",throttling.bps-read=1048576");
    sdhi_emmc_init(src);
    start_dma(src, true, 0, MiB / BLKSZ, RAM_BUF2);
    wait_accessend(src);
    finish_dma(src, true);

    sdhi_setup_data(src, EMMC_SLOT, ODD_BLOCKS);
    sdhi_wr16(src, EMMC_SLOT, SD_SIZE, ODD_BLKSZ);
    sdhi_dma_setup(src, EMMC_SLOT, true, RAM_BUF);
    sdhi_cmd_ok(src, EMMC_SLOT, sdhi_rw_cmd(true, ODD_BLOCKS), 0);
    sdhi_wr32(src, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
    qtest_clock_step(src, 1);
    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    dst = migrate_to_new_qemu(&e, src, uri, "");
    qtest_qmp_assert_success(dst, "{ 'execute': 'cont' }");
    g_assert_true(sdhi_rd16(dst, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
    wait_accessend(dst);
    finish_dma(dst, true);
    qtest_memread(dst, RAM_BUF, data, ODD_BLOCKS * ODD_BLKSZ);
    sdhi_image_read(e.img, 0, expect, ODD_BLOCKS * ODD_BLKSZ);
    g_assert_cmpmem(data, ODD_BLOCKS * ODD_BLKSZ, expect,
                    ODD_BLOCKS * ODD_BLKSZ);
    emmc_finish(&e);
    unlink(stream);
}

/*
 * SD_SIZE 500 leaves the card inside one of its 512-byte blocks after
 * the first step, where only its byte path, one synchronous backend
 * read per card block with the BQL held, can go on.  A step must not
 * take a whole chunk of those: on a drive throttled to 50 reads a
 * second (real time, from the command line) that held the BQL for 40 s.
 * Each step of the virtual clock must come back, and the monitor
 * answer, within a bound far above the few reads a step may do.
 */
#define SLOW_IOPS       50
#define STEP_BOUND_US   (5 * G_USEC_PER_SEC)

static void test_odd_block_size_bounded_steps(void)
{
    Emmc e;
    QTestState *qts;

    emmc_new_image(&e);
    qts = emmc_boot(&e, "", ",throttling.iops-read=" G_STRINGIFY(SLOW_IOPS));
    sdhi_emmc_init(qts);
    sdhi_setup_data(qts, EMMC_SLOT, ODD_BLOCKS);
    sdhi_wr16(qts, EMMC_SLOT, SD_SIZE, ODD_BLKSZ);
    sdhi_dma_setup(qts, EMMC_SLOT, true, RAM_BUF);
    sdhi_cmd_ok(qts, EMMC_SLOT, sdhi_rw_cmd(true, ODD_BLOCKS), 0);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
    for (int i = 0; i < 8; i++) {
        int64_t start = g_get_monotonic_time();

        qtest_clock_step(qts, 1000);
        g_assert_true(query_status_answers(qts));
        g_assert_cmpint(g_get_monotonic_time() - start, <, STEP_BOUND_US);
    }
    g_assert_true(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_CBSY);
    g_assert_cmpuint(rcar_qom_get_uint(qts, "/machine/soc/sdhi2",
                                       "x-dma-bytes"), >, 0);
    /* The driver's abort: the DMAC channel reset and CMD12 */
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_RST, 0xfffffcff);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_RST, 0xffffffff);
    assert_bus_free(qts);
    cmd_after_abort(qts, CMD_R1B | 12, 0);
    emmc_finish(&e);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/renesas-sdhi-async/throttled-read", test_throttled_read);
    qtest_add_func("/renesas-sdhi-async/throttled-write",
                   test_throttled_write);
    qtest_add_func("/renesas-sdhi-async/abort-in-flight",
                   test_abort_in_flight);
    qtest_add_func("/renesas-sdhi-async/system-reset-in-flight",
                   test_system_reset_in_flight);
    qtest_add_func("/renesas-sdhi-async/stop-in-flight", test_stop_in_flight);
    qtest_add_func("/renesas-sdhi-async/command-while-busy",
                   test_command_while_busy);
    qtest_add_func("/renesas-sdhi-async/stop-with-dma-into-other-sdhi",
                   test_stop_with_dma_into_other_sdhi);
    qtest_add_func("/renesas-sdhi-async/erase-throttled",
                   test_erase_throttled);
    qtest_add_func("/renesas-sdhi-async/erase-then-reset",
                   test_erase_then_reset);
    qtest_add_func("/renesas-sdhi-async/migrate-in-flight",
                   test_migrate_in_flight);
    qtest_add_func("/renesas-sdhi-async/migrate-timed-in-flight",
                   test_migrate_timed_in_flight);
    qtest_add_func("/renesas-sdhi-async/migrate-stopped-write",
                   test_migrate_stopped_write);
    qtest_add_func("/renesas-sdhi-async/odd-block-size-migrate",
                   test_odd_block_size_migrate);
    qtest_add_func("/renesas-sdhi-async/odd-block-size-bounded-steps",
                   test_odd_block_size_bounded_steps);
    return g_test_run();
}
