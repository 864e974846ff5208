/*
 * Renesas R-Car Gen3 boards: Salvator-XS with R-Car H3 (r8a77951)
 *
 * The board chooses the SoC, gives it the RAM and, when the user passes
 * no -dtb, generates a device tree that is a strict subset of the
 * upstream r8a77951-salvator-xs.dts: same node names, addresses,
 * interrupts and compatibles, so that the kernel's drivers and the
 * IPMMU allow list (which matches on device names) see the same machine.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/error-report.h"
#include "qemu/guest-random.h"
#include "qemu/units.h"
#include "hw/arm/boot.h"
#include "hw/arm/rcar-gen3.h"
#include "hw/boards.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "system/block-backend.h"
#include "system/blockdev.h"
#include "system/device_tree.h"
#include "system/qtest.h"
#include <libfdt.h>

#define TYPE_RCAR_GEN3_MACHINE MACHINE_TYPE_NAME("rcar-gen3")
OBJECT_DECLARE_TYPE(RCarGen3MachineState, RCarGen3MachineClass,
                    RCAR_GEN3_MACHINE)

/* The card-detect (active low) and write-protect GPIOs of an SD slot */
typedef struct RCarGen3SlotWiring {
    unsigned sdhi;
    unsigned cd_bank, cd_pin;
    unsigned wp_bank, wp_pin;
} RCarGen3SlotWiring;

struct RCarGen3MachineClass {
    MachineClass parent_class;

    const char *soc_type;
    /* Root compatible of the board, before the SoC's */
    const char *board_compat;
    const char *model;
    /* Frequency of the SCIF functional clock (S3D4) on this board */
    uint32_t scif_fck_hz;
    /* The SDHI wired to the on-board eMMC; the others are SD slots */
    unsigned emmc_sdhi;
    /* SDHI channels the board uses (enabled in the device tree) */
    uint32_t sdhi_used;
    /* Where the SD slots' switches go: cd-gpios, wp-gpios of each SDHI */
    const RCarGen3SlotWiring *slots;
    unsigned num_slots;
};

/* The fastest bus mode the device tree lets Linux use on the eMMC */
typedef enum RCarGen3EmmcMode {
    RCAR_GEN3_EMMC_HS52,
    RCAR_GEN3_EMMC_HS200,
    RCAR_GEN3_EMMC_HS400,
} RCarGen3EmmcMode;

static const char *const rcar_gen3_emmc_mode_names[] = {
    [RCAR_GEN3_EMMC_HS52] = "hs52",
    [RCAR_GEN3_EMMC_HS200] = "hs200",
    [RCAR_GEN3_EMMC_HS400] = "hs400",
};

struct RCarGen3MachineState {
    MachineState parent_obj;

    RCarGen3State *soc;
    struct arm_boot_info binfo;
    int fdt_size;
    RCarGen3RamBank ram_banks[RCAR_GEN3_MAX_RAM_BANKS];
    unsigned num_ram_banks;

    /* SDHI channels with a card from -drive if=sd */
    uint32_t sdhi_with_card;

    /* Properties; 0 means the SoC's default */
    uint8_t prr_cut;
    bool iommu;
    RCarGen3EmmcMode emmc_mode;
};

/* GIC interrupt specifiers (include/dt-bindings/interrupt-controller) */
#define GIC_SPI             0
#define GIC_PPI             1
#define IRQ_TYPE_LEVEL_HIGH 4
#define IRQ_TYPE_LEVEL_LOW  8
#define GIC_CPU_MASK_SIMPLE(n) (((1 << (n)) - 1) << 8)

/* Set a string-list property from a NULL-terminated list of strings */
static void G_GNUC_NULL_TERMINATED fdt_setprop_strings(void *fdt,
                                                       const char *node,
                                                       const char *prop, ...)
{
    g_autoptr(GString) buf = g_string_new(NULL);
    const char *str;
    va_list ap;

    va_start(ap, prop);
    while ((str = va_arg(ap, const char *))) {
        g_string_append_len(buf, str, strlen(str) + 1);
    }
    va_end(ap);
    qemu_fdt_setprop(fdt, node, prop, buf->str, buf->len);
}

static void fdt_add_memory_bank(void *fdt, const RCarGen3RamBank *bank)
{
    g_autofree char *node = g_strdup_printf("/memory@%" HWADDR_PRIx,
                                            bank->base);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop_string(fdt, node, "device_type", "memory");
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, bank->base,
                                 2, bank->size);
}

static void fdt_add_cpus(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    unsigned n = m->soc->num_cpus;

    qemu_fdt_add_subnode(fdt, "/cpus");
    qemu_fdt_setprop_cell(fdt, "/cpus", "#address-cells", 1);
    qemu_fdt_setprop_cell(fdt, "/cpus", "#size-cells", 0);

    /*
     * libfdt adds each subnode in front of its siblings: create the CPUs
     * backwards so that they appear in MPIDR order, which is the order
     * Linux numbers them in.
     */
    for (int i = n - 1; i >= 0; i--) {
        unsigned cluster = rcar_gen3_cpu_cluster(sc, i);
        uint64_t mpidr = rcar_gen3_cpu_mpidr(sc, i);
        g_autofree char *node = g_strdup_printf("/cpus/cpu@%" PRIx64, mpidr);
        const char *type = sc->cluster_cpu_type[cluster];
        /* "cortex-a57-arm-cpu" is "arm,cortex-a57" in the device tree */
        int model_len = strlen(type) - strlen("-" TYPE_ARM_CPU);
        g_autofree char *compat = g_strdup_printf("arm,%.*s", model_len, type);

        qemu_fdt_add_subnode(fdt, node);
        qemu_fdt_setprop_string(fdt, node, "device_type", "cpu");
        qemu_fdt_setprop_string(fdt, node, "compatible", compat);
        qemu_fdt_setprop_cell(fdt, node, "reg", mpidr);
        qemu_fdt_setprop_string(fdt, node, "enable-method", "psci");
        qemu_fdt_setprop_cell(fdt, node, "capacity-dmips-mhz",
                              sc->cluster_dmips_mhz[cluster]);
        qemu_fdt_setprop_cell(fdt, node, "phandle",
                              qemu_fdt_alloc_phandle(fdt));
    }

    qemu_fdt_add_subnode(fdt, "/cpus/cpu-map");
    for (int i = n - 1; i >= 0; i--) {
        unsigned cluster = rcar_gen3_cpu_cluster(sc, i);
        uint64_t mpidr = rcar_gen3_cpu_mpidr(sc, i);
        g_autofree char *cpu = g_strdup_printf("/cpus/cpu@%" PRIx64, mpidr);
        unsigned core = mpidr & 0xff;
        g_autofree char *node = g_strdup_printf(
            "/cpus/cpu-map/cluster%u/core%u", cluster, core);

        qemu_fdt_add_path(fdt, node);
        qemu_fdt_setprop_phandle(fdt, node, "cpu", cpu);
    }
}

static void fdt_add_timer(RCarGen3MachineState *m, void *fdt)
{
    uint32_t flags = GIC_CPU_MASK_SIMPLE(m->soc->num_cpus) | IRQ_TYPE_LEVEL_LOW;

    qemu_fdt_add_subnode(fdt, "/timer");
    qemu_fdt_setprop_string(fdt, "/timer", "compatible", "arm,armv8-timer");
    /* The same order and PPIs as r8a77951.dtsi */
    qemu_fdt_setprop_cells(fdt, "/timer", "interrupts",
                           GIC_PPI, 13, flags, GIC_PPI, 14, flags,
                           GIC_PPI, 11, flags, GIC_PPI, 10, flags);
    fdt_setprop_strings(fdt, "/timer", "interrupt-names",
                        "sec-phys", "phys", "virt", "hyp-phys", NULL);
}

static uint32_t fdt_add_fixed_clock(void *fdt, const char *name, uint32_t hz)
{
    g_autofree char *node = g_strdup_printf("/%s", name);
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop_string(fdt, node, "compatible", "fixed-clock");
    qemu_fdt_setprop_cell(fdt, node, "#clock-cells", 0);
    qemu_fdt_setprop_cell(fdt, node, "clock-frequency", hz);
    qemu_fdt_setprop_cell(fdt, node, "phandle", phandle);
    return phandle;
}

static uint32_t fdt_add_gic(RCarGen3MachineState *m, void *fdt)
{
    const char *node = "/soc/interrupt-controller@f1010000";
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop_string(fdt, node, "compatible", "arm,gic-400");
    qemu_fdt_setprop_cell(fdt, node, "#interrupt-cells", 3);
    qemu_fdt_setprop_cell(fdt, node, "#address-cells", 0);
    qemu_fdt_setprop(fdt, node, "interrupt-controller", NULL, 0);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg",
        2, rcar_gen3_memmap[RCAR_GEN3_DEV_GIC_DIST], 2, 0x1000,
        2, rcar_gen3_memmap[RCAR_GEN3_DEV_GIC_CPU], 2, 0x20000,
        2, rcar_gen3_memmap[RCAR_GEN3_DEV_GIC_VIFACE], 2, 0x20000,
        2, rcar_gen3_memmap[RCAR_GEN3_DEV_GIC_VCPU], 2, 0x20000);
    qemu_fdt_setprop_cells(fdt, node, "interrupts", GIC_PPI, 9,
                           GIC_CPU_MASK_SIMPLE(m->soc->num_cpus) |
                           IRQ_TYPE_LEVEL_HIGH);
    qemu_fdt_setprop_cell(fdt, node, "phandle", phandle);
    return phandle;
}

static uint32_t fdt_add_fixed_regulator(void *fdt, const char *name,
                                        uint32_t microvolt)
{
    g_autofree char *node = g_strdup_printf("/regulator-%s", name);
    g_autofree char *rname = g_strdup_printf("fixed-%s", name);
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop_string(fdt, node, "compatible", "regulator-fixed");
    qemu_fdt_setprop_string(fdt, node, "regulator-name", rname);
    qemu_fdt_setprop_cell(fdt, node, "regulator-min-microvolt", microvolt);
    qemu_fdt_setprop_cell(fdt, node, "regulator-max-microvolt", microvolt);
    qemu_fdt_setprop(fdt, node, "regulator-boot-on", NULL, 0);
    qemu_fdt_setprop(fdt, node, "regulator-always-on", NULL, 0);
    qemu_fdt_setprop_cell(fdt, node, "phandle", phandle);
    return phandle;
}

/*
 * The channels the board uses, and any other that the user gave a card:
 * SDHI1 is not wired on Salvator-XS, but -drive if=sd,index=1 means the
 * user wants it.
 */
static uint32_t sdhi_enabled(RCarGen3MachineState *m)
{
    return RCAR_GEN3_MACHINE_GET_CLASS(m)->sdhi_used | m->sdhi_with_card;
}

static char *sdhi_node_path(unsigned n)
{
    return g_strdup_printf("/soc/mmc@%" HWADDR_PRIx,
                           rcar_gen3_memmap[RCAR_GEN3_DEV_SDHI0 + n]);
}

/* Phandles of what the SDHI nodes refer to */
typedef struct RCarGen3SdhiFdtRefs {
    uint32_t clk;
    uint32_t vmmc;          /* 3.3 V card power */
    uint32_t vqmmc_1v8;     /* the eMMC's fixed 1.8 V I/O supply */
    uint32_t emmc_pins;     /* pin group of the eMMC channel, 1.8 V */
    uint32_t ipmmu;         /* 0: no IPMMU */
} RCarGen3SdhiFdtRefs;

/*
 * The eMMC as salvator-common.dtsi describes it: 8 bits at 1.8 V, with
 * the pinctrl states without which the SDHI driver refuses 1.8 V
 * signalling, and the HS200/HS400 capabilities that emmc-mode allows.
 */
static void fdt_add_emmc_props(RCarGen3MachineState *m, void *fdt,
                               const char *node,
                               const RCarGen3SdhiFdtRefs *refs)
{
    qemu_fdt_setprop_cells(fdt, node, "pinctrl-0", refs->emmc_pins);
    qemu_fdt_setprop_cells(fdt, node, "pinctrl-1", refs->emmc_pins);
    fdt_setprop_strings(fdt, node, "pinctrl-names", "default", "state_uhs",
                        NULL);
    qemu_fdt_setprop_cell(fdt, node, "vqmmc-supply", refs->vqmmc_1v8);
    if (m->emmc_mode >= RCAR_GEN3_EMMC_HS200) {
        qemu_fdt_setprop(fdt, node, "mmc-hs200-1_8v", NULL, 0);
    }
    if (m->emmc_mode >= RCAR_GEN3_EMMC_HS400) {
        qemu_fdt_setprop(fdt, node, "mmc-hs400-1_8v", NULL, 0);
    }
    qemu_fdt_setprop(fdt, node, "non-removable", NULL, 0);
    qemu_fdt_setprop(fdt, node, "no-sd", NULL, 0);
    qemu_fdt_setprop(fdt, node, "no-sdio", NULL, 0);
    qemu_fdt_setprop_cell(fdt, node, "fixed-emmc-driver-type", 1);
    qemu_fdt_setprop(fdt, node, "full-pwr-cycle-in-suspend", NULL, 0);
}

/*
 * The SDHI nodes of r8a77951.dtsi with the board's settings.  The node
 * name is ABI: the IPMMU allow list matches "ee100000.mmc" and friends.
 * Fixed clock and regulator stand in for the CPG and the board's GPIO
 * regulators; no cd-gpios, so card detect is native (SD_INFO1).
 */
static void fdt_add_sdhi(RCarGen3MachineState *m, void *fdt, unsigned n,
                         const RCarGen3SdhiFdtRefs *refs)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    g_autofree char *node = sdhi_node_path(n);
    g_autofree char *compat = g_strdup_printf("renesas,sdhi-%s", sc->dt_name);
    bool emmc = n == mc->emmc_sdhi;

    qemu_fdt_add_subnode(fdt, node);
    fdt_setprop_strings(fdt, node, "compatible", compat,
                        "renesas,rcar-gen3-sdhi", NULL);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg",
                                 2, rcar_gen3_memmap[RCAR_GEN3_DEV_SDHI0 + n],
                                 2, RENESAS_SDHI_MMIO_SIZE);
    qemu_fdt_setprop_cells(fdt, node, "interrupts", GIC_SPI,
                           RCAR_GEN3_SPI_SDHI0 + n, IRQ_TYPE_LEVEL_HIGH);
    qemu_fdt_setprop_cell(fdt, node, "clocks", refs->clk);
    qemu_fdt_setprop_string(fdt, node, "clock-names", "core");
    qemu_fdt_setprop_cell(fdt, node, "max-frequency", 200000000);
    qemu_fdt_setprop_cell(fdt, node, "vmmc-supply", refs->vmmc);
    qemu_fdt_setprop_cell(fdt, node, "bus-width", emmc ? 8 : 4);
    if (emmc) {
        fdt_add_emmc_props(m, fdt, node, refs);
    }
    if (refs->ipmmu) {
        qemu_fdt_setprop_cells(fdt, node, "iommus", refs->ipmmu,
                               RCAR_GEN3_SDHI0_UTLB + n);
    }
    if (!(sdhi_enabled(m) & BIT(n))) {
        qemu_fdt_setprop_string(fdt, node, "status", "disabled");
    }
}

/*
 * An IPMMU node of r8a77951.dtsi without "power-domains" (no SYSC
 * provider here; the driver does not use it).  The main instance has the
 * interrupts; a cache instance names its main one in "renesas,ipmmu-main"
 * (ipmmu-vmsa.c:1053-1057), with its bit in IMSSTR of the main one.
 */
static void fdt_add_ipmmu(RCarGen3MachineState *m, void *fdt, unsigned dev,
                          uint32_t phandle, uint32_t main_phandle)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    g_autofree char *compat = g_strdup_printf("renesas,ipmmu-%s", sc->dt_name);
    g_autofree char *node = g_strdup_printf("/soc/iommu@%" HWADDR_PRIx,
                                            rcar_gen3_memmap[dev]);

    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop_string(fdt, node, "compatible", compat);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, rcar_gen3_memmap[dev],
                                 2, RCAR_IPMMU_MMIO_SIZE);
    if (main_phandle) {
        qemu_fdt_setprop_cells(fdt, node, "renesas,ipmmu-main",
                               main_phandle, 1);
    } else {
        qemu_fdt_setprop_cells(fdt, node, "interrupts",
                               GIC_SPI, RCAR_GEN3_SPI_IPMMU_MM,
                               IRQ_TYPE_LEVEL_HIGH,
                               GIC_SPI, RCAR_GEN3_SPI_IPMMU_MM_SECURE,
                               IRQ_TYPE_LEVEL_HIGH);
    }
    qemu_fdt_setprop_cell(fdt, node, "#iommu-cells", 1);
    qemu_fdt_setprop_cell(fdt, node, "phandle", phandle);
}

/*
 * The PFC node of r8a77951.dtsi with one pin group: the eMMC pins of
 * salvator-common.dtsi (data8, ctrl and the HS400 data strobe) at 1.8 V.
 */
static void fdt_add_pfc(RCarGen3MachineState *m, void *fdt, uint32_t phandle)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    g_autofree char *compat = g_strdup_printf("renesas,pfc-%s", sc->dt_name);
    g_autofree char *pfc = g_strdup_printf("/soc/pinctrl@%" HWADDR_PRIx,
                                           rcar_gen3_memmap[RCAR_GEN3_DEV_PFC]);
    g_autofree char *grp = g_strdup_printf("%s/sd%u", pfc, mc->emmc_sdhi);
    g_autofree char *data8 = g_strdup_printf("sdhi%u_data8", mc->emmc_sdhi);
    g_autofree char *ctrl = g_strdup_printf("sdhi%u_ctrl", mc->emmc_sdhi);
    g_autofree char *ds = g_strdup_printf("sdhi%u_ds", mc->emmc_sdhi);
    g_autofree char *func = g_strdup_printf("sdhi%u", mc->emmc_sdhi);

    qemu_fdt_add_subnode(fdt, pfc);
    qemu_fdt_setprop_string(fdt, pfc, "compatible", compat);
    qemu_fdt_setprop_sized_cells(fdt, pfc, "reg",
                                 2, rcar_gen3_memmap[RCAR_GEN3_DEV_PFC],
                                 2, RCAR_PFC_MMIO_SIZE);
    qemu_fdt_add_subnode(fdt, grp);
    fdt_setprop_strings(fdt, grp, "groups", data8, ctrl, ds, NULL);
    qemu_fdt_setprop_string(fdt, grp, "function", func);
    qemu_fdt_setprop_cell(fdt, grp, "power-source", 1800);
    qemu_fdt_setprop_cell(fdt, grp, "phandle", phandle);
}

/*
 * The SoC's nodes in unit-address order, as in r8a77951.dtsi: Linux
 * creates and probes the devices in this order, so the IPMMUs (main
 * instance first) are bound before the SDHIs that use them, as on the
 * board.  In the other order the SDHIs and IPMMU-DS1 are deferred and
 * retried at once, and ipmmu-vmsa.c registers DS1 (line 1097) before it
 * sets the drvdata (line 1108) that an SDHI's of_xlate takes (line 720):
 * an SDHI retried in that window probes without its IOMMU.
 * qemu_fdt_add_subnode() puts a node before its siblings, so the nodes are
 * made from the highest address down; the phandles they refer to are
 * allocated first.
 */
static void fdt_add_soc(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    g_autofree char *scif_compat = NULL;
    const char *scif = "/soc/serial@e6e88000";
    RCarGen3SdhiFdtRefs refs = { 0 };
    uint32_t scif_fck, gic, ipmmu_mm = 0;

    scif_fck = fdt_add_fixed_clock(fdt, "clock-scif", mc->scif_fck_hz);
    refs.clk = fdt_add_fixed_clock(fdt, "clock-sdhi", 200000000);
    refs.vmmc = fdt_add_fixed_regulator(fdt, "3p3v", 3300000);
    refs.vqmmc_1v8 = fdt_add_fixed_regulator(fdt, "1p8v", 1800000);
    refs.emmc_pins = qemu_fdt_alloc_phandle(fdt);
    /* iommu=off: the SDHIs do not go through it, so the DT has no IPMMU */
    if (m->iommu) {
        ipmmu_mm = qemu_fdt_alloc_phandle(fdt);
        refs.ipmmu = qemu_fdt_alloc_phandle(fdt);
    }

    qemu_fdt_add_subnode(fdt, "/soc");
    qemu_fdt_setprop_string(fdt, "/soc", "compatible", "simple-bus");
    qemu_fdt_setprop_cell(fdt, "/soc", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/soc", "#size-cells", 2);
    qemu_fdt_setprop(fdt, "/soc", "ranges", NULL, 0);

    /* Found by renesas-soc.c through this node (or at 0xfff00044 anyway) */
    qemu_fdt_add_subnode(fdt, "/soc/chipid@fff00044");
    qemu_fdt_setprop_string(fdt, "/soc/chipid@fff00044", "compatible",
                            "renesas,prr");
    qemu_fdt_setprop_sized_cells(fdt, "/soc/chipid@fff00044", "reg",
                                 2, rcar_gen3_memmap[RCAR_GEN3_DEV_PRR], 2, 4);

    gic = fdt_add_gic(m, fdt);
    qemu_fdt_setprop_cell(fdt, "/", "interrupt-parent", gic);

    for (int n = RCAR_GEN3_NUM_SDHI - 1; n >= 0; n--) {
        fdt_add_sdhi(m, fdt, n, &refs);
    }
    if (m->iommu) {
        fdt_add_ipmmu(m, fdt, RCAR_GEN3_DEV_IPMMU_DS1, refs.ipmmu, ipmmu_mm);
    }

    scif_compat = g_strdup_printf("renesas,scif-%s", sc->dt_name);
    qemu_fdt_add_subnode(fdt, scif);
    fdt_setprop_strings(fdt, scif, "compatible", scif_compat,
                        "renesas,rcar-gen3-scif", "renesas,scif", NULL);
    qemu_fdt_setprop_sized_cells(fdt, scif, "reg",
                                 2, rcar_gen3_memmap[RCAR_GEN3_DEV_SCIF2],
                                 2, SH_SERIAL_REGSIZE_BRG);
    qemu_fdt_setprop_cells(fdt, scif, "interrupts", GIC_SPI,
                           RCAR_GEN3_SPI_SCIF2, IRQ_TYPE_LEVEL_HIGH);
    qemu_fdt_setprop_cell(fdt, scif, "clocks", scif_fck);
    qemu_fdt_setprop_string(fdt, scif, "clock-names", "fck");

    if (m->iommu) {
        fdt_add_ipmmu(m, fdt, RCAR_GEN3_DEV_IPMMU_MM, ipmmu_mm, 0);
    }
    fdt_add_pfc(m, fdt, refs.emmc_pins);
}

/* mmc0 is the eMMC, then the SD slots in channel order (salvator-common) */
static void fdt_add_mmc_aliases(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    unsigned alias = 0;
    g_autofree char *emmc = sdhi_node_path(mc->emmc_sdhi);

    qemu_fdt_setprop_string(fdt, "/aliases", "mmc0", emmc);
    for (unsigned n = 0; n < RCAR_GEN3_NUM_SDHI; n++) {
        g_autofree char *name = g_strdup_printf("mmc%u", ++alias);
        g_autofree char *node = sdhi_node_path(n);

        if (n == mc->emmc_sdhi || !(sdhi_enabled(m) & BIT(n))) {
            alias--;
            continue;
        }
        qemu_fdt_setprop_string(fdt, "/aliases", name, node);
    }
}

static void rcar_gen3_create_fdt(RCarGen3MachineState *m)
{
    MachineState *ms = MACHINE(m);
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    g_autofree char *soc_compat = g_strdup_printf("renesas,%s", sc->dt_name);
    struct {
        uint64_t kaslr;
        uint8_t rng[32];
    } seed;
    void *fdt;

    fdt = create_device_tree(&m->fdt_size);
    if (!fdt) {
        error_report("%s: cannot create the device tree",
                     MACHINE_GET_CLASS(m)->name);
        exit(1);
    }
    ms->fdt = fdt;

    fdt_setprop_strings(fdt, "/", "compatible", mc->board_compat, soc_compat,
                        NULL);
    qemu_fdt_setprop_string(fdt, "/", "model", mc->model);
    qemu_fdt_setprop_cell(fdt, "/", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/", "#size-cells", 2);

    /* Created in reverse order of appearance: see fdt_add_cpus() */
    fdt_add_soc(m, fdt);
    fdt_add_timer(m, fdt);
    fdt_add_cpus(m, fdt);
    for (int i = m->num_ram_banks - 1; i >= 0; i--) {
        fdt_add_memory_bank(fdt, &m->ram_banks[i]);
    }

    qemu_fdt_add_subnode(fdt, "/chosen");
    qemu_fdt_setprop_string(fdt, "/chosen", "stdout-path", "serial0:115200n8");
    /* Refreshed at every reset by qemu_fdt_randomize_seeds() */
    if (!qemu_guest_getrandom(&seed, sizeof(seed), NULL)) {
        qemu_fdt_setprop_u64(fdt, "/chosen", "kaslr-seed", seed.kaslr);
        qemu_fdt_setprop(fdt, "/chosen", "rng-seed", seed.rng,
                         sizeof(seed.rng));
    }

    qemu_fdt_add_subnode(fdt, "/aliases");
    qemu_fdt_setprop_string(fdt, "/aliases", "serial0",
                            "/soc/serial@e6e88000");
    fdt_add_mmc_aliases(m, fdt);
}

/*
 * -drive if=sd,index=N goes to SDHI N: an eMMC on the board's eMMC
 * channel, an SD card elsewhere.  -device sd-card,bus=sdhiN.sd-bus
 * works too.
 */
static void rcar_gen3_attach_cards(RCarGen3MachineState *m)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);

    for (unsigned n = 0; n < RCAR_GEN3_NUM_SDHI; n++) {
        DriveInfo *di = drive_get(IF_SD, 0, n);
        g_autofree char *bus_name = g_strdup_printf("sdhi%u.sd-bus", n);
        DeviceState *card;

        if (!di) {
            continue;
        }
        if (n == mc->emmc_sdhi) {
            /* An eMMC 5.1 device, as soldered on the board */
            card = qdev_new(TYPE_EMMC);
            qdev_prop_set_bit(card, "hs400", true);
        } else {
            card = qdev_new(TYPE_SD_CARD);
        }
        qdev_prop_set_drive_err(card, "drive", blk_by_legacy_dinfo(di),
                                &error_fatal);
        qdev_realize_and_unref(card,
                               qdev_get_child_bus(DEVICE(&m->soc->sdhi[n]),
                                                  bus_name),
                               &error_fatal);
        m->sdhi_with_card |= BIT(n);
    }
    if (drive_get(IF_SD, 0, RCAR_GEN3_NUM_SDHI)) {
        error_report("%s has %u SD/MMC hosts: -drive if=sd,index=%u has "
                     "nowhere to go", MACHINE_GET_CLASS(m)->name,
                     RCAR_GEN3_NUM_SDHI, RCAR_GEN3_NUM_SDHI);
        exit(1);
    }
}

/*
 * The SD slots' switches: the card-detect switch pulls its GPIO low when a
 * card is in, write protect reads high for a read-only card.
 */
static void rcar_gen3_wire_slots(RCarGen3MachineState *m)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);

    for (unsigned i = 0; i < mc->num_slots; i++) {
        const RCarGen3SlotWiring *w = &mc->slots[i];
        DeviceState *sdhi = DEVICE(&m->soc->sdhi[w->sdhi]);

        qdev_connect_gpio_out_named(sdhi, "card-detect", 0,
            qemu_irq_invert(qdev_get_gpio_in(DEVICE(&m->soc->gpio[w->cd_bank]),
                                             w->cd_pin)));
        qdev_connect_gpio_out_named(sdhi, "write-protect", 0,
            qdev_get_gpio_in(DEVICE(&m->soc->gpio[w->wp_bank]), w->wp_pin));
    }
}

static void *rcar_gen3_get_dtb(const struct arm_boot_info *binfo, int *size)
{
    RCarGen3MachineState *m = container_of(binfo, RCarGen3MachineState, binfo);

    *size = m->fdt_size;
    return MACHINE(m)->fdt;
}

/* Was a CPU with this MPIDR created (-smp)? */
static bool rcar_gen3_has_cpu(RCarGen3MachineState *m, uint64_t mpidr)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);

    for (unsigned i = 0; i < m->soc->num_cpus; i++) {
        if (rcar_gen3_cpu_mpidr(sc, i) == mpidr) {
            return true;
        }
    }
    return false;
}

/*
 * Drop the cpu-map entries (cluster/core nodes) whose "cpu" is one of the
 * @num phandles in @gone, and clusters left with no entry.  Returns
 * whether anything is left under @node.
 */
#define FDT_MAX_CHILDREN 64

static bool fdt_prune_cpu_map(void *fdt, int node, const uint32_t *gone,
                              unsigned num)
{
    int len;
    const fdt32_t *cpu = fdt_getprop(fdt, node, "cpu", &len);
    int children[FDT_MAX_CHILDREN];
    unsigned num_children = 0;
    bool left = false;
    int child;

    if (cpu && len >= sizeof(*cpu)) {
        for (unsigned i = 0; i < num; i++) {
            if (fdt32_to_cpu(*cpu) == gone[i]) {
                fdt_nop_node(fdt, node);
                return false;
            }
        }
        return true;
    }
    /* NOPing a node ends an iteration over it: collect the children first */
    fdt_for_each_subnode(child, fdt, node) {
        if (num_children == FDT_MAX_CHILDREN) {
            return true;            /* not a cpu-map of this SoC: keep it */
        }
        children[num_children++] = child;
    }
    for (unsigned i = 0; i < num_children; i++) {
        left |= fdt_prune_cpu_map(fdt, children[i], gone, num);
    }
    if (!left) {
        fdt_nop_node(fdt, node);
    }
    return left;
}

/*
 * A DTB of the user's lists every CPU of the SoC; firmware on the board
 * starts them all.  Mark "fail" the CPU nodes whose MPIDR QEMU did not
 * create, and drop their cpu-map entries, so that Linux does not try to
 * start them (PSCI would fail with -22).  The nodes stay, as the PMU and
 * thermal nodes refer to them by phandle; of_get_next_cpu_node() skips
 * them.
 */
static void rcar_gen3_fdt_prune_cpus(RCarGen3MachineState *m, void *fdt)
{
    int cpus = fdt_path_offset(fdt, "/cpus");
    int acells = qemu_fdt_getprop_cell(fdt, "/cpus", "#address-cells", NULL,
                                       NULL);
    uint32_t gone[FDT_MAX_CHILDREN];
    int gone_node[FDT_MAX_CHILDREN];
    unsigned num_gone = 0;
    int node, map;

    if (cpus < 0) {
        return;
    }
    fdt_for_each_subnode(node, fdt, cpus) {
        const char *type = fdt_getprop(fdt, node, "device_type", NULL);
        int len;
        const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);
        uint64_t mpidr;

        if (!type || strcmp(type, "cpu") || !reg ||
            len < (acells == 2 ? 8 : 4)) {
            continue;
        }
        mpidr = fdt32_to_cpu(reg[0]);
        if (acells == 2) {
            mpidr = mpidr << 32 | fdt32_to_cpu(reg[1]);
        }
        if (rcar_gen3_has_cpu(m, mpidr)) {
            continue;
        }
        if (num_gone < FDT_MAX_CHILDREN) {
            gone_node[num_gone] = node;
            gone[num_gone++] = fdt_get_phandle(fdt, node);
        }
    }
    map = fdt_subnode_offset(fdt, cpus, "cpu-map");
    if (map >= 0 && num_gone) {
        fdt_prune_cpu_map(fdt, map, gone, num_gone);
    }
    /*
     * A new property moves the nodes after it: go from the last one back,
     * so that the offsets still to use stay valid.
     */
    for (unsigned i = num_gone; i-- > 0;) {
        fdt_setprop_string(fdt, gone_node[i], "status", "fail");
    }
}

/*
 * iommu=off takes the IPMMU out of the SD/MMC hosts' path: a DTB of the
 * user's must not send them through it either.
 */
static void rcar_gen3_fdt_drop_sdhi_iommus(void *fdt)
{
    int node = -1;

    while ((node = fdt_node_offset_by_compatible(fdt, node,
                                                 "renesas,rcar-gen3-sdhi"))
           >= 0) {
        fdt_delprop(fdt, node, "iommus");
    }
}

/*
 * hw/arm/boot.c replaces every /memory node with one for bank 0
 * (binfo.ram_size); put back the banks above it.  A DTB given with -dtb
 * loses the CPUs that -smp did not create, and with iommu=off the SD/MMC
 * hosts' "iommus"; nothing else of it changes.
 */
static void rcar_gen3_modify_dtb(const struct arm_boot_info *binfo, void *fdt)
{
    RCarGen3MachineState *m = container_of(binfo, RCarGen3MachineState, binfo);

    for (unsigned i = 1; i < m->num_ram_banks; i++) {
        fdt_add_memory_bank(fdt, &m->ram_banks[i]);
    }
    if (MACHINE(m)->dtb) {
        rcar_gen3_fdt_prune_cpus(m, fdt);
        if (!m->iommu) {
            rcar_gen3_fdt_drop_sdhi_iommus(fdt);
        }
    }
}

static void rcar_gen3_board_init(MachineState *ms)
{
    RCarGen3MachineState *m = RCAR_GEN3_MACHINE(ms);
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(ms);
    RCarGen3Class *sc;

    m->soc = RCAR_GEN3_SOC(object_new(mc->soc_type));
    object_property_add_child(OBJECT(ms), "soc", OBJECT(m->soc));
    sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);

    m->num_ram_banks = rcar_gen3_ram_layout(sc, ms->ram_size, m->ram_banks);
    if (!m->num_ram_banks) {
        error_report("%s: -m %" PRIu64 "M is more than the %" PRIu64
                     " MiB that the %s can address",
                     MACHINE_GET_CLASS(ms)->name, ms->ram_size / MiB,
                     rcar_gen3_max_ram(sc) / MiB, mc->soc_type);
        exit(1);
    }

    object_property_set_link(OBJECT(m->soc), "ram", OBJECT(ms->ram),
                             &error_abort);
    qdev_prop_set_uint32(DEVICE(m->soc), "num-cpus", ms->smp.cpus);
    if (m->prr_cut) {
        qdev_prop_set_uint8(DEVICE(m->soc), "prr-cut", m->prr_cut);
    }
    qdev_prop_set_bit(DEVICE(m->soc), "iommu", m->iommu);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(m->soc), &error_fatal);
    rcar_gen3_attach_cards(m);
    rcar_gen3_wire_slots(m);

    rcar_gen3_create_fdt(m);

    m->binfo = (struct arm_boot_info) {
        .loader_start = m->ram_banks[0].base,
        .ram_size = m->ram_banks[0].size,
        .board_id = -1,
        .psci_conduit = QEMU_PSCI_CONDUIT_SMC,
        .get_dtb = rcar_gen3_get_dtb,
        .modify_dtb = rcar_gen3_modify_dtb,
    };
    if (!qtest_enabled()) {
        arm_load_kernel(&m->soc->cpu[0], ms, &m->binfo);
    }
}

static void rcar_gen3_get_prr_cut(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    visit_type_uint8(v, name, &RCAR_GEN3_MACHINE(obj)->prr_cut, errp);
}

static void rcar_gen3_set_prr_cut(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    visit_type_uint8(v, name, &RCAR_GEN3_MACHINE(obj)->prr_cut, errp);
}

static bool rcar_gen3_get_iommu(Object *obj, Error **errp)
{
    return RCAR_GEN3_MACHINE(obj)->iommu;
}

static void rcar_gen3_set_iommu(Object *obj, bool value, Error **errp)
{
    RCAR_GEN3_MACHINE(obj)->iommu = value;
}

static char *rcar_gen3_get_emmc_mode(Object *obj, Error **errp)
{
    return g_strdup(rcar_gen3_emmc_mode_names[
                        RCAR_GEN3_MACHINE(obj)->emmc_mode]);
}

static void rcar_gen3_set_emmc_mode(Object *obj, const char *value,
                                    Error **errp)
{
    for (unsigned i = 0; i < ARRAY_SIZE(rcar_gen3_emmc_mode_names); i++) {
        if (!strcmp(value, rcar_gen3_emmc_mode_names[i])) {
            RCAR_GEN3_MACHINE(obj)->emmc_mode = i;
            return;
        }
    }
    error_setg(errp, "emmc-mode '%s' is not one of hs400, hs200, hs52",
               value);
}

static void rcar_gen3_machine_instance_init(Object *obj)
{
    RCAR_GEN3_MACHINE(obj)->iommu = true;
    RCAR_GEN3_MACHINE(obj)->emmc_mode = RCAR_GEN3_EMMC_HS400;
}

static void rcar_gen3_machine_class_init(ObjectClass *oc, void *data)
{
    MachineClass *mc = MACHINE_CLASS(oc);

    mc->init = rcar_gen3_board_init;
    mc->default_ram_id = "rcar-gen3.ram";
    mc->no_cdrom = true;
    mc->no_floppy = true;
    mc->no_parallel = true;

    object_class_property_add(oc, "prr-cut", "uint8", rcar_gen3_get_prr_cut,
                              rcar_gen3_set_prr_cut, NULL, NULL);
    object_class_property_set_description(oc, "prr-cut",
        "Silicon revision in the PRR: 0x20 is ES3.0 (the default on H3), "
        "0x10 ES2.0, 0x00 ES1.0");
    object_class_property_add_bool(oc, "iommu", rcar_gen3_get_iommu,
                                   rcar_gen3_set_iommu);
    object_class_property_set_description(oc, "iommu",
        "Set off to connect the SD/MMC hosts straight to memory instead of "
        "through the IPMMU, and leave the IPMMU out of the device tree");
    object_class_property_add_str(oc, "emmc-mode", rcar_gen3_get_emmc_mode,
                                  rcar_gen3_set_emmc_mode);
    object_class_property_set_description(oc, "emmc-mode",
        "The fastest eMMC bus mode in the device tree: hs400 (the default, "
        "as on the board), hs200, or hs52 (no tuning)");
}

/* salvator-common.dtsi: &sdhi0 and &sdhi3 cd-gpios, wp-gpios */
static const RCarGen3SlotWiring salvator_xs_slots[] = {
    { .sdhi = 0, .cd_bank = 3, .cd_pin = 12, .wp_bank = 3, .wp_pin = 13 },
    { .sdhi = 3, .cd_bank = 4, .cd_pin = 15, .wp_bank = 4, .wp_pin = 16 },
};

static void salvator_xs_h3_class_init(ObjectClass *oc, void *data)
{
    MachineClass *mc = MACHINE_CLASS(oc);
    RCarGen3MachineClass *rmc = RCAR_GEN3_MACHINE_CLASS(oc);

    mc->desc = "Renesas Salvator-XS board with R-Car H3 (r8a77951)";
    mc->min_cpus = 1;
    mc->max_cpus = RCAR_GEN3_MAX_CPUS;
    mc->default_cpus = RCAR_GEN3_MAX_CPUS;
    /* 2 GiB puts RAM above 4 GiB, where 32-bit DMA masters need bouncing */
    mc->default_ram_size = 2 * GiB;
    rmc->soc_type = TYPE_R8A77951;
    rmc->board_compat = "renesas,salvator-xs";
    rmc->model = "Renesas Salvator-X 2nd version board based on r8a77951";
    /* S3D4 = EXTAL 16.64 MHz * 192 / 2 / 6 / 4 with MODEMR = 0 */
    rmc->scif_fck_hz = 66560000;
    /* salvator-common.dtsi: SD slots on SDHI0 and SDHI3, eMMC on SDHI2 */
    rmc->emmc_sdhi = 2;
    rmc->sdhi_used = BIT(0) | BIT(2) | BIT(3);
    rmc->slots = salvator_xs_slots;
    rmc->num_slots = ARRAY_SIZE(salvator_xs_slots);
}

static const TypeInfo rcar_gen3_machine_types[] = {
    {
        .name = TYPE_RCAR_GEN3_MACHINE,
        .parent = TYPE_MACHINE,
        .instance_size = sizeof(RCarGen3MachineState),
        .instance_init = rcar_gen3_machine_instance_init,
        .class_size = sizeof(RCarGen3MachineClass),
        .class_init = rcar_gen3_machine_class_init,
        .abstract = true,
    }, {
        .name = MACHINE_TYPE_NAME("r8a77951-salvator-xs"),
        .parent = TYPE_RCAR_GEN3_MACHINE,
        .class_init = salvator_xs_h3_class_init,
    },
};

DEFINE_TYPES(rcar_gen3_machine_types)
