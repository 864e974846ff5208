/*
 * Renesas R-Car Gen3 IPMMU-VMSA
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_ARM_RCAR_IPMMU_H
#define HW_ARM_RCAR_IPMMU_H

#include "system/memory.h"
#include "hw/sysbus.h"
#include "qemu/queue.h"
#include "qom/object.h"

#define TYPE_RCAR_IPMMU "rcar-ipmmu-vmsa"
OBJECT_DECLARE_SIMPLE_TYPE(RCarIPMMUState, RCAR_IPMMU)

#define TYPE_RCAR_IPMMU_MEMORY_REGION "rcar-ipmmu-vmsa-iommu-memory-region"

#define RCAR_IPMMU_MMIO_SIZE    0x1000
/* Gen3: ipmmu_features_rcar_gen3 (drivers/iommu/ipmmu-vmsa.c) */
#define RCAR_IPMMU_NUM_CTX      8
#define RCAR_IPMMU_NUM_UTLBS    48
/* Translations remembered per instance (direct-mapped) */
#define RCAR_IPMMU_TLB_ENTRIES  512

typedef struct RCarIPMMUContext {
    uint32_t imctr;
    uint32_t imttbcr;
    uint32_t imbuscr;
    uint32_t imttlbr0;
    uint32_t imttubr0;
    uint32_t imttlbr1;
    uint32_t imttubr1;
    uint32_t imstr;
    uint32_t immair0;
    uint32_t immair1;
    uint32_t imelar;
    uint32_t imeuar;
} RCarIPMMUContext;

/* One micro-TLB: the port one bus master is wired to */
typedef struct RCarIPMMUuTLB {
    IOMMUMemoryRegion iommu;
    RCarIPMMUState *ipmmu;
    unsigned index;
} RCarIPMMUuTLB;

/* A cached successful walk: the leaf that maps @iova */
typedef struct RCarIPMMUTLBEntry {
    bool valid;
    uint8_t ctx;
    hwaddr iova;                /* base of the leaf */
    hwaddr pa;
    hwaddr mask;                /* leaf size - 1 */
    IOMMUAccessFlags perm;
} RCarIPMMUTLBEntry;

struct RCarIPMMUState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    qemu_irq irq;
    /* On the heap: address_space_destroy_free() frees it after RCU */
    AddressSpace *downstream_as;
    RCarIPMMUuTLB utlb[RCAR_IPMMU_NUM_UTLBS];
    RCarIPMMUTLBEntry tlb[RCAR_IPMMU_TLB_ENTRIES];
    /* On the main instance: the cache instances that use its contexts */
    QLIST_HEAD(, RCarIPMMUState) caches;
    QLIST_ENTRY(RCarIPMMUState) cache_next;
    char *name;

    RCarIPMMUContext ctx[RCAR_IPMMU_NUM_CTX];
    uint32_t imuctr[RCAR_IPMMU_NUM_UTLBS];
    uint32_t imuasid[RCAR_IPMMU_NUM_UTLBS];
    uint32_t imsctlr;
    uint32_t imsauxctlr;

    /* Statistics: read-only "x-" QOM properties, not migrated */
    uint64_t stat_translations;
    uint64_t stat_tlb_hits;
    uint64_t stat_faults;
    uint64_t stat_flushes;

    /* Properties */
    RCarIPMMUState *main;       /* NULL: this is the main (root) instance */
    MemoryRegion *downstream;
};

/* The memory region a bus master wired to uTLB @utlb does its DMA into */
MemoryRegion *rcar_ipmmu_utlb_mr(RCarIPMMUState *s, unsigned utlb);

#endif
