/*
 * Renesas R-Car Gen3 SD/MMC host interface (SDHI) with internal DMAC
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_SD_RENESAS_SDHI_H
#define HW_SD_RENESAS_SDHI_H

#include "hw/sd/sd.h"
#include "hw/sysbus.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "system/memory.h"

#define TYPE_RENESAS_SDHI "renesas-sdhi"
OBJECT_DECLARE_SIMPLE_TYPE(RenesasSDHIState, RENESAS_SDHI)

#define TYPE_RENESAS_SDHI_BUS "renesas-sdhi-bus"

#define RENESAS_SDHI_MMIO_SIZE      0x2000
/* SD_SIZE is 10 bits wide */
#define RENESAS_SDHI_MAX_BLKSZ      1024
#define RENESAS_SDHI_NUM_SCC_REGS   15
/* DLL registers behind the SCC's TMPPORT4-7 indirect port */
#define RENESAS_SDHI_NUM_DLL_REGS   64

/*
 * The SD core's and the internal DMAC's registers, in window order: the
 * index of each in RenesasSDHIState::regs and in the table of
 * renesas_sdhi.c that gives its offset, reset value and write behaviour.
 * The order is that of the migration stream: a change needs a new
 * vmstate version.
 */
typedef enum RenesasSDHIReg {
    SDHI_REG_SD_CMD,
    SDHI_REG_SD_PORTSEL,
    SDHI_REG_SD_ARG,            /* 32 bits; SD_ARG1 is its upper half */
    SDHI_REG_SD_ARG1,
    SDHI_REG_SD_STOP,
    SDHI_REG_SD_SECCNT,         /* 32 bits on Gen3 */
    SDHI_REG_SD_RSP10,          /* eight 16-bit response registers */
    SDHI_REG_SD_RSP1,
    SDHI_REG_SD_RSP32,
    SDHI_REG_SD_RSP3,
    SDHI_REG_SD_RSP54,
    SDHI_REG_SD_RSP5,
    SDHI_REG_SD_RSP76,
    SDHI_REG_SD_RSP7,
    SDHI_REG_SD_INFO1,          /* event bits only; state bits are computed */
    SDHI_REG_SD_INFO2,
    SDHI_REG_SD_INFO1_MASK,
    SDHI_REG_SD_INFO2_MASK,
    SDHI_REG_SD_CLK_CTRL,
    SDHI_REG_SD_SIZE,
    SDHI_REG_SD_OPTION,
    SDHI_REG_SD_ERR_STS1,
    SDHI_REG_SD_ERR_STS2,
    SDHI_REG_SDIO_MODE,
    SDHI_REG_SDIO_INFO1,
    SDHI_REG_SDIO_INFO1_MASK,
    SDHI_REG_CC_EXT_MODE,
    SDHI_REG_SOFT_RST,
    SDHI_REG_VERSION,
    SDHI_REG_HOST_MODE,
    SDHI_REG_SDIF_MODE,
    SDHI_REG_DM_CM_DTRAN_MODE,
    SDHI_REG_DM_CM_DTRAN_CTRL,
    SDHI_REG_DM_CM_RST,
    SDHI_REG_DM_CM_INFO1,
    SDHI_REG_DM_CM_INFO1_MASK,
    SDHI_REG_DM_CM_INFO2,
    SDHI_REG_DM_CM_INFO2_MASK,
    SDHI_REG_DM_DTRAN_ADDR,     /* the next bus address of the transfer */
    RENESAS_SDHI_NUM_REGS
} RenesasSDHIReg;

/* Direction of the data phase of the current command */
typedef enum RenesasSDHIDataDir {
    RENESAS_SDHI_DATA_NONE,
    RENESAS_SDHI_DATA_READ,     /* card to host */
    RENESAS_SDHI_DATA_WRITE,    /* host to card */
} RenesasSDHIDataDir;

struct RenesasSDHIState {
    SysBusDevice parent_obj;

    char *name;                 /* "sdhi2": the trace events' instance */
    SDBus sdbus;
    MemoryRegion iomem;
    /* On the heap: address_space_destroy_free() frees it after RCU */
    AddressSpace *dma_as;
    qemu_irq irq;
    /* The card's switches, for a board that wires them to GPIOs */
    qemu_irq card_detect;       /* high: a card with its medium is in */
    qemu_irq write_protect;     /* high: the card is read-only */
    /* Finishes data phases: a block of PIO, or a run of DMA */
    QEMUTimer *xfer_timer;

    /* SD core and internal DMAC, indexed by RenesasSDHIReg */
    uint32_t regs[RENESAS_SDHI_NUM_REGS];

    /* Data phase of the current command */
    uint8_t data_dir;           /* RenesasSDHIDataDir */
    uint8_t data_cmd;           /* index of the command that started it */
    bool data_by_dma;           /* CC_EXT_MODE.DMASDRW when it started */
    bool dma_started;           /* DM_START seen for this phase */
    bool auto_cmd12;
    uint16_t blksz;
    uint32_t blocks_left;
    uint8_t buf[RENESAS_SDHI_MAX_BLKSZ];
    uint8_t *dma_buf;           /* one DMA chunk, see card_io_pending */
    uint16_t buf_pos;           /* PIO: next byte of buf for the guest */
    bool pio_ready;             /* PIO: the guest owns buf (BRE/BWE given) */
    /*
     * Counts data phases started and ended, so that a DMA step notices
     * when its phase ended under one of its memory accesses.  Not
     * migrated: no step is in progress when the state is saved.
     */
    uint32_t phase_gen;
    /*
     * The card's backend request that a DMA step started and that has
     * dma_buf until it ends (sdhi_card_io_done()); it may outlive its
     * phase.  Not migrated: migration drains block I/O first.
     */
    bool card_io_pending;
    bool card_io_ours;          /* its phase is still on */
    uint32_t card_io_blocks;    /* blocks the step wanted to move */
    uint32_t card_io_mem_res;   /* writes: how the memory side ended */
    uint64_t card_io_mem_done;  /* writes: bytes that came from memory */
    /*
     * The request ended while its phase was on; the xfer timer finishes
     * the step (a read's memory side), never the completion itself,
     * which may run inside a drained section.  card_io_done bytes moved
     * on the card's side; card_io_buf_len of them wait in dma_buf for
     * guest memory.  Migrated while set.
     */
    bool card_io_ended;
    uint32_t card_io_done;
    uint32_t card_io_buf_len;
    /* SD_STOP.STP came while a step's request was out: it ends after it */
    bool stop_pending;
    /*
     * SD_CMD written while the card's backend still works on the blocks
     * of an aborted transfer, or while the card erases (DAT0 low): the
     * command goes out when they are done, so that it cannot overtake
     * them; until then CBSY reads 1 (sdhi_cmd_must_wait()).
     */
    bool cmd_deferred;
    uint16_t deferred_cmd;
    /*
     * An R1b command's card holds DAT0 low (an erase its backend carries
     * out): RSPEND, and the end of CBSY, wait for the card to release it.
     */
    bool rsp_busy;
    /*
     * Did the last step of this DMA transfer find only RAM on the memory
     * side?  Then the next step moves a whole chunk at once.  Not
     * migrated: after migration the next step starts small again.
     */
    bool dma_mem_ram;
    /*
     * With x-timing: when the bus and the card are done with the data the
     * phase has moved so far (QEMU_CLOCK_VIRTUAL ns).  The phase goes on,
     * and ends, no earlier.
     */
    int64_t timing_until;

    /* SCC, at window offset 0x1000 */
    uint32_t scc[RENESAS_SDHI_NUM_SCC_REGS];
    uint32_t scc_dll[RENESAS_SDHI_NUM_DLL_REGS];

    /* The transfer in flight, for its trace events; not migrated */
    uint64_t cur_dma_bytes;
    uint64_t cur_dma_runs;      /* physically contiguous runs of guest RAM */
    uint64_t run_next;          /* RAM offset that would extend the run */

    /* Statistics: read-only "x-" QOM properties, not migrated */
    uint64_t stat_commands;
    uint64_t stat_dma_transfers;
    uint64_t stat_dma_bytes;
    uint64_t stat_dma_largest;
    uint64_t stat_pio_blocks;
    uint64_t stat_dma_runs;
    uint64_t stat_dma_max_runs;
    uint64_t stat_dma_multi_run_transfers;
    uint64_t stat_tap_crc_errors;

    /* Properties */
    MemoryRegion *dma_mr;
    uint16_t version;
    uint8_t scc_taps;
    uint32_t bad_taps;
    uint8_t scc_calib_code;
    bool async_io;
    bool timing;                /* transfers take the time of the bus */
    uint32_t sdn_clock_hz;      /* the SDn clock the SoC feeds the SDHI */
};

#endif
