/*
 * Drive the Renesas R-Car Gen3 SDHI the way Linux 6.12 does, for qtests
 * (renesas-sdhi-test, rcar-ipmmu-test)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef RENESAS_SDHI_UTIL_H
#define RENESAS_SDHI_UTIL_H

#include "libqtest.h"
#include "qemu/units.h"
#include "rcar-gen3-machines.h"

#define SDHI_BASE(n) \
    rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_SDHI, (n))
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

/* tmio_mmc.h TMIO_STAT_* */
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
#define INFO2_ILA           BIT(15)
/* renesas_sdhi_internal_dmac.c DTRAN_MODE_*, INFO1_* */
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
#define R1_ERROR            BIT(19)
#define R1_ILLEGAL_COMMAND  BIT(22)
#define R1_STATE(r)         (((r) >> 9) & 0xf)
#define STATE_TRAN          4
#define STATE_DATA          5
#define STATE_PRG           7

#define BLKSZ               512
#define IMG_SIZE            (4 * MiB)
#define EMMC_RCA            0x0001

/* Sector n of an image: recognisable bytes that differ per sector */
uint8_t sdhi_pattern(uint32_t sector, unsigned i, uint8_t seed);

void sdhi_make_image(char *path, uint8_t seed);

void sdhi_image_read(const char *path, uint32_t sector, void *buf,
                     size_t len);

uint16_t sdhi_rd16(QTestState *qts, int slot, unsigned reg);

void sdhi_wr16(QTestState *qts, int slot, unsigned reg, uint16_t val);

uint32_t sdhi_rd32(QTestState *qts, int slot, unsigned reg);

void sdhi_wr32(QTestState *qts, int slot, unsigned reg, uint32_t val);

uint64_t rcar_qom_get_uint(QTestState *qts, const char *path,
                           const char *prop);

bool rcar_qom_get_bool(QTestState *qts, const char *path, const char *prop);

/* Run the model's timers until (INFO1 | INFO2 << 16) has one of @bits */
uint32_t sdhi_wait_status(QTestState *qts, int slot, uint32_t bits);

/*
 * Run the model's timers until SD_INFO2 @bit of @slot is @set, for up to
 * 5 s of real time
 */
void sdhi_wait_info2(QTestState *qts, int slot, uint16_t bit, bool set);

/* Run the model's timers until the bus is idle, for up to 5 s of real time */
void sdhi_wait_bus_idle(QTestState *qts, int slot);

/* Acknowledge event bits the way the driver does: write 0 to them */
void sdhi_ack(QTestState *qts, int slot, uint32_t bits);

/* The 32-bit response of the last command (R1, R3, R6; auto CMD12 too) */
uint32_t sdhi_response(QTestState *qts, int slot);

/*
 * Issue a command; returns true on a response (RSPEND) with the R1/R3/R6
 * payload in *resp, false on a response timeout.
 */
bool sdhi_cmd(QTestState *qts, int slot, uint16_t sd_cmd, uint32_t arg,
              uint32_t *resp);

uint32_t sdhi_cmd_ok(QTestState *qts, int slot, uint16_t sd_cmd,
                     uint32_t arg);

/* SD card: idle -> transfer state (mmc_sd_init_card), RCA chosen by card */
uint16_t sdhi_sd_init_slot(QTestState *qts, int slot);

/* eMMC: idle -> transfer state (mmc_init_card), RCA chosen by the host */
void sdhi_emmc_init(QTestState *qts);

uint32_t sdhi_card_status(QTestState *qts, int slot, uint16_t rca);

/* Small cards use byte addresses (standard capacity) */
uint32_t sdhi_card_addr(uint32_t sector);

uint16_t sdhi_rw_cmd(bool read, uint32_t blocks);

void sdhi_setup_data(QTestState *qts, int slot, uint32_t blocks);

/* PIO read as tmio_mmc_pio_irq() does: 16-bit reads of SD_BUF0 */
void sdhi_pio_read(QTestState *qts, int slot, uint32_t sector,
                   uint32_t blocks, uint8_t *out);

/* The same for any data read command, e.g. CMD8 SEND_EXT_CSD of eMMC */
void sdhi_pio_read_cmd(QTestState *qts, int slot, uint16_t sd_cmd,
                       uint32_t arg, uint32_t blocks, uint8_t *out);

/* One block into SD_BUF0 as tmio_mmc_pio_irq() does: 16-bit writes */
void sdhi_pio_write_block(QTestState *qts, int slot, const uint8_t *blk);

void sdhi_pio_write(QTestState *qts, int slot, uint32_t sector,
                    uint32_t blocks, const uint8_t *in);

/* The DMA set-up of renesas_sdhi_internal_dmac_start_dma() */
void sdhi_dma_setup(QTestState *qts, int slot, bool read, uint64_t addr);

/* The command of a DMA transfer and its RSPEND; DM_START is the caller's */
void sdhi_dma_command(QTestState *qts, int slot, bool read, uint32_t sector,
                      uint32_t blocks, uint64_t addr, uint16_t extra_cmd_bits);

/*
 * A whole DMA transfer: command, RSPEND, DM_START, then ACCESSEND and
 * DTRANEND.  Returns DM_CM_INFO1 as it was at the end.
 */
uint32_t sdhi_dma_transfer(QTestState *qts, int slot, bool read,
                           uint32_t sector, uint32_t blocks, uint64_t addr,
                           uint16_t extra_cmd_bits);

/* After ACCESSEND and DTRANEND: acknowledge and turn the DMA off again */
void sdhi_dma_finish(QTestState *qts, int slot, uint32_t info1);

void sdhi_check_against_image(const char *img, uint32_t sector,
                              const uint8_t *data, uint32_t blocks);

#endif
