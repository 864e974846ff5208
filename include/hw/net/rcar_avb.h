/*
 * Renesas R-Car Gen3 Ethernet AVB (EtherAVB)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_NET_RCAR_AVB_H
#define HW_NET_RCAR_AVB_H

#include "hw/sysbus.h"
#include "net/net.h"
#include "hw/net/ksz9031_phy.h"
#include "qom/object.h"

#define TYPE_RCAR_AVB "rcar-avb"
OBJECT_DECLARE_SIMPLE_TYPE(RCarAVBState, RCAR_AVB)

#define RCAR_AVB_MMIO_SIZE      0x800
/* Interrupt lines "ch0".."ch24" of the .dtsi */
#define RCAR_AVB_NUM_IRQS       25
/* Best effort and network control: the queues Gen3 Linux uses */
#define RCAR_AVB_NUM_QUEUES     2
/* Descriptor base address table: 4 TX queues, then 18 RX queues */
#define RCAR_AVB_NUM_DBAT       22
#define RCAR_AVB_MAX_FRAME      2048
/* TX timestamps waiting to be read (TSR.TFFL) */
#define RCAR_AVB_TS_FIFO        4

typedef struct RCarAVBTimestamp {
    uint32_t tag;
    uint64_t ns;                /* gPTP time */
} RCarAVBTimestamp;

struct RCarAVBState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    qemu_irq irq[RCAR_AVB_NUM_IRQS];
    NICState *nic;
    NICConf conf;
    AddressSpace dma_as;
    QEMUBH *tx_bh;
    QEMUTimer *tx_timer;        /* the rest of a long TX run */
    QEMUBH *rx_bh;              /* frames QEMU queued while RX was full */
    QEMUTimer *rx_timer;        /* a full RX queue looked at again */

    /* AVB-DMAC */
    uint32_t ccc;
    uint32_t dbat;
    uint32_t apsr;
    uint32_t rcr;
    uint32_t tgc;
    uint32_t tccr;
    uint32_t eic;
    uint32_t eis;
    uint32_t ric0;
    uint32_t ris0;
    uint32_t ric1;
    uint32_t ric2;
    uint32_t ris2;
    uint32_t tic;
    uint32_t tis;
    uint32_t cie;
    uint32_t dil;
    /* gPTP */
    uint32_t gccr;
    uint32_t gti;
    uint32_t gto[3];
    uint32_t gct[3];
    uint32_t gic;
    uint32_t gis;
    int64_t gptp_delta_ns;      /* gPTP time less the virtual clock */
    RCarAVBTimestamp ts_fifo[RCAR_AVB_TS_FIFO];
    uint32_t ts_count;
    /* The descriptor each queue is at (0: not loaded) */
    uint32_t tx_desc[RCAR_AVB_NUM_QUEUES];
    uint32_t rx_desc[RCAR_AVB_NUM_QUEUES];

    /* E-MAC */
    uint32_t ecmr;
    uint32_t rflr;
    uint32_t ecsr;
    uint32_t ecsipr;
    uint32_t pir;
    uint32_t gecmr;
    uint32_t mahr;
    uint32_t malr;
    int32_t mdio_phy_out;       /* what the PHY drives on MDIO; -1: none */

    /* Scratch buffers of one callback: RX may run within a TX send */
    uint8_t tx_frame[RCAR_AVB_MAX_FRAME];
    uint8_t rx_frame[RCAR_AVB_MAX_FRAME + 4];

    /* Statistics: read-only "x-" QOM properties, not migrated */
    uint64_t stat_tx_frames;
    uint64_t stat_rx_frames;
    uint64_t stat_rx_dropped;

    /* Properties */
    MemoryRegion *dma_mr;
    KSZ9031PhyState *phy;
};

#endif
