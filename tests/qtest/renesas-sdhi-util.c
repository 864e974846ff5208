/*
 * Drive the Renesas R-Car Gen3 SDHI the way Linux 6.12 does, for qtests
 *
 * The sequences follow drivers/mmc/host/tmio_mmc_core.c and
 * renesas_sdhi_internal_dmac.c; results are checked against the card
 * image and the SD/MMC protocol, not against the model.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qobject/qdict.h"
#include "renesas-sdhi-util.h"

/*
 * Sector n of an image: recognisable bytes that differ per sector.  The
 * sector's high bits count too, so that sectors a multiple of 256 apart
 * (a boot partition, a write protect group) still differ.
 */
uint8_t sdhi_pattern(uint32_t sector, unsigned i, uint8_t seed)
{
    return (sector * 7 + (sector >> 8) * 11 + i * 13 + seed) ^ (i >> 8);
}

void sdhi_make_image(char *path, uint8_t seed)
{
    int fd = mkstemp(path);
    g_autofree uint8_t *data = g_malloc(IMG_SIZE);

    g_assert_cmpint(fd, >=, 0);
    for (size_t off = 0; off < IMG_SIZE; off++) {
        data[off] = sdhi_pattern(off / BLKSZ, off % BLKSZ, seed);
    }
    g_assert_cmpint(write(fd, data, IMG_SIZE), ==, IMG_SIZE);
    close(fd);
}

void sdhi_image_read(const char *path, uint32_t sector, void *buf,
                     size_t len)
{
    int fd = open(path, O_RDONLY);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(pread(fd, buf, len, (off_t)sector * BLKSZ), ==, len);
    close(fd);
}

uint16_t sdhi_rd16(QTestState *qts, int slot, unsigned reg)
{
    return qtest_readw(qts, SDHI_BASE(slot) + reg);
}

void sdhi_wr16(QTestState *qts, int slot, unsigned reg, uint16_t val)
{
    qtest_writew(qts, SDHI_BASE(slot) + reg, val);
}

uint32_t sdhi_rd32(QTestState *qts, int slot, unsigned reg)
{
    return qtest_readl(qts, SDHI_BASE(slot) + reg);
}

void sdhi_wr32(QTestState *qts, int slot, unsigned reg, uint32_t val)
{
    qtest_writel(qts, SDHI_BASE(slot) + reg, val);
}

/* The reply to a qom-get that must succeed */
static QDict *rcar_qom_get(QTestState *qts, const char *path,
                           const char *prop)
{
    QDict *resp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                            "{ 'path': %s, 'property': %s } }", path, prop);

    g_assert(qdict_haskey(resp, "return"));
    return resp;
}

uint64_t rcar_qom_get_uint(QTestState *qts, const char *path,
                           const char *prop)
{
    QDict *resp = rcar_qom_get(qts, path, prop);
    uint64_t val = qdict_get_int(resp, "return");

    qobject_unref(resp);
    return val;
}

bool rcar_qom_get_bool(QTestState *qts, const char *path, const char *prop)
{
    QDict *resp = rcar_qom_get(qts, path, prop);
    bool val = qdict_get_bool(resp, "return");

    qobject_unref(resp);
    return val;
}

/* Run the model's timers until (INFO1 | INFO2 << 16) has one of @bits */
uint32_t sdhi_wait_status(QTestState *qts, int slot, uint32_t bits)
{
    uint32_t status = 0;

    for (int i = 0; i < 100000; i++) {
        status = sdhi_rd16(qts, slot, SD_INFO1) |
                 (uint32_t)sdhi_rd16(qts, slot, SD_INFO2) << 16;
        if (status & bits) {
            return status;
        }
        qtest_clock_step(qts, 100);
    }
    return status;
}

/*
 * Step the clock until the bus is idle (CBSY clear): a DMA transfer that
 * ends in an error raises no interrupt to wait for.  The card's backend
 * runs in real time, so each step also gives it a moment.
 */
void sdhi_wait_info2(QTestState *qts, int slot, uint16_t bit, bool set)
{
    for (int i = 0; i < 5000; i++) {
        qtest_clock_step(qts, 100);
        if (!!(sdhi_rd16(qts, slot, SD_INFO2) & bit) == set) {
            return;
        }
        g_usleep(1000);
    }
    g_assert_not_reached();
}

void sdhi_wait_bus_idle(QTestState *qts, int slot)
{
    sdhi_wait_info2(qts, slot, INFO2_CBSY, false);
}

/* Acknowledge event bits the way the driver does: write 0 to them */
void sdhi_ack(QTestState *qts, int slot, uint32_t bits)
{
    sdhi_wr16(qts, slot, SD_INFO1, ~bits);
    sdhi_wr16(qts, slot, SD_INFO2, ~(bits >> 16));
}

/* The 32-bit response of the last command (R1, R3, R6; auto CMD12 too) */
uint32_t sdhi_response(QTestState *qts, int slot)
{
    return sdhi_rd16(qts, slot, SD_RSP10) |
           (uint32_t)sdhi_rd16(qts, slot, SD_RSP(1)) << 16;
}

/*
 * Issue a command; returns true on a response (RSPEND) with the R1/R3/R6
 * payload in *resp, false on a response timeout.
 */
bool sdhi_cmd(QTestState *qts, int slot, uint16_t sd_cmd, uint32_t arg,
              uint32_t *resp)
{
    uint32_t status;

    sdhi_ack(qts, slot, 0xffffffff);
    g_assert_false(sdhi_rd16(qts, slot, SD_INFO2) & INFO2_CBSY);
    sdhi_wr16(qts, slot, SD_ARG, arg);
    sdhi_wr16(qts, slot, SD_ARG1, arg >> 16);
    sdhi_wr16(qts, slot, SD_CMD, sd_cmd);
    status = sdhi_wait_status(qts, slot, INFO1_RSPEND | INFO2_RSPTO << 16);
    sdhi_ack(qts, slot, INFO1_RSPEND | INFO2_RSPTO << 16);
    if (resp) {
        *resp = sdhi_response(qts, slot);
    }
    return status & INFO1_RSPEND;
}

uint32_t sdhi_cmd_ok(QTestState *qts, int slot, uint16_t sd_cmd,
                     uint32_t arg)
{
    uint32_t resp;

    g_assert_true(sdhi_cmd(qts, slot, sd_cmd, arg, &resp));
    return resp;
}

/* SD card: idle -> transfer state (mmc_sd_init_card), RCA chosen by card */
uint16_t sdhi_sd_init_slot(QTestState *qts, int slot)
{
    uint32_t ocr = 0;
    uint16_t rca;

    g_assert_true(sdhi_cmd(qts, slot, CMD_NORSP | 0, 0, NULL));
    g_assert_cmphex(sdhi_cmd_ok(qts, slot, CMD_R1 | 8, 0x1aa) & 0xfff, ==,
                    0x1aa);
    for (int i = 0; i < 100 && !(ocr & BIT(31)); i++) {
        sdhi_cmd_ok(qts, slot, CMD_R1 | 55, 0);
        ocr = sdhi_cmd_ok(qts, slot, CMD_R3 | 41, 0x40ff8000);
        qtest_clock_step(qts, 1000000);
    }
    g_assert_true(ocr & BIT(31));
    sdhi_cmd_ok(qts, slot, CMD_R2 | 2, 0);
    rca = sdhi_cmd_ok(qts, slot, CMD_R1 | 3, 0) >> 16;
    sdhi_cmd_ok(qts, slot, CMD_R1B | 7, rca << 16);
    sdhi_cmd_ok(qts, slot, CMD_R1 | 16, BLKSZ);
    return rca;
}

/* eMMC: idle -> transfer state (mmc_init_card), RCA chosen by the host */
void sdhi_emmc_init(QTestState *qts)
{
    uint32_t ocr = 0;

    g_assert_true(sdhi_cmd(qts, EMMC_SLOT, CMD_NORSP | 0, 0, NULL));
    for (int i = 0; i < 100 && !(ocr & BIT(31)); i++) {
        ocr = sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R3 | 1, 0x40ff8080);
        qtest_clock_step(qts, 1000000);
    }
    g_assert_true(ocr & BIT(31));
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R2 | 2, 0);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 3, EMMC_RCA << 16);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1B | 7, EMMC_RCA << 16);
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 16, BLKSZ);
}

uint32_t sdhi_card_status(QTestState *qts, int slot, uint16_t rca)
{
    return sdhi_cmd_ok(qts, slot, CMD_R1 | 13, rca << 16);
}

/* Small cards use byte addresses (standard capacity) */
uint32_t sdhi_card_addr(uint32_t sector)
{
    return sector * BLKSZ;
}

uint16_t sdhi_rw_cmd(bool read, uint32_t blocks)
{
    uint16_t c = CMD_R1 | CMD_DATA | (read ? CMD_READ : 0);

    if (blocks > 1) {
        c |= CMD_MULTI | (read ? 18 : 25);
    } else {
        c |= read ? 17 : 24;
    }
    return c;
}

void sdhi_setup_data(QTestState *qts, int slot, uint32_t blocks)
{
    sdhi_wr16(qts, slot, SD_SIZE, BLKSZ);
    sdhi_wr32(qts, slot, SD_SECCNT, blocks);
    if (blocks > 1) {
        sdhi_wr16(qts, slot, SD_STOP, SD_STOP_SEC);
    }
}

/* PIO read as tmio_mmc_pio_irq() does: 16-bit reads of SD_BUF0 */
void sdhi_pio_read(QTestState *qts, int slot, uint32_t sector,
                   uint32_t blocks, uint8_t *out)
{
    sdhi_pio_read_cmd(qts, slot, sdhi_rw_cmd(true, blocks),
                      sdhi_card_addr(sector), blocks, out);
}

void sdhi_pio_read_cmd(QTestState *qts, int slot, uint16_t sd_cmd,
                       uint32_t arg, uint32_t blocks, uint8_t *out)
{
    sdhi_setup_data(qts, slot, blocks);
    sdhi_cmd_ok(qts, slot, sd_cmd, arg);
    for (uint32_t b = 0; b < blocks; b++) {
        uint32_t status = sdhi_wait_status(qts, slot, INFO2_BRE << 16);

        g_assert_true(status & (INFO2_BRE << 16));
        sdhi_ack(qts, slot, INFO2_BRE << 16);
        for (int i = 0; i < BLKSZ; i += 2) {
            uint16_t v = sdhi_rd16(qts, slot, SD_BUF0);

            out[b * BLKSZ + i] = v;
            out[b * BLKSZ + i + 1] = v >> 8;
        }
    }
    g_assert_true(sdhi_wait_status(qts, slot, INFO1_ACCESSEND) &
                  INFO1_ACCESSEND);
    sdhi_ack(qts, slot, INFO1_ACCESSEND);
    sdhi_wr16(qts, slot, SD_STOP, 0);
}

/* One block into SD_BUF0 as tmio_mmc_pio_irq() does: 16-bit writes */
void sdhi_pio_write_block(QTestState *qts, int slot, const uint8_t *blk)
{
    for (int i = 0; i < BLKSZ; i += 2) {
        sdhi_wr16(qts, slot, SD_BUF0, blk[i] | blk[i + 1] << 8);
    }
}

void sdhi_pio_write(QTestState *qts, int slot, uint32_t sector,
                    uint32_t blocks, const uint8_t *in)
{
    sdhi_setup_data(qts, slot, blocks);
    sdhi_cmd_ok(qts, slot, sdhi_rw_cmd(false, blocks), sdhi_card_addr(sector));
    for (uint32_t b = 0; b < blocks; b++) {
        uint32_t status = sdhi_wait_status(qts, slot, INFO2_BWE << 16);

        g_assert_true(status & (INFO2_BWE << 16));
        sdhi_ack(qts, slot, INFO2_BWE << 16);
        sdhi_pio_write_block(qts, slot, in + b * BLKSZ);
    }
    g_assert_true(sdhi_wait_status(qts, slot, INFO1_ACCESSEND) &
                  INFO1_ACCESSEND);
    sdhi_ack(qts, slot, INFO1_ACCESSEND);
    sdhi_wr16(qts, slot, SD_STOP, 0);
}

/* The DMA set-up of renesas_sdhi_internal_dmac_start_dma() */
void sdhi_dma_setup(QTestState *qts, int slot, bool read, uint64_t addr)
{
    sdhi_wr32(qts, slot, DM_CM_INFO1_MASK, ~(uint32_t)(DTRANEND0 | DTRANEND1));
    sdhi_wr16(qts, slot, CC_EXT_MODE, DMASDRW);
    sdhi_wr32(qts, slot, DM_CM_DTRAN_MODE, read ? DTRAN_MODE_READ :
                                             DTRAN_MODE_WRITE);
    sdhi_wr32(qts, slot, DM_DTRAN_ADDR, addr);
}

/* The command of a DMA transfer and its RSPEND; DM_START is the caller's */
void sdhi_dma_command(QTestState *qts, int slot, bool read, uint32_t sector,
                      uint32_t blocks, uint64_t addr, uint16_t extra_cmd_bits)
{
    sdhi_setup_data(qts, slot, blocks);
    sdhi_dma_setup(qts, slot, read, addr);
    sdhi_cmd_ok(qts, slot, sdhi_rw_cmd(read, blocks) | extra_cmd_bits,
                sdhi_card_addr(sector));
}

/*
 * A whole DMA transfer: command, RSPEND, DM_START, then ACCESSEND and
 * DTRANEND.  Returns DM_CM_INFO1 as it was at the end.
 */
uint32_t sdhi_dma_transfer(QTestState *qts, int slot, bool read,
                           uint32_t sector, uint32_t blocks, uint64_t addr,
                           uint16_t extra_cmd_bits)
{
    uint32_t info1;

    sdhi_dma_command(qts, slot, read, sector, blocks, addr, extra_cmd_bits);
    /* No data before DM_START: the driver handles RSPEND first (T5) */
    g_assert_false(sdhi_rd16(qts, slot, SD_INFO1) & INFO1_ACCESSEND);
    g_assert_false(sdhi_rd16(qts, slot, SD_INFO2) & (INFO2_BRE | INFO2_BWE));
    sdhi_wr32(qts, slot, DM_CM_DTRAN_CTRL, 1);
    g_assert_true(sdhi_wait_status(qts, slot, INFO1_ACCESSEND) &
                  INFO1_ACCESSEND);
    info1 = sdhi_rd32(qts, slot, DM_CM_INFO1);
    /* tmio_mmc_data_irq() for a DMA write needs SCLKDIVEN already */
    g_assert_true(sdhi_rd16(qts, slot, SD_INFO2) & INFO2_SCLKDIVEN);
    sdhi_dma_finish(qts, slot, info1);
    return info1;
}

/* The driver's side of a DMA transfer's end, DM_CM_INFO1 being @info1 */
void sdhi_dma_finish(QTestState *qts, int slot, uint32_t info1)
{
    sdhi_ack(qts, slot, INFO1_ACCESSEND);
    /* renesas_sdhi_internal_dmac_dma_irq(): status ^ dma_irqs */
    sdhi_wr32(qts, slot, DM_CM_INFO1, info1 ^ (DTRANEND0 | DTRANEND1));
    /* renesas_sdhi_internal_dmac_enable_dma(false) */
    sdhi_wr32(qts, slot, DM_CM_INFO1_MASK, 0xffffffff);
    sdhi_wr16(qts, slot, CC_EXT_MODE, 0);
    sdhi_wr16(qts, slot, SD_STOP, 0);
}

void sdhi_check_against_image(const char *img, uint32_t sector,
                              const uint8_t *data, uint32_t blocks)
{
    g_autofree uint8_t *expect = g_malloc(blocks * BLKSZ);

    sdhi_image_read(img, sector, expect, blocks * BLKSZ);
    g_assert_cmpmem(data, blocks * BLKSZ, expect, blocks * BLKSZ);
}
