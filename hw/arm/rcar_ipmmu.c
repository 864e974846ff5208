/*
 * Renesas R-Car Gen3 IPMMU-VMSA
 *
 * The IPMMU sits between bus masters and memory.  On Gen3 it comes as one
 * main instance (IPMMU-MM) that holds the translation contexts and raises
 * the fault interrupt, and several cache instances (IPMMU-DS1, ...) whose
 * micro-TLBs (uTLBs) the masters are wired to.  A uTLB selects a context
 * of the main instance; the context points at an ARMv7-LPAE stage-1 page
 * table (4 KiB granule, 32-bit IOVA, 40-bit PA) in memory.
 *
 * Every instance of this device has the same register window; an instance
 * with a "main" link is a cache instance and translates with the contexts
 * of its main instance, as Linux's ipmmu-vmsa driver programs them:
 * drivers/iommu/ipmmu-vmsa.c in Linux 6.12 (cited as ipmmu-vmsa.c:line).
 * Each uTLB is one IOMMU memory region: the master's "dma-memory".
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/arm/rcar_ipmmu.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "trace.h"

/* Context registers, context c at c * 0x40 (IMCTR.., ipmmu_ctx_reg()) */
#define CTX_STRIDE      0x40
#define CTX_WINDOW_END  (RCAR_IPMMU_NUM_CTX * CTX_STRIDE)
REG32(IMCTR, 0x00)
    FIELD(IMCTR, MMUEN, 0, 1)
    FIELD(IMCTR, FLUSH, 1, 1)
    FIELD(IMCTR, INTEN, 2, 1)
REG32(IMCAAR, 0x04)
REG32(IMTTBCR, 0x08)
    FIELD(IMTTBCR, T0SZ, 0, 3)
    FIELD(IMTTBCR, SL0, 6, 2)           /* Gen3: 2 bits (twobit_imttbcr_sl0) */
    FIELD(IMTTBCR, EAE, 31, 1)
REG32(IMBUSCR, 0x0c)
REG32(IMTTLBR0, 0x10)
REG32(IMTTUBR0, 0x14)
    FIELD(IMTTUBR0, TTBR, 0, 8)         /* TTBR0[39:32] */
REG32(IMTTLBR1, 0x18)
REG32(IMTTUBR1, 0x1c)
REG32(IMSTR, 0x20)
    FIELD(IMSTR, TF, 0, 1)
    FIELD(IMSTR, PF, 1, 1)
    FIELD(IMSTR, ABORT, 2, 1)
    FIELD(IMSTR, MHIT, 4, 1)
REG32(IMMAIR0, 0x28)
REG32(IMMAIR1, 0x2c)
REG32(IMELAR, 0x30)
REG32(IMEUAR, 0x34)

/* The Gen2 PMB, unused on Gen3 */
#define PMB_WINDOW      0x200
#define PMB_WINDOW_END  0x300

/* uTLB n < 32 at 0x300 + 16n, n >= 32 at 0x600 + 16(n - 32) (:132-141) */
#define UTLB_STRIDE     0x10
#define UTLB_LOW_BASE   0x300
#define UTLB_HIGH_BASE  0x600
#define UTLB_HIGH_FIRST 32
REG32(IMUCTR, 0x0)
    FIELD(IMUCTR, MMUEN, 0, 1)
    FIELD(IMUCTR, FLUSH, 1, 1)
    FIELD(IMUCTR, TTSEL, 4, 4)
REG32(IMUASID, 0x8)

REG32(IMSCTLR, 0x500)
REG32(IMSAUXCTLR, 0x504)

/* The status bits that make ipmmu_domain_irq() act (:495-496) */
#define IMSTR_IRQ_BITS  (R_IMSTR_TF_MASK | R_IMSTR_PF_MASK | \
                         R_IMSTR_ABORT_MASK | R_IMSTR_MHIT_MASK)

/* Page-table geometry: 4 KiB granule, 9 bits per level, levels 1 to 3 */
#define PT_PAGE_SHIFT   12
#define PT_PAGE_MASK    MAKE_64BIT_MASK(0, PT_PAGE_SHIFT)
#define PT_LEVEL_BITS   9
#define PT_LAST_LEVEL   3
#define PT_IA_BITS      32
#define PT_OA_MASK      MAKE_64BIT_MASK(0, 40)
#define PTE_VALID       BIT_ULL(0)
#define PTE_TABLE       BIT_ULL(1)      /* table at L1/L2, page at L3 */
#define PTE_AP2_RDONLY  BIT_ULL(7)
#define PTE_APTABLE_RO  BIT_ULL(62)
#define PTE_ADDR_MASK   MAKE_64BIT_MASK(PT_PAGE_SHIFT, 40 - PT_PAGE_SHIFT)
#define PTE_OA_HIGH     MAKE_64BIT_MASK(40, 8)

static RCarIPMMUState *rcar_ipmmu_root(RCarIPMMUState *s)
{
    return s->main ? s->main : s;
}

static unsigned rcar_ipmmu_level_shift(unsigned level)
{
    return PT_PAGE_SHIFT + PT_LEVEL_BITS * (PT_LAST_LEVEL - level);
}

/* Fault interrupt: level, high while an enabled context has a fault */
static void rcar_ipmmu_update_irq(RCarIPMMUState *s)
{
    bool level = false;

    for (unsigned c = 0; c < RCAR_IPMMU_NUM_CTX; c++) {
        level |= (s->ctx[c].imctr & R_IMCTR_INTEN_MASK) &&
                 (s->ctx[c].imstr & IMSTR_IRQ_BITS);
    }
    qemu_set_irq(s->irq, level);
}

/*
 * Page-table walk.  The result is a leaf or the IMSTR bits of the fault.
 */
typedef struct RCarIPMMUWalk {
    hwaddr pa;
    hwaddr mask;
    IOMMUAccessFlags perm;
    uint32_t fault;             /* IMSTR bits, 0 on success */
    unsigned level;
} RCarIPMMUWalk;

/* Start level and input size from IMTTBCR (spec: SL0 2 = L1, 1 = L2) */
static bool rcar_ipmmu_walk_geometry(RCarIPMMUState *root,
                                     const RCarIPMMUContext *ctx,
                                     unsigned *start, unsigned *ia_bits)
{
    unsigned sl0 = FIELD_EX32(ctx->imttbcr, IMTTBCR, SL0);

    if (!FIELD_EX32(ctx->imttbcr, IMTTBCR, EAE)) {
        qemu_log_mask(LOG_UNIMP, "%s: short-descriptor tables (IMTTBCR.EAE "
                      "= 0) are not implemented\n", root->name);
        return false;
    }
    if (sl0 == 3) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: IMTTBCR.SL0 = 3 is reserved\n",
                      root->name);
        return false;
    }
    *start = PT_LAST_LEVEL - sl0;
    *ia_bits = PT_IA_BITS - FIELD_EX32(ctx->imttbcr, IMTTBCR, T0SZ);
    /*
     * The first level must index with 1 to 9 bits of the IOVA: stage 1
     * has no concatenated tables, and a start level whose entries cover
     * the whole input range (SL0 and T0SZ that do not agree) is a
     * translation fault, as for VMSA stage 2.
     */
    if (*ia_bits <= rcar_ipmmu_level_shift(*start) ||
        *ia_bits - rcar_ipmmu_level_shift(*start) > PT_LEVEL_BITS) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: IMTTBCR 0x%08" PRIx32 " starts "
                      "the walk at a level that does not fit a %u-bit IOVA\n",
                      root->name, ctx->imttbcr, *ia_bits);
        return false;
    }
    return true;
}

static void rcar_ipmmu_walk(RCarIPMMUState *root, const RCarIPMMUContext *ctx,
                            hwaddr iova, bool is_write, RCarIPMMUWalk *w)
{
    unsigned level, ia_bits, idx_bits;
    bool table_ro = false;
    hwaddr table;

    memset(w, 0, sizeof(*w));
    w->fault = R_IMSTR_TF_MASK;
    if (!rcar_ipmmu_walk_geometry(root, ctx, &level, &ia_bits)) {
        return;
    }
    if (iova >> ia_bits) {
        return;
    }
    idx_bits = ia_bits - rcar_ipmmu_level_shift(level);
    table = deposit64(ctx->imttlbr0, 32, 32,
                      FIELD_EX32(ctx->imttubr0, IMTTUBR0, TTBR));
    /* The first table is aligned to its size only (32 bytes for Linux) */
    table &= ~((8ULL << idx_bits) - 1);

    for (;; level++, idx_bits = PT_LEVEL_BITS) {
        unsigned shift = rcar_ipmmu_level_shift(level);
        hwaddr pte_addr = table + 8 * extract64(iova, shift, idx_bits);
        MemTxResult res;
        uint64_t pte;

        w->level = level;
        pte = address_space_ldq_le(root->downstream_as, pte_addr,
                                   MEMTXATTRS_UNSPECIFIED, &res);
        if (res != MEMTX_OK) {
            w->fault = R_IMSTR_ABORT_MASK;
            return;
        }
        if (!(pte & PTE_VALID)) {
            return;
        }
        if (level < PT_LAST_LEVEL && (pte & PTE_TABLE)) {
            table = pte & PTE_ADDR_MASK;
            table_ro |= !!(pte & PTE_APTABLE_RO);
            continue;
        }
        /* A leaf: an L3 page, or a block at L1/L2; L3 type 0b01 is reserved */
        if ((level == PT_LAST_LEVEL && !(pte & PTE_TABLE)) ||
            (pte & PTE_OA_HIGH)) {
            return;
        }
        w->mask = MAKE_64BIT_MASK(0, shift);
        w->pa = pte & PT_OA_MASK & ~w->mask;
        w->perm = (table_ro || (pte & PTE_AP2_RDONLY)) ? IOMMU_RO : IOMMU_RW;
        w->fault = is_write && w->perm == IOMMU_RO ? R_IMSTR_PF_MASK : 0;
        return;
    }
}

/*
 * Translation cache, per instance, filled with successful walks only:
 * Linux maps without a flush (ipmmu_ops has no iotlb_sync_map).
 */
static RCarIPMMUTLBEntry *rcar_ipmmu_tlb_slot(RCarIPMMUState *s,
                                              unsigned ctx, hwaddr iova)
{
    uint64_t page = iova >> PT_PAGE_SHIFT;

    return &s->tlb[(page ^ (ctx * 0x9e37)) % RCAR_IPMMU_TLB_ENTRIES];
}

static RCarIPMMUTLBEntry *rcar_ipmmu_tlb_lookup(RCarIPMMUState *s,
                                                unsigned ctx, hwaddr iova)
{
    RCarIPMMUTLBEntry *e = rcar_ipmmu_tlb_slot(s, ctx, iova);

    if (e->valid && e->ctx == ctx && (iova & ~e->mask) == e->iova) {
        return e;
    }
    return NULL;
}

static void rcar_ipmmu_tlb_insert(RCarIPMMUState *s, unsigned ctx,
                                  hwaddr iova, const RCarIPMMUWalk *w)
{
    RCarIPMMUTLBEntry *e = rcar_ipmmu_tlb_slot(s, ctx, iova);

    e->valid = true;
    e->ctx = ctx;
    e->iova = iova & ~w->mask;
    e->pa = w->pa;
    e->mask = w->mask;
    e->perm = w->perm;
}

/* Tell whoever watches a uTLB region that its old translations are gone */
static void rcar_ipmmu_notify_utlb(RCarIPMMUState *s, unsigned utlb)
{
    IOMMUNotifier *n;

    IOMMU_NOTIFIER_FOREACH(n, &s->utlb[utlb].iommu) {
        memory_region_unmap_iommu_notifier_range(n);
    }
}

static void rcar_ipmmu_invalidate_instance(RCarIPMMUState *s, unsigned ctx)
{
    for (unsigned i = 0; i < RCAR_IPMMU_TLB_ENTRIES; i++) {
        if (s->tlb[i].ctx == ctx) {
            s->tlb[i].valid = false;
        }
    }
    for (unsigned u = 0; u < RCAR_IPMMU_NUM_UTLBS; u++) {
        if (FIELD_EX32(s->imuctr[u], IMUCTR, TTSEL) == ctx) {
            rcar_ipmmu_notify_utlb(s, u);
        }
    }
}

/*
 * Drop what any instance remembers of context @ctx of @root.  The flush
 * completes here, so IMCTR.FLUSH reads back 0 at once: Linux polls it
 * (ipmmu_tlb_sync()).
 */
static void rcar_ipmmu_invalidate_context(RCarIPMMUState *root, unsigned ctx)
{
    RCarIPMMUState *cache;

    trace_rcar_ipmmu_flush(root->name, ctx);
    rcar_ipmmu_invalidate_instance(root, ctx);
    QLIST_FOREACH(cache, &root->caches, cache_next) {
        rcar_ipmmu_invalidate_instance(cache, ctx);
    }
}

/* Latch a fault on the main instance, where ipmmu_irq() looks (:494-508) */
static void rcar_ipmmu_record_fault(RCarIPMMUState *s, unsigned utlb,
                                    unsigned ctx, hwaddr iova,
                                    const RCarIPMMUWalk *w)
{
    RCarIPMMUState *root = rcar_ipmmu_root(s);
    RCarIPMMUContext *c = &root->ctx[ctx];

    s->stat_faults++;
    trace_rcar_ipmmu_fault(s->name, utlb, ctx, iova, w->fault, w->level);
    qemu_log_mask(LOG_GUEST_ERROR, "%s: uTLB %u context %u: %s fault at IOVA "
                  "0x%" HWADDR_PRIx " (level %u)\n", s->name, utlb, ctx,
                  w->fault == R_IMSTR_PF_MASK ? "permission" :
                  w->fault == R_IMSTR_ABORT_MASK ? "table walk abort" :
                  "translation", iova, w->level);
    /* The first fault keeps its address until the guest clears IMSTR */
    if (!(c->imstr & IMSTR_IRQ_BITS)) {
        c->imelar = extract64(iova, 0, 32);
        c->imeuar = extract64(iova, 32, 32);
    }
    c->imstr |= w->fault;
    rcar_ipmmu_update_irq(root);
}

static IOMMUTLBEntry rcar_ipmmu_translate(IOMMUMemoryRegion *mr, hwaddr addr,
                                          IOMMUAccessFlags flag, int iommu_idx)
{
    RCarIPMMUuTLB *u = container_of(mr, RCarIPMMUuTLB, iommu);
    RCarIPMMUState *s = u->ipmmu;
    RCarIPMMUState *root = rcar_ipmmu_root(s);
    uint32_t imuctr = s->imuctr[u->index];
    unsigned ctx = FIELD_EX32(imuctr, IMUCTR, TTSEL);
    /* Only read and write matter here; newer flags (PRIV, EXEC...) do not */
    IOMMUAccessFlags access = flag & IOMMU_RW;
    IOMMUTLBEntry entry = {
        .target_as = s->downstream_as,
        .iova = addr & ~PT_PAGE_MASK,
        .translated_addr = addr & ~PT_PAGE_MASK,
        .addr_mask = PT_PAGE_MASK,
        .perm = IOMMU_NONE,
    };
    RCarIPMMUTLBEntry *hit;
    RCarIPMMUWalk w;

    /* uTLB off, or its context off: the address goes through unchanged */
    if (!FIELD_EX32(imuctr, IMUCTR, MMUEN)) {
        entry.perm = IOMMU_RW;
        trace_rcar_ipmmu_bypass(s->name, u->index, addr);
        return entry;
    }
    if (ctx >= RCAR_IPMMU_NUM_CTX) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: uTLB %u selects context %u, which "
                      "does not exist\n", s->name, u->index, ctx);
        return entry;
    }
    if (!(root->ctx[ctx].imctr & R_IMCTR_MMUEN_MASK)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: uTLB %u is enabled on context %u, "
                      "which is disabled: no translation\n",
                      s->name, u->index, ctx);
        entry.perm = IOMMU_RW;
        return entry;
    }

    s->stat_translations++;
    hit = rcar_ipmmu_tlb_lookup(s, ctx, addr);
    if (hit) {
        s->stat_tlb_hits++;
        w = (RCarIPMMUWalk) {
            .pa = hit->pa, .mask = hit->mask, .perm = hit->perm,
            .fault = (access & IOMMU_WO) && hit->perm == IOMMU_RO ?
                     R_IMSTR_PF_MASK : 0,
            .level = PT_LAST_LEVEL,
        };
    } else {
        rcar_ipmmu_walk(root, &root->ctx[ctx], addr, access & IOMMU_WO, &w);
        if (!w.fault || w.fault == R_IMSTR_PF_MASK) {
            rcar_ipmmu_tlb_insert(s, ctx, addr, &w);
        }
    }
    trace_rcar_ipmmu_translate(s->name, u->index, ctx, addr, w.pa, w.mask,
                               w.fault ? 0 : w.perm, !!hit);
    if (w.fault) {
        /* Look-ups that are not accesses (IOMMU_NONE) leave no trace */
        if (access != IOMMU_NONE) {
            rcar_ipmmu_record_fault(s, u->index, ctx, addr, &w);
        }
        return entry;
    }
    entry.iova = addr & ~w.mask;
    entry.translated_addr = w.pa;
    entry.addr_mask = w.mask;
    entry.perm = w.perm;
    return entry;
}

static int rcar_ipmmu_notify_flag_changed(IOMMUMemoryRegion *mr,
                                          IOMMUNotifierFlag old,
                                          IOMMUNotifierFlag new, Error **errp)
{
    /* Linux maps without telling the IPMMU: MAP events cannot be given */
    if (new & (IOMMU_NOTIFIER_MAP | IOMMU_NOTIFIER_DEVIOTLB_UNMAP)) {
        error_setg(errp, "%s: only IOMMU unmap notifiers are supported",
                   memory_region_name(MEMORY_REGION(mr)));
        return -EINVAL;
    }
    return 0;
}

static uint64_t rcar_ipmmu_get_min_page_size(IOMMUMemoryRegion *mr)
{
    return 1 << PT_PAGE_SHIFT;
}

/*
 * Registers
 */
static uint32_t *rcar_ipmmu_ctx_reg(RCarIPMMUState *s, hwaddr offset)
{
    RCarIPMMUContext *c = &s->ctx[offset / CTX_STRIDE];

    switch (offset % CTX_STRIDE) {
    case A_IMCTR:
        return &c->imctr;
    case A_IMTTBCR:
        return &c->imttbcr;
    case A_IMBUSCR:
        return &c->imbuscr;
    case A_IMTTLBR0:
        return &c->imttlbr0;
    case A_IMTTUBR0:
        return &c->imttubr0;
    case A_IMTTLBR1:
        return &c->imttlbr1;
    case A_IMTTUBR1:
        return &c->imttubr1;
    case A_IMSTR:
        return &c->imstr;
    case A_IMMAIR0:
        return &c->immair0;
    case A_IMMAIR1:
        return &c->immair1;
    case A_IMELAR:
        return &c->imelar;
    case A_IMEUAR:
        return &c->imeuar;
    }
    return NULL;
}

/* The uTLB whose registers are at @offset, or -1 */
static int rcar_ipmmu_utlb_at(hwaddr offset)
{
    if (offset >= UTLB_LOW_BASE &&
        offset < UTLB_LOW_BASE + UTLB_HIGH_FIRST * UTLB_STRIDE) {
        return (offset - UTLB_LOW_BASE) / UTLB_STRIDE;
    }
    if (offset >= UTLB_HIGH_BASE &&
        offset < UTLB_HIGH_BASE +
                 (RCAR_IPMMU_NUM_UTLBS - UTLB_HIGH_FIRST) * UTLB_STRIDE) {
        return UTLB_HIGH_FIRST + (offset - UTLB_HIGH_BASE) / UTLB_STRIDE;
    }
    return -1;
}

static uint32_t *rcar_ipmmu_reg(RCarIPMMUState *s, hwaddr offset)
{
    int utlb = rcar_ipmmu_utlb_at(offset);

    if (offset < CTX_WINDOW_END) {
        return rcar_ipmmu_ctx_reg(s, offset);
    }
    if (utlb >= 0) {
        switch (offset % UTLB_STRIDE) {
        case A_IMUCTR:
            return &s->imuctr[utlb];
        case A_IMUASID:
            return &s->imuasid[utlb];
        }
        return NULL;
    }
    switch (offset) {
    case A_IMSCTLR:
        return &s->imsctlr;
    case A_IMSAUXCTLR:
        return &s->imsauxctlr;
    }
    return NULL;
}

static uint64_t rcar_ipmmu_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarIPMMUState *s = RCAR_IPMMU(opaque);
    uint32_t *reg = rcar_ipmmu_reg(s, offset);
    uint32_t val = 0;

    if (reg) {
        val = *reg;
    } else if (offset < PMB_WINDOW || offset >= PMB_WINDOW_END) {
        /* The PMB is Gen2's and not used: reading it is no news */
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03"
                      HWADDR_PRIx " reads as zero\n", s->name, offset);
    }
    trace_rcar_ipmmu_read(s->name, offset, val);
    return val;
}

static void rcar_ipmmu_write_imctr(RCarIPMMUState *s, unsigned ctx,
                                   uint32_t val)
{
    RCarIPMMUState *root = rcar_ipmmu_root(s);
    uint32_t old = s->ctx[ctx].imctr;

    /* Linux writes IMCTR on the cache instance too (ipmmu_ctx_write_all()) */
    s->ctx[ctx].imctr = val & ~R_IMCTR_FLUSH_MASK;
    if (val & R_IMCTR_FLUSH_MASK) {
        s->stat_flushes++;
    }
    if ((val & R_IMCTR_FLUSH_MASK) ||
        (s == root && ((old ^ val) & R_IMCTR_MMUEN_MASK))) {
        rcar_ipmmu_invalidate_context(root, ctx);
    }
    if (s == root) {
        rcar_ipmmu_update_irq(s);
    }
}

static void rcar_ipmmu_write_imstr(RCarIPMMUState *s, unsigned ctx,
                                   uint32_t val)
{
    RCarIPMMUContext *c = &s->ctx[ctx];

    /*
     * Linux clears the status by writing 0 after reading the address
     * (ipmmu_domain_irq(), :494-508); writing back what was read keeps
     * it (:404).  So a write can only clear bits, never set them.
     */
    c->imstr &= val;
    if (!(c->imstr & IMSTR_IRQ_BITS)) {
        c->imelar = 0;
        c->imeuar = 0;
    }
    rcar_ipmmu_update_irq(s);
}

static void rcar_ipmmu_write_ctx(RCarIPMMUState *s, hwaddr offset,
                                 uint32_t val)
{
    unsigned ctx = offset / CTX_STRIDE;
    uint32_t *reg;

    switch (offset % CTX_STRIDE) {
    case A_IMCTR:
        rcar_ipmmu_write_imctr(s, ctx, val);
        return;
    case A_IMSTR:
        rcar_ipmmu_write_imstr(s, ctx, val);
        return;
    case A_IMELAR:
    case A_IMEUAR:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: context %u: IMELAR/IMEUAR are "
                      "read-only\n", s->name, ctx);
        return;
    }
    reg = rcar_ipmmu_ctx_reg(s, offset);
    if (!reg) {
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03"
                      HWADDR_PRIx " write ignored\n", s->name, offset);
        return;
    }
    if (*reg != val && s == rcar_ipmmu_root(s) &&
        (reg == &s->ctx[ctx].imttbcr || reg == &s->ctx[ctx].imttlbr0 ||
         reg == &s->ctx[ctx].imttubr0)) {
        /* A new table: the old translations of this context are void */
        *reg = val;
        rcar_ipmmu_invalidate_context(s, ctx);
        return;
    }
    *reg = val;
}

static void rcar_ipmmu_write_imuctr(RCarIPMMUState *s, unsigned utlb,
                                    uint32_t val)
{
    uint32_t old = s->imuctr[utlb];
    unsigned ctx = FIELD_EX32(val, IMUCTR, TTSEL);

    s->imuctr[utlb] = val & ~R_IMUCTR_FLUSH_MASK;
    trace_rcar_ipmmu_utlb(s->name, utlb, s->imuctr[utlb]);
    if (FIELD_EX32(val, IMUCTR, MMUEN) && ctx >= RCAR_IPMMU_NUM_CTX) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: uTLB %u enabled on context %u of "
                      "%u\n", s->name, utlb, ctx, RCAR_IPMMU_NUM_CTX);
    }
    if ((val & R_IMUCTR_FLUSH_MASK) && ctx < RCAR_IPMMU_NUM_CTX) {
        /* The uTLB caches entries of the context it selects */
        rcar_ipmmu_invalidate_instance(s, ctx);
        s->stat_flushes++;
    } else if (old != s->imuctr[utlb]) {
        rcar_ipmmu_notify_utlb(s, utlb);
    }
}

static void rcar_ipmmu_write(void *opaque, hwaddr offset, uint64_t value,
                             unsigned size)
{
    RCarIPMMUState *s = RCAR_IPMMU(opaque);
    int utlb = rcar_ipmmu_utlb_at(offset);
    uint32_t *reg;

    trace_rcar_ipmmu_write(s->name, offset, value);
    if (offset < CTX_WINDOW_END) {
        rcar_ipmmu_write_ctx(s, offset, value);
        return;
    }
    if (utlb >= 0 && offset % UTLB_STRIDE == A_IMUCTR) {
        rcar_ipmmu_write_imuctr(s, utlb, value);
        return;
    }
    reg = rcar_ipmmu_reg(s, offset);
    if (reg) {
        *reg = value;
    } else if (offset < PMB_WINDOW || offset >= PMB_WINDOW_END) {
        qemu_log_mask(LOG_UNIMP, "%s: unimplemented register 0x%03"
                      HWADDR_PRIx " write of 0x%" PRIx64 " ignored\n",
                      s->name, offset, value);
    }
}

/* Linux uses 32-bit accesses only (ipmmu_read(), ipmmu_write()) */
static const MemoryRegionOps rcar_ipmmu_ops = {
    .read = rcar_ipmmu_read,
    .write = rcar_ipmmu_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
    .impl.min_access_size = 4,
    .impl.max_access_size = 4,
};

MemoryRegion *rcar_ipmmu_utlb_mr(RCarIPMMUState *s, unsigned utlb)
{
    assert(utlb < RCAR_IPMMU_NUM_UTLBS);
    return MEMORY_REGION(&s->utlb[utlb].iommu);
}

/* Everything 0: contexts off, uTLBs in bypass, no fault (spec §1.6) */
static void rcar_ipmmu_reset_hold(Object *obj, ResetType type)
{
    RCarIPMMUState *s = RCAR_IPMMU(obj);

    memset(s->ctx, 0, sizeof(s->ctx));
    memset(s->imuctr, 0, sizeof(s->imuctr));
    memset(s->imuasid, 0, sizeof(s->imuasid));
    memset(s->tlb, 0, sizeof(s->tlb));
    s->imsctlr = 0;
    s->imsauxctlr = 0;
    for (unsigned u = 0; u < RCAR_IPMMU_NUM_UTLBS; u++) {
        rcar_ipmmu_notify_utlb(s, u);
    }
    qemu_irq_lower(s->irq);
}

static void rcar_ipmmu_init(Object *obj)
{
    RCarIPMMUState *s = RCAR_IPMMU(obj);
    SysBusDevice *sbd = SYS_BUS_DEVICE(obj);

    memory_region_init_io(&s->iomem, obj, &rcar_ipmmu_ops, s,
                          TYPE_RCAR_IPMMU, RCAR_IPMMU_MMIO_SIZE);
    sysbus_init_mmio(sbd, &s->iomem);
    sysbus_init_irq(sbd, &s->irq);
    QLIST_INIT(&s->caches);

    object_property_add_uint64_ptr(obj, "x-translations",
                                   &s->stat_translations, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-tlb-hits", &s->stat_tlb_hits,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-faults", &s->stat_faults,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "x-flushes", &s->stat_flushes,
                                   OBJ_PROP_FLAG_READ);
}

static void rcar_ipmmu_realize(DeviceState *dev, Error **errp)
{
    RCarIPMMUState *s = RCAR_IPMMU(dev);
    Object *obj = OBJECT(dev);

    if (!s->downstream) {
        error_setg(errp, TYPE_RCAR_IPMMU ": the 'downstream' link is not set");
        return;
    }
    if (s->main == s || (s->main && s->main->main)) {
        error_setg(errp, TYPE_RCAR_IPMMU ": 'main' must link to an instance "
                   "that has no 'main' itself");
        return;
    }
    s->name = g_strdup(object_get_canonical_path_component(obj) ?:
                       TYPE_RCAR_IPMMU);
    s->downstream_as = g_new0(AddressSpace, 1);
    address_space_init(s->downstream_as, s->downstream, s->name);
    for (unsigned u = 0; u < RCAR_IPMMU_NUM_UTLBS; u++) {
        g_autofree char *name = g_strdup_printf("%s-utlb%u", s->name, u);

        s->utlb[u].ipmmu = s;
        s->utlb[u].index = u;
        /* Bigger than 4 GiB: in bypass, 40-bit addresses go through */
        memory_region_init_iommu(&s->utlb[u].iommu, sizeof(s->utlb[u].iommu),
                                 TYPE_RCAR_IPMMU_MEMORY_REGION, obj, name,
                                 UINT64_MAX);
    }
    if (s->main) {
        QLIST_INSERT_HEAD(&s->main->caches, s, cache_next);
    }
}

static void rcar_ipmmu_unrealize(DeviceState *dev)
{
    RCarIPMMUState *s = RCAR_IPMMU(dev);

    if (s->main) {
        QLIST_REMOVE(s, cache_next);
    }
    address_space_destroy_free(s->downstream_as);
    s->downstream_as = NULL;
    g_free(s->name);
}

/*
 * FLUSH completes at once and never stays set in IMCTR or IMUCTR: a stream
 * with it set comes from no device this one could have been.  The cache is
 * not state the guest can count on: it starts empty.
 */
static int rcar_ipmmu_post_load(void *opaque, int version_id)
{
    RCarIPMMUState *s = RCAR_IPMMU(opaque);

    for (unsigned c = 0; c < RCAR_IPMMU_NUM_CTX; c++) {
        if (s->ctx[c].imctr & R_IMCTR_FLUSH_MASK) {
            error_report("%s: context %u has IMCTR.FLUSH set", s->name, c);
            return -EINVAL;
        }
    }
    for (unsigned u = 0; u < RCAR_IPMMU_NUM_UTLBS; u++) {
        if (s->imuctr[u] & R_IMUCTR_FLUSH_MASK) {
            error_report("%s: uTLB %u has IMUCTR.FLUSH set", s->name, u);
            return -EINVAL;
        }
    }
    memset(s->tlb, 0, sizeof(s->tlb));
    return 0;
}

static const VMStateDescription vmstate_rcar_ipmmu_context = {
    .name = "rcar-ipmmu-vmsa/context",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(imctr, RCarIPMMUContext),
        VMSTATE_UINT32(imttbcr, RCarIPMMUContext),
        VMSTATE_UINT32(imbuscr, RCarIPMMUContext),
        VMSTATE_UINT32(imttlbr0, RCarIPMMUContext),
        VMSTATE_UINT32(imttubr0, RCarIPMMUContext),
        VMSTATE_UINT32(imttlbr1, RCarIPMMUContext),
        VMSTATE_UINT32(imttubr1, RCarIPMMUContext),
        VMSTATE_UINT32(imstr, RCarIPMMUContext),
        VMSTATE_UINT32(immair0, RCarIPMMUContext),
        VMSTATE_UINT32(immair1, RCarIPMMUContext),
        VMSTATE_UINT32(imelar, RCarIPMMUContext),
        VMSTATE_UINT32(imeuar, RCarIPMMUContext),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_rcar_ipmmu = {
    .name = TYPE_RCAR_IPMMU,
    .version_id = 2,
    .minimum_version_id = 2,
    .post_load = rcar_ipmmu_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(ctx, RCarIPMMUState, RCAR_IPMMU_NUM_CTX, 1,
                             vmstate_rcar_ipmmu_context, RCarIPMMUContext),
        VMSTATE_UINT32_ARRAY(imuctr, RCarIPMMUState, RCAR_IPMMU_NUM_UTLBS),
        VMSTATE_UINT32_ARRAY(imuasid, RCarIPMMUState, RCAR_IPMMU_NUM_UTLBS),
        VMSTATE_UINT32(imsctlr, RCarIPMMUState),
        VMSTATE_UINT32(imsauxctlr, RCarIPMMUState),
        VMSTATE_END_OF_LIST()
    }
};

static const Property rcar_ipmmu_properties[] = {
    DEFINE_PROP_LINK("main", RCarIPMMUState, main, TYPE_RCAR_IPMMU,
                     RCarIPMMUState *),
    DEFINE_PROP_LINK("downstream", RCarIPMMUState, downstream,
                     TYPE_MEMORY_REGION, MemoryRegion *),
};

static void rcar_ipmmu_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 IPMMU-VMSA";
    dc->realize = rcar_ipmmu_realize;
    dc->unrealize = rcar_ipmmu_unrealize;
    dc->vmsd = &vmstate_rcar_ipmmu;
    device_class_set_props(dc, rcar_ipmmu_properties);
    rc->phases.hold = rcar_ipmmu_reset_hold;
    /* Reason: part of the R-Car Gen3 SoC, wired to its bus masters */
    dc->user_creatable = false;
}

static void rcar_ipmmu_memory_region_class_init(ObjectClass *klass,
                                                const void *data)
{
    IOMMUMemoryRegionClass *imrc = IOMMU_MEMORY_REGION_CLASS(klass);

    imrc->translate = rcar_ipmmu_translate;
    imrc->notify_flag_changed = rcar_ipmmu_notify_flag_changed;
    imrc->get_min_page_size = rcar_ipmmu_get_min_page_size;
}

static const TypeInfo rcar_ipmmu_types[] = {
    {
        .name = TYPE_RCAR_IPMMU,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarIPMMUState),
        .instance_init = rcar_ipmmu_init,
        .class_init = rcar_ipmmu_class_init,
    }, {
        .name = TYPE_RCAR_IPMMU_MEMORY_REGION,
        .parent = TYPE_IOMMU_MEMORY_REGION,
        .class_init = rcar_ipmmu_memory_region_class_init,
    },
};

DEFINE_TYPES(rcar_ipmmu_types)
