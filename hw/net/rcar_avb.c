/*
 * Renesas R-Car Gen3 Ethernet AVB (EtherAVB)
 *
 * The AVB-DMAC and E-MAC as Linux's ravb driver programs them on Gen3
 * (ravb_gen3_hw_info): the operating modes of CCC/CSR, the descriptor
 * base address table, the best-effort and network-control queues of each
 * direction with their descriptor chains, the per-channel interrupt lines,
 * the E-MAC's mode, status and address registers, MDIO bit-banged through
 * PIR to the board's PHY, and the gPTP timer as far as the driver uses it.
 * Frames go to and come from QEMU's net layer; descriptors and buffers are
 * DMA through the "dma-memory" region (the SoC's IPMMU uTLB).
 *
 * Not modelled: the 16 RX queues beyond the two Linux uses, separation
 * filters, AVB traffic shaping (CIVR/CDVR/CUL/CLL), the gPTP timer's rate
 * (GTI) and compare/capture events, magic packets, statistics counters
 * (they read 0) and loopback.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/net/rcar_avb.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "net/checksum.h"
#include "net/eth.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "system/dma.h"
#include "trace.h"

/* AVB-DMAC (ravb.h enum ravb_reg) */
REG32(CCC, 0x000)
    FIELD(CCC, OPC, 0, 2)
REG32(DBAT, 0x004)
REG32(CSR, 0x00c)
REG32(APSR, 0x08c)
REG32(RCR, 0x090)
    FIELD(RCR, ENCF, 1, 1)
REG32(TGC, 0x300)
REG32(TCCR, 0x304)
    FIELD(TCCR, TSRQ, 0, 4)
    FIELD(TCCR, TFEN, 8, 1)
    FIELD(TCCR, TFR, 9, 1)
REG32(TSR, 0x308)
    FIELD(TSR, TFFL, 8, 3)
REG32(TFA0, 0x310)
REG32(TFA1, 0x314)
REG32(TFA2, 0x318)
REG32(EIC, 0x358)
REG32(EIS, 0x35c)
    FIELD(EIS, QFS, 16, 1)
REG32(RIC0, 0x360)
REG32(RIS0, 0x364)
REG32(RIC1, 0x368)
REG32(RIS1, 0x36c)
REG32(RIC2, 0x370)
REG32(RIS2, 0x374)
REG32(TIC, 0x378)
REG32(TIS, 0x37c)
    FIELD(TIS, TFUF, 8, 1)
REG32(ISS, 0x380)
    FIELD(ISS, FRS, 0, 1)
    FIELD(ISS, FTS, 2, 1)
    FIELD(ISS, ES, 6, 1)
    FIELD(ISS, TFUS, 8, 1)
    FIELD(ISS, CGIS, 13, 1)
REG32(CIE, 0x384)
REG32(GCCR, 0x390)
    FIELD(GCCR, TCR, 0, 2)
    FIELD(GCCR, LTO, 2, 1)
    FIELD(GCCR, LTI, 3, 1)
    FIELD(GCCR, LPTC, 4, 1)
    FIELD(GCCR, LMTT, 5, 1)
REG32(GTI, 0x39c)
REG32(GTO0, 0x3a0)
REG32(GTO1, 0x3a4)
REG32(GTO2, 0x3a8)
REG32(GIC, 0x3ac)
REG32(GIS, 0x3b0)
REG32(GCT0, 0x3b8)
REG32(GCT1, 0x3bc)
REG32(GCT2, 0x3c0)
REG32(GIE, 0x3cc)
REG32(GID, 0x3d0)
REG32(DIL, 0x440)
REG32(RIE0, 0x460)
REG32(RID0, 0x464)
REG32(RIE2, 0x470)
REG32(RID2, 0x474)
REG32(TIE, 0x478)
REG32(TID, 0x47c)
/* E-MAC */
REG32(ECMR, 0x500)
    FIELD(ECMR, PRM, 0, 1)
    FIELD(ECMR, TE, 5, 1)
    FIELD(ECMR, RE, 6, 1)
    FIELD(ECMR, RCSC, 23, 1)
REG32(RFLR, 0x508)
REG32(ECSR, 0x510)
    FIELD(ECSR, LCHNG, 2, 1)
REG32(ECSIPR, 0x518)
REG32(PIR, 0x520)
    FIELD(PIR, MDC, 0, 1)
    FIELD(PIR, MMD, 1, 1)
    FIELD(PIR, MDO, 2, 1)
    FIELD(PIR, MDI, 3, 1)
REG32(PSR, 0x528)
    FIELD(PSR, LMON, 0, 1)
REG32(GECMR, 0x5b0)
REG32(MAHR, 0x5c0)
REG32(MALR, 0x5c8)

#define CSR_TPO_SHIFT           16
#define RIS0_RESERVED           0xfffc0000u
#define RIS2_QFF(q)             BIT(q)
#define ECSR_MASK               0x1f
#define ECSR_LINE_MASK          0x7     /* ICD, MPD, LCHNG onto ch24 */

/* The operating modes of CCC.OPC; CSR.OPS is 1 << OPC */
enum { OPC_RESET, OPC_CONFIG, OPC_OPERATION, OPC_STANDBY };

/* Descriptor types (die_dt bits 7:4) */
enum {
    DT_LEMPTY = 0x2, DT_EEMPTY = 0x3, DT_FMID = 0x4, DT_FSTART = 0x5,
    DT_FEND = 0x6, DT_FSINGLE = 0x7, DT_LINK = 0x8, DT_LINKFIX = 0x9,
    DT_EOS = 0xa, DT_FEMPTY = 0xc, DT_FEMPTY_IS = 0xd, DT_FEMPTY_IC = 0xe,
    DT_FEMPTY_ND = 0xf,
};
#define DESC_DT(die_dt)         ((die_dt) >> 4)
#define DESC_DS_MASK            0xfff
#define DESC_DIE_DT_OFFSET      3
#define DESC_DPTR_OFFSET        4
#define DBAT_ENTRY_SIZE         8
#define TX_DESC_SIZE            8
#define RX_DESC_SIZE            20      /* ravb_ex_rx_desc: RCR.ETS0 */
#define RX_QUEUE_OFFSET         4       /* RX queue q: DBAT entry 4 + q */
#define TX_TSR                  BIT(6)  /* tagh_tsr: take a timestamp */
#define RX_MSC_MC               0x80

/* The interrupt lines of the .dtsi ("chN") */
#define IRQ_RX(q)               (q)
#define IRQ_TX(q)               (18 + (q))
#define IRQ_ERR_MGMT            22
#define IRQ_EMAC                24

/* A LINK loop is the guest's error: give up after this many in a row */
#define MAX_LINKS               4
/* Descriptors one run of the TX bottom half takes before it yields */
#define TX_BUDGET               256
/* A TX frame of more descriptors than this is the guest's error */
#define TX_MAX_FRAME_DESCS      64
#define TX_RESUME_NS            1000
/* A full RX queue is looked at again after this long */
#define RX_RETRY_NS             (1 * SCALE_MS)
#define RX_CSUM_LEN             2

/* A descriptor as the DMAC reads it: the common first 8 bytes */
typedef struct AVBDesc {
    uint16_t ds;
    uint8_t cc;
    uint8_t die_dt;
    uint32_t dptr;
} AVBDesc;

static bool avb_opc_is(RCarAVBState *s, unsigned opc)
{
    return FIELD_EX32(s->ccc, CCC, OPC) == opc;
}

static uint32_t avb_iss(RCarAVBState *s)
{
    uint32_t iss = 0;

    iss = FIELD_DP32(iss, ISS, FRS, !!(s->ris0 & s->ric0));
    iss = FIELD_DP32(iss, ISS, FTS, !!(s->tis & s->tic & 0xff));
    iss = FIELD_DP32(iss, ISS, TFUS,
                     !!(s->tis & s->tic & R_TIS_TFUF_MASK));
    iss = FIELD_DP32(iss, ISS, ES,
                     !!(s->eis & s->eic & 0x1ff) ||
                     (FIELD_EX32(s->eis, EIS, QFS) && (s->ris2 & s->ric2)));
    iss = FIELD_DP32(iss, ISS, CGIS, !!(s->gis & s->gic));
    return iss;
}

/* Level lines: status & enable, as ravb_queue_interrupt() checks them */
static void avb_update_irqs(RCarAVBState *s)
{
    uint32_t iss = avb_iss(s);

    for (unsigned q = 0; q < RCAR_AVB_NUM_QUEUES; q++) {
        qemu_set_irq(s->irq[IRQ_RX(q)], !!(s->ris0 & s->ric0 & BIT(q)));
        qemu_set_irq(s->irq[IRQ_TX(q)], !!(s->tis & s->tic & BIT(q)));
    }
    qemu_set_irq(s->irq[IRQ_ERR_MGMT],
                 !!(iss & (R_ISS_TFUS_MASK | R_ISS_ES_MASK |
                           R_ISS_CGIS_MASK)));
    qemu_set_irq(s->irq[IRQ_EMAC],
                 !!(s->ecsr & s->ecsipr & ECSR_LINE_MASK));
}

/* gPTP time: the virtual clock, moved by the last reset or GTO load */
static uint64_t avb_gptp_now(RCarAVBState *s)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + s->gptp_delta_ns;
}

/* GTO2:GTO1 seconds (48 bits), GTO0 nanoseconds */
static uint64_t avb_gto_ns(RCarAVBState *s)
{
    uint64_t sec = (uint64_t)(s->gto[2] & 0xffff) << 32 | s->gto[1];

    return sec * NANOSECONDS_PER_SECOND + s->gto[0];
}

static void avb_gptp_split(uint64_t ns, uint32_t *nsec, uint32_t *sec_lo,
                           uint32_t *sec_hi)
{
    uint64_t sec = ns / NANOSECONDS_PER_SECOND;

    *nsec = ns % NANOSECONDS_PER_SECOND;
    *sec_lo = sec;
    *sec_hi = (sec >> 32) & 0xffff;
}

/* GCCR's requests complete at once (ravb_ptp_tcr_request() polls TCR) */
static void avb_write_gccr(RCarAVBState *s, uint32_t val)
{
    switch (FIELD_EX32(val, GCCR, TCR)) {
    case 1:                     /* reset the timer */
        s->gptp_delta_ns = -qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        break;
    case 3:                     /* capture into GCT0-2 */
        avb_gptp_split(avb_gptp_now(s), &s->gct[0], &s->gct[1], &s->gct[2]);
        break;
    }
    if (FIELD_EX32(val, GCCR, LTO)) {
        /* The timer reads GTO now, and counts on from it */
        s->gptp_delta_ns = avb_gto_ns(s) -
                           qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    }
    /* LTI, LPTC, LMTT load registers the timer does not use: done */
    s->gccr = val & ~(R_GCCR_TCR_MASK | R_GCCR_LTO_MASK | R_GCCR_LTI_MASK |
                      R_GCCR_LPTC_MASK | R_GCCR_LMTT_MASK);
}

/* Read the descriptor at @addr; false (logged) if the bus refuses it */
static bool avb_read_desc(RCarAVBState *s, uint32_t addr, AVBDesc *d)
{
    uint8_t buf[8];

    if (dma_memory_read(&s->dma_as, addr, buf, sizeof(buf),
                        MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "rcar-avb: descriptor at 0x%08" PRIx32
                      " cannot be read\n", addr);
        return false;
    }
    d->ds = lduw_le_p(buf);
    d->cc = buf[2];
    d->die_dt = buf[3];
    d->dptr = ldl_le_p(buf + DESC_DPTR_OFFSET);
    return true;
}

static bool avb_write_die_dt(RCarAVBState *s, uint32_t addr, uint8_t die_dt)
{
    return dma_memory_write(&s->dma_as, addr + DESC_DIE_DT_OFFSET, &die_dt, 1,
                            MEMTXATTRS_UNSPECIFIED) == MEMTX_OK;
}

/*
 * The descriptor queue @*addr points at, past LINK and LINKFIX ones,
 * which send it to their dptr; @*addr is left on it.  False if it cannot
 * be read or the links go round in a loop.
 */
static bool avb_fetch_desc(RCarAVBState *s, uint32_t *addr, AVBDesc *d)
{
    for (unsigned links = 0; links <= MAX_LINKS; links++) {
        if (!avb_read_desc(s, *addr, d)) {
            return false;
        }
        if (DESC_DT(d->die_dt) != DT_LINK &&
            DESC_DT(d->die_dt) != DT_LINKFIX) {
            return true;
        }
        *addr = d->dptr;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "rcar-avb: more than %d LINK descriptors "
                  "in a row at 0x%08" PRIx32 "\n", MAX_LINKS, *addr);
    return false;
}

/* Entering operation: each queue starts at its entry of the table */
static void avb_load_queues(RCarAVBState *s)
{
    for (unsigned q = 0; q < RCAR_AVB_NUM_QUEUES; q++) {
        s->tx_desc[q] = s->dbat + q * DBAT_ENTRY_SIZE;
        s->rx_desc[q] = s->dbat + (RX_QUEUE_OFFSET + q) * DBAT_ENTRY_SIZE;
    }
}

static void avb_stop_queues(RCarAVBState *s)
{
    s->tccr &= ~R_TCCR_TSRQ_MASK;
    memset(s->tx_desc, 0, sizeof(s->tx_desc));
    memset(s->rx_desc, 0, sizeof(s->rx_desc));
}

/* Reset mode: the DMAC forgets its queues and interrupt state */
static void avb_reset_dmac(RCarAVBState *s)
{
    avb_stop_queues(s);
    s->ris0 = s->ris2 = s->tis = s->eis = s->gis = 0;
    s->ric0 = s->ric1 = s->ric2 = s->tic = s->eic = s->gic = 0;
    s->ecsr = 0;
    s->ts_count = 0;
}

static bool avb_link_ok(RCarAVBState *s)
{
    return ksz9031_phy_link_ok(s->phy);
}

static void avb_write_ccc(RCarAVBState *s, uint32_t val)
{
    unsigned old = FIELD_EX32(s->ccc, CCC, OPC);
    unsigned opc = FIELD_EX32(val, CCC, OPC);

    s->ccc = val;
    trace_rcar_avb_opmode(old, opc);
    if (opc == old) {
        return;
    }
    if (opc == OPC_RESET) {
        avb_reset_dmac(s);
    } else if (old == OPC_OPERATION) {
        /* The queues stop; they start from the table again */
        avb_stop_queues(s);
    }
    if (opc == OPC_OPERATION) {
        avb_load_queues(s);
        qemu_bh_schedule(s->rx_bh);
    }
    avb_update_irqs(s);
}

static bool avb_tx_ready(RCarAVBState *s)
{
    return avb_opc_is(s, OPC_OPERATION) && FIELD_EX32(s->ecmr, ECMR, TE);
}

/* TX: queue the frame's timestamp for TFA0-2 (ravb_get_tx_tstamp()) */
static void avb_tx_timestamp(RCarAVBState *s, const AVBDesc *d)
{
    RCarAVBTimestamp *ts;

    if (!FIELD_EX32(s->tccr, TCCR, TFEN) || !(d->cc & TX_TSR)) {
        return;
    }
    if (s->ts_count == RCAR_AVB_TS_FIFO) {
        return;                 /* full: the hardware drops it (TFWF) */
    }
    ts = &s->ts_fifo[s->ts_count++];
    ts->tag = (d->ds >> 12) | (d->cc & 0x3f) << 4;
    ts->ns = avb_gptp_now(s);
    s->tis |= R_TIS_TFUF_MASK;
}

/* Wire time of a frame (preamble, FCS, gap: 24 bytes) at GECMR's speed */
static int64_t avb_wire_ns(RCarAVBState *s, unsigned len)
{
    return (int64_t)(len + 24) * ((s->gecmr & 1) ? 8 : 80);
}

/*
 * Send what queue @q holds, taking at most *@budget descriptors (and the
 * rest of a frame begun, up to TX_MAX_FRAME_DESCS); adds the frames' wire
 * time to *@wire_ns.  Returns false if the queue stopped (nothing left,
 * or an error), true if the budget ran out between frames.
 */
static bool avb_tx_queue(RCarAVBState *s, unsigned q, unsigned *budget,
                         int64_t *wire_ns)
{
    unsigned len = 0, descs = 0;
    bool in_frame = false;
    AVBDesc d;

    while (*budget || in_frame) {
        uint32_t addr = s->tx_desc[q];
        unsigned dt, ds;

        if (*budget) {
            (*budget)--;
        }
        if (!avb_tx_ready(s) || !avb_fetch_desc(s, &addr, &d)) {
            return false;
        }
        s->tx_desc[q] = addr;
        dt = DESC_DT(d.die_dt);
        ds = d.ds & DESC_DS_MASK;
        if (dt != DT_FSINGLE && dt != DT_FSTART && dt != DT_FMID &&
            dt != DT_FEND) {
            return false;       /* empty, end of set, or not a frame */
        }
        if (dt == DT_FSINGLE || dt == DT_FSTART) {
            len = descs = 0;
            in_frame = true;
        } else if (!in_frame || ++descs > TX_MAX_FRAME_DESCS) {
            qemu_log_mask(LOG_GUEST_ERROR, "rcar-avb: TX queue %u: a frame "
                          "part without its start, or of more than %d "
                          "descriptors\n", q, TX_MAX_FRAME_DESCS);
            len = RCAR_AVB_MAX_FRAME + 1;   /* dropped */
            in_frame = false;
        }
        if (len + ds > RCAR_AVB_MAX_FRAME) {
            if (len <= RCAR_AVB_MAX_FRAME) {
                qemu_log_mask(LOG_GUEST_ERROR, "rcar-avb: TX frame of queue "
                              "%u longer than %d bytes\n", q,
                              RCAR_AVB_MAX_FRAME);
            }
            len = RCAR_AVB_MAX_FRAME + 1;   /* dropped at its end */
        } else if (dma_memory_read(&s->dma_as, d.dptr, s->tx_frame + len, ds,
                                   MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "rcar-avb: TX buffer at 0x%08"
                          PRIx32 " cannot be read\n", d.dptr);
            len = RCAR_AVB_MAX_FRAME + 1;
        } else {
            len += ds;
        }
        /* The guest may have reset us through DMA into the CPG */
        if (!avb_tx_ready(s) || s->tx_desc[q] != addr ||
            !avb_write_die_dt(s, addr, DT_FEMPTY << 4) || !avb_tx_ready(s)) {
            return false;
        }
        s->tx_desc[q] = addr + TX_DESC_SIZE;
        if (in_frame && dt != DT_FSINGLE && dt != DT_FEND) {
            continue;
        }
        in_frame = false;
        /* Without a link the frame goes nowhere, as on the wire */
        if (len >= ETH_HLEN && len <= RCAR_AVB_MAX_FRAME && avb_link_ok(s)) {
            trace_rcar_avb_tx(q, len);
            s->stat_tx_frames++;
            avb_tx_timestamp(s, &d);
            *wire_ns += avb_wire_ns(s, len);
            qemu_send_packet(qemu_get_queue(s->nic), s->tx_frame, len);
            /* A frame looped back to us may have reset us through DMA */
            if (!avb_tx_ready(s)) {
                return false;
            }
        }
        s->tis |= BIT(q);
        avb_update_irqs(s);
    }
    return true;
}

/*
 * A run of the TX queues, under the device's re-entrancy guard; a long
 * one goes on when the wire has taken what it sent
 */
static void avb_tx_run(void *opaque)
{
    RCarAVBState *s = opaque;
    unsigned budget = TX_BUDGET;
    int64_t wire_ns = 0;
    bool more = false;

    for (unsigned q = 0; q < RCAR_AVB_NUM_QUEUES; q++) {
        if (!(s->tccr & BIT(q))) {
            continue;
        }
        if (avb_tx_queue(s, q, &budget, &wire_ns)) {
            more = true;
        } else {
            s->tccr &= ~BIT(q);
        }
    }
    avb_update_irqs(s);
    if (more) {
        timer_mod(s->tx_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  MAX(wire_ns, TX_RESUME_NS));
    }
}

static void avb_tx_resume(void *opaque)
{
    RCarAVBState *s = opaque;

    qemu_bh_schedule(s->tx_bh);
}

static void avb_write_tccr(RCarAVBState *s, uint32_t val)
{
    uint32_t start = FIELD_EX32(val, TCCR, TSRQ) & (BIT(RCAR_AVB_NUM_QUEUES) -
                                                   1);

    /* Only a DMAC in operation starts a queue */
    if (!avb_opc_is(s, OPC_OPERATION)) {
        start = 0;
    }

    if (FIELD_EX32(val, TCCR, TFR) && s->ts_count) {
        /* Pop the timestamp TFA0-2 show */
        memmove(&s->ts_fifo[0], &s->ts_fifo[1],
                --s->ts_count * sizeof(s->ts_fifo[0]));
    }
    s->tccr = (s->tccr & R_TCCR_TSRQ_MASK) | start |
              (val & R_TCCR_TFEN_MASK);
    if (start) {
        qemu_bh_schedule(s->tx_bh);
    }
}

/* The interrupt status registers clear the bits written 0 */
static void avb_write_status(uint32_t *reg, uint32_t val)
{
    *reg &= val;
}

static uint64_t avb_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarAVBState *s = opaque;
    uint32_t val = 0;
    uint32_t ns, sec_lo, sec_hi;

    switch (offset) {
    case A_CCC:
        val = s->ccc;
        break;
    case A_DBAT:
        val = s->dbat;
        break;
    case A_CSR:
        val = 1 << FIELD_EX32(s->ccc, CCC, OPC) |
              FIELD_EX32(s->tccr, TCCR, TSRQ) << CSR_TPO_SHIFT;
        break;
    case A_APSR:
        val = s->apsr;
        break;
    case A_RCR:
        val = s->rcr;
        break;
    case A_TGC:
        val = s->tgc;
        break;
    case A_TCCR:
        val = s->tccr;
        break;
    case A_TSR:
        val = FIELD_DP32(0, TSR, TFFL, s->ts_count);
        break;
    case A_TFA0:
    case A_TFA1:
    case A_TFA2:
        if (!s->ts_count) {
            break;
        }
        avb_gptp_split(s->ts_fifo[0].ns, &ns, &sec_lo, &sec_hi);
        val = offset == A_TFA0 ? ns : offset == A_TFA1 ? sec_lo :
              (s->ts_fifo[0].tag << 16 | sec_hi);
        break;
    case A_EIC:
        val = s->eic;
        break;
    case A_EIS:
        val = s->eis;
        break;
    case A_RIC0:
        val = s->ric0;
        break;
    case A_RIS0:
        val = s->ris0;
        break;
    case A_RIC1:
        val = s->ric1;
        break;
    case A_RIC2:
        val = s->ric2;
        break;
    case A_RIS2:
        val = s->ris2;
        break;
    case A_TIC:
        val = s->tic;
        break;
    case A_TIS:
        val = s->tis;
        break;
    case A_ISS:
        val = avb_iss(s);
        break;
    case A_CIE:
        val = s->cie;
        break;
    case A_GCCR:
        val = s->gccr;
        break;
    case A_GTI:
        val = s->gti;
        break;
    case A_GTO0 ... A_GTO2:
        val = s->gto[(offset - A_GTO0) / 4];
        break;
    case A_GIC:
        val = s->gic;
        break;
    case A_GIS:
        val = s->gis;
        break;
    case A_GCT0 ... A_GCT2:
        val = s->gct[(offset - A_GCT0) / 4];
        break;
    case A_DIL:
        val = s->dil;
        break;
    case A_ECMR:
        val = s->ecmr;
        break;
    case A_RFLR:
        val = s->rflr;
        break;
    case A_ECSR:
        val = s->ecsr;
        break;
    case A_ECSIPR:
        val = s->ecsipr;
        break;
    case A_PIR:
        val = s->pir & ~R_PIR_MDI_MASK;
        if (FIELD_EX32(s->pir, PIR, MMD) ? FIELD_EX32(s->pir, PIR, MDO) :
            s->mdio_phy_out != 0) {
            val |= R_PIR_MDI_MASK;
        }
        break;
    case A_PSR:
        val = FIELD_DP32(0, PSR, LMON, avb_link_ok(s));
        break;
    case A_GECMR:
        val = s->gecmr;
        break;
    case A_MAHR:
        val = s->mahr;
        break;
    case A_MALR:
        val = s->malr;
        break;
    case A_RIE0:
    case A_RID0:
    case A_RIE2:
    case A_RID2:
    case A_TIE:
    case A_TID:
    case A_GIE:
    case A_GID:
        qemu_log_mask(LOG_GUEST_ERROR, "rcar-avb: register 0x%03" HWADDR_PRIx
                      " is write-only\n", offset);
        break;
    default:
        /* Counters, shaping and separation filters: read 0 */
        qemu_log_mask(LOG_UNIMP, "rcar-avb: read of register 0x%03"
                      HWADDR_PRIx "\n", offset);
        break;
    }
    trace_rcar_avb_read(offset, val);
    return val;
}

/* One write to PIR: a rising MDC clocks the line into the PHY */
static void avb_write_pir(RCarAVBState *s, uint32_t val)
{
    bool rise = !FIELD_EX32(s->pir, PIR, MDC) && FIELD_EX32(val, PIR, MDC);

    s->pir = val & (R_PIR_MDC_MASK | R_PIR_MMD_MASK | R_PIR_MDO_MASK);
    if (rise) {
        bool line = FIELD_EX32(val, PIR, MMD) ? FIELD_EX32(val, PIR, MDO) :
                    s->mdio_phy_out != 0;

        s->mdio_phy_out = ksz9031_phy_mdc_rise(s->phy, line);
    }
}

static void avb_write(void *opaque, hwaddr offset, uint64_t value,
                      unsigned size)
{
    RCarAVBState *s = opaque;
    uint32_t val = value;

    trace_rcar_avb_write(offset, val);
    switch (offset) {
    case A_CCC:
        avb_write_ccc(s, val);
        return;
    case A_DBAT:
        s->dbat = val;
        break;
    case A_APSR:
        s->apsr = val;
        break;
    case A_RCR:
        s->rcr = val;
        break;
    case A_TGC:
        s->tgc = val;
        break;
    case A_TCCR:
        avb_write_tccr(s, val);
        break;
    case A_EIC:
        s->eic = val;
        break;
    case A_EIS:
        avb_write_status(&s->eis, val);
        break;
    case A_RIC0:
        s->ric0 = val;
        break;
    case A_RIS0:
        avb_write_status(&s->ris0, val | RIS0_RESERVED);
        break;
    case A_RIC1:
        s->ric1 = val;
        break;
    case A_RIS1:
        break;                  /* no frames on queues 2-17 */
    case A_RIC2:
        s->ric2 = val;
        break;
    case A_RIS2:
        avb_write_status(&s->ris2, val);
        break;
    case A_TIC:
        s->tic = val;
        break;
    case A_TIS:
        avb_write_status(&s->tis, val);
        break;
    case A_CIE:
        s->cie = val;
        break;
    case A_GCCR:
        avb_write_gccr(s, val);
        break;
    case A_GTI:
        s->gti = val;
        break;
    case A_GTO0 ... A_GTO2:
        s->gto[(offset - A_GTO0) / 4] = val;
        break;
    case A_GIC:
        s->gic = val;
        break;
    case A_GIS:
        avb_write_status(&s->gis, val);
        break;
    case A_GIE:
        s->gic |= val;
        break;
    case A_GID:
        s->gic &= ~val;
        break;
    case A_DIL:
        s->dil = val;
        break;
    case A_RIE0:
        s->ric0 |= val;
        break;
    case A_RID0:
        s->ric0 &= ~val;
        break;
    case A_RIE2:
        s->ric2 |= val;
        break;
    case A_RID2:
        s->ric2 &= ~val;
        break;
    case A_TIE:
        s->tic |= val;
        break;
    case A_TID:
        s->tic &= ~val;
        break;
    case A_ECMR:
        s->ecmr = val;
        break;
    case A_RFLR:
        s->rflr = val;
        break;
    case A_ECSR:
        s->ecsr &= ~(val & ECSR_MASK);
        break;
    case A_ECSIPR:
        s->ecsipr = val;
        break;
    case A_PIR:
        avb_write_pir(s, val);
        return;
    case A_GECMR:
        s->gecmr = val;
        break;
    case A_MAHR:
        s->mahr = val;
        break;
    case A_MALR:
        s->malr = val & 0xffff;
        break;
    case A_CSR:
    case A_TSR:
    case A_TFA0 ... A_TFA2:
    case A_ISS:
    case A_GCT0 ... A_GCT2:
    case A_PSR:
        qemu_log_mask(LOG_GUEST_ERROR, "rcar-avb: register 0x%03" HWADDR_PRIx
                      " is read-only\n", offset);
        return;
    default:
        qemu_log_mask(LOG_UNIMP, "rcar-avb: write 0x%08" PRIx32
                      " to register 0x%03" HWADDR_PRIx "\n", val, offset);
        return;
    }
    avb_update_irqs(s);
    /* Descriptors the driver gave back or a queue it unmasked: try again */
    if (offset == A_RIS0 || offset == A_RIE0 || offset == A_ECMR) {
        qemu_bh_schedule(s->rx_bh);
    }
}

static const MemoryRegionOps avb_ops = {
    .read = avb_read,
    .write = avb_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* The receive queue of a frame: gPTP's EtherType to network control */
static unsigned avb_rx_queue_of(RCarAVBState *s, const uint8_t *buf,
                                size_t size)
{
    if (FIELD_EX32(s->rcr, RCR, ENCF) && size >= ETH_HLEN &&
        lduw_be_p(buf + 12) == 0x88f7) {
        return 1;
    }
    return 0;
}

static bool avb_address_match(RCarAVBState *s, const uint8_t *buf)
{
    uint8_t mac[6];

    if (FIELD_EX32(s->ecmr, ECMR, PRM) || (buf[0] & 1)) {
        return true;
    }
    stl_be_p(mac, s->mahr);
    stw_be_p(mac + 4, s->malr);
    return !memcmp(buf, mac, sizeof(mac));
}

static bool avb_rx_ready(RCarAVBState *s)
{
    return avb_opc_is(s, OPC_OPERATION) && FIELD_EX32(s->ecmr, ECMR, RE) &&
           avb_link_ok(s);
}

/* Is there an empty descriptor in queue @q? */
static bool avb_rx_has_desc(RCarAVBState *s, unsigned q, AVBDesc *d)
{
    uint32_t addr = s->rx_desc[q];

    if (!addr || !avb_fetch_desc(s, &addr, d)) {
        return false;
    }
    s->rx_desc[q] = addr;
    return DESC_DT(d->die_dt) == DT_FEMPTY;
}

/* Frames that wait in QEMU's queue for a descriptor go on from here */
static void avb_rx_flush(void *opaque)
{
    RCarAVBState *s = opaque;

    qemu_flush_queued_packets(qemu_get_queue(s->nic));
}

/*
 * A guest may give descriptors back without a register write (U-Boot's
 * ravb_free_pkt()): the DMAC looks at a full queue again now and then
 */
static void avb_rx_retry(void *opaque)
{
    RCarAVBState *s = opaque;

    qemu_bh_schedule(s->rx_bh);
}

/*
 * The RX checksum ravb_rx_csum() takes for CHECKSUM_COMPLETE: the 16-bit
 * one's complement sum (not inverted) of what follows the Ethernet header
 */
static uint16_t avb_rx_csum(const uint8_t *frame, size_t len)
{
    /* net_checksum_add() only reads the buffer */
    uint32_t sum = net_checksum_add(len - ETH_HLEN,
                                    (uint8_t *)frame + ETH_HLEN);

    /* net_checksum_finish() folds the sum and inverts it */
    return ~net_checksum_finish(sum);
}

/*
 * Does queue @q still receive into the descriptor at @addr?  A DMA write
 * may have reset the AVB (into the CPG) or stopped it (into its own
 * registers, which the re-entrancy guard refuses, or another master's)
 */
static bool avb_rx_slot_held(RCarAVBState *s, unsigned q, uint32_t addr)
{
    return avb_rx_ready(s) && s->rx_desc[q] == addr;
}

/* Hand @frame to queue @q's descriptor @d at s->rx_desc[q] */
static bool avb_rx_store(RCarAVBState *s, unsigned q, const AVBDesc *d,
                         size_t len)
{
    uint32_t addr = s->rx_desc[q];
    uint8_t desc[RX_DESC_SIZE] = { 0 };
    size_t stored = len;

    if (FIELD_EX32(s->ecmr, ECMR, RCSC)) {
        stw_be_p(s->rx_frame + len, avb_rx_csum(s->rx_frame, len));
        stored += RX_CSUM_LEN;
    }
    if (stored > (d->ds & DESC_DS_MASK)) {
        return false;           /* does not fit the buffer: dropped */
    }
    if (dma_memory_write(&s->dma_as, d->dptr, s->rx_frame, stored,
                         MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "rcar-avb: RX buffer at 0x%08" PRIx32
                      " cannot be written\n", d->dptr);
        return false;
    }
    if (!avb_rx_slot_held(s, q, addr)) {
        return false;
    }
    /* The descriptor type last: the driver reads the rest once it sees it */
    stw_le_p(desc, stored);
    desc[2] = (s->rx_frame[0] & 1) ? RX_MSC_MC : 0;
    desc[3] = d->die_dt;
    stl_le_p(desc + DESC_DPTR_OFFSET, d->dptr);
    if (dma_memory_write(&s->dma_as, addr, desc, sizeof(desc),
                         MEMTXATTRS_UNSPECIFIED) != MEMTX_OK ||
        !avb_rx_slot_held(s, q, addr) ||
        !avb_write_die_dt(s, addr, DT_FSINGLE << 4) ||
        !avb_rx_slot_held(s, q, addr)) {
        return false;
    }
    s->rx_desc[q] = addr + RX_DESC_SIZE;
    s->ris0 |= BIT(q);
    return true;
}

static ssize_t avb_receive(NetClientState *nc, const uint8_t *buf,
                           size_t size)
{
    RCarAVBState *s = qemu_get_nic_opaque(nc);
    size_t len = MAX(size, ETH_ZLEN);
    unsigned q;
    AVBDesc d;

    if (!avb_rx_ready(s) || size < ETH_HLEN || !avb_address_match(s, buf)) {
        return size;            /* not for us, or the MAC does not listen */
    }
    if (len + RX_CSUM_LEN > RCAR_AVB_MAX_FRAME || (s->rflr && len > s->rflr)) {
        s->stat_rx_dropped++;
        return size;            /* longer than RFLR lets in */
    }
    q = avb_rx_queue_of(s, buf, size);
    if (!avb_rx_has_desc(s, q, &d)) {
        if (q == 0) {
            /* Wait: RIS0/RIE0, or a look later, say when there is room */
            timer_mod(s->rx_timer,
                      qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + RX_RETRY_NS);
            return 0;
        }
        s->stat_rx_dropped++;
        s->ris2 |= RIS2_QFF(q);
        s->eis |= R_EIS_QFS_MASK;
        avb_update_irqs(s);
        return size;
    }
    memcpy(s->rx_frame, buf, size);
    memset(s->rx_frame + size, 0, len - size);
    if (avb_rx_store(s, q, &d, len)) {
        trace_rcar_avb_rx(q, size);
        s->stat_rx_frames++;
    } else {
        s->stat_rx_dropped++;
    }
    avb_update_irqs(s);
    return size;
}

/* The peer's end of the cable: the PHY sees it; the E-MAC's LINK pin too */
static void avb_set_link(NetClientState *nc)
{
    RCarAVBState *s = qemu_get_nic_opaque(nc);

    ksz9031_phy_set_link(s->phy, !nc->link_down);
    if (!avb_opc_is(s, OPC_RESET)) {
        s->ecsr |= R_ECSR_LCHNG_MASK;
        avb_update_irqs(s);
    }
}

static NetClientInfo avb_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = avb_receive,
    .link_status_changed = avb_set_link,
};

/* What the boot loader leaves in MAHR/MALR: the NIC's address */
static void avb_reset_mac_address(RCarAVBState *s)
{
    const uint8_t *a = s->conf.macaddr.a;

    s->mahr = ldl_be_p(a);
    s->malr = lduw_be_p(a + 4);
}

static void avb_reset_hold(Object *obj, ResetType type)
{
    RCarAVBState *s = RCAR_AVB(obj);

    timer_del(s->tx_timer);
    qemu_bh_cancel(s->tx_bh);
    timer_del(s->rx_timer);
    qemu_bh_cancel(s->rx_bh);
    avb_reset_dmac(s);
    s->ccc = 0;
    s->dbat = s->apsr = s->rcr = s->tgc = s->tccr = s->cie = s->dil = 0;
    s->gccr = s->gti = 0;
    memset(s->gto, 0, sizeof(s->gto));
    memset(s->gct, 0, sizeof(s->gct));
    s->gptp_delta_ns = 0;
    s->ecmr = s->rflr = s->ecsipr = s->pir = s->gecmr = 0;
    s->mdio_phy_out = -1;
    avb_reset_mac_address(s);
}

static void avb_reset_exit(Object *obj, ResetType type)
{
    avb_update_irqs(RCAR_AVB(obj));
}

static void avb_init(Object *obj)
{
    RCarAVBState *s = RCAR_AVB(obj);
    SysBusDevice *sbd = SYS_BUS_DEVICE(obj);

    memory_region_init_io(&s->iomem, obj, &avb_ops, s, TYPE_RCAR_AVB,
                          RCAR_AVB_MMIO_SIZE);
    sysbus_init_mmio(sbd, &s->iomem);
    for (unsigned i = 0; i < RCAR_AVB_NUM_IRQS; i++) {
        sysbus_init_irq(sbd, &s->irq[i]);
    }
    object_property_add_uint64_ptr(obj, "x-tx-frames", &s->stat_tx_frames,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-rx-frames", &s->stat_rx_frames,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-rx-dropped", &s->stat_rx_dropped,
                                   OBJ_PROP_FLAG_READ);
}

static void avb_realize(DeviceState *dev, Error **errp)
{
    RCarAVBState *s = RCAR_AVB(dev);

    if (!s->dma_mr) {
        error_setg(errp, "rcar-avb: 'dma-memory' link not set");
        return;
    }
    if (!s->phy) {
        error_setg(errp, "rcar-avb: 'phy' link not set");
        return;
    }
    address_space_init(&s->dma_as, s->dma_mr, "rcar-avb-dma");
    s->tx_bh = qemu_bh_new_guarded(avb_tx_run, s,
                                   &dev->mem_reentrancy_guard);
    s->tx_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, avb_tx_resume, s);
    s->rx_bh = qemu_bh_new_guarded(avb_rx_flush, s,
                                   &dev->mem_reentrancy_guard);
    s->rx_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, avb_rx_retry, s);
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&avb_net_info, &s->conf,
                          object_get_typename(OBJECT(dev)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    ksz9031_phy_set_link(s->phy, !qemu_get_queue(s->nic)->link_down);
}

static void avb_unrealize(DeviceState *dev)
{
    RCarAVBState *s = RCAR_AVB(dev);

    qemu_del_nic(s->nic);
    timer_free(s->tx_timer);
    qemu_bh_delete(s->tx_bh);
    timer_free(s->rx_timer);
    qemu_bh_delete(s->rx_bh);
    address_space_destroy(&s->dma_as);
}

static bool avb_queue_pointers_ok(RCarAVBState *s)
{
    if (!avb_opc_is(s, OPC_OPERATION) && FIELD_EX32(s->tccr, TCCR, TSRQ)) {
        return false;
    }
    for (unsigned q = 0; q < RCAR_AVB_NUM_QUEUES; q++) {
        if (!avb_opc_is(s, OPC_OPERATION) && (s->tx_desc[q] || s->rx_desc[q])) {
            return false;
        }
    }
    return true;
}

/* Reset mode holds no interrupt status (avb_reset_dmac()) */
static bool avb_reset_state_ok(RCarAVBState *s)
{
    return !avb_opc_is(s, OPC_RESET) ||
           !(s->ris0 | s->ris2 | s->tis | s->eis | s->gis | s->ecsr |
             FIELD_EX32(s->tccr, TCCR, TSRQ));
}

static int avb_post_load(void *opaque, int version_id)
{
    RCarAVBState *s = opaque;
    uint32_t gccr_requests = R_GCCR_TCR_MASK | R_GCCR_LTO_MASK |
                             R_GCCR_LTI_MASK | R_GCCR_LPTC_MASK |
                             R_GCCR_LMTT_MASK;

    if (s->ts_count > RCAR_AVB_TS_FIFO || s->mdio_phy_out < -1 ||
        s->mdio_phy_out > 1 || !avb_queue_pointers_ok(s) ||
        !avb_reset_state_ok(s) || s->malr > 0xffff ||
        (s->gccr & gccr_requests) || (s->ecsr & ~ECSR_MASK) ||
        (FIELD_EX32(s->tccr, TCCR, TSRQ) & ~(BIT(RCAR_AVB_NUM_QUEUES) - 1))) {
        return -EINVAL;
    }
    /* The net client's link is the cable's, which the PHY (loaded first) has */
    qemu_get_queue(s->nic)->link_down = !s->phy->link_up;
    /* A TX run that was going on goes on once the VM runs */
    if (FIELD_EX32(s->tccr, TCCR, TSRQ)) {
        timer_mod(s->tx_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    }
    return 0;
}

static const VMStateDescription vmstate_avb_timestamp = {
    .name = "rcar-avb/timestamp",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(tag, RCarAVBTimestamp),
        VMSTATE_UINT64(ns, RCarAVBTimestamp),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_avb = {
    .name = "rcar-avb",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = avb_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ccc, RCarAVBState),
        VMSTATE_UINT32(dbat, RCarAVBState),
        VMSTATE_UINT32(apsr, RCarAVBState),
        VMSTATE_UINT32(rcr, RCarAVBState),
        VMSTATE_UINT32(tgc, RCarAVBState),
        VMSTATE_UINT32(tccr, RCarAVBState),
        VMSTATE_UINT32(eic, RCarAVBState),
        VMSTATE_UINT32(eis, RCarAVBState),
        VMSTATE_UINT32(ric0, RCarAVBState),
        VMSTATE_UINT32(ris0, RCarAVBState),
        VMSTATE_UINT32(ric1, RCarAVBState),
        VMSTATE_UINT32(ric2, RCarAVBState),
        VMSTATE_UINT32(ris2, RCarAVBState),
        VMSTATE_UINT32(tic, RCarAVBState),
        VMSTATE_UINT32(tis, RCarAVBState),
        VMSTATE_UINT32(cie, RCarAVBState),
        VMSTATE_UINT32(dil, RCarAVBState),
        VMSTATE_UINT32(gccr, RCarAVBState),
        VMSTATE_UINT32(gti, RCarAVBState),
        VMSTATE_UINT32_ARRAY(gto, RCarAVBState, 3),
        VMSTATE_UINT32_ARRAY(gct, RCarAVBState, 3),
        VMSTATE_UINT32(gic, RCarAVBState),
        VMSTATE_UINT32(gis, RCarAVBState),
        VMSTATE_INT64(gptp_delta_ns, RCarAVBState),
        VMSTATE_STRUCT_ARRAY(ts_fifo, RCarAVBState, RCAR_AVB_TS_FIFO, 1,
                             vmstate_avb_timestamp, RCarAVBTimestamp),
        VMSTATE_UINT32(ts_count, RCarAVBState),
        VMSTATE_UINT32_ARRAY(tx_desc, RCarAVBState, RCAR_AVB_NUM_QUEUES),
        VMSTATE_UINT32_ARRAY(rx_desc, RCarAVBState, RCAR_AVB_NUM_QUEUES),
        VMSTATE_UINT32(ecmr, RCarAVBState),
        VMSTATE_UINT32(rflr, RCarAVBState),
        VMSTATE_UINT32(ecsr, RCarAVBState),
        VMSTATE_UINT32(ecsipr, RCarAVBState),
        VMSTATE_UINT32(pir, RCarAVBState),
        VMSTATE_UINT32(gecmr, RCarAVBState),
        VMSTATE_UINT32(mahr, RCarAVBState),
        VMSTATE_UINT32(malr, RCarAVBState),
        VMSTATE_INT32(mdio_phy_out, RCarAVBState),
        VMSTATE_END_OF_LIST()
    }
};

static const Property avb_properties[] = {
    DEFINE_NIC_PROPERTIES(RCarAVBState, conf),
    DEFINE_PROP_LINK("dma-memory", RCarAVBState, dma_mr, TYPE_MEMORY_REGION,
                     MemoryRegion *),
    /* The board's PHY on the MDIO lines of PIR */
    DEFINE_PROP_LINK("phy", RCarAVBState, phy, TYPE_KSZ9031_PHY,
                     KSZ9031PhyState *),
};

static void avb_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 Ethernet AVB";
    dc->realize = avb_realize;
    dc->unrealize = avb_unrealize;
    dc->vmsd = &vmstate_avb;
    device_class_set_props(dc, avb_properties);
    rc->phases.hold = avb_reset_hold;
    rc->phases.exit = avb_reset_exit;
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
    /* Reason: part of the SoC, wired to its IPMMU and the board's PHY */
    dc->user_creatable = false;
}

static const TypeInfo avb_types[] = {
    {
        .name = TYPE_RCAR_AVB,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarAVBState),
        .instance_init = avb_init,
        .class_init = avb_class_init,
    },
};

DEFINE_TYPES(avb_types)
