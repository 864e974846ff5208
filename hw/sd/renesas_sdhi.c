/*
 * Renesas R-Car Gen3 SD/MMC host interface (SDHI) with internal DMAC
 *
 * The SDHI is a TMIO MMC core: 16-bit registers at 8-byte spacing on
 * Gen3 (the Linux driver's bus_shift of 2), an internal DMA controller
 * at 0x800 that moves ONE contiguous segment of SD_SECCNT x SD_SIZE
 * bytes per transfer, and the sampling clock controller (SCC) at 0x1000.
 *
 * Behaviour follows what Linux 6.12 relies on; the functions and macros
 * cited are in drivers/mmc/host/ of Linux 6.12: tmio_mmc.h,
 * tmio_mmc_core.c (core), renesas_sdhi_core.c (sdhi) and
 * renesas_sdhi_internal_dmac.c (idmac).
 *
 * Data phases (a PIO block, a run of DMA blocks) finish from a timer, not
 * inside the MMIO access that started them, so the guest sees interrupts
 * in the order the hardware raises them, and a long DMA transfer gives
 * the BQL back between chunks.  The card's backend reads and writes a run
 * of DMA blocks without the BQL; its completion goes on with the DMA.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/bswap.h"
#include "qemu/error-report.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/memalign.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "hw/sd/renesas_sdhi.h"
#include "migration/vmstate.h"
#include "block/block.h"
#include "exec/icount.h"
#include "system/dma.h"
#include "trace.h"

/* SD core, at the CPU offsets of Gen3 (CTL_* << 2, tmio_mmc.h) */
REG32(SD_CMD, 0x000)
    FIELD(SD_CMD, CF, 0, 6)
    FIELD(SD_CMD, ACMD, 6, 2)
    FIELD(SD_CMD, RSP, 8, 3)
    FIELD(SD_CMD, DATA, 11, 1)
    FIELD(SD_CMD, READ, 12, 1)
    FIELD(SD_CMD, MULTI, 13, 1)
    FIELD(SD_CMD, NO_CMD12, 14, 1)
REG32(SD_PORTSEL, 0x008)
REG32(SD_ARG, 0x010)
REG32(SD_ARG1, 0x018)
REG32(SD_STOP, 0x020)
    FIELD(SD_STOP, STP, 0, 1)
    FIELD(SD_STOP, SEC, 8, 1)
REG32(SD_SECCNT, 0x028)
REG32(SD_RSP10, 0x030)
REG32(SD_RSP1, 0x038)
REG32(SD_RSP32, 0x040)
REG32(SD_RSP3, 0x048)
REG32(SD_RSP54, 0x050)
REG32(SD_RSP5, 0x058)
REG32(SD_RSP76, 0x060)
REG32(SD_RSP7, 0x068)
REG32(SD_INFO1, 0x070)
    FIELD(SD_INFO1, RSPEND, 0, 1)
    FIELD(SD_INFO1, ACCESSEND, 2, 1)
    FIELD(SD_INFO1, CARD_REMOVE, 3, 1)
    FIELD(SD_INFO1, CARD_INSERT, 4, 1)
    FIELD(SD_INFO1, SIGSTATE, 5, 1)
    FIELD(SD_INFO1, WRPROTECT, 7, 1)
REG32(SD_INFO2, 0x078)
    FIELD(SD_INFO2, CMDE, 0, 1)
    FIELD(SD_INFO2, CRCE, 1, 1)
    FIELD(SD_INFO2, ENDE, 2, 1)
    FIELD(SD_INFO2, DTO, 3, 1)
    FIELD(SD_INFO2, ILW, 4, 1)
    FIELD(SD_INFO2, ILR, 5, 1)
    FIELD(SD_INFO2, RSPTO, 6, 1)
    FIELD(SD_INFO2, DAT0, 7, 1)
    FIELD(SD_INFO2, BRE, 8, 1)
    FIELD(SD_INFO2, BWE, 9, 1)
    FIELD(SD_INFO2, SCLKDIVEN, 13, 1)
    FIELD(SD_INFO2, CBSY, 14, 1)
    FIELD(SD_INFO2, ILA, 15, 1)
REG32(SD_INFO1_MASK, 0x080)
REG32(SD_INFO2_MASK, 0x088)
REG32(SD_CLK_CTRL, 0x090)
    FIELD(SD_CLK_CTRL, DIV, 0, 8)
    FIELD(SD_CLK_CTRL, SCLKEN, 8, 1)
REG32(SD_SIZE, 0x098)
    FIELD(SD_SIZE, LEN, 0, 10)
REG32(SD_OPTION, 0x0a0)
    FIELD(SD_OPTION, WIDTH8, 13, 1)
    FIELD(SD_OPTION, WIDTH1, 15, 1)
REG32(SD_ERR_STS1, 0x0b0)
REG32(SD_ERR_STS2, 0x0b8)
REG32(SD_BUF0, 0x0c0)
REG32(SDIO_MODE, 0x0d0)
REG32(SDIO_INFO1, 0x0d8)
REG32(SDIO_INFO1_MASK, 0x0e0)
REG32(CC_EXT_MODE, 0x360)
    FIELD(CC_EXT_MODE, DMASDRW, 1, 1)
REG32(SOFT_RST, 0x380)
    FIELD(SOFT_RST, SDRST, 0, 1)
REG32(VERSION, 0x388)
REG32(HOST_MODE, 0x390)
REG32(SDIF_MODE, 0x398)
#define SDIF_MODE_HS400 BIT(0)      /* DDR sampling (tmio_mmc.h) */

/* Internal DMAC: not shifted, 32-bit (idmac.c DM_CM_*) */
REG32(DM_CM_DTRAN_MODE, 0x820)
    FIELD(DM_CM_DTRAN_MODE, ADDR_MODE, 0, 1)
    FIELD(DM_CM_DTRAN_MODE, CH_NUM, 16, 2)
REG32(DM_CM_DTRAN_CTRL, 0x828)
    FIELD(DM_CM_DTRAN_CTRL, DM_START, 0, 1)
REG32(DM_CM_RST, 0x830)
    FIELD(DM_CM_RST, DTRANRST0, 8, 1)
    FIELD(DM_CM_RST, DTRANRST1, 9, 1)
REG32(DM_CM_INFO1, 0x840)
    FIELD(DM_CM_INFO1, DTRANEND0, 16, 1)
    FIELD(DM_CM_INFO1, DTRANEND1, 20, 1)
REG32(DM_CM_INFO1_MASK, 0x848)
REG32(DM_CM_INFO2, 0x850)
    FIELD(DM_CM_INFO2, DTRANERR0, 16, 1)
    FIELD(DM_CM_INFO2, DTRANERR1, 17, 1)
REG32(DM_CM_INFO2_MASK, 0x858)
REG32(DM_DTRAN_ADDR, 0x880)

/* SCC: offsets << 2 from 0x1000 (SH_MOBILE_SDHI_SCC_*) */
REG32(SCC_DTCNTL, 0x1000)
    FIELD(SCC_DTCNTL, TAPEN, 0, 1)
    FIELD(SCC_DTCNTL, TAPNUM, 16, 8)
REG32(SCC_TAPSET, 0x1008)
REG32(SCC_DT2FF, 0x1010)
REG32(SCC_CKSEL, 0x1018)
    FIELD(SCC_CKSEL, DTSEL, 0, 1)
REG32(SCC_RVSCNTL, 0x1020)
    FIELD(SCC_RVSCNTL, RVSEN, 0, 1)
REG32(SCC_RVSREQ, 0x1028)
    FIELD(SCC_RVSREQ, REQTAPDOWN, 0, 1)
    FIELD(SCC_RVSREQ, REQTAPUP, 1, 1)
    FIELD(SCC_RVSREQ, RVSERR, 2, 1)
REG32(SCC_SMPCMP, 0x1030)
    FIELD(SCC_SMPCMP, CMD_REQDOWN, 8, 1)
    FIELD(SCC_SMPCMP, CMD_REQUP, 24, 1)
REG32(SCC_TMPPORT2, 0x1038)
REG32(SCC_TMPPORT3, 0x1050)
REG32(SCC_TMPPORT4, 0x1058)
    FIELD(SCC_TMPPORT4, DLL_ACC_START, 0, 1)
REG32(SCC_TMPPORT5, 0x1060)
    FIELD(SCC_TMPPORT5, DLL_ADR, 0, 6)
    FIELD(SCC_TMPPORT5, DLL_RW_SEL_R, 8, 1)
REG32(SCC_TMPPORT6, 0x1068)
REG32(SCC_TMPPORT7, 0x1070)
#define SCC_BASE        A_SCC_DTCNTL
/* SCC registers are 32-bit, 8 bytes apart */
#define SCC_INDEX(offset) (((offset) - SCC_BASE) / 8)
#define SCC_REG(s, name) ((s)->scc[SCC_INDEX(A_SCC_##name)])
/*
 * The DLL register that holds the calibration code
 * (renesas_sdhi_adjust_hs400_mode_enable())
 */
#define SCC_DLL_CALIB_CODE 0x26

#define SD_CMD_RSP_NORMAL 0         /* the host picks it from the index */
#define SD_CMD_RSP_NONE 3           /* SD_CMD[10:8], core.c RESP_* */
#define SD_CMD_RSP_R1B  5
#define SD_CMD_RSP_R2   6
#define MMC_STOP_TRANSMISSION 12
#define SD_ERASE        38          /* R1b in normal mode */

/* Event bits of SD_INFO1/2: write 0 to clear, 1 has no effect */
#define INFO1_EVENTS    0x031d
#define INFO2_EVENTS    0x837f
/* The bits that can interrupt: TMIO_MASK_ALL */
#define INFO1_IRQ_SRCS  0x031d
#define INFO2_IRQ_SRCS  0x837f
#define SDIO_INFO1_EVENTS 0xc001

/* DMA moves at most this much per timer callback, then yields the BQL */
#define DMA_CHUNK_BYTES (1 * MiB)
QEMU_BUILD_BUG_ON(DMA_CHUNK_BYTES > SD_TIMING_MAX_WRITE_BYTES);
/*
 * The next chunk of a DMA runs this much later in virtual time: a timer
 * that re-armed itself for the same instant would keep the main loop
 * (and qtest's clock_step) from ever getting past it.
 */
#define DMA_CHUNK_NS    1000
/* DMA to or from device registers moves this much per timer callback */
#define DMA_MMIO_BYTES  (4 * KiB)
/* DM_DTRAN_ADDR[6:0] are reserved: the DMAC works on 128-byte units */
#define DMA_ADDR_ALIGN  128

#define REG(s, name)    ((s)->regs[SDHI_REG_##name])

/*
 * The SD core's and the DMAC's registers.  A write stores the bits of
 * @wmask and clears those of @w0c that it writes 0 to (the event bits:
 * write 0 to clear, 1 has no effect); registers with side effects have
 * code in sdhi_reg_write() too.  @bits are all the bits the register can
 * hold, which an incoming migration must respect.  SOFT_RST and the DMAC
 * keep their values through SOFT_RST.SDRST; a module reset resets all.
 */
typedef struct SDHIRegInfo {
    const char *name;
    hwaddr offset;
    uint32_t reset;
    uint32_t wmask;
    uint32_t w0c;
    uint32_t bits;
    bool read_only;             /* a write is a guest error */
    bool module;                /* reset by a module reset only */
} SDHIRegInfo;

/* 16-bit SD core registers and 32-bit DMAC ones, writable unless said */
#define SD_REG(reg, ...) \
    [SDHI_REG_##reg] = { .name = #reg, .offset = A_##reg, .bits = 0xffff, \
                         .wmask = 0xffff, __VA_ARGS__ }
#define DM_REG(reg, ...) \
    [SDHI_REG_##reg] = { .name = #reg, .offset = A_##reg, \
                         .bits = UINT32_MAX, .wmask = UINT32_MAX, \
                         .module = true, __VA_ARGS__ }

static const SDHIRegInfo sdhi_regs[RENESAS_SDHI_NUM_REGS] = {
    /* The value of the command that was sent (sdhi_do_command()) */
    SD_REG(SD_CMD, .wmask = 0),
    /* One port: nothing to select */
    SD_REG(SD_PORTSEL, .bits = 0, .wmask = 0),
    SD_REG(SD_ARG, .bits = UINT32_MAX, .wmask = UINT32_MAX),
    /* The upper half of SD_ARG, which holds it */
    SD_REG(SD_ARG1, .bits = 0, .wmask = 0),
    SD_REG(SD_STOP, .bits = R_SD_STOP_SEC_MASK | R_SD_STOP_STP_MASK,
           .wmask = R_SD_STOP_SEC_MASK | R_SD_STOP_STP_MASK),
    /* A 32-bit block count on Gen3 (tmio_mmc_start_data()) */
    SD_REG(SD_SECCNT, .bits = UINT32_MAX, .wmask = UINT32_MAX),
    SD_REG(SD_RSP10, .wmask = 0, .read_only = true),
    SD_REG(SD_RSP1, .wmask = 0, .read_only = true),
    SD_REG(SD_RSP32, .wmask = 0, .read_only = true),
    SD_REG(SD_RSP3, .wmask = 0, .read_only = true),
    SD_REG(SD_RSP54, .wmask = 0, .read_only = true),
    SD_REG(SD_RSP5, .wmask = 0, .read_only = true),
    SD_REG(SD_RSP76, .wmask = 0, .read_only = true),
    SD_REG(SD_RSP7, .wmask = 0, .read_only = true),
    /* The state bits are read from the card (sdhi_info1/2()) */
    SD_REG(SD_INFO1, .bits = INFO1_EVENTS, .wmask = 0, .w0c = INFO1_EVENTS),
    SD_REG(SD_INFO2, .bits = INFO2_EVENTS, .wmask = 0, .w0c = INFO2_EVENTS),
    SD_REG(SD_INFO1_MASK, .reset = INFO1_IRQ_SRCS),
    SD_REG(SD_INFO2_MASK, .reset = 0x8b7f),
    /* DIV 0x20 (1/128), the card's clock stopped */
    SD_REG(SD_CLK_CTRL, .reset = 0x0020, .bits = 0x3ff, .wmask = 0x3ff),
    SD_REG(SD_SIZE, .reset = 0x0200, .bits = R_SD_SIZE_LEN_MASK,
           .wmask = R_SD_SIZE_LEN_MASK),
    SD_REG(SD_OPTION, .reset = 0x40ee),
    /* QEMU cards never give CRC or end-bit errors to detail */
    SD_REG(SD_ERR_STS1, .bits = 0, .wmask = 0, .read_only = true),
    SD_REG(SD_ERR_STS2, .bits = 0, .wmask = 0, .read_only = true),
    SD_REG(SDIO_MODE),
    SD_REG(SDIO_INFO1, .bits = SDIO_INFO1_EVENTS, .wmask = 0,
           .w0c = SDIO_INFO1_EVENTS),
    SD_REG(SDIO_INFO1_MASK, .reset = 0xc007),
    SD_REG(CC_EXT_MODE),
    /* SDRST and the two reserved bits set: the SD core runs */
    SD_REG(SOFT_RST, .reset = 0x0007, .module = true),
    /* The "version" property, which renesas_sdhi_read() returns */
    SD_REG(VERSION, .bits = 0, .wmask = 0, .read_only = true),
    SD_REG(HOST_MODE),
    SD_REG(SDIF_MODE),
    DM_REG(DM_CM_DTRAN_MODE),
    /* DM_START clears itself */
    DM_REG(DM_CM_DTRAN_CTRL, .bits = 0, .wmask = 0),
    /* Both channels out of reset */
    DM_REG(DM_CM_RST, .reset = UINT32_MAX),
    DM_REG(DM_CM_INFO1, .wmask = 0, .w0c = UINT32_MAX),
    DM_REG(DM_CM_INFO1_MASK, .reset = UINT32_MAX),
    DM_REG(DM_CM_INFO2, .wmask = 0, .w0c = UINT32_MAX),
    DM_REG(DM_CM_INFO2_MASK, .reset = UINT32_MAX),
    /*
     * A write sets it 128-byte aligned; a transfer moves it by its bytes,
     * so it holds any bit
     */
    DM_REG(DM_DTRAN_ADDR, .wmask = ~(uint32_t)(DMA_ADDR_ALIGN - 1)),
};

/*
 * The register of each 8-byte slot below the SCC, plus 1 (0: none),
 * filled from the table once, by sdhi_index_regs()
 */
#define SDHI_REG_SLOTS  (SCC_BASE / 8)
static uint8_t sdhi_reg_of_slot[SDHI_REG_SLOTS];

/* The register at @offset, or -1 */
static int sdhi_reg_at(hwaddr offset)
{
    if (offset & 7 || offset >= SCC_BASE) {
        return -1;
    }
    return sdhi_reg_of_slot[offset / 8] - 1;
}

static bool sdhi_busy(RenesasSDHIState *s)
{
    return s->data_dir != RENESAS_SDHI_DATA_NONE;
}

/*
 * The command sequencer is busy during a data phase, during the busy of an
 * R1b response, and while a command waits for the card's backend to finish
 * the blocks of an aborted transfer (sdhi_do_command()).  An abort or a
 * reset frees the host at
 * once, as on the hardware: Linux re-programs it right after one, and
 * drops its writes if CBSY stays 1 for a millisecond
 * (renesas_sdhi_write16_hook()).
 */
static bool sdhi_bus_busy(RenesasSDHIState *s)
{
    return sdhi_busy(s) || s->cmd_deferred || s->rsp_busy;
}

/* The card holds DAT0 low: it is busy (renesas_sdhi_card_busy()) */
static bool sdhi_card_busy(RenesasSDHIState *s)
{
    return !(sdbus_get_dat_lines(&s->sdbus) & 1);
}

/*
 * Must SD_CMD wait before it goes to the card?  While the card's backend
 * still works on the blocks of an aborted transfer, so that the command
 * cannot overtake them; and while the card erases (DAT0 low, possibly an
 * erase from before a reset), but for SEND_STATUS, which Linux polls
 * with after an erase it did not send as R1b (mmc_poll_for_busy()).
 */
static bool sdhi_cmd_must_wait(RenesasSDHIState *s, uint16_t cmd)
{
    bool send_status = FIELD_EX16(cmd, SD_CMD, CF) == 13 &&
                       !FIELD_EX16(cmd, SD_CMD, DATA);

    return s->card_io_pending || (sdhi_card_busy(s) && !send_status);
}

static uint16_t sdhi_info1(RenesasSDHIState *s)
{
    uint16_t val = REG(s, SD_INFO1);

    val = FIELD_DP16(val, SD_INFO1, SIGSTATE, sdbus_get_inserted(&s->sdbus));
    /* WRPROTECT is 1 when the card is writable (tmio_mmc_get_ro()) */
    val = FIELD_DP16(val, SD_INFO1, WRPROTECT,
                     !sdbus_get_readonly(&s->sdbus));
    return val;
}

static uint16_t sdhi_info2(RenesasSDHIState *s)
{
    uint16_t val = REG(s, SD_INFO2);

    /* DAT0 high means the card is not busy (renesas_sdhi_card_busy()) */
    val = FIELD_DP16(val, SD_INFO2, DAT0, sdbus_get_dat_lines(&s->sdbus) & 1);
    /*
     * Linux polls for CBSY == 0 and SCLKDIVEN == 1 before it writes most
     * registers, and drops the write if they never come
     * (renesas_sdhi_write16_hook()).
     */
    val = FIELD_DP16(val, SD_INFO2, CBSY, sdhi_bus_busy(s));
    val = FIELD_DP16(val, SD_INFO2, SCLKDIVEN, !sdhi_bus_busy(s));
    return val;
}

static void sdhi_update_irq(RenesasSDHIState *s)
{
    bool level = (REG(s, SD_INFO1) & INFO1_IRQ_SRCS & ~REG(s, SD_INFO1_MASK)) ||
                 (REG(s, SD_INFO2) & INFO2_IRQ_SRCS & ~REG(s, SD_INFO2_MASK)) ||
                 (REG(s, DM_CM_INFO1) & ~REG(s, DM_CM_INFO1_MASK)) ||
                 (REG(s, DM_CM_INFO2) & ~REG(s, DM_CM_INFO2_MASK)) ||
                 ((REG(s, SDIO_MODE) & 1) &&
                  (REG(s, SDIO_INFO1) & SDIO_INFO1_EVENTS &
                   ~REG(s, SDIO_INFO1_MASK)));

    trace_renesas_sdhi_irq(s->name, level);
    qemu_set_irq(s->irq, level);
}

static const char *sdhi_dir_name(RenesasSDHIDataDir dir)
{
    return dir == RENESAS_SDHI_DATA_READ ? "read" : "write";
}

/* DMAC channel of a direction: CH1 reads from the card, CH0 writes */
static unsigned sdhi_dma_channel(RenesasSDHIDataDir dir)
{
    return dir == RENESAS_SDHI_DATA_READ ? 1 : 0;
}

/* From a register access: the data phase goes on as soon as it can */
static void sdhi_xfer_kick(RenesasSDHIState *s)
{
    timer_mod(s->xfer_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
}

/* From the timer itself: the next chunk, strictly later */
static void sdhi_xfer_rearm(RenesasSDHIState *s)
{
    timer_mod(s->xfer_timer,
              qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + DMA_CHUNK_NS);
}

/*
 * Statistics: read-only "x-" properties, not hardware state.  A DMA
 * transfer counts the physically contiguous runs of guest RAM it covers,
 * judged on the RAM offsets that its IOTLB entries resolve to (these
 * follow guest physical addresses within a RAM bank).
 */
#define RUN_NONE UINT64_MAX

static void sdhi_count_transfer_start(RenesasSDHIState *s)
{
    s->cur_dma_bytes = 0;
    s->cur_dma_runs = 0;
    s->run_next = RUN_NONE;
    s->stat_dma_transfers++;
}

/* A piece at @addr: a new run, unless @where (a RAM offset) goes on */
static void sdhi_count_piece(RenesasSDHIState *s, hwaddr addr,
                             uint64_t where, hwaddr len)
{
    if (where == RUN_NONE || where != s->run_next) {
        s->cur_dma_runs++;
        s->stat_dma_runs++;
        trace_renesas_sdhi_dma_run(s->name, addr, s->cur_dma_runs, where);
    }
    s->run_next = where == RUN_NONE ? RUN_NONE : where + len;
}

static void sdhi_count_transfer_end(RenesasSDHIState *s, bool ok)
{
    s->stat_dma_largest = MAX(s->stat_dma_largest, s->cur_dma_bytes);
    s->stat_dma_max_runs = MAX(s->stat_dma_max_runs, s->cur_dma_runs);
    s->stat_dma_multi_run_transfers += s->cur_dma_runs > 1;
    trace_renesas_sdhi_dma_done(s->name, s->cur_dma_bytes, s->cur_dma_runs,
                                ok);
}

/*
 * Timing mode (x-timing, off by default): a DMA data phase takes the time
 * the hardware would need.  The card's latency (SDCardTiming) runs from
 * the command; each run of blocks then takes its bytes over the slower of
 * the bus and the card's sustained rate, from when the DMA gets to it; the
 * phase goes on, and ends with DTRANEND, only once the bus and the card
 * are done with what moved.  Data still moves at once, in QEMU's time:
 * only the events wait.  PIO phases and commands take no time.  The card's
 * backend is waited for (see sdhi_card_io_start()).
 */

/* The range of x-sdn-clock-hz: Gen3 runs SDn at 200 MHz at most */
#define SDN_CLOCK_MAX_HZ    (1000 * 1000 * 1000)
/* SD_CLK_CTRL.DIV's largest divider, 1/512, as a shift */
#define CLK_DIV_MAX_SHIFT   9

/*
 * The card's clock: SDn over SD_CLK_CTRL.DIV, 0xff being 1/1, 0 1/2 and
 * bit n 1/2^(n+2) (renesas_sdhi_set_clock()).  In HS400 1/1 is not
 * allowed and Linux sets 1/2 with SDn at 200 MHz; HS400 is 200 MHz DDR
 * (JEDEC), so the DDR clocking runs the bus at SDn.  (The boards' eMMC
 * agrees: it reads faster than the 200 MB/s of 100 MHz DDR.)  With the
 * clock stopped the hardware would stall the transfer; it is timed at
 * the slowest clock instead, and sdhi_timing_dma_start() says so.
 */
static uint64_t sdhi_card_clock_hz(RenesasSDHIState *s)
{
    unsigned div = FIELD_EX32(REG(s, SD_CLK_CTRL), SD_CLK_CTRL, DIV);
    unsigned shift = div == 0xff ? 0 : div ? ctz32(div) + 2 : 1;

    if (!FIELD_EX32(REG(s, SD_CLK_CTRL), SD_CLK_CTRL, SCLKEN)) {
        shift = CLK_DIV_MAX_SHIFT;
    }
    if ((REG(s, SDIF_MODE) & SDIF_MODE_HS400) && shift) {
        shift--;
    }
    return s->sdn_clock_hz >> shift;
}

/* Bytes per second on the data lines, from the host's clock and width */
static uint64_t sdhi_bus_rate(RenesasSDHIState *s)
{
    unsigned width = FIELD_EX32(REG(s, SD_OPTION), SD_OPTION, WIDTH8) ? 8 :
                     FIELD_EX32(REG(s, SD_OPTION), SD_OPTION, WIDTH1) ? 1 : 4;
    unsigned ddr = REG(s, SDIF_MODE) & SDIF_MODE_HS400 ? 2 : 1;

    return MAX(sdhi_card_clock_hz(s) * width * ddr / 8, 1);
}

/* At most a chunk and a card's cache (1 GiB): the product fits in 64 bits */
static uint64_t sdhi_ns_at(uint64_t bytes, uint64_t bytes_per_sec)
{
    return bytes * NANOSECONDS_PER_SECOND / bytes_per_sec;
}

/*
 * When @bytes of the current phase from @start are through the bus (@rate
 * bytes per second) and the card: a read at the card's read rate, a write
 * once the card has taken it (its write rate, or its cache)
 */
static int64_t sdhi_data_end(RenesasSDHIState *s, uint64_t rate,
                             uint64_t bytes, int64_t start)
{
    int64_t bus_end = start + sdhi_ns_at(bytes, rate);
    SDCardTiming card;

    if (s->data_dir != RENESAS_SDHI_DATA_READ) {
        return MAX(bus_end, sdbus_time_write_data(&s->sdbus, bytes, start));
    }
    sdbus_get_timing(&s->sdbus, &card);
    if (card.read_bytes_per_sec && card.read_bytes_per_sec < rate) {
        return start + sdhi_ns_at(bytes, card.read_bytes_per_sec);
    }
    return bus_end;
}

/*
 * The furthest ahead a phase can be waiting for the bus: the card's
 * latency and a whole chunk at the slowest clock over one data line, or a
 * slower card, which may first program what its write cache holds
 */
static uint64_t sdhi_timing_max_wait_ns(RenesasSDHIState *s)
{
    uint64_t slowest = MAX((s->sdn_clock_hz >> CLK_DIV_MAX_SHIFT) / 8, 1);
    SDCardTiming card;

    sdbus_get_timing(&s->sdbus, &card);
    if (card.read_bytes_per_sec) {
        slowest = MIN(slowest, card.read_bytes_per_sec);
    }
    if (card.write_bytes_per_sec) {
        slowest = MIN(slowest, card.write_bytes_per_sec);
    }
    return MAX(card.read_latency_ns, card.write_latency_ns) +
           sdhi_ns_at(DMA_CHUNK_BYTES + card.write_cache_bytes, slowest);
}

/* A data command: the card's first block comes after its latency */
static void sdhi_timing_command(RenesasSDHIState *s)
{
    SDCardTiming card;

    if (!s->timing) {
        return;
    }
    sdbus_get_timing(&s->sdbus, &card);
    s->timing_until = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                      (s->data_dir == RENESAS_SDHI_DATA_READ ?
                       card.read_latency_ns : card.write_latency_ns);
}

/* DM_START: the data streams from now, or once the card has it */
static void sdhi_timing_dma_start(RenesasSDHIState *s)
{
    if (!s->timing) {
        return;
    }
    s->timing_until = MAX(s->timing_until,
                          qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    if (!FIELD_EX32(REG(s, SD_CLK_CTRL), SD_CLK_CTRL, SCLKEN)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: DMA with the card's clock "
                      "stopped (SD_CLK_CTRL 0x%x): timed at the slowest "
                      "clock\n", __func__, REG(s, SD_CLK_CTRL));
    }
}

/*
 * The DMA gets to @bytes more: they follow the ones before on the bus
 * without a gap, however long QEMU took to fetch them
 */
static void sdhi_timing_data(RenesasSDHIState *s, uint64_t bytes)
{
    uint64_t rate;

    if (s->timing) {
        rate = sdhi_bus_rate(s);
        s->timing_until = sdhi_data_end(s, rate, bytes, s->timing_until);
        trace_renesas_sdhi_timing(s->name, bytes, rate, s->timing_until -
                                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    }
}

/* Is the bus still at the data moved so far?  Then wait for it */
static bool sdhi_timing_wait(RenesasSDHIState *s)
{
    if (!s->timing ||
        s->timing_until <= qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL)) {
        return false;
    }
    timer_mod(s->xfer_timer, s->timing_until);
    return true;
}

/*
 * The SCC: in HS200 and SDR104 the host samples the card's data with one
 * of DTCNTL.TAPNUM phases (taps) of its clock, TAPSET selecting one, once
 * the driver has set DTCNTL.TAPEN and CKSEL.DTSEL
 * (renesas_sdhi_init_tuning()).  The "x-bad-taps" property says which
 * taps sample outside the data eye: a read sampled there ends with a CRC
 * error, which is what Linux's tuning loop looks for
 * (renesas_sdhi_execute_tuning()).  In HS400 (SDIF_MODE.HS400) the data
 * comes with the data strobe, so only the command line is sampled by the
 * tap and data reads do not fail (renesas_sdhi_manual_correction()).
 *
 * After each sampled read the SCC compares the taps either side of
 * TAPSET: a failing one below asks for a tap up, above for a tap down,
 * both (or TAPSET itself failing) is an error that needs a retune.  That
 * lands in SMPCMP (command sampling) and RVSREQ, which the driver reads
 * after every request in these modes (renesas_sdhi_check_scc_error()).
 * With automatic correction on (RVSCNTL.RVSEN) the SCC moves TAPSET one
 * tap itself, and only an error is left for the driver to act on
 * (renesas_sdhi_auto_correction()).
 *
 * "x-bad-taps" can be changed while the guest runs (qom-set), which moves
 * the data eye as a temperature drift would on the board.
 */
static bool sdhi_scc_samples(RenesasSDHIState *s)
{
    return s->scc_taps &&
           FIELD_EX32(SCC_REG(s, DTCNTL), SCC_DTCNTL, TAPEN) &&
           FIELD_EX32(SCC_REG(s, CKSEL), SCC_CKSEL, DTSEL);
}

static bool sdhi_scc_tap_fails(RenesasSDHIState *s, int tap)
{
    return s->bad_taps & BIT((tap + s->scc_taps) % s->scc_taps);
}

static bool sdhi_scc_sample_read(RenesasSDHIState *s)
{
    uint32_t tapset = SCC_REG(s, TAPSET);
    bool hs400 = REG(s, SDIF_MODE) & SDIF_MODE_HS400;
    uint32_t smpcmp = 0, rvsreq = 0;
    bool below, above, here;
    int tap;

    if (!sdhi_scc_samples(s)) {
        return true;
    }
    if (tapset >= s->scc_taps) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: TAPSET %u beyond the %u taps\n",
                      __func__, tapset, s->scc_taps);
    }
    tap = tapset % s->scc_taps;
    here = sdhi_scc_tap_fails(s, tap);
    below = sdhi_scc_tap_fails(s, tap - 1);
    above = sdhi_scc_tap_fails(s, tap + 1);

    if (here || (below && above)) {
        smpcmp = R_SCC_SMPCMP_CMD_REQUP_MASK | R_SCC_SMPCMP_CMD_REQDOWN_MASK;
        rvsreq = R_SCC_RVSREQ_RVSERR_MASK;
    } else if (below) {
        smpcmp = R_SCC_SMPCMP_CMD_REQUP_MASK;
        rvsreq = R_SCC_RVSREQ_REQTAPUP_MASK;
    } else if (above) {
        smpcmp = R_SCC_SMPCMP_CMD_REQDOWN_MASK;
        rvsreq = R_SCC_RVSREQ_REQTAPDOWN_MASK;
    }
    SCC_REG(s, SMPCMP) = smpcmp;
    SCC_REG(s, RVSREQ) |= rvsreq;
    trace_renesas_sdhi_scc_sample(s->name, tap, hs400, smpcmp, here);
    if (FIELD_EX32(SCC_REG(s, RVSCNTL), SCC_RVSCNTL, RVSEN) &&
        (rvsreq & (R_SCC_RVSREQ_REQTAPUP_MASK |
                   R_SCC_RVSREQ_REQTAPDOWN_MASK))) {
        int step = rvsreq & R_SCC_RVSREQ_REQTAPUP_MASK ? 1 : -1;

        SCC_REG(s, TAPSET) = (tap + step + s->scc_taps) % s->scc_taps;
    }
    if (here && !hs400) {
        s->stat_tap_crc_errors++;
        return false;
    }
    return true;
}

/* Word @i of a response: RSP10 and RSP1, RSP32 and RSP3, ... */
static void sdhi_set_rsp_word(RenesasSDHIState *s, unsigned i, uint32_t word)
{
    s->regs[SDHI_REG_SD_RSP10 + 2 * i] = extract32(word, 0, 16);
    s->regs[SDHI_REG_SD_RSP10 + 2 * i + 1] = extract32(word, 16, 16);
}

/* Store a response as the TMIO core presents it (tmio_mmc_cmd_irq()) */
static void sdhi_store_response(RenesasSDHIState *s, const uint8_t *r,
                                size_t rlen)
{
    uint32_t words[4] = { 0 };

    if (rlen == 16) {
        /* R2: the 128-bit CID/CSD shifted right by 8, CRC dropped */
        words[0] = ldl_be_p(&r[11]);
        words[1] = ldl_be_p(&r[7]);
        words[2] = ldl_be_p(&r[3]);
        words[3] = (r[0] << 16) | (r[1] << 8) | r[2];
    } else if (rlen == 4) {
        words[0] = ldl_be_p(r);
    }
    for (int i = 0; i < 4; i++) {
        sdhi_set_rsp_word(s, i, words[i]);
    }
}

/* Auto-CMD12: response in RSP10/RSP1 only, and no RSPEND (trap T6) */
static void sdhi_send_auto_cmd12(RenesasSDHIState *s)
{
    SDRequest req = { .cmd = MMC_STOP_TRANSMISSION, .arg = 0 };
    uint8_t r[16];
    size_t rlen = sdbus_do_command(&s->sdbus, &req, r, sizeof(r));
    uint32_t rsp = rlen == 4 ? ldl_be_p(r) : 0;

    sdhi_set_rsp_word(s, 0, rsp);
    trace_renesas_sdhi_auto_cmd12(s->name, rsp);
}

/* Back to no data phase: the bus is idle again (CBSY 0, SCLKDIVEN 1) */
static void sdhi_clear_data_phase(RenesasSDHIState *s)
{
    s->data_dir = RENESAS_SDHI_DATA_NONE;
    s->data_by_dma = false;
    s->dma_started = false;
    s->auto_cmd12 = false;
    s->blocks_left = 0;
    s->buf_pos = 0;
    s->pio_ready = false;
    s->phase_gen++;
    s->card_io_ours = false;
    s->card_io_ended = false;
    s->card_io_buf_len = 0;
    s->stop_pending = false;
    timer_del(s->xfer_timer);
}

/*
 * End the data phase.  The stop command goes out if the command asked
 * for it (not after CMD23), also after an error, so that the card is not
 * left sending or receiving.  On success ACCESSEND, plus DTRANEND for a
 * DMA, tells the driver; on error the caller has set the error bits.
 */
static void sdhi_end_data(RenesasSDHIState *s, bool ok, bool accessend)
{
    RenesasSDHIDataDir dir = s->data_dir;

    if (ok && dir == RENESAS_SDHI_DATA_READ && !sdhi_scc_sample_read(s)) {
        /* Sampled at a failing tap: the block CRC does not match */
        REG(s, SD_INFO2) |= R_SD_INFO2_CRCE_MASK;
        ok = false;
    }
    if (s->auto_cmd12) {
        sdhi_send_auto_cmd12(s);
    }
    if (s->data_by_dma && s->dma_started) {
        if (ok) {
            REG(s, DM_CM_INFO1) |= dir == RENESAS_SDHI_DATA_READ ?
                                   R_DM_CM_INFO1_DTRANEND1_MASK :
                                   R_DM_CM_INFO1_DTRANEND0_MASK;
        }
        sdhi_count_transfer_end(s, ok);
    }
    if (accessend) {
        REG(s, SD_INFO1) |= R_SD_INFO1_ACCESSEND_MASK;
    }
    trace_renesas_sdhi_data_end(s->name, ok);
    sdhi_clear_data_phase(s);
    sdhi_update_irq(s);
}

/*
 * Can the card take write data now?  Besides the receiving state, the
 * command that started the phase must be one that sends data to the card:
 * QEMU's card aborts on data for any other (sd.c sd_write_byte()), and a
 * guest can put the card in the receiving state with one command and
 * start the data phase with another.
 */
static bool sdhi_card_takes_data(RenesasSDHIState *s)
{
    switch (s->data_cmd) {
    case 24:    /* WRITE_BLOCK */
    case 25:    /* WRITE_MULTIPLE_BLOCK */
    case 26:    /* PROGRAM_CID */
    case 27:    /* PROGRAM_CSD */
    case 42:    /* LOCK_UNLOCK */
    case 56:    /* GEN_CMD */
        return sdbus_receive_ready(&s->sdbus);
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: CMD%u does not write data to the "
                      "card\n", __func__, s->data_cmd);
        return false;
    }
}

/* The card is not in the data state it should be in: data timeout */
static void sdhi_data_timeout(RenesasSDHIState *s)
{
    qemu_log_mask(LOG_GUEST_ERROR, "%s: card not ready for the %s data "
                  "phase, %u blocks left\n", __func__,
                  sdhi_dir_name(s->data_dir), s->blocks_left);
    REG(s, SD_INFO2) |= R_SD_INFO2_DTO_MASK;
    sdhi_end_data(s, false, true);
}

/* Drop a data phase without any completion event (resets, aborts) */
static void sdhi_abort_data(RenesasSDHIState *s, const char *why)
{
    if (!sdhi_busy(s)) {
        return;
    }
    trace_renesas_sdhi_data_abort(s->name, why, s->blocks_left);
    sdhi_clear_data_phase(s);
}

static void sdhi_start_data(RenesasSDHIState *s, uint16_t cmd,
                            bool card_accepted)
{
    bool multi = FIELD_EX16(cmd, SD_CMD, MULTI);

    s->data_cmd = FIELD_EX16(cmd, SD_CMD, CF);
    s->data_dir = FIELD_EX16(cmd, SD_CMD, READ) ? RENESAS_SDHI_DATA_READ :
                                                  RENESAS_SDHI_DATA_WRITE;
    s->data_by_dma = FIELD_EX32(REG(s, CC_EXT_MODE), CC_EXT_MODE, DMASDRW);
    s->dma_started = false;
    s->blksz = FIELD_EX32(REG(s, SD_SIZE), SD_SIZE, LEN);
    s->blocks_left = multi ? REG(s, SD_SECCNT) : 1;
    /* Bit 14 is set when CMD23 counted the blocks (tmio_mmc_start_command()) */
    s->auto_cmd12 = multi && !FIELD_EX16(cmd, SD_CMD, NO_CMD12);
    s->buf_pos = 0;
    s->pio_ready = false;
    s->phase_gen++;

    if (multi && !FIELD_EX32(REG(s, SD_STOP), SD_STOP, SEC)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: multi-block command without "
                      "SD_STOP.SEC, using SD_SECCNT anyway\n", __func__);
    }
    trace_renesas_sdhi_data_start(s->name, sdhi_dir_name(s->data_dir),
                                  s->data_by_dma ? "dma" : "pio",
                                  s->blocks_left, s->blksz, s->auto_cmd12);
    if (!s->blksz || !s->blocks_left) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: data command with SD_SIZE %u and "
                      "%u blocks\n", __func__, s->blksz, s->blocks_left);
        sdhi_data_timeout(s);
        return;
    }
    if (!card_accepted) {
        /*
         * Without a response to tell, the card may have refused the
         * command (wrong state, illegal): then it neither sends nor takes
         * the data, and the host sees a data timeout.
         */
        qemu_log_mask(LOG_GUEST_ERROR, "%s: the card did not accept CMD%u: "
                      "no data follows\n", __func__, s->data_cmd);
        sdhi_data_timeout(s);
        return;
    }
    sdhi_timing_command(s);
    if (!s->data_by_dma) {
        /* The card produces or wants the first block */
        sdhi_xfer_kick(s);
    }
    /* With DMASDRW the data waits for DM_START (trap T5) */
}

static void sdhi_do_command(RenesasSDHIState *s, uint16_t cmd)
{
    SDRequest req = {
        .cmd = FIELD_EX16(cmd, SD_CMD, CF),
        .arg = REG(s, SD_ARG),
    };
    unsigned rsp_type = FIELD_EX16(cmd, SD_CMD, RSP);
    uint8_t r[16];
    size_t rlen;

    if (sdhi_bus_busy(s)) {
        /* SD_CMD written while CBSY is 1: an illegal access */
        qemu_log_mask(LOG_GUEST_ERROR, "%s: CMD%u issued while a command "
                      "sequence is running: dropped, ILA\n", __func__,
                      req.cmd);
        REG(s, SD_INFO2) |= R_SD_INFO2_ILA_MASK;
        sdhi_update_irq(s);
        return;
    }
    if (sdhi_cmd_must_wait(s, cmd)) {
        /* sdhi_xfer_timer() issues it when the card is ready for it */
        trace_renesas_sdhi_data_abort(s->name, "command waits for the card", 0);
        s->cmd_deferred = true;
        s->deferred_cmd = cmd;
        return;
    }
    if (!FIELD_EX32(REG(s, SOFT_RST), SOFT_RST, SDRST)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: CMD%u issued while SOFT_RST holds "
                      "the SD core in reset: dropped\n", __func__, req.cmd);
        return;
    }
    if (FIELD_EX16(cmd, SD_CMD, ACMD)) {
        qemu_log_mask(LOG_UNIMP, "%s: SD_CMD ACMD bits 0x%x ignored; send "
                      "CMD55 first\n", __func__, FIELD_EX16(cmd, SD_CMD, ACMD));
    }

    REG(s, SD_CMD) = cmd;
    s->stat_commands++;
    trace_renesas_sdhi_command(s->name, req.cmd, req.arg, cmd);
    rlen = sdbus_do_command(&s->sdbus, &req, r, sizeof(r));

    if (rlen == 0 && rsp_type != SD_CMD_RSP_NONE) {
        /* No card, or a command the card does not accept in its state */
        trace_renesas_sdhi_cmd_timeout(s->name, req.cmd);
        REG(s, SD_INFO2) |= R_SD_INFO2_RSPTO_MASK;
        sdhi_update_irq(s);
        return;
    }
    if (rsp_type == SD_CMD_RSP_R2 && rlen != 16) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: CMD%u asks for a 136-bit response "
                      "but the card gave %zu bytes\n", __func__, req.cmd, rlen);
    }
    sdhi_store_response(s, r, rlen);
    trace_renesas_sdhi_response(s->name, req.cmd, rlen,
                                REG(s, SD_RSP10) | REG(s, SD_RSP1) << 16);
    if ((rsp_type == SD_CMD_RSP_R1B ||
         (rsp_type == SD_CMD_RSP_NORMAL && req.cmd == SD_ERASE)) &&
        !FIELD_EX16(cmd, SD_CMD, DATA) && sdhi_card_busy(s)) {
        /*
         * For R1b, RSPEND also says that the busy ended: Linux sets
         * MMC_CAP_WAIT_WHILE_BUSY and then does not poll the card
         * (mmc_do_erase()).  renesas_sdhi_card_busy_ended() ends it.
         */
        trace_renesas_sdhi_card_busy(s->name, req.cmd, true);
        s->rsp_busy = true;
        return;
    }
    REG(s, SD_INFO1) |= R_SD_INFO1_RSPEND_MASK;
    if (FIELD_EX16(cmd, SD_CMD, DATA)) {
        sdhi_start_data(s, cmd, rlen > 0);
    }
    sdhi_update_irq(s);
}

/* SD_STOP.STP: stop a running transfer as the host would with CMD12 */
static void sdhi_stop(RenesasSDHIState *s)
{
    if (!sdhi_busy(s)) {
        return;
    }
    if (s->card_io_ours || s->card_io_ended) {
        /* The blocks the card is moving for this step go first */
        s->stop_pending = true;
        return;
    }
    trace_renesas_sdhi_stop(s->name, s->blocks_left);
    if (!s->auto_cmd12 && FIELD_EX32(REG(s, SD_CMD), SD_CMD, MULTI) &&
        !FIELD_EX32(REG(s, SD_CMD), SD_CMD, NO_CMD12)) {
        s->auto_cmd12 = true;
    }
    sdhi_end_data(s, true, true);
}

/*
 * PIO: one block moves between the card and the block buffer.  The guest
 * owns the buffer (pio_ready) from BRE/BWE until it has read or written
 * SD_SIZE bytes through SD_BUF0; Linux acknowledges BRE/BWE before it
 * touches the data (tmio_mmc_pio_irq()).
 */
static void sdhi_pio_step(RenesasSDHIState *s)
{
    bool read = s->data_dir == RENESAS_SDHI_DATA_READ;

    if (s->pio_ready) {
        return;
    }
    if (!read && s->buf_pos == s->blksz) {
        if (!sdhi_card_takes_data(s)) {
            sdhi_data_timeout(s);
            return;
        }
        sdbus_write_data(&s->sdbus, s->buf, s->blksz);
        s->blocks_left--;
        s->stat_pio_blocks++;
        trace_renesas_sdhi_pio_block(s->name, "write", s->blocks_left);
    }
    if (!s->blocks_left) {
        sdhi_end_data(s, true, true);
        return;
    }
    if (read ? !sdbus_data_ready(&s->sdbus) : !sdhi_card_takes_data(s)) {
        sdhi_data_timeout(s);
        return;
    }
    if (read) {
        sdbus_read_data(&s->sdbus, s->buf, s->blksz);
        s->blocks_left--;
        s->stat_pio_blocks++;
        trace_renesas_sdhi_pio_block(s->name, "read", s->blocks_left);
    }
    s->buf_pos = 0;
    s->pio_ready = true;
    REG(s, SD_INFO2) |= read ? R_SD_INFO2_BRE_MASK : R_SD_INFO2_BWE_MASK;
    sdhi_update_irq(s);
}

/*
 * The DMAC gives up: DTRANERR of channel @ch, no ACCESSEND.  DMA errors
 * only show in DM_CM_INFO2, which Linux keeps masked
 * (renesas_sdhi_internal_dmac_request_dma()): the driver's 5 s request
 * timeout recovers.
 */
static void sdhi_dma_fail(RenesasSDHIState *s, unsigned ch)
{
    REG(s, DM_CM_INFO2) |= ch ? R_DM_CM_INFO2_DTRANERR1_MASK :
                        R_DM_CM_INFO2_DTRANERR0_MASK;
    sdhi_end_data(s, false, false);
}

static void sdhi_dma_error(RenesasSDHIState *s, MemTxResult res)
{
    qemu_log_mask(LOG_GUEST_ERROR, "%s: DMA %s at bus address 0x%08" PRIx32
                  " failed (MemTxResult %d), %u blocks left\n", __func__,
                  sdhi_dir_name(s->data_dir), REG(s, DM_DTRAN_ADDR), res,
                  s->blocks_left);
    trace_renesas_sdhi_dma_error(s->name, REG(s, DM_DTRAN_ADDR), res);
    sdhi_dma_fail(s, sdhi_dma_channel(s->data_dir));
}

/*
 * Guest memory side of the DMAC.  Behind the IPMMU one bus address range
 * is many scattered pages; the DMAC stops at the first page it cannot
 * access, as the hardware does.  So memory moves piece by piece, each
 * piece as far as one translation of the bus address reaches (an IOMMU
 * page or block; a page without IOMMU), translated once: the IOMMU sees
 * one look-up per piece, and one fault per faulting access.
 */

/*
 * Move at most @len bytes between @buf and bus address @addr, as far as
 * one translation reaches; *@moved says how far that was.
 */
static MemTxResult sdhi_dma_piece(RenesasSDHIState *s, hwaddr addr,
                                  uint8_t *buf, hwaddr len, bool to_memory,
                                  hwaddr *moved, bool *all_ram)
{
    MemTxAttrs attrs = MEMTXATTRS_UNSPECIFIED;
    uint64_t where = RUN_NONE;
    IOMMUTLBEntry xlt;
    hwaddr pa, left, xlat, plen;
    MemoryRegion *mr;
    MemTxResult res;

    *moved = 0;
    /* Only for the look-ups: the access itself may reach device code */
    WITH_RCU_READ_LOCK_GUARD() {
        xlt = address_space_get_iotlb_entry(s->dma_as, addr, to_memory,
                                            attrs);
        if (!(xlt.perm & (to_memory ? IOMMU_WO : IOMMU_RO))) {
            return MEMTX_DECODE_ERROR;  /* an IOMMU fault, or a hole */
        }
        pa = xlt.translated_addr | (addr & xlt.addr_mask);
        left = xlt.addr_mask - (addr & xlt.addr_mask); /* bytes after addr */
        plen = left < len - 1 ? left + 1 : len;
        if (xlt.target_as == s->dma_as) {
            plen = len; /* no IOMMU: as far as the memory region reaches */
        }

        /* The target address space has no IOMMU: this costs no look-up */
        mr = address_space_translate(xlt.target_as, pa, &xlat, &plen,
                                     to_memory, attrs);
        if (memory_region_is_ram(mr)) {
            where = memory_region_get_ram_addr(mr) + xlat;
        } else {
            *all_ram = false;
        }
    }
    sdhi_count_piece(s, addr, where, plen);
    res = dma_memory_rw(xlt.target_as, pa, buf, plen,
                        to_memory ? DMA_DIRECTION_FROM_DEVICE :
                                    DMA_DIRECTION_TO_DEVICE, attrs);
    if (res == MEMTX_OK) {
        *moved = plen;
    }
    return res;
}

/*
 * Move @len bytes between @buf and bus address @addr; stop at a fault, or
 * when a memory access ended the data phase of generation @gen (DMA aimed
 * at a device that resets this one, say).
 */
static MemTxResult sdhi_dma_memory(RenesasSDHIState *s, uint32_t gen,
                                   hwaddr addr, uint8_t *buf, hwaddr len,
                                   bool to_memory, hwaddr *done,
                                   bool *all_ram)
{
    MemTxResult res = MEMTX_OK;
    hwaddr moved;

    for (*done = 0; *done < len && res == MEMTX_OK && s->phase_gen == gen;
         *done += moved) {
        res = sdhi_dma_piece(s, addr + *done, buf + *done, len - *done,
                             to_memory, &moved, all_ram);
    }
    return res;
}

/*
 * Card side: @blocks blocks of blksz bytes, in bulk as far as the card
 * allows, then a host block at a time so that the end of what the card
 * gives or takes shows up at a block boundary (sd.c stops a CMD23
 * transfer there).  The card's bulk path moves whole blocks of its own
 * block length, which SD_SIZE need not match: the data is one stream of
 * bytes either way, and the rest continues where the card stopped.
 *
 * The byte path costs one synchronous backend access per card block,
 * with the BQL held: a step takes it only to end the host block the bulk
 * stopped in, or for one host block if the bulk took nothing (SD_SIZE
 * not the card's block length leaves the card inside a block, where its
 * bulk path never starts).  The rest waits for the next timer callback,
 * so that a slow drive cannot hold the BQL for a whole chunk of them.
 * Returns how many whole host blocks moved.
 */
static size_t sdhi_byte_path_end(RenesasSDHIState *s, size_t done,
                                 size_t len)
{
    return MIN(done ? QEMU_ALIGN_UP(done, s->blksz) : s->blksz, len);
}

static uint32_t sdhi_card_read(RenesasSDHIState *s, uint8_t *buf,
                               uint32_t blocks)
{
    size_t len = (size_t)blocks * s->blksz;
    size_t done = sdbus_read_blocks(&s->sdbus, buf, len);

    len = sdhi_byte_path_end(s, done, len);
    while (done < len && sdbus_data_ready(&s->sdbus)) {
        size_t n = MIN(s->blksz - done % s->blksz, len - done);

        sdbus_read_data(&s->sdbus, buf + done, n);
        done += n;
    }
    return done / s->blksz;
}

static uint32_t sdhi_card_write(RenesasSDHIState *s, const uint8_t *buf,
                                uint32_t blocks)
{
    size_t len = (size_t)blocks * s->blksz;
    size_t done = sdbus_write_blocks(&s->sdbus, buf, len);

    len = sdhi_byte_path_end(s, done, len);
    while (done < len && sdhi_card_takes_data(s)) {
        size_t n = MIN(s->blksz - done % s->blksz, len - done);

        sdbus_write_data(&s->sdbus, buf + done, n);
        done += n;
    }
    return done / s->blksz;
}

/* Account for @blocks moved blocks; the address only moves if it should */
static void sdhi_dma_advance(RenesasSDHIState *s, uint32_t blocks)
{
    uint32_t bytes = blocks * s->blksz;

    s->blocks_left -= blocks;
    s->cur_dma_bytes += bytes;
    s->stat_dma_bytes += bytes;
    if (FIELD_EX32(REG(s, DM_CM_DTRAN_MODE), DM_CM_DTRAN_MODE, ADDR_MODE)) {
        REG(s, DM_DTRAN_ADDR) += bytes;
    }
}

/* What became of some blocks of a DMA step */
typedef enum SDHIDMAOutcome {
    SDHI_DMA_MOVED,             /* all of them moved */
    SDHI_DMA_ENDED,             /* the data phase ended (error, timeout) */
    SDHI_DMA_GONE,              /* a memory access ended the phase */
    SDHI_DMA_PENDING,           /* the card's backend is at work */
    SDHI_DMA_SHORT,             /* some moved, the card has more: later */
} SDHIDMAOutcome;

/* After @moved of @blocks blocks: does the card give or take more? */
static bool sdhi_card_has_more(RenesasSDHIState *s)
{
    return s->data_dir == RENESAS_SDHI_DATA_READ ?
           sdbus_data_ready(&s->sdbus) : sdhi_card_takes_data(s);
}

/*
 * Both sides of @blocks blocks are done: @moved blocks on the card's,
 * @done bytes with outcome @res on the memory side.
 */
static SDHIDMAOutcome sdhi_dma_blocks_end(RenesasSDHIState *s, uint32_t gen,
                                          uint32_t blocks, uint32_t moved,
                                          MemTxResult res, hwaddr done,
                                          bool all_ram)
{
    if (s->phase_gen != gen) {
        /* The phase ended under a memory access: nothing here is ours */
        trace_renesas_sdhi_data_abort(s->name, "phase ended during DMA", 0);
        return SDHI_DMA_GONE;
    }
    s->dma_mem_ram = all_ram;
    sdhi_dma_advance(s, MIN(moved, done / s->blksz));
    if (res != MEMTX_OK) {
        sdhi_dma_error(s, res);
        return SDHI_DMA_ENDED;
    }
    if (moved < blocks) {
        if (moved && sdhi_card_has_more(s)) {
            return SDHI_DMA_SHORT;
        }
        sdhi_data_timeout(s);
        return SDHI_DMA_ENDED;
    }
    return SDHI_DMA_MOVED;
}

/* Blocks read from the card go to memory */
static SDHIDMAOutcome sdhi_dma_read_end(RenesasSDHIState *s, uint32_t gen,
                                        uint32_t blocks, uint32_t moved)
{
    bool all_ram = true;
    hwaddr done;
    MemTxResult res = sdhi_dma_memory(s, gen, REG(s, DM_DTRAN_ADDR), s->dma_buf,
                                      (hwaddr)moved * s->blksz, true, &done,
                                      &all_ram);

    return sdhi_dma_blocks_end(s, gen, blocks, moved, res, done, all_ram);
}

static void sdhi_card_io_done(void *opaque, size_t done);

/*
 * May the card's backend read, write, erase or flush without the BQL, the
 * guest running meanwhile?  Not in timing mode, nor under -icount: there
 * guest time counts instructions, and while the host works an idle
 * guest's clock jumps to its next timer (sleep=off: at once, which may be
 * the request's timeout), so the host's latency would become guest time.
 * The card then works as QEMU's SD cards do, the guest waiting, and its
 * I/O happens at a fixed instruction: record/replay needs no event for it
 * (sd-card refuses a blkreplay drive there).  Nor with x-async-io=off.
 */
static bool sdhi_card_may_work_async(RenesasSDHIState *s)
{
    return s->async_io && !s->timing && !icount_enabled();
}

/*
 * Hand the card's backend @len bytes of dma_buf to read or write without
 * the BQL: a slow image then stalls neither the vCPUs nor the monitor.
 * Returns false if the card has no such path for them now.
 */
static bool sdhi_card_io_start(RenesasSDHIState *s, uint32_t blocks,
                               size_t len)
{
    bool read = s->data_dir == RENESAS_SDHI_DATA_READ;
    size_t started;

    if (!sdhi_card_may_work_async(s)) {
        return false;
    }
    if (read) {
        started = sdbus_start_read_blocks(&s->sdbus, s->dma_buf, len,
                                          sdhi_card_io_done, s);
    } else {
        started = sdbus_start_write_blocks(&s->sdbus, s->dma_buf, len,
                                           sdhi_card_io_done, s);
    }
    if (!started) {
        return false;
    }
    s->card_io_pending = true;
    s->card_io_ours = true;
    s->card_io_blocks = blocks;
    trace_renesas_sdhi_card_io_start(s->name, sdhi_dir_name(s->data_dir),
                                     started);
    return true;
}

/*
 * Move @blocks blocks between the card and memory.  The card's backend
 * works without the BQL where the card can: a read's memory side then
 * comes in its completion, a write's before it starts.
 */
static SDHIDMAOutcome sdhi_dma_blocks(RenesasSDHIState *s, uint32_t gen,
                                      uint32_t blocks)
{
    bool all_ram = true;
    uint32_t moved;
    MemTxResult res;
    hwaddr done;

    sdhi_timing_data(s, (uint64_t)blocks * s->blksz);
    if (s->data_dir == RENESAS_SDHI_DATA_READ) {
        if (sdhi_card_io_start(s, blocks, (size_t)blocks * s->blksz)) {
            return SDHI_DMA_PENDING;
        }
        return sdhi_dma_read_end(s, gen, blocks,
                                 sdhi_card_read(s, s->dma_buf, blocks));
    }
    res = sdhi_dma_memory(s, gen, REG(s, DM_DTRAN_ADDR), s->dma_buf,
                          (hwaddr)blocks * s->blksz, false, &done, &all_ram);
    /* Only whole blocks that came from memory go to the card */
    if (s->phase_gen == gen && done >= s->blksz &&
        sdhi_card_io_start(s, blocks, done - done % s->blksz)) {
        s->card_io_mem_res = res;
        s->card_io_mem_done = done;
        s->dma_mem_ram = all_ram;
        return SDHI_DMA_PENDING;
    }
    moved = s->phase_gen == gen ?
            sdhi_card_write(s, s->dma_buf, done / s->blksz) : 0;
    return sdhi_dma_blocks_end(s, gen, blocks, moved, res, done, all_ram);
}

/*
 * After some blocks moved: the rest from the timer, or the end; in timing
 * mode not before the bus is done with them
 */
static void sdhi_dma_continue(RenesasSDHIState *s, bool from_timer)
{
    if (sdhi_timing_wait(s)) {
        return;
    }
    if (!s->blocks_left) {
        sdhi_end_data(s, true, true);
    } else if (from_timer) {
        sdhi_xfer_rearm(s);
    } else {
        sdhi_xfer_kick(s);
    }
}

/*
 * DMA: move up to DMA_CHUNK_BYTES, then come back from the timer.  With a
 * fixed address (ADDR_MODE 0) every block goes to the same place, so the
 * chunk is one block.  Device registers are much slower to move data to
 * or from than RAM: unless the last step found only RAM, a step starts
 * with a few blocks, takes the rest of the chunk at once if they were all
 * RAM, and otherwise moves at most DMA_MMIO_BYTES before it comes back.
 * A step that handed blocks to the card's backend ends there; the
 * backend's completion goes on (sdhi_card_io_done()).
 */
static void sdhi_dma_step(RenesasSDHIState *s)
{
    uint32_t gen = s->phase_gen;
    bool increment = FIELD_EX32(REG(s, DM_CM_DTRAN_MODE), DM_CM_DTRAN_MODE,
                                ADDR_MODE);
    uint32_t chunk = increment ? MAX(DMA_CHUNK_BYTES / s->blksz, 1) : 1;
    uint32_t slow = MAX(DMA_MMIO_BYTES / s->blksz, 1);
    uint32_t todo = MIN(s->blocks_left, chunk);
    uint32_t blocks = s->dma_mem_ram ? todo : MIN(todo, slow);
    uint32_t slow_moved = 0;

    if (s->card_io_pending) {
        return;     /* dma_buf is the backend's: its completion kicks us */
    }
    while (todo) {
        switch (sdhi_dma_blocks(s, gen, blocks)) {
        case SDHI_DMA_MOVED:
            break;
        case SDHI_DMA_SHORT:
            sdhi_xfer_rearm(s);
            return;
        case SDHI_DMA_ENDED:
        case SDHI_DMA_GONE:
        case SDHI_DMA_PENDING:
            return;
        }
        todo -= blocks;
        if (!s->dma_mem_ram) {
            slow_moved += blocks;
            if (slow_moved >= slow) {
                break;
            }
        }
        blocks = s->dma_mem_ram ? todo : MIN(todo, slow);
    }
    sdhi_dma_continue(s, true);
}

/*
 * Work that the xfer timer starts runs as a guarded bottom half would
 * (aio_bh_call() with qemu_bh_new_guarded()): a memory access of it that
 * reaches the device's own registers fails.  QEMU has no guarded timer,
 * and a bottom half of the main loop would not do: it runs inside
 * drained sections (aio_poll() of the main context), where DMA must not
 * happen, whereas a QEMU_CLOCK_VIRTUAL timer runs only from the main
 * loop, and not while the VM is stopped.  Returns whether the guard was
 * engaged before.
 */
static bool sdhi_guard_engage(RenesasSDHIState *s)
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    return engaged;
}

static void sdhi_guard_restore(RenesasSDHIState *s, bool engaged)
{
    DEVICE(s)->mem_reentrancy_guard.engaged_in_io = engaged;
}

/*
 * The step whose blocks the card's backend moved (sdhi_card_io_done())
 * ends: a read's blocks go to memory, then the transfer goes on, or
 * stops if SD_STOP.STP came meanwhile.
 */
static void sdhi_card_io_finish(RenesasSDHIState *s)
{
    uint32_t gen = s->phase_gen;
    uint32_t blocks = s->card_io_blocks;
    /*
     * The card took all it was offered, whole host blocks, or the backend
     * failed and nothing moved: no byte path is left to run here
     */
    uint32_t moved = s->card_io_done / s->blksz;
    SDHIDMAOutcome outcome;

    s->card_io_ended = false;
    s->card_io_buf_len = 0;
    if (s->data_dir == RENESAS_SDHI_DATA_READ) {
        outcome = sdhi_dma_read_end(s, gen, blocks, moved);
    } else {
        outcome = sdhi_dma_blocks_end(s, gen, blocks, moved,
                                      s->card_io_mem_res,
                                      s->card_io_mem_done, s->dma_mem_ram);
    }
    if (outcome != SDHI_DMA_MOVED) {
        return;
    }
    if (s->stop_pending) {
        sdhi_stop(s);
    } else {
        sdhi_dma_continue(s, true);
    }
}

/*
 * The card's backend is done with dma_buf.  This may run inside a
 * drained section (vm_stop(), migration, savevm, quit all drain block
 * I/O): no memory access, no command, no block I/O here.  A guest that
 * aims a read's DMA at another device's registers (an SDHI's SD_CMD, an
 * I2C controller in front of an EEPROM) would start synchronous block
 * I/O, which waits for the drain to end, for ever.  So the completion
 * only notes the outcome and arms the xfer timer, which runs from the
 * main loop once the VM runs.
 */
static void sdhi_card_io_done(void *opaque, size_t done)
{
    RenesasSDHIState *s = opaque;
    bool ours = s->card_io_ours;

    trace_renesas_sdhi_card_io_done(s->name, done, ours);
    s->card_io_pending = false;
    s->card_io_ours = false;
    if (ours) {
        s->card_io_ended = true;
        s->card_io_done = done;
        s->card_io_buf_len = s->data_dir == RENESAS_SDHI_DATA_READ ? done : 0;
    }
    /* Also for a phase, or a command, that waited for dma_buf or the card */
    sdhi_xfer_kick(s);
}

/* SD_CMD that waited for the card's backend goes out now */
static void sdhi_issue_deferred_cmd(RenesasSDHIState *s)
{
    s->cmd_deferred = false;
    sdhi_do_command(s, s->deferred_cmd);
}

/*
 * Data phases go on from here, outside any register access: so DMA runs
 * under the device's re-entrancy guard, as a guarded bottom half would,
 * and DMA aimed at the SDHI's own registers fails like any access the
 * bus cannot complete.
 */
static void sdhi_xfer_timer(void *opaque)
{
    RenesasSDHIState *s = opaque;
    bool engaged;

    if (s->card_io_pending) {
        return;     /* its completion kicks the timer again */
    }
    if (s->rsp_busy && !sdhi_card_busy(s)) {
        trace_renesas_sdhi_card_busy(s->name,
                                     FIELD_EX32(REG(s, SD_CMD), SD_CMD, CF),
                                     false);
        s->rsp_busy = false;
        REG(s, SD_INFO1) |= R_SD_INFO1_RSPEND_MASK;
        sdhi_update_irq(s);
    }
    if (s->cmd_deferred && !sdhi_cmd_must_wait(s, s->deferred_cmd)) {
        sdhi_issue_deferred_cmd(s);
    }
    if (!sdhi_busy(s)) {
        return;
    }
    engaged = sdhi_guard_engage(s);
    if (s->card_io_ended) {
        sdhi_card_io_finish(s);
    } else if (!s->data_by_dma) {
        sdhi_pio_step(s);
    } else if (s->dma_started) {
        sdhi_dma_step(s);
    }
    sdhi_guard_restore(s, engaged);
}

static void sdhi_dma_start(RenesasSDHIState *s)
{
    unsigned ch = FIELD_EX32(REG(s, DM_CM_DTRAN_MODE), DM_CM_DTRAN_MODE,
                             CH_NUM);

    if (!sdhi_busy(s) || !s->data_by_dma || s->dma_started) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: DM_START without a DMA data phase "
                      "waiting for it: ignored\n", __func__);
        return;
    }
    if (ch != sdhi_dma_channel(s->data_dir)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: DMAC channel %u started for a %s "
                      "command\n", __func__, ch, sdhi_dir_name(s->data_dir));
        sdhi_dma_fail(s, ch);
        return;
    }
    if (!(REG(s, DM_CM_RST) & (R_DM_CM_RST_DTRANRST0_MASK << ch))) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: DMAC channel %u is held in reset "
                      "by DM_CM_RST: DM_START ignored\n", __func__, ch);
        return;
    }
    s->dma_started = true;
    s->dma_mem_ram = false;
    sdhi_count_transfer_start(s);
    sdhi_timing_dma_start(s);
    trace_renesas_sdhi_dma_start(s->name, sdhi_dir_name(s->data_dir),
                                 REG(s, DM_DTRAN_ADDR), s->blocks_left,
                                 s->blksz);
    sdhi_xfer_kick(s);
}

/*
 * DM_CM_RST: a channel bit low aborts that channel
 * (renesas_sdhi_internal_dmac_abort_dma())
 */
static void sdhi_dma_reset_write(RenesasSDHIState *s, uint32_t val)
{
    REG(s, DM_CM_RST) = val;
    for (unsigned ch = 0; ch < 2; ch++) {
        if (!(val & (R_DM_CM_RST_DTRANRST0_MASK << ch)) && sdhi_busy(s) &&
            s->data_by_dma && sdhi_dma_channel(s->data_dir) == ch) {
            sdhi_abort_data(s, "DM_CM_RST");
        }
    }
}

/*
 * Registers to their reset values: the SD core's (@module false), or those
 * only a module reset resets (true)
 */
static void sdhi_reset_regs(RenesasSDHIState *s, bool module)
{
    for (unsigned r = 0; r < RENESAS_SDHI_NUM_REGS; r++) {
        if (sdhi_regs[r].module == module) {
            s->regs[r] = sdhi_regs[r].reset;
        }
    }
}

/* The SD core, as SOFT_RST.SDRST resets it; the card is left alone */
static void sdhi_reset_sd_core(RenesasSDHIState *s)
{
    sdhi_abort_data(s, "reset");
    s->cmd_deferred = false;
    s->rsp_busy = false;
    sdhi_reset_regs(s, false);
}

/* The whole module, as after a power-on or CPG (SRCR) reset */
static void sdhi_reset_module(RenesasSDHIState *s)
{
    sdhi_reset_sd_core(s);
    sdhi_reset_regs(s, true);
    memset(s->scc, 0, sizeof(s->scc));
    memset(s->scc_dll, 0, sizeof(s->scc_dll));
    sdhi_update_irq(s);
}

static void sdhi_soft_reset_write(RenesasSDHIState *s, uint16_t val)
{
    bool was_running = FIELD_EX32(REG(s, SOFT_RST), SOFT_RST, SDRST);

    if (was_running && !FIELD_EX16(val, SOFT_RST, SDRST)) {
        /* Keeps the card: Linux resets the host on every runtime resume */
        trace_renesas_sdhi_reset(s->name, "SOFT_RST");
        sdhi_reset_sd_core(s);
    }
    REG(s, SOFT_RST) = val;
    sdhi_update_irq(s);
}

/* SD_BUF0: PIO data, as many bytes as the access is wide */
static bool sdhi_buf_accessible(RenesasSDHIState *s, RenesasSDHIDataDir dir)
{
    if (s->data_dir != dir || s->data_by_dma || !s->pio_ready) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: SD_BUF0 %s with no block %s\n",
                      __func__, dir == RENESAS_SDHI_DATA_READ ? "read" :
                      "write", dir == RENESAS_SDHI_DATA_READ ? "ready" :
                      "requested");
        REG(s, SD_INFO2) |= dir == RENESAS_SDHI_DATA_READ ?
                            R_SD_INFO2_ILR_MASK : R_SD_INFO2_ILW_MASK;
        sdhi_update_irq(s);
        return false;
    }
    return true;
}

static uint64_t sdhi_buf_read(RenesasSDHIState *s, unsigned size)
{
    uint64_t val = 0;

    if (!sdhi_buf_accessible(s, RENESAS_SDHI_DATA_READ)) {
        return 0;
    }
    size = MIN(size, s->blksz - s->buf_pos);
    for (unsigned i = 0; i < size; i++) {
        val |= (uint64_t)s->buf[s->buf_pos++] << (8 * i);
    }
    if (s->buf_pos == s->blksz) {
        s->pio_ready = false;
        sdhi_xfer_kick(s);              /* the next block, or the end */
    }
    return val;
}

static void sdhi_buf_write(RenesasSDHIState *s, uint64_t val, unsigned size)
{
    if (!sdhi_buf_accessible(s, RENESAS_SDHI_DATA_WRITE)) {
        return;
    }
    size = MIN(size, s->blksz - s->buf_pos);
    for (unsigned i = 0; i < size; i++) {
        s->buf[s->buf_pos++] = val >> (8 * i);
    }
    if (s->buf_pos == s->blksz) {
        s->pio_ready = false;
        sdhi_xfer_kick(s);              /* the block goes to the card */
    }
}

static uint32_t sdhi_scc_read(RenesasSDHIState *s, hwaddr offset)
{
    uint32_t val = s->scc[SCC_INDEX(offset)];

    switch (offset) {
    case A_SCC_DTCNTL:
        /*
         * TAPNUM is fixed by the hardware; 0 means no tuning
         * (renesas_sdhi_execute_tuning())
         */
        return FIELD_DP32(val, SCC_DTCNTL, TAPNUM, s->scc_taps);
    default:
        return val;
    }
}

/*
 * TMPPORT4.DLL_ACC_START runs one access to the DLL registers behind the
 * port: address and direction in TMPPORT5, write data in TMPPORT6, read
 * data in TMPPORT7 (sd_scc_tmpport_read32/write32()).  The calibration
 * code is the one DLL value the driver reads (M3-N and E3,
 * renesas_sdhi_adjust_hs400_mode_enable()).
 */
static void sdhi_scc_dll_access(RenesasSDHIState *s)
{
    uint32_t port5 = SCC_REG(s, TMPPORT5);
    unsigned adr = FIELD_EX32(port5, SCC_TMPPORT5, DLL_ADR);

    if (FIELD_EX32(port5, SCC_TMPPORT5, DLL_RW_SEL_R)) {
        SCC_REG(s, TMPPORT7) =
            adr == SCC_DLL_CALIB_CODE ? s->scc_calib_code : s->scc_dll[adr];
    } else {
        s->scc_dll[adr] = SCC_REG(s, TMPPORT6);
    }
}

static void sdhi_scc_write(RenesasSDHIState *s, hwaddr offset, uint32_t val)
{
    uint32_t *reg = &s->scc[SCC_INDEX(offset)];

    switch (offset) {
    case A_SCC_SMPCMP:
    case A_SCC_TMPPORT7:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: SCC register 0x%04" HWADDR_PRIx
                      " is read-only\n", __func__, offset);
        return;
    case A_SCC_TMPPORT4:
        if (FIELD_EX32(val, SCC_TMPPORT4, DLL_ACC_START) &&
            !FIELD_EX32(*reg, SCC_TMPPORT4, DLL_ACC_START)) {
            *reg = val;
            sdhi_scc_dll_access(s);
            return;
        }
        break;
    }
    *reg = val;
}

static bool sdhi_offset_is_scc(hwaddr offset)
{
    return offset >= SCC_BASE && offset <= A_SCC_TMPPORT7 && !(offset & 7);
}

/* What a read of register @r returns */
static uint32_t sdhi_reg_read(RenesasSDHIState *s, RenesasSDHIReg r,
                              unsigned size)
{
    switch (r) {
    case SDHI_REG_SD_ARG:
        return size >= 4 ? REG(s, SD_ARG) : extract32(REG(s, SD_ARG), 0, 16);
    case SDHI_REG_SD_ARG1:
        return extract32(REG(s, SD_ARG), 16, 16);
    case SDHI_REG_SD_INFO1:
        return sdhi_info1(s);
    case SDHI_REG_SD_INFO2:
        return sdhi_info2(s);
    case SDHI_REG_VERSION:
        return s->version;
    default:
        return s->regs[r];
    }
}

/* A write of @val to register @r, with what it does besides */
static void sdhi_reg_write(RenesasSDHIState *s, RenesasSDHIReg r,
                           uint32_t val, unsigned size)
{
    const SDHIRegInfo *ri = &sdhi_regs[r];

    if (ri->read_only) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: write to read-only register %s "
                      "ignored\n", __func__, ri->name);
        return;
    }
    switch (r) {
    case SDHI_REG_SD_CMD:
        sdhi_do_command(s, val);
        return;
    case SDHI_REG_SOFT_RST:
        sdhi_soft_reset_write(s, val);
        return;
    case SDHI_REG_SD_ARG:
    case SDHI_REG_SD_SECCNT:
        /* 32-bit registers that a 16-bit access writes the low half of */
        s->regs[r] = size >= 4 ? val : deposit32(s->regs[r], 0, 16, val);
        break;
    case SDHI_REG_SD_ARG1:
        REG(s, SD_ARG) = deposit32(REG(s, SD_ARG), 16, 16, val);
        break;
    case SDHI_REG_SD_STOP:
        REG(s, SD_STOP) = val & ri->wmask;
        if (FIELD_EX16(val, SD_STOP, STP)) {
            sdhi_stop(s);
        }
        break;
    case SDHI_REG_DM_CM_DTRAN_CTRL:
        if (FIELD_EX32(val, DM_CM_DTRAN_CTRL, DM_START)) {
            sdhi_dma_start(s);
        }
        break;
    case SDHI_REG_DM_CM_RST:
        sdhi_dma_reset_write(s, val);
        break;
    case SDHI_REG_DM_DTRAN_ADDR:
        if (val & ~ri->wmask) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: DM_DTRAN_ADDR 0x%08" PRIx32
                          " is not 128-byte aligned: bits [6:0] ignored\n",
                          __func__, val);
        }
        /*
         * A new address, whatever the last transfer left: that one may end
         * off the alignment (blocks of SD_SIZE 8 or 64 bytes)
         */
        REG(s, DM_DTRAN_ADDR) = val & ri->wmask;
        break;
    default:
        s->regs[r] = (s->regs[r] & ~ri->wmask & ~(ri->w0c & ~val)) |
                     (val & ri->wmask);
        break;
    }
    sdhi_update_irq(s);
}

static uint64_t renesas_sdhi_read(void *opaque, hwaddr offset, unsigned size)
{
    RenesasSDHIState *s = RENESAS_SDHI(opaque);
    int r = sdhi_reg_at(offset);
    uint64_t val = 0;

    if (offset == A_SD_BUF0) {
        val = sdhi_buf_read(s, size);
    } else if (r >= 0) {
        val = sdhi_reg_read(s, r, size);
    } else if (sdhi_offset_is_scc(offset)) {
        val = sdhi_scc_read(s, offset);
    } else if (!(offset & 7)) {
        /* The upper halves of the 64-bit slots are not decoded */
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%04"
                      HWADDR_PRIx " reads as zero\n", __func__, offset);
    }
    trace_renesas_sdhi_read(s->name, offset, size, val);
    return val;
}

static void renesas_sdhi_write(void *opaque, hwaddr offset, uint64_t val,
                               unsigned size)
{
    RenesasSDHIState *s = RENESAS_SDHI(opaque);
    int r = sdhi_reg_at(offset);

    trace_renesas_sdhi_write(s->name, offset, size, val);
    if (offset == A_SD_BUF0) {
        sdhi_buf_write(s, val, size);
    } else if (r >= 0) {
        sdhi_reg_write(s, r, val, size);
    } else if (sdhi_offset_is_scc(offset)) {
        sdhi_scc_write(s, offset, val);
        sdhi_update_irq(s);
    } else if (!(offset & 7)) {
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%04"
                      HWADDR_PRIx " write of 0x%" PRIx64 " ignored\n",
                      __func__, offset, val);
    }
}

static const MemoryRegionOps renesas_sdhi_ops = {
    .read = renesas_sdhi_read,
    .write = renesas_sdhi_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

/* The slot's switches, as the card in it sets them */
static void sdhi_update_switches(RenesasSDHIState *s, bool inserted)
{
    qemu_set_irq(s->card_detect, inserted);
    qemu_set_irq(s->write_protect, inserted && sdbus_get_readonly(&s->sdbus));
}

static void renesas_sdhi_set_inserted(DeviceState *dev, bool inserted)
{
    RenesasSDHIState *s = RENESAS_SDHI(dev);

    trace_renesas_sdhi_set_inserted(s->name, inserted);
    sdhi_update_switches(s, inserted);
    /* Native hot-plug: INSERT/REMOVE events (__tmio_mmc_card_detect_irq()) */
    REG(s, SD_INFO1) |= inserted ? R_SD_INFO1_CARD_INSERT_MASK :
                           R_SD_INFO1_CARD_REMOVE_MASK;
    if (!inserted) {
        sdhi_abort_data(s, "card removed");
    }
    sdhi_update_irq(s);
}

/* The "module-reset" input: the CPG's SRCR bit for this SDHI */
static void renesas_sdhi_module_reset(void *opaque, int n, int level)
{
    RenesasSDHIState *s = RENESAS_SDHI(opaque);

    if (level) {
        trace_renesas_sdhi_reset(s->name, "module");
        sdhi_reset_module(s);
    }
}

static void renesas_sdhi_reset_hold(Object *obj, ResetType type)
{
    sdhi_reset_module(RENESAS_SDHI(obj));
}

static void renesas_sdhi_reset_exit(Object *obj, ResetType type)
{
    RenesasSDHIState *s = RENESAS_SDHI(obj);

    sdhi_update_switches(s, sdbus_get_inserted(&s->sdbus));
}

/* Every tap that "x-bad-taps" names must exist */
static bool sdhi_check_bad_taps(RenesasSDHIState *s, uint32_t val,
                                Error **errp)
{
    if (s->scc_taps < 32 && (val >> s->scc_taps)) {
        error_setg(errp, "x-bad-taps 0x%x names taps beyond the %u that the "
                   "SCC has", val, s->scc_taps);
        return false;
    }
    return true;
}

static void renesas_sdhi_get_bad_taps(Object *obj, Visitor *v,
                                      const char *name, void *opaque,
                                      Error **errp)
{
    visit_type_uint32(v, name, &RENESAS_SDHI(obj)->bad_taps, errp);
}

static void renesas_sdhi_set_bad_taps(Object *obj, Visitor *v,
                                      const char *name, void *opaque,
                                      Error **errp)
{
    RenesasSDHIState *s = RENESAS_SDHI(obj);
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp) ||
        !sdhi_check_bad_taps(s, val, errp)) {
        return;
    }
    s->bad_taps = val;
}

static void renesas_sdhi_init(Object *obj)
{
    RenesasSDHIState *s = RENESAS_SDHI(obj);
    SysBusDevice *sbd = SYS_BUS_DEVICE(obj);

    memory_region_init_io(&s->iomem, obj, &renesas_sdhi_ops, s,
                          TYPE_RENESAS_SDHI, RENESAS_SDHI_MMIO_SIZE);
    sysbus_init_mmio(sbd, &s->iomem);
    sysbus_init_irq(sbd, &s->irq);
    qdev_init_gpio_in_named(DEVICE(obj), renesas_sdhi_module_reset,
                            "module-reset", 1);
    qdev_init_gpio_out_named(DEVICE(obj), &s->card_detect, "card-detect", 1);
    qdev_init_gpio_out_named(DEVICE(obj), &s->write_protect, "write-protect",
                             1);
    s->xfer_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, sdhi_xfer_timer, s);

    object_property_add_uint64_ptr(obj, "x-commands", &s->stat_commands,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-dma-transfers",
                                   &s->stat_dma_transfers, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-dma-bytes", &s->stat_dma_bytes,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-dma-largest-transfer",
                                   &s->stat_dma_largest, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-pio-blocks", &s->stat_pio_blocks,
                                   OBJ_PROP_FLAG_READ);
    /* Physically contiguous runs of guest RAM behind the bus addresses */
    object_property_add_uint64_ptr(obj, "x-dma-phys-runs", &s->stat_dma_runs,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-dma-max-phys-runs",
                                   &s->stat_dma_max_runs, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-dma-multi-run-transfers",
                                   &s->stat_dma_multi_run_transfers,
                                   OBJ_PROP_FLAG_READ);
    /* Bit n set: tap n samples outside the data eye and reads fail */
    object_property_add(obj, "x-bad-taps", "uint32", renesas_sdhi_get_bad_taps,
                        renesas_sdhi_set_bad_taps, NULL, NULL);
    object_property_set_description(obj, "x-bad-taps",
        "Bit mask of the SCC taps at which reads fail (may change at run "
        "time)");
    /* Reads that failed because the SCC sampled them at a bad tap */
    object_property_add_uint64_ptr(obj, "x-tap-crc-errors",
                                   &s->stat_tap_crc_errors,
                                   OBJ_PROP_FLAG_READ);
}

static void renesas_sdhi_realize(DeviceState *dev, Error **errp)
{
    RenesasSDHIState *s = RENESAS_SDHI(dev);
    g_autofree char *bus_name = NULL;

    if (!s->dma_mr) {
        error_setg(errp, TYPE_RENESAS_SDHI ": the 'dma-memory' link is not "
                   "set");
        return;
    }
    if (!s->sdn_clock_hz || s->sdn_clock_hz > SDN_CLOCK_MAX_HZ) {
        error_setg(errp, TYPE_RENESAS_SDHI ": 'x-sdn-clock-hz' is %u, it "
                   "must be from 1 to %u Hz", s->sdn_clock_hz,
                   SDN_CLOCK_MAX_HZ);
        return;
    }
    if (s->scc_taps > 32) {
        error_setg(errp, TYPE_RENESAS_SDHI ": 'scc-taps' is %u, at most 32 "
                   "taps fit in 'x-bad-taps'", s->scc_taps);
        return;
    }
    /* Again: "scc-taps" may have been set after "x-bad-taps" */
    if (!sdhi_check_bad_taps(s, s->bad_taps, errp)) {
        return;
    }
    s->name = g_strdup(object_get_canonical_path_component(OBJECT(s)) ?:
                       TYPE_RENESAS_SDHI);
    s->dma_as = g_new0(AddressSpace, 1);
    address_space_init(s->dma_as, s->dma_mr, "renesas-sdhi-dma");
    /* Page-aligned: a cache=none backend then needs no bounce buffer */
    s->dma_buf = qemu_memalign(qemu_real_host_page_size(), DMA_CHUNK_BYTES);

    /* "sdhi2.sd-bus" for the child "sdhi2": -device sd-card,bus=... */
    bus_name = g_strdup_printf("%s.sd-bus", s->name);
    qbus_init(&s->sdbus, sizeof(s->sdbus), TYPE_RENESAS_SDHI_BUS, dev,
              bus_name);
}

static void renesas_sdhi_unrealize(DeviceState *dev)
{
    RenesasSDHIState *s = RENESAS_SDHI(dev);

    /*
     * The card's backend may still be filling or reading dma_buf: wait
     * for this request only, not for every drive of the VM
     */
    AIO_WAIT_WHILE(NULL, s->card_io_pending);
    address_space_destroy_free(s->dma_as);
    s->dma_as = NULL;
    qemu_vfree(s->dma_buf);
    g_free(s->name);
    s->name = NULL;
}

static void renesas_sdhi_finalize(Object *obj)
{
    RenesasSDHIState *s = RENESAS_SDHI(obj);

    timer_free(s->xfer_timer);
}

/*
 * Could the device have been in this data phase?  sdhi_start_data() and
 * sdhi_clear_data_phase() are the only ways in and out of one.
 */
static bool sdhi_data_phase_reachable(RenesasSDHIState *s)
{
    bool read = s->data_dir == RENESAS_SDHI_DATA_READ;

    switch (s->data_dir) {
    case RENESAS_SDHI_DATA_NONE:
        return !s->data_by_dma && !s->dma_started && !s->auto_cmd12 &&
               !s->blocks_left && !s->buf_pos && !s->pio_ready;
    case RENESAS_SDHI_DATA_READ:
    case RENESAS_SDHI_DATA_WRITE:
        break;
    default:
        return false;
    }
    if (!s->blksz || s->blksz > RENESAS_SDHI_MAX_BLKSZ ||
        s->buf_pos > s->blksz) {
        return false;
    }
    if (s->data_by_dma) {
        /*
         * A DMA phase ends in the step that moves its last block, or in
         * timing mode when the bus is done with it
         */
        return !s->pio_ready && !s->buf_pos &&
               (s->blocks_left || (s->timing && s->dma_started));
    }
    /* PIO: only a read has handed out its last block before it ends */
    if (s->dma_started || (!s->blocks_left && !read)) {
        return false;
    }
    /* The guest owns a buffer it has not used up yet */
    return !s->pio_ready || s->buf_pos < s->blksz;
}

/*
 * Could the card's backend have ended a request of this phase
 * (sdhi_card_io_done())?  Only in a DMA phase that started, for a step
 * of at most a chunk that did not end the phase; only a read's blocks
 * wait for memory, and a write's memory side moved them first.  A
 * command waits for the card's backend only between phases.
 */
static bool sdhi_card_io_reachable(RenesasSDHIState *s)
{
    bool read = s->data_dir == RENESAS_SDHI_DATA_READ;
    uint64_t step = (uint64_t)s->card_io_blocks * s->blksz;

    if ((s->cmd_deferred || s->rsp_busy) &&
        (sdhi_busy(s) || s->card_io_ended)) {
        return false;
    }
    if (s->cmd_deferred && s->rsp_busy) {
        return false;
    }
    if (!s->card_io_ended) {
        return !s->stop_pending && !s->card_io_buf_len;
    }
    return sdhi_busy(s) && s->data_by_dma && s->dma_started &&
           s->card_io_blocks && s->card_io_blocks <= s->blocks_left &&
           step <= DMA_CHUNK_BYTES &&
           s->card_io_done <= step && !(s->card_io_done % s->blksz) &&
           s->card_io_buf_len == (read ? s->card_io_done : 0) &&
           (read || (s->card_io_mem_done <= step &&
                     s->card_io_mem_done >= s->card_io_done));
}

/* A phase that waits for the timer rather than for the guest */
static bool sdhi_waits_for_timer(RenesasSDHIState *s)
{
    return sdhi_busy(s) && (s->data_by_dma ? s->dma_started : !s->pio_ready);
}

/*
 * Migration and snapshots drain block I/O before they save devices, so
 * the card's backend has finished with dma_buf; what its completion left
 * for the xfer timer (card_io_ended) goes with the state.
 */
static int renesas_sdhi_pre_save(void *opaque)
{
    RenesasSDHIState *s = opaque;

    if (s->card_io_pending) {
        error_report("%s: a card request is still in flight",
                     TYPE_RENESAS_SDHI);
        return -EBUSY;
    }
    return 0;
}

/*
 * A timed DMA phase waits for the bus at most one chunk ahead; outside
 * one, timing_until is overwritten before it is used
 */
static bool sdhi_timing_reachable(RenesasSDHIState *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (!s->timing || !sdhi_busy(s) || !s->data_by_dma) {
        return true;
    }
    return s->timing_until >= 0 &&
           s->timing_until - now <= (int64_t)sdhi_timing_max_wait_ns(s);
}

/* Does every register hold only bits that it has? */
static bool sdhi_regs_reachable(RenesasSDHIState *s)
{
    for (unsigned r = 0; r < RENESAS_SDHI_NUM_REGS; r++) {
        if (s->regs[r] & ~sdhi_regs[r].bits) {
            error_report("%s: %s is 0x%" PRIx32 ", which has bits the "
                         "register does not have", s->name,
                         sdhi_regs[r].name, s->regs[r]);
            return false;
        }
    }
    return true;
}

static int renesas_sdhi_post_load(void *opaque, int version_id)
{
    RenesasSDHIState *s = opaque;

    if (!sdhi_regs_reachable(s)) {
        return -EINVAL;
    }
    if (!sdhi_timing_reachable(s)) {
        error_report("%s: the bus is busy until %" PRId64 " ns, further "
                     "ahead than a transfer can be", TYPE_RENESAS_SDHI,
                     s->timing_until);
        return -EINVAL;
    }
    if (!sdhi_data_phase_reachable(s)) {
        error_report("%s: data phase state (dir %u, %s, %u blocks of %u "
                     "bytes) that the device cannot reach", TYPE_RENESAS_SDHI,
                     s->data_dir, s->data_by_dma ? "DMA" : "PIO",
                     s->blocks_left, s->blksz);
        return -EINVAL;
    }
    if (!sdhi_card_io_reachable(s)) {
        error_report("%s: an ended card request (%u of %u blocks, %u bytes "
                     "to memory) that the device cannot have",
                     TYPE_RENESAS_SDHI, s->card_io_done, s->card_io_blocks,
                     s->card_io_buf_len);
        return -EINVAL;
    }
    /* A stream from a QEMU that had not armed the timer yet */
    if ((sdhi_waits_for_timer(s) || s->cmd_deferred || s->rsp_busy) &&
        !timer_pending(s->xfer_timer)) {
        sdhi_xfer_kick(s);
    }
    return 0;
}

static bool renesas_sdhi_card_io_needed(void *opaque)
{
    RenesasSDHIState *s = opaque;

    return s->card_io_ended || s->cmd_deferred || s->stop_pending ||
           s->rsp_busy;
}

/* Checked before the buffer is loaded: it must fit dma_buf */
static bool sdhi_card_io_buf_fits(void *opaque, int version_id)
{
    RenesasSDHIState *s = opaque;

    return s->card_io_buf_len <= DMA_CHUNK_BYTES;
}

/* What the card's backend did while the VM stopped, for the xfer timer */
static const VMStateDescription vmstate_renesas_sdhi_card_io = {
    .name = TYPE_RENESAS_SDHI "/card-io",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = renesas_sdhi_card_io_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(card_io_ended, RenesasSDHIState),
        VMSTATE_UINT32(card_io_blocks, RenesasSDHIState),
        VMSTATE_UINT32(card_io_done, RenesasSDHIState),
        VMSTATE_UINT32(card_io_mem_res, RenesasSDHIState),
        VMSTATE_UINT64(card_io_mem_done, RenesasSDHIState),
        VMSTATE_BOOL(dma_mem_ram, RenesasSDHIState),
        VMSTATE_BOOL(stop_pending, RenesasSDHIState),
        VMSTATE_BOOL(cmd_deferred, RenesasSDHIState),
        VMSTATE_UINT16(deferred_cmd, RenesasSDHIState),
        VMSTATE_BOOL(rsp_busy, RenesasSDHIState),
        VMSTATE_UINT32(card_io_buf_len, RenesasSDHIState),
        VMSTATE_VALIDATE("card-io buffer fits", sdhi_card_io_buf_fits),
        VMSTATE_VBUFFER_UINT32(dma_buf, RenesasSDHIState, 0, NULL,
                               card_io_buf_len),
        VMSTATE_END_OF_LIST()
    }
};

static bool renesas_sdhi_timing_needed(void *opaque)
{
    return RENESAS_SDHI(opaque)->timing;
}

static const VMStateDescription vmstate_renesas_sdhi_timing = {
    .name = TYPE_RENESAS_SDHI "/timing",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = renesas_sdhi_timing_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_INT64(timing_until, RenesasSDHIState),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_renesas_sdhi = {
    .name = TYPE_RENESAS_SDHI,
    .version_id = 4,
    .minimum_version_id = 4,
    .pre_save = renesas_sdhi_pre_save,
    .post_load = renesas_sdhi_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_ARRAY(regs, RenesasSDHIState, RENESAS_SDHI_NUM_REGS),
        VMSTATE_UINT8(data_dir, RenesasSDHIState),
        VMSTATE_UINT8(data_cmd, RenesasSDHIState),
        VMSTATE_BOOL(data_by_dma, RenesasSDHIState),
        VMSTATE_BOOL(dma_started, RenesasSDHIState),
        VMSTATE_BOOL(auto_cmd12, RenesasSDHIState),
        VMSTATE_UINT16(blksz, RenesasSDHIState),
        VMSTATE_UINT32(blocks_left, RenesasSDHIState),
        VMSTATE_UINT8_ARRAY(buf, RenesasSDHIState, RENESAS_SDHI_MAX_BLKSZ),
        VMSTATE_UINT16(buf_pos, RenesasSDHIState),
        VMSTATE_BOOL(pio_ready, RenesasSDHIState),
        VMSTATE_UINT32_ARRAY(scc, RenesasSDHIState,
                             RENESAS_SDHI_NUM_SCC_REGS),
        VMSTATE_UINT32_ARRAY(scc_dll, RenesasSDHIState,
                             RENESAS_SDHI_NUM_DLL_REGS),
        VMSTATE_TIMER_PTR(xfer_timer, RenesasSDHIState),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_renesas_sdhi_timing,
        &vmstate_renesas_sdhi_card_io,
        NULL
    }
};

static const Property renesas_sdhi_properties[] = {
    DEFINE_PROP_LINK("dma-memory", RenesasSDHIState, dma_mr,
                     TYPE_MEMORY_REGION, MemoryRegion *),
    /* 0xCC10: the Gen3 SDHI; it enables every Gen3 path in Linux */
    DEFINE_PROP_UINT16("version", RenesasSDHIState, version, 0xcc10),
    /* SCC: 8 taps on H3, M3-N and E3; 0 is an SCC that cannot tune */
    DEFINE_PROP_UINT8("scc-taps", RenesasSDHIState, scc_taps, 8),
    /* The DLL calibration code that M3-N and E3 read in HS400 */
    DEFINE_PROP_UINT8("scc-calib-code", RenesasSDHIState, scc_calib_code, 0),
    /* Off: the DMA waits for the card's backend under the BQL, to compare */
    DEFINE_PROP_BOOL("x-async-io", RenesasSDHIState, async_io, true),
    /* On: a DMA transfer takes the time of the bus and the card */
    DEFINE_PROP_BOOL("x-timing", RenesasSDHIState, timing, false),
    /* The SDn clock that the card's clock divides (SD_CLK_CTRL.DIV) */
    DEFINE_PROP_UINT32("x-sdn-clock-hz", RenesasSDHIState, sdn_clock_hz,
                       200000000),
};

/* Every register has a row of the table, at a slot of its own */
static void sdhi_index_regs(void)
{
    for (unsigned r = 0; r < RENESAS_SDHI_NUM_REGS; r++) {
        hwaddr offset = sdhi_regs[r].offset;

        assert(sdhi_regs[r].name && !(offset & 7) && offset < SCC_BASE);
        assert(!sdhi_reg_of_slot[offset / 8]);
        sdhi_reg_of_slot[offset / 8] = r + 1;
    }
}

static void renesas_sdhi_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    sdhi_index_regs();

    dc->desc = "Renesas R-Car Gen3 SD/MMC host interface (SDHI)";
    dc->realize = renesas_sdhi_realize;
    dc->unrealize = renesas_sdhi_unrealize;
    dc->vmsd = &vmstate_renesas_sdhi;
    device_class_set_props(dc, renesas_sdhi_properties);
    rc->phases.hold = renesas_sdhi_reset_hold;
    rc->phases.exit = renesas_sdhi_reset_exit;
    /* Reason: part of the R-Car Gen3 SoC, wired to its IOMMU and GIC */
    dc->user_creatable = false;
}

/*
 * The card may erase or flush without the BQL and stay busy: RSPEND
 * waits for it.  Only where sdhi_card_may_work_async() allows.
 */
static bool renesas_sdhi_card_may_stay_busy(DeviceState *dev)
{
    return sdhi_card_may_work_async(RENESAS_SDHI(dev));
}

/* Possibly inside a drained section: the timer ends the busy, not this */
static void renesas_sdhi_card_busy_ended(DeviceState *dev)
{
    sdhi_xfer_kick(RENESAS_SDHI(dev));
}

static void renesas_sdhi_bus_class_init(ObjectClass *klass, const void *data)
{
    SDBusClass *sbc = SD_BUS_CLASS(klass);

    sbc->set_inserted = renesas_sdhi_set_inserted;
    sbc->card_may_stay_busy = renesas_sdhi_card_may_stay_busy;
    sbc->card_busy_ended = renesas_sdhi_card_busy_ended;
}

static const TypeInfo renesas_sdhi_types[] = {
    {
        .name = TYPE_RENESAS_SDHI,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RenesasSDHIState),
        .instance_init = renesas_sdhi_init,
        .instance_finalize = renesas_sdhi_finalize,
        .class_init = renesas_sdhi_class_init,
    }, {
        .name = TYPE_RENESAS_SDHI_BUS,
        .parent = TYPE_SD_BUS,
        .instance_size = sizeof(SDBus),
        .class_init = renesas_sdhi_bus_class_init,
    },
};

DEFINE_TYPES(renesas_sdhi_types)
