/*
 * QTest for the Renesas R-Car Gen3 IPMMU-VMSA in front of the SDHI
 *
 * The tests build LPAE page tables in guest RAM the way Linux 6.12's
 * io-pgtable-arm.c does, program the IPMMU as drivers/iommu/ipmmu-vmsa.c
 * does (contexts on IPMMU-MM, uTLBs on IPMMU-DS1), and move data with the
 * SDHI's DMAC through the IOVA space.  Data are checked against the eMMC
 * image file and guest memory, not against the model.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "rcar-gen3-machines.h"
#include "qemu/bitops.h"
#include "qemu/units.h"
#include "renesas-sdhi-util.h"

/* The same on every Gen3 SoC */
#define IPMMU_MM \
    rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_IPMMU_MM, 0)
#define IPMMU_DS1 \
    rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_IPMMU_DS1, 0)
/* SDHIn is "iommus = <&ipmmu_ds1 32 + n>" in every Gen3 .dtsi */
#define SDHI_UTLB(n)        (32 + (n))
#define SDHI2_UTLB          SDHI_UTLB(2)

/* ipmmu-vmsa.c: IMCTR.. IMUASID() */
#define IMCTR(c)            ((c) * 0x40 + 0x00)
#define IMTTBCR(c)          ((c) * 0x40 + 0x08)
#define IMTTLBR0(c)         ((c) * 0x40 + 0x10)
#define IMTTUBR0(c)         ((c) * 0x40 + 0x14)
#define IMSTR(c)            ((c) * 0x40 + 0x20)
#define IMMAIR0(c)          ((c) * 0x40 + 0x28)
#define IMELAR(c)           ((c) * 0x40 + 0x30)
#define IMEUAR(c)           ((c) * 0x40 + 0x34)
#define IMUCTR(n)           ((n) < 32 ? 0x300 + (n) * 16 : \
                                        0x600 + ((n) - 32) * 16)
#define IMUASID(n)          (IMUCTR(n) + 8)
#define IMSCTLR             0x500

#define IMCTR_MMUEN         BIT(0)
#define IMCTR_FLUSH         BIT(1)
#define IMCTR_INTEN         BIT(2)
#define IMTTBCR_LINUX       0x80000080  /* EAE | SL0 = level 1 (:379-388) */
#define IMSTR_TF            BIT(0)
#define IMSTR_PF            BIT(1)
#define IMSTR_ABORT         BIT(2)
#define IMUCTR_MMUEN        BIT(0)
#define IMUCTR_FLUSH        BIT(1)
#define IMUCTR_TTSEL(c)     ((c) << 4)

/* Descriptors as arm_lpae_init_pte() writes them (io-pgtable-arm.c) */
#define PTE_TABLE           (3ULL | BIT_ULL(63))        /* + NSTABLE */
#define PTE_PAGE            3ULL
#define PTE_BLOCK           1ULL
#define PTE_ATTRS           (BIT_ULL(11) | BIT_ULL(10) | (2ULL << 8) | \
                             BIT_ULL(6) | BIT_ULL(5))   /* nG AF OS AP1 NS */
#define PTE_RDONLY          BIT_ULL(7)

#define PAGE                4096
#define PT_POOL             0x60000000ULL   /* page tables */
#define NO_MEMORY           0x40000000ULL   /* in no window of any .dtsi */
#define DATA_POOL           0x50000000ULL   /* what the IOVAs point at */
#define IOVA_TOP            0xfff00000ULL   /* where Linux allocates */

static char emmc_img[] = "/tmp/qtest-ipmmu-emmc-XXXXXX";

static QTestState *ipmmu_boot(const char *extra)
{
    QTestState *qts = qtest_initf("-M r8a77951-salvator-xs%s -smp 1 -m 1G "
                                  "-drive if=sd,index=%d,file=%s,format=raw",
                                  extra, EMMC_SLOT, emmc_img);

    qtest_irq_intercept_out_named(qts, "/machine/soc/ipmmu-mm", "sysbus-irq");
    sdhi_emmc_init(qts);
    return qts;
}

static uint32_t mm_rd(QTestState *qts, unsigned reg)
{
    return qtest_readl(qts, IPMMU_MM + reg);
}

static void mm_wr(QTestState *qts, unsigned reg, uint32_t val)
{
    qtest_writel(qts, IPMMU_MM + reg, val);
}

static uint32_t ds1_rd(QTestState *qts, unsigned reg)
{
    return qtest_readl(qts, IPMMU_DS1 + reg);
}

static void ds1_wr(QTestState *qts, unsigned reg, uint32_t val)
{
    qtest_writel(qts, IPMMU_DS1 + reg, val);
}

static bool fault_irq(QTestState *qts)
{
    return qtest_get_irq(qts, 0);
}

/*
 * A page table in guest RAM: a 32-byte L1 table (4 entries, IOVA[31:30]),
 * L2 and L3 tables allocated as needed from a pool.
 */
typedef struct PageTable {
    QTestState *qts;
    uint64_t l1;
    uint64_t next;
} PageTable;

static uint64_t pt_alloc(PageTable *pt)
{
    uint64_t table = pt->next;
    g_autofree uint8_t *zero = g_malloc0(PAGE);

    pt->next += PAGE;
    qtest_memwrite(pt->qts, table, zero, PAGE);
    return table;
}

static void pt_init(PageTable *pt, QTestState *qts, uint64_t pool)
{
    pt->qts = qts;
    pt->next = pool;
    pt->l1 = pt_alloc(pt);
}

/* The next-level table under entry @idx of @table, created if missing */
static uint64_t pt_subtable(PageTable *pt, uint64_t table, unsigned idx)
{
    uint64_t pte = qtest_readq(pt->qts, table + idx * 8);

    if (!(pte & 1)) {
        pte = pt_alloc(pt) | PTE_TABLE;
        qtest_writeq(pt->qts, table + idx * 8, pte);
    }
    return pte & MAKE_64BIT_MASK(12, 28);
}

static uint64_t pt_l3_slot(PageTable *pt, uint64_t iova)
{
    uint64_t l2 = pt_subtable(pt, pt->l1, extract64(iova, 30, 2));
    uint64_t l3 = pt_subtable(pt, l2, extract64(iova, 21, 9));

    return l3 + extract64(iova, 12, 9) * 8;
}

static void pt_set_pte(PageTable *pt, uint64_t iova, uint64_t pte)
{
    qtest_writeq(pt->qts, pt_l3_slot(pt, iova), pte);
}

static void pt_map_page(PageTable *pt, uint64_t iova, uint64_t pa, bool ro)
{
    pt_set_pte(pt, iova, pa | PTE_PAGE | PTE_ATTRS | (ro ? PTE_RDONLY : 0));
}

static void pt_map_block_2m(PageTable *pt, uint64_t iova, uint64_t pa)
{
    uint64_t l2 = pt_subtable(pt, pt->l1, extract64(iova, 30, 2));

    qtest_writeq(pt->qts, l2 + extract64(iova, 21, 9) * 8,
                 pa | PTE_BLOCK | PTE_ATTRS);
}

static void pt_map_block_1g(PageTable *pt, uint64_t iova, uint64_t pa)
{
    qtest_writeq(pt->qts, pt->l1 + extract64(iova, 30, 2) * 8,
                 pa | PTE_BLOCK | PTE_ATTRS);
}

/* ipmmu_domain_setup_context() (:364-415), then ipmmu_utlb_enable() */
static void ctx_setup(QTestState *qts, unsigned ctx, const PageTable *pt,
                      uint32_t imctr)
{
    mm_wr(qts, IMTTLBR0(ctx), pt->l1);
    mm_wr(qts, IMTTUBR0(ctx), pt->l1 >> 32);
    mm_wr(qts, IMTTBCR(ctx), IMTTBCR_LINUX);
    mm_wr(qts, IMMAIR0(ctx), 0xf404ff44);
    mm_wr(qts, IMSTR(ctx), mm_rd(qts, IMSTR(ctx)));
    ds1_wr(qts, IMCTR(ctx), imctr);
    mm_wr(qts, IMCTR(ctx), imctr);
}

static void utlb_enable(QTestState *qts, unsigned utlb, unsigned ctx)
{
    ds1_wr(qts, IMUASID(utlb), 0);
    ds1_wr(qts, IMUCTR(utlb), IMUCTR_TTSEL(ctx) | IMUCTR_FLUSH |
                              IMUCTR_MMUEN);
}

/* ipmmu_tlb_invalidate() + ipmmu_tlb_sync() (:254-274) */
static void ctx_flush(QTestState *qts, unsigned ctx)
{
    uint32_t reg = mm_rd(qts, IMCTR(ctx)) | IMCTR_FLUSH;

    ds1_wr(qts, IMCTR(ctx), reg);
    mm_wr(qts, IMCTR(ctx), reg);
    /* The driver polls for at most 100 us: the flush must be done now */
    g_assert_cmphex(mm_rd(qts, IMCTR(ctx)) & IMCTR_FLUSH, ==, 0);
}

/* @len bytes at guest address @pa are all @byte */
static void assert_untouched(QTestState *qts, uint64_t pa, uint8_t byte,
                             size_t len)
{
    g_autofree uint8_t *buf = g_malloc(len);
    g_autofree uint8_t *expect = g_malloc(len);

    qtest_memread(qts, pa, buf, len);
    memset(expect, byte, len);
    g_assert_cmpmem(buf, len, expect, len);
}

/* Guest page @pa holds 4 KiB of the eMMC image from byte @img_off */
static void assert_page_from_image(QTestState *qts, uint64_t pa,
                                   uint64_t img_off)
{
    uint8_t buf[PAGE], expect[PAGE];

    qtest_memread(qts, pa, buf, PAGE);
    sdhi_image_read(emmc_img, img_off / BLKSZ, expect, PAGE);
    g_assert_cmpmem(buf, PAGE, expect, PAGE);
}

static uint64_t sdhi2_counter(QTestState *qts, const char *name)
{
    return rcar_qom_get_uint(qts, "/machine/soc/sdhi2", name);
}

static uint64_t ds1_counter(QTestState *qts, const char *name)
{
    return rcar_qom_get_uint(qts, "/machine/soc/ipmmu-ds1", name);
}

/* eMMC sectors <-> IOVA by DMA; returns DM_CM_INFO1 at the end */
static uint32_t emmc_dma(QTestState *qts, bool read, uint32_t sector,
                         uint32_t blocks, uint64_t iova)
{
    sdhi_cmd_ok(qts, EMMC_SLOT, CMD_R1 | 23, blocks);
    return sdhi_dma_transfer(qts, EMMC_SLOT, read, sector, blocks, iova,
                             CMD_NO_CMD12);
}

/*
 * A DMA that the IPMMU stops: start it and let it run into the fault.
 * Afterwards the card is brought back the way the mmc core does.
 */
static void dma_expect_error(QTestState *qts, int slot, bool read,
                             uint32_t sector, uint32_t blocks, uint64_t iova)
{
    sdhi_setup_data(qts, slot, blocks);
    sdhi_dma_setup(qts, slot, read, iova);
    sdhi_cmd_ok(qts, slot, sdhi_rw_cmd(read, blocks), sdhi_card_addr(sector));
    sdhi_wr32(qts, slot, DM_CM_DTRAN_CTRL, 1);
    sdhi_wait_bus_idle(qts, slot);
    g_assert_cmphex(sdhi_rd32(qts, slot, DM_CM_INFO2) &
                    (read ? DTRANERR1 : DTRANERR0), !=, 0);
    g_assert_cmphex(sdhi_rd32(qts, slot, DM_CM_INFO1) &
                    (DTRANEND0 | DTRANEND1), ==, 0);
    g_assert_false(sdhi_rd16(qts, slot, SD_INFO2) & INFO2_CBSY);
}

static void emmc_dma_expect_error(QTestState *qts, bool read, uint32_t sector,
                                  uint32_t blocks, uint64_t iova)
{
    dma_expect_error(qts, EMMC_SLOT, read, sector, blocks, iova);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_INFO2, 0);
    sdhi_wr16(qts, EMMC_SLOT, CC_EXT_MODE, 0);
    sdhi_wr16(qts, EMMC_SLOT, SD_STOP, 0);
    g_assert_cmpuint(R1_STATE(sdhi_card_status(qts, EMMC_SLOT, EMMC_RCA)),
                     ==, STATE_TRAN);
}

/* Reset: uTLBs off, so the SDHI's bus addresses are physical addresses */
static void test_bypass_at_reset(void)
{
    QTestState *qts = ipmmu_boot("");

    g_assert_cmphex(ds1_rd(qts, IMUCTR(SDHI2_UTLB)), ==, 0);
    emmc_dma(qts, true, 100, 16, DATA_POOL);
    assert_page_from_image(qts, DATA_POOL, 100 * BLKSZ);
    assert_page_from_image(qts, DATA_POOL + PAGE, 100 * BLKSZ + PAGE);
    /* Physical addresses: one run */
    g_assert_cmpuint(sdhi2_counter(qts, "x-dma-max-phys-runs"), ==, 1);
    qtest_quit(qts);
}

/* Page i of the IOVA range lives at a scattered physical page */
static uint64_t scattered_pa(unsigned i)
{
    /* Backwards and with holes: no two neighbours are adjacent */
    return DATA_POOL + (64 - 3 * i) * PAGE;
}

#define SCATTER_PAGES 16

static void map_scattered(PageTable *pt, uint64_t iova, bool ro)
{
    for (unsigned i = 0; i < SCATTER_PAGES; i++) {
        pt_map_page(pt, iova + i * PAGE, scattered_pa(i), ro);
    }
}

static void test_scattered_pages_read(void)
{
    QTestState *qts = ipmmu_boot("");
    const uint32_t sector = 2048;
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    map_scattered(&pt, IOVA_TOP, false);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);

    /* One transfer, 64 KiB, one bus address range */
    g_assert_cmphex(emmc_dma(qts, true, sector, SCATTER_PAGES * PAGE / BLKSZ,
                             IOVA_TOP) & DTRANEND1, ==, DTRANEND1);
    for (unsigned i = 0; i < SCATTER_PAGES; i++) {
        assert_page_from_image(qts, scattered_pa(i),
                               sector * BLKSZ + i * PAGE);
    }
    g_assert_cmpuint(sdhi2_counter(qts, "x-dma-transfers"), ==, 1);
    g_assert_cmpuint(sdhi2_counter(qts, "x-dma-max-phys-runs"), ==,
                     SCATTER_PAGES);
    g_assert_cmpuint(sdhi2_counter(qts, "x-dma-multi-run-transfers"), ==, 1);
    /* The counter the docs point at for debugging counts them */
    g_assert_cmpuint(ds1_counter(qts, "x-translations"), >, 0);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, 0);
    g_assert_false(fault_irq(qts));
    qtest_quit(qts);
}

static void test_scattered_pages_write(void)
{
    QTestState *qts = ipmmu_boot("");
    const uint32_t sector = 6000;
    g_autofree uint8_t *data = g_malloc(SCATTER_PAGES * PAGE);
    PageTable pt;

    for (unsigned i = 0; i < SCATTER_PAGES * PAGE; i++) {
        data[i] = sdhi_pattern(i / BLKSZ, i % BLKSZ, 0x77);
    }
    for (unsigned i = 0; i < SCATTER_PAGES; i++) {
        qtest_memwrite(qts, scattered_pa(i), data + i * PAGE, PAGE);
    }
    pt_init(&pt, qts, PT_POOL);
    /* The device only reads: DMA_TO_DEVICE maps read-only (AP[2]) */
    map_scattered(&pt, IOVA_TOP, true);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);

    g_assert_cmphex(emmc_dma(qts, false, sector, SCATTER_PAGES * PAGE / BLKSZ,
                             IOVA_TOP) & DTRANEND0, ==, DTRANEND0);
    sdhi_check_against_image(emmc_img, sector, data,
                             SCATTER_PAGES * PAGE / BLKSZ);
    g_assert_cmpuint(sdhi2_counter(qts, "x-dma-max-phys-runs"), ==,
                     SCATTER_PAGES);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, 0);
    qtest_quit(qts);
}

/* 2 MiB and 1 GiB blocks translate; a contiguous range is one run */
static void test_blocks(void)
{
    QTestState *qts = ipmmu_boot("");
    const uint64_t pa_2m = DATA_POOL + 2 * MiB;
    const uint64_t iova_1g = 0xc0000000;
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    pt_map_block_2m(&pt, 0x80000000, pa_2m);
    pt_map_block_1g(&pt, iova_1g, 0x40000000);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);

    /* 128 KiB in the middle of the 2 MiB block */
    emmc_dma(qts, true, 300, 256, 0x80000000 + 64 * KiB);
    for (unsigned i = 0; i < 32; i++) {
        assert_page_from_image(qts, pa_2m + 64 * KiB + i * PAGE,
                               300 * BLKSZ + i * PAGE);
    }
    g_assert_cmpuint(sdhi2_counter(qts, "x-dma-max-phys-runs"), ==, 1);

    /* The 1 GiB block maps IOVA 3 GiB to PA 1 GiB: RAM from 0x48000000 */
    emmc_dma(qts, true, 700, 8, iova_1g + (DATA_POOL + 8 * MiB - 0x40000000));
    assert_page_from_image(qts, DATA_POOL + 8 * MiB, 700 * BLKSZ);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, 0);
    qtest_quit(qts);
}

static void test_translation_fault(void)
{
    QTestState *qts = ipmmu_boot("");
    const uint64_t hole = IOVA_TOP + 3 * PAGE;
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    map_scattered(&pt, IOVA_TOP, false);
    pt_set_pte(&pt, hole, 0);                   /* page 3 is not mapped */
    for (unsigned i = 0; i < SCATTER_PAGES; i++) {
        qtest_memset(qts, scattered_pa(i), 0xaa, PAGE);
    }
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);
    g_assert_false(fault_irq(qts));

    emmc_dma_expect_error(qts, true, 0, 64, IOVA_TOP);
    /* The root latches the fault and raises SPI 196 (:487-535) */
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, IMSTR_TF);
    g_assert_cmphex(mm_rd(qts, IMELAR(1)), ==, hole);
    g_assert_cmphex(mm_rd(qts, IMEUAR(1)), ==, 0);
    g_assert_cmphex(ds1_rd(qts, IMSTR(1)), ==, 0);
    g_assert_true(fault_irq(qts));
    /* What came before the hole arrived; nothing after it was written */
    assert_page_from_image(qts, scattered_pa(2), 2 * PAGE);
    for (unsigned i = 4; i < 8; i++) {
        assert_untouched(qts, scattered_pa(i), 0xaa, PAGE);
    }

    /* ipmmu_domain_irq(): read IMELAR, then write 0 to IMSTR */
    mm_wr(qts, IMSTR(1), 0);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, 0);
    g_assert_false(fault_irq(qts));

    /* Map the page and flush: the same transfer now goes through */
    pt_map_page(&pt, hole, scattered_pa(3), false);
    ctx_flush(qts, 1);
    g_assert_cmphex(emmc_dma(qts, true, 0, 64, IOVA_TOP) & DTRANEND1, ==,
                    DTRANEND1);
    for (unsigned i = 0; i < 8; i++) {
        assert_page_from_image(qts, scattered_pa(i), i * PAGE);
    }
    g_assert_false(fault_irq(qts));
    qtest_quit(qts);
}

/* The card writes into memory through a read-only mapping: PF */
static void test_permission_fault(void)
{
    QTestState *qts = ipmmu_boot("");
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    map_scattered(&pt, IOVA_TOP, true);
    for (unsigned i = 0; i < SCATTER_PAGES; i++) {
        qtest_memset(qts, scattered_pa(i), 0x5a, PAGE);
    }
    ctx_setup(qts, 2, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 2);

    emmc_dma_expect_error(qts, true, 16, 8, IOVA_TOP);
    g_assert_cmphex(mm_rd(qts, IMSTR(2)), ==, IMSTR_PF);
    g_assert_cmphex(mm_rd(qts, IMELAR(2)), ==, IOVA_TOP);
    g_assert_true(fault_irq(qts));
    assert_untouched(qts, scattered_pa(0), 0x5a, PAGE);

    /* Reading from the same pages is allowed */
    mm_wr(qts, IMSTR(2), 0);
    g_assert_false(fault_irq(qts));
    g_assert_cmphex(emmc_dma(qts, false, 16, 8, IOVA_TOP) & DTRANEND0, ==,
                    DTRANEND0);
    g_assert_cmphex(mm_rd(qts, IMSTR(2)), ==, 0);
    qtest_quit(qts);
}

/* Table walks that end badly: reserved L3 type, tables in no memory */
static void test_walk_errors(void)
{
    QTestState *qts = ipmmu_boot("");
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    map_scattered(&pt, IOVA_TOP, false);
    /* At level 3, type 0b01 is reserved */
    pt_set_pte(&pt, IOVA_TOP, scattered_pa(0) | PTE_BLOCK | PTE_ATTRS);
    /* An L1 entry pointing at a table where nothing is mapped */
    qtest_writeq(qts, pt.l1, NO_MEMORY | PTE_TABLE);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);

    emmc_dma_expect_error(qts, true, 0, 8, IOVA_TOP);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, IMSTR_TF);
    mm_wr(qts, IMSTR(1), 0);

    emmc_dma_expect_error(qts, true, 0, 8, 0x00100000);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, IMSTR_ABORT);
    g_assert_cmphex(mm_rd(qts, IMELAR(1)), ==, 0x00100000);
    g_assert_true(fault_irq(qts));
    mm_wr(qts, IMSTR(1), 0);
    g_assert_false(fault_irq(qts));
    qtest_quit(qts);
}

/*
 * A 512-byte DMA into an unmapped page faults at its first access: the
 * context latches that address (ipmmu_domain_irq() reports IMELAR).
 */
static void test_one_fault_per_access(void)
{
    QTestState *qts = ipmmu_boot("");
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);
    emmc_dma_expect_error(qts, true, 0, 1, IOVA_TOP);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, IMSTR_TF);
    g_assert_cmphex(mm_rd(qts, IMELAR(1)), ==, IOVA_TOP);
    qtest_quit(qts);
}

/*
 * IMTTBCR values whose start level does not fit the input size: SL0 =
 * level 1 with T0SZ 2 leaves the first level no index bits (the walk
 * asserted), SL0 = level 2 with a 32-bit IOVA needs 11.  Both are
 * translation faults; Linux's value (T0SZ 0, level 1) works.
 */
static void test_walk_geometry(void)
{
    static const uint32_t bad_imttbcr[] = { 0x80000082, 0x80000040 };
    QTestState *qts = ipmmu_boot("");
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    map_scattered(&pt, 0x3ff00000, false);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);
    for (unsigned i = 0; i < ARRAY_SIZE(bad_imttbcr); i++) {
        mm_wr(qts, IMTTBCR(1), bad_imttbcr[i]);
        emmc_dma_expect_error(qts, true, 0, 8, 0x3ff00000);
        g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, IMSTR_TF);
        g_assert_cmphex(mm_rd(qts, IMELAR(1)), ==, 0x3ff00000);
        mm_wr(qts, IMSTR(1), 0);
    }
    mm_wr(qts, IMTTBCR(1), IMTTBCR_LINUX);
    g_assert_cmphex(emmc_dma(qts, true, 0, 8, 0x3ff00000) & DTRANEND1, ==,
                    DTRANEND1);
    assert_page_from_image(qts, scattered_pa(0), 0);
    qtest_quit(qts);
}

/* IMCTR.INTEN gates the level IRQ; the status is latched regardless */
static void test_inten_gates_irq(void)
{
    QTestState *qts = ipmmu_boot("");
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    ctx_setup(qts, 3, &pt, IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 3);

    emmc_dma_expect_error(qts, true, 0, 8, IOVA_TOP);
    g_assert_cmphex(mm_rd(qts, IMSTR(3)), ==, IMSTR_TF);
    g_assert_false(fault_irq(qts));
    mm_wr(qts, IMCTR(3), IMCTR_INTEN | IMCTR_MMUEN);
    g_assert_true(fault_irq(qts));
    /* Writing back what was read keeps it (ipmmu_domain_setup_context()) */
    mm_wr(qts, IMSTR(3), mm_rd(qts, IMSTR(3)));
    g_assert_cmphex(mm_rd(qts, IMSTR(3)), ==, IMSTR_TF);
    g_assert_true(fault_irq(qts));
    mm_wr(qts, IMSTR(3), 0);
    g_assert_false(fault_irq(qts));
    g_assert_cmphex(mm_rd(qts, IMELAR(3)), ==, 0);
    qtest_quit(qts);
}

/*
 * Linux invalidates a context's TLB after it unmaps (ipmmu_tlb_flush_all():
 * IMCTR.FLUSH in ipmmu_tlb_invalidate(), polled to 0 by ipmmu_tlb_sync()); a
 * translation used before may be cached until then, and must not be
 * after it.  Whether a stale one serves before the flush is the TLB's
 * business, not Linux's: it is not checked.
 */
static void test_flush(void)
{
    QTestState *qts = ipmmu_boot("");
    const uint64_t pa_old = DATA_POOL, pa_new = DATA_POOL + 16 * PAGE;
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    pt_map_page(&pt, IOVA_TOP, pa_old, false);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    g_assert_cmphex(mm_rd(qts, IMCTR(1)), ==, IMCTR_INTEN | IMCTR_MMUEN);
    g_assert_cmphex(ds1_rd(qts, IMCTR(1)), ==, IMCTR_INTEN | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);
    g_assert_cmphex(ds1_rd(qts, IMUCTR(SDHI2_UTLB)), ==,
                    IMUCTR_TTSEL(1) | IMUCTR_MMUEN);

    emmc_dma(qts, true, 40, 8, IOVA_TOP);
    assert_page_from_image(qts, pa_old, 40 * BLKSZ);

    /* Remapped and flushed: the new page is used, the old one is not */
    qtest_memset(qts, pa_old, 0, PAGE);
    qtest_memset(qts, pa_new, 0, PAGE);
    pt_map_page(&pt, IOVA_TOP, pa_new, false);
    ctx_flush(qts, 1);
    emmc_dma(qts, true, 56, 8, IOVA_TOP);
    assert_page_from_image(qts, pa_new, 56 * BLKSZ);
    assert_untouched(qts, pa_old, 0, PAGE);
    qtest_quit(qts);
}

/* Two contexts with their own tables; the uTLB's TTSEL picks one */
static void test_contexts(void)
{
    QTestState *qts = ipmmu_boot("");
    const uint64_t pa5 = DATA_POOL, pa7 = DATA_POOL + 8 * PAGE;
    PageTable pt5, pt7;

    pt_init(&pt5, qts, PT_POOL);
    pt_init(&pt7, qts, PT_POOL + 64 * PAGE);
    pt_map_page(&pt5, IOVA_TOP, pa5, false);
    pt_map_page(&pt7, IOVA_TOP, pa7, false);
    ctx_setup(qts, 5, &pt5, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    ctx_setup(qts, 7, &pt7, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);

    utlb_enable(qts, SDHI2_UTLB, 7);
    emmc_dma(qts, true, 80, 8, IOVA_TOP);
    assert_page_from_image(qts, pa7, 80 * BLKSZ);

    utlb_enable(qts, SDHI2_UTLB, 5);
    emmc_dma(qts, true, 88, 8, IOVA_TOP);
    assert_page_from_image(qts, pa5, 88 * BLKSZ);
    assert_page_from_image(qts, pa7, 80 * BLKSZ);

    /* uTLB off again (identity domain, :638-657): physical addresses */
    ds1_wr(qts, IMUCTR(SDHI2_UTLB), 0);
    emmc_dma(qts, true, 96, 8, DATA_POOL + 32 * PAGE);
    assert_page_from_image(qts, DATA_POOL + 32 * PAGE, 96 * BLKSZ);
    qtest_quit(qts);
}

/*
 * uTLBs >= 32 are at 0x600 + 16 (n - 32), not 0x300 + 16 n: the naive
 * offset of uTLB 32 is IMSCTLR (ipmmu-vmsa.c IMUCTR()).
 */
static void test_utlb_banks(void)
{
    QTestState *qts = ipmmu_boot("");
    PageTable pt;

    ds1_wr(qts, IMSCTLR, 0x12345678);
    g_assert_cmphex(ds1_rd(qts, IMUCTR(32)), ==, 0);
    ds1_wr(qts, IMUCTR(32), IMUCTR_TTSEL(4));
    g_assert_cmphex(ds1_rd(qts, IMSCTLR), ==, 0x12345678);
    g_assert_cmphex(ds1_rd(qts, 0x600), ==, IMUCTR_TTSEL(4));
    /* FLUSH reads back 0 */
    ds1_wr(qts, IMUCTR(47), IMUCTR_TTSEL(2) | IMUCTR_FLUSH);
    g_assert_cmphex(ds1_rd(qts, 0x6f0), ==, IMUCTR_TTSEL(2));

    /* uTLB 2 (0x320) is not SDHI2's: enabling it changes nothing */
    pt_init(&pt, qts, PT_POOL);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, 2, 1);
    g_assert_cmphex(ds1_rd(qts, 0x320), ==, IMUCTR_TTSEL(1) | IMUCTR_MMUEN);
    emmc_dma(qts, true, 120, 8, DATA_POOL);
    assert_page_from_image(qts, DATA_POOL, 120 * BLKSZ);
    g_assert_false(fault_irq(qts));

    /* uTLB 34 (0x620) is: the empty table faults */
    utlb_enable(qts, SDHI2_UTLB, 1);
    emmc_dma_expect_error(qts, true, 0, 8, DATA_POOL);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, IMSTR_TF);
    qtest_quit(qts);
}

typedef struct UtlbCase {
    const RCarGen3TestMachine *m;
    unsigned sdhi;
} UtlbCase;

/*
 * Each SDHI of each SoC masters through its own uTLB of IPMMU-DS1: with
 * the uTLBs of the other SDHIs sending to an empty table its DMA still
 * goes straight to memory; with its own, the DMA faults.  An SD card sits
 * in the channel under test (on the eMMC channel too).
 */
static void test_sdhi_utlb_routing(const void *data)
{
    const UtlbCase *c = data;
    QTestState *qts = qtest_initf("-M %s -smp 1 -drive if=none,id=card,"
                                  "file=%s,format=raw -device sd-card,"
                                  "bus=sdhi%u.sd-bus,drive=card",
                                  c->m->name, emmc_img, c->sdhi);
    PageTable pt;

    sdhi_sd_init_slot(qts, c->sdhi);
    pt_init(&pt, qts, PT_POOL);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    for (unsigned n = 0; n < 4; n++) {
        if (n != c->sdhi) {
            utlb_enable(qts, SDHI_UTLB(n), 1);
        }
    }
    g_assert_cmphex(sdhi_dma_transfer(qts, c->sdhi, true, 8, 8, DATA_POOL, 0)
                    & DTRANEND1, ==, DTRANEND1);
    assert_page_from_image(qts, DATA_POOL, 8 * BLKSZ);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, 0);

    utlb_enable(qts, SDHI_UTLB(c->sdhi), 1);
    dma_expect_error(qts, c->sdhi, true, 16, 8, DATA_POOL);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, IMSTR_TF);
    g_assert_cmphex(mm_rd(qts, IMELAR(1)), ==, DATA_POOL);
    qtest_quit(qts);
}

/* iommu=off: the SDHI goes straight to memory whatever the IPMMU says */
static void test_iommu_off(void)
{
    QTestState *qts = ipmmu_boot(",iommu=off");
    PageTable pt;

    pt_init(&pt, qts, PT_POOL);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);
    emmc_dma(qts, true, 140, 8, DATA_POOL);
    assert_page_from_image(qts, DATA_POOL, 140 * BLKSZ);
    g_assert_cmpuint(ds1_counter(qts, "x-translations"), ==, 0);
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, 0);
    qtest_quit(qts);
}

/*
 * Random register writes on both instances, tables anywhere (RAM, holes,
 * MMIO, the SDHI itself) and DMA started on top: QEMU must survive, the
 * fault interrupt must follow IMSTR and INTEN, and after Linux's recovery
 * DMA through the IPMMU works as before.
 */
static void test_random_accesses(void)
{
    QTestState *qts = ipmmu_boot("");
    static const unsigned hot[] = {
        IMCTR(1), IMTTBCR(1), IMTTLBR0(1), IMTTUBR0(1), IMSTR(1),
        IMCTR(7), IMUCTR(SDHI2_UTLB), IMUCTR(2), IMSCTLR,
    };
    static const uint32_t tables[] = {
        PT_POOL, NO_MEMORY, 0xee140000, 0xfff00040, 0xe67b0000, 0,
    };
    GRand *rand = g_rand_new_with_seed(0x7795);
    bool irq_expected = false;
    PageTable pt;

    for (int i = 0; i < 20000; i++) {
        uint64_t base = g_rand_boolean(rand) ? IPMMU_MM : IPMMU_DS1;
        unsigned off = g_rand_boolean(rand) ?
                       hot[g_rand_int_range(rand, 0, ARRAY_SIZE(hot))] :
                       g_rand_int_range(rand, 0, 0x1000) & ~3;
        uint32_t val = g_rand_int(rand);

        if (off == IMTTLBR0(1)) {
            val = tables[g_rand_int_range(rand, 0, ARRAY_SIZE(tables))] +
                  (val & 0x1f);
        }
        if (off == IMUCTR(SDHI2_UTLB)) {
            val &= 0xff;
        }
        if (g_rand_boolean(rand)) {
            qtest_readl(qts, base + off);
        } else {
            qtest_writel(qts, base + off, val);
        }
        if (!(i % 64) &&
            !(sdhi_rd16(qts, EMMC_SLOT, SD_INFO2) & INFO2_CBSY)) {
            sdhi_setup_data(qts, EMMC_SLOT, 8);
            sdhi_dma_setup(qts, EMMC_SLOT, g_rand_boolean(rand),
                           g_rand_int(rand) & ~0x7fU);
            sdhi_wr16(qts, EMMC_SLOT, SD_ARG, 0);
            sdhi_wr16(qts, EMMC_SLOT, SD_CMD, sdhi_rw_cmd(true, 8));
            qtest_clock_step(qts, 1000);
            sdhi_wr32(qts, EMMC_SLOT, DM_CM_DTRAN_CTRL, 1);
        }
        if (!(i % 16)) {
            qtest_clock_step(qts, 1000);
        }
    }
    g_rand_free(rand);

    /* Alive, decoding, and the interrupt agrees with the registers */
    for (unsigned c = 0; c < 8; c++) {
        irq_expected |= (mm_rd(qts, IMCTR(c)) & IMCTR_INTEN) &&
                        (mm_rd(qts, IMSTR(c)) & 0x17);
    }
    g_assert_cmpint(fault_irq(qts), ==, irq_expected);
    for (unsigned c = 0; c < 8; c++) {
        mm_wr(qts, IMSTR(c), 0);
    }
    g_assert_false(fault_irq(qts));
    mm_wr(qts, IMTTLBR0(6), 0x12345000);
    g_assert_cmphex(mm_rd(qts, IMTTLBR0(6)), ==, 0x12345000);

    /*
     * Linux's recovery: the host's DMAC and SD core reset (as in
     * renesas_sdhi_internal_dmac_abort_dma() and tmio_mmc_reset()), the
     * card initialised again, a context set up afresh and the uTLB
     * pointed at it (ipmmu_domain_setup_context(), ipmmu_utlb_enable()).
     * A scattered read then lands where the new table says.
     */
    sdhi_wait_bus_idle(qts, EMMC_SLOT);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_RST, 0xfffffcff);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_RST, 0xffffffff);
    sdhi_wr16(qts, EMMC_SLOT, SOFT_RST, 0);
    sdhi_wr16(qts, EMMC_SLOT, SOFT_RST, 1);
    sdhi_ack(qts, EMMC_SLOT, 0xffffffff);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_INFO1, 0);
    sdhi_wr32(qts, EMMC_SLOT, DM_CM_INFO2, 0);
    sdhi_emmc_init(qts);
    pt_init(&pt, qts, PT_POOL);
    map_scattered(&pt, IOVA_TOP, false);
    ctx_setup(qts, 1, &pt, IMCTR_INTEN | IMCTR_FLUSH | IMCTR_MMUEN);
    utlb_enable(qts, SDHI2_UTLB, 1);
    g_assert_cmphex(emmc_dma(qts, true, 4096, SCATTER_PAGES * PAGE / BLKSZ,
                             IOVA_TOP) & DTRANEND1, ==, DTRANEND1);
    for (unsigned i = 0; i < SCATTER_PAGES; i++) {
        assert_page_from_image(qts, scattered_pa(i), 4096 * BLKSZ + i * PAGE);
    }
    g_assert_cmphex(mm_rd(qts, IMSTR(1)), ==, 0);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    static UtlbCase utlb_cases[ARRAY_SIZE(rcar_gen3_test_machines)][4];
    int ret;

    sdhi_make_image(emmc_img, 0x3c);
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/rcar-ipmmu/bypass-at-reset", test_bypass_at_reset);
    qtest_add_func("/rcar-ipmmu/scattered-pages-read",
                   test_scattered_pages_read);
    qtest_add_func("/rcar-ipmmu/scattered-pages-write",
                   test_scattered_pages_write);
    qtest_add_func("/rcar-ipmmu/blocks", test_blocks);
    qtest_add_func("/rcar-ipmmu/translation-fault", test_translation_fault);
    qtest_add_func("/rcar-ipmmu/permission-fault", test_permission_fault);
    qtest_add_func("/rcar-ipmmu/walk-errors", test_walk_errors);
    qtest_add_func("/rcar-ipmmu/one-fault-per-access",
                   test_one_fault_per_access);
    qtest_add_func("/rcar-ipmmu/walk-geometry", test_walk_geometry);
    qtest_add_func("/rcar-ipmmu/inten-gates-irq", test_inten_gates_irq);
    qtest_add_func("/rcar-ipmmu/flush", test_flush);
    qtest_add_func("/rcar-ipmmu/contexts", test_contexts);
    qtest_add_func("/rcar-ipmmu/utlb-banks", test_utlb_banks);
    qtest_add_func("/rcar-ipmmu/iommu-off", test_iommu_off);
    qtest_add_func("/rcar-ipmmu/random-accesses", test_random_accesses);
    for (unsigned i = 0; i < ARRAY_SIZE(rcar_gen3_test_machines); i++) {
        const RCarGen3TestMachine *m = &rcar_gen3_test_machines[i];

        for (unsigned n = 0; n < 4; n++) {
            UtlbCase *c = &utlb_cases[i][n];
            g_autofree char *path = NULL;

            if (!(m->sdhi_mask & BIT(n))) {
                continue;
            }
            *c = (UtlbCase) { .m = m, .sdhi = n };
            path = g_strdup_printf("/rcar-ipmmu/%s/sdhi%u-utlb", m->name, n);
            qtest_add_data_func(path, c, test_sdhi_utlb_routing);
        }
    }

    ret = g_test_run();
    unlink(emmc_img);
    return ret;
}
