/*
 * The R-Car Gen3 boards that the qtests run on
 *
 * Addresses come from the SoC's table (hw/arm/rcar-gen3-memmap.h, which
 * "make check" compares with the .dtsi files of Linux).  What each board
 * is expected to be comes from Linux, not from the model: the PRR value
 * that drivers/soc/renesas/renesas-soc.c decodes, the SD/MMC hosts of the
 * SoC's .dtsi, the CPUs of the board's .dts.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef RCAR_GEN3_MACHINES_H
#define RCAR_GEN3_MACHINES_H

#include "hw/arm/rcar-gen3-memmap.h"
#include "libqtest.h"
#include "qobject/qdict.h"

typedef struct RCarGen3TestMachine {
    const char *name;
    const char *soc;
    const RCarGen3Dev *devs;
    unsigned num_devs;
    uint32_t prr;               /* PRR at reset: product << 8 | cut */
    uint8_t sdhi_mask;          /* the SDHI channels of the SoC */
    unsigned emmc_sdhi;         /* where the board's eMMC is */
    unsigned cpus;              /* CPUs of the board's .dts */
    /* The core types of the SoC's .dtsi, cluster 0 first */
    const char *cores[3];
    /* The USB 2.0 channels whose EHCI the board's .dts enables */
    uint8_t usb2_mask;
    /*
     * The board's DRAM, in MiB: the .dts's memory nodes plus the 128 MiB
     * at 0x40000000 that the secure firmware keeps for itself
     */
    unsigned dram_mib;
} RCarGen3TestMachine;

static const RCarGen3TestMachine rcar_gen3_test_machines[] = {
    {
        /* "r8a7795 ES3.0"; four SDHIs, eMMC on SDHI2; 4x A57 + 4x A53 */
        .name = "r8a77951-salvator-xs", .soc = "r8a77951",
        .devs = r8a77951_devs, .num_devs = ARRAY_SIZE(r8a77951_devs),
        .prr = 0x00004f20, .sdhi_mask = 0xf, .emmc_sdhi = 2, .cpus = 8,
        .cores = { "cortex-a57", "cortex-a53" },
        .usb2_mask = 0xf,
        /* 896 MiB at 0x48000000 and 3x 1 GiB above 4 GiB */
        .dram_mib = 4096,
    }, {
        /* "r8a77965 ES1.0"; four SDHIs, eMMC on SDHI2; 2x A57 */
        .name = "r8a77965-salvator-xs", .soc = "r8a77965",
        .devs = r8a77965_devs, .num_devs = ARRAY_SIZE(r8a77965_devs),
        .prr = 0x00005500, .sdhi_mask = 0xf, .emmc_sdhi = 2, .cpus = 2,
        .cores = { "cortex-a57" },
        .usb2_mask = 0x3,
        /* 1920 MiB at 0x48000000 */
        .dram_mib = 2048,
    }, {
        /* "r8a77990 ES1.1"; SDHI0, 1 and 3, eMMC on SDHI3; 2x A53 */
        .name = "r8a77990-ebisu", .soc = "r8a77990",
        .devs = r8a77990_devs, .num_devs = ARRAY_SIZE(r8a77990_devs),
        .prr = 0x00005701, .sdhi_mask = 0xb, .emmc_sdhi = 3, .cpus = 2,
        .cores = { "cortex-a53" },
        .usb2_mask = 0x1,
        /* 896 MiB at 0x48000000 */
        .dram_mib = 1024,
    }, {
        /* The ULCB starter kits: the same SoCs and RAM, eMMC on SDHI2 */
        .name = "r8a77951-ulcb", .soc = "r8a77951",
        .devs = r8a77951_devs, .num_devs = ARRAY_SIZE(r8a77951_devs),
        .prr = 0x00004f20, .sdhi_mask = 0xf, .emmc_sdhi = 2, .cpus = 8,
        .cores = { "cortex-a57", "cortex-a53" },
        .usb2_mask = 0x2,
        .dram_mib = 4096,
    }, {
        /* r8a779m1.dtsi includes r8a77951.dtsi: an H3 to renesas-soc.c */
        .name = "r8a779m1-ulcb", .soc = "r8a779m1",
        .devs = r8a77951_devs, .num_devs = ARRAY_SIZE(r8a77951_devs),
        .prr = 0x00004f20, .sdhi_mask = 0xf, .emmc_sdhi = 2, .cpus = 8,
        .cores = { "cortex-a57", "cortex-a53" },
        .usb2_mask = 0x2,
        .dram_mib = 4096,
    }, {
        .name = "r8a77965-ulcb", .soc = "r8a77965",
        .devs = r8a77965_devs, .num_devs = ARRAY_SIZE(r8a77965_devs),
        .prr = 0x00005500, .sdhi_mask = 0xf, .emmc_sdhi = 2, .cpus = 2,
        .cores = { "cortex-a57" },
        .usb2_mask = 0x2,
        .dram_mib = 2048,
    },
};

/* The base of model @kind number @index on machine @m; fails if none */
static inline uint64_t rcar_gen3_test_base(const RCarGen3TestMachine *m,
                                           RCarGen3DevKind kind,
                                           unsigned index)
{
    const RCarGen3Dev *d = rcar_gen3_find_dev(m->devs, m->num_devs, kind,
                                              index);

    g_assert_nonnull(d);
    return d->base;
}

/* The H3 board, where most tests run */
#define RCAR_GEN3_H3 (&rcar_gen3_test_machines[0])

/*
 * Wait until the migration of @qts completes or fails, and check that it
 * ended as @want ("completed" or "failed")
 */
static inline void rcar_gen3_wait_migration(QTestState *qts,
                                            const char *want)
{
    for (int i = 0; i < 1000; i++) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *status = qdict_get_try_str(ret, "status");
        bool done = status && (!strcmp(status, "completed") ||
                               !strcmp(status, "failed"));

        if (done) {
            g_assert_cmpstr(status, ==, want);
            qobject_unref(rsp);
            return;
        }
        qobject_unref(rsp);
        g_usleep(10000);
    }
    g_assert_not_reached();
}

#endif
