/*
 * Renesas R-Car Gen3 SoCs: the SoC's part of a generated device tree
 *
 * The nodes of the SoC's .dtsi for what QEMU models and Linux needs:
 * CPUs, timer, and under /soc the PRR, RST and CPG, the GIC-400, the
 * SD/MMC hosts, the EtherAVB, IPMMU-MM, IPMMU-DS0 and IPMMU-DS1, SCIF2
 * and the PFC.  Node names, addresses,
 * interrupts, compatibles and "iommus" are those of the .dtsi (from the
 * SoC's table), so that Linux's drivers and the IPMMU allow list (which
 * matches on device names) see the same machine.  As in the .dtsi, the
 * SD/MMC hosts and the EtherAVB are "disabled" until the board enables
 * the ones it wires; the board adds clocks, regulators, pin groups and
 * the PHY.  The CPG provides the EtherAVB's module clock and reset, which
 * ravb_probe() cannot do without; the other devices take fixed clocks.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/arm/bsa.h"
#include "hw/arm/fdt.h"
#include "hw/arm/rcar-gen3.h"
#include "system/device_tree.h"
#include "target/arm/cpu-qom.h"
#include <libfdt.h>

#define GIC_CPU_MASK_SIMPLE(n) \
    (((1 << (n)) - 1) << GIC_FDT_IRQ_PPI_CPU_START)

/* The node name of each model in the .dtsi, before the unit address */
static const char *const rcar_gen3_node_names[] = {
    [RCAR_GEN3_GIC] = "interrupt-controller",
    [RCAR_GEN3_PRR] = "chipid",
    [RCAR_GEN3_RST] = "reset-controller",
    [RCAR_GEN3_PFC] = "pinctrl",
    [RCAR_GEN3_CPG] = "clock-controller",
    [RCAR_GEN3_SYSC] = "system-controller",
    [RCAR_GEN3_GPIO] = "gpio",
    [RCAR_GEN3_SCIF2] = "serial",
    [RCAR_GEN3_IPMMU_MM] = "iommu",
    [RCAR_GEN3_IPMMU_DS0] = "iommu",
    [RCAR_GEN3_IPMMU_DS1] = "iommu",
    [RCAR_GEN3_SDHI] = "mmc",
    [RCAR_GEN3_AVB] = "ethernet",
    [RCAR_GEN3_OHCI] = "usb",
    [RCAR_GEN3_EHCI] = "usb",
    [RCAR_GEN3_USB2_PHY] = "usb-phy",
};

/* include/dt-bindings/clock/renesas-cpg-mssr.h */
#define CPG_MOD 1

void G_GNUC_NULL_TERMINATED rcar_gen3_fdt_setprop_strings(void *fdt,
                                                          const char *node,
                                                          const char *prop,
                                                          ...)
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

char *rcar_gen3_fdt_path(RCarGen3State *s, RCarGen3DevKind kind,
                         unsigned index)
{
    const RCarGen3Dev *d = rcar_gen3_dev(RCAR_GEN3_SOC_GET_CLASS(s), kind,
                                         index);

    assert(d && kind < ARRAY_SIZE(rcar_gen3_node_names) &&
           rcar_gen3_node_names[kind]);
    return g_strdup_printf("/soc/%s@%" PRIx64, rcar_gen3_node_names[kind],
                           d->base);
}

/* A node for window @d, with its compatibles, "reg" and interrupt */
static char *fdt_add_dev_node(RCarGen3State *s, void *fdt,
                              const RCarGen3Dev *d, const char *compat2,
                              const char *compat3)
{
    char *node = rcar_gen3_fdt_path(s, d->kind, d->index);

    qemu_fdt_add_subnode(fdt, node);
    rcar_gen3_fdt_setprop_strings(fdt, node, "compatible", d->compatible,
                                  compat2, compat3, NULL);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, d->base, 2, d->size);
    if (d->spi >= 0) {
        qemu_fdt_setprop_cells(fdt, node, "interrupts", GIC_FDT_IRQ_TYPE_SPI,
                               d->spi, GIC_FDT_IRQ_FLAGS_LEVEL_HI);
    }
    return node;
}

static void fdt_add_cpus(RCarGen3State *s, void *fdt)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);
    unsigned n = s->num_cpus;

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
        if (sc->cluster_dmips_mhz[cluster]) {
            qemu_fdt_setprop_cell(fdt, node, "capacity-dmips-mhz",
                                  sc->cluster_dmips_mhz[cluster]);
        }
        qemu_fdt_setprop_cell(fdt, node, "phandle",
                              qemu_fdt_alloc_phandle(fdt));
    }

    /* As in the .dtsi: only the H3, with two clusters, has a cpu-map */
    if (!sc->cluster_cpus[1]) {
        return;
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

static void fdt_add_timer(RCarGen3State *s, void *fdt)
{
    uint32_t ppi = GIC_FDT_IRQ_TYPE_PPI;
    uint32_t flags = GIC_CPU_MASK_SIMPLE(s->num_cpus) |
                     GIC_FDT_IRQ_FLAGS_LEVEL_LO;

    qemu_fdt_add_subnode(fdt, "/timer");
    qemu_fdt_setprop_string(fdt, "/timer", "compatible", "arm,armv8-timer");
    /* The same order as the .dtsi; the PPIs the SoC wires */
    qemu_fdt_setprop_cells(fdt, "/timer", "interrupts",
                           ppi, INTID_TO_PPI(ARCH_TIMER_S_EL1_IRQ), flags,
                           ppi, INTID_TO_PPI(ARCH_TIMER_NS_EL1_IRQ), flags,
                           ppi, INTID_TO_PPI(ARCH_TIMER_VIRT_IRQ), flags,
                           ppi, INTID_TO_PPI(ARCH_TIMER_NS_EL2_IRQ), flags);
    rcar_gen3_fdt_setprop_strings(fdt, "/timer", "interrupt-names",
                                  "sec-phys", "phys", "virt", "hyp-phys",
                                  NULL);
}

/* The GIC-400, with its four windows; returns its phandle */
static uint32_t fdt_add_gic(RCarGen3State *s, void *fdt, const RCarGen3Dev *d)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);
    g_autofree char *node = rcar_gen3_fdt_path(s, RCAR_GEN3_GIC,
                                               RCAR_GEN3_GIC_DIST);
    const RCarGen3Dev *w[4];
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);

    for (unsigned i = 0; i < ARRAY_SIZE(w); i++) {
        w[i] = rcar_gen3_dev(sc, RCAR_GEN3_GIC, i);
        assert(w[i]);
    }
    qemu_fdt_add_subnode(fdt, node);
    qemu_fdt_setprop_string(fdt, node, "compatible", d->compatible);
    qemu_fdt_setprop_cell(fdt, node, "#interrupt-cells", 3);
    qemu_fdt_setprop_cell(fdt, node, "#address-cells", 0);
    qemu_fdt_setprop(fdt, node, "interrupt-controller", NULL, 0);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg",
                                 2, w[0]->base, 2, w[0]->size,
                                 2, w[1]->base, 2, w[1]->size,
                                 2, w[2]->base, 2, w[2]->size,
                                 2, w[3]->base, 2, w[3]->size);
    qemu_fdt_setprop_cells(fdt, node, "interrupts", GIC_FDT_IRQ_TYPE_PPI,
                           INTID_TO_PPI(ARCH_GIC_MAINT_IRQ),
                           GIC_CPU_MASK_SIMPLE(s->num_cpus) |
                           GIC_FDT_IRQ_FLAGS_LEVEL_HI);
    qemu_fdt_setprop_cell(fdt, node, "phandle", phandle);
    return phandle;
}

/*
 * An IPMMU node without "power-domains" (no SYSC provider in this DT; the
 * driver does not use it).  The main instance has the fault interrupt (the
 * secure one is optional in the binding and unused by Linux); a cache
 * instance names its main one in "renesas,ipmmu-main" with its bit in
 * IMSSTR of the main one (ipmmu_probe()).
 */
static void fdt_add_ipmmu(RCarGen3State *s, void *fdt, const RCarGen3Dev *d,
                          uint32_t phandle, uint32_t main_phandle)
{
    g_autofree char *node = fdt_add_dev_node(s, fdt, d, NULL, NULL);

    if (main_phandle) {
        qemu_fdt_setprop_cells(fdt, node, "renesas,ipmmu-main",
                               main_phandle, 1);
    }
    qemu_fdt_setprop_cell(fdt, node, "#iommu-cells", 1);
    qemu_fdt_setprop_cell(fdt, node, "phandle", phandle);
}

/* An SD/MMC host, disabled until the board enables it */
static void fdt_add_sdhi(RCarGen3State *s, void *fdt, const RCarGen3Dev *d,
                         uint32_t ipmmu)
{
    g_autofree char *node = fdt_add_dev_node(s, fdt, d,
                                             "renesas,rcar-gen3-sdhi", NULL);

    /* The card's clock is SDn at most (SD_CLK_CTRL divides it) */
    qemu_fdt_setprop_cell(fdt, node, "max-frequency", RCAR_GEN3_SDN_HZ);
    if (ipmmu && d->utlb >= 0) {
        qemu_fdt_setprop_cells(fdt, node, "iommus", ipmmu, d->utlb);
    }
    qemu_fdt_setprop_string(fdt, node, "status", "disabled");
}

/* The phandles of a USB 2.0 channel's nodes, allocated ahead of them */
typedef struct RCarGen3USB2Phandles {
    uint32_t ohci;
    uint32_t phy;
} RCarGen3USB2Phandles;

/*
 * A node of a USB 2.0 channel the board wires: the OHCI and EHCI with
 * their PHY (phy-rcar-gen3-usb2.c's cells: 1 the OHCI, 2 the EHCI) and
 * the OHCI as the EHCI's companion, each with the channel's module clock
 * and reset; no dr_mode, so that every channel is a host.  The PHY of a
 * host-only channel has no interrupt in the .dtsi.
 */
static void fdt_add_usb2(RCarGen3State *s, void *fdt, const RCarGen3Dev *d,
                         uint32_t cpg, const RCarGen3USB2Phandles *ph)
{
    g_autofree char *node = NULL;

    if (d->kind == RCAR_GEN3_USB2_PHY) {
        node = fdt_add_dev_node(s, fdt, d, "renesas,rcar-gen3-usb2-phy",
                                NULL);
        qemu_fdt_setprop_cell(fdt, node, "#phy-cells", 1);
        qemu_fdt_setprop_cell(fdt, node, "phandle", ph->phy);
    } else {
        bool ehci = d->kind == RCAR_GEN3_EHCI;

        node = fdt_add_dev_node(s, fdt, d, NULL, NULL);
        qemu_fdt_setprop_cells(fdt, node, "phys", ph->phy, ehci ? 2 : 1);
        qemu_fdt_setprop_string(fdt, node, "phy-names", "usb");
        if (ehci) {
            qemu_fdt_setprop_cell(fdt, node, "companion", ph->ohci);
        } else {
            qemu_fdt_setprop_cell(fdt, node, "phandle", ph->ohci);
        }
    }
    qemu_fdt_setprop_cells(fdt, node, "clocks", cpg, CPG_MOD, d->mstp);
    qemu_fdt_setprop_cell(fdt, node, "power-domains", cpg);
    qemu_fdt_setprop_cells(fdt, node, "resets", cpg, d->mstp);
}

/*
 * The CPG-MSSR: clocks (<&cpg CPG_MOD n>), resets (<&cpg n>) and the
 * clock domain of its modules; the board gives it its EXTAL and EXTALR
 */
static void fdt_add_cpg(RCarGen3State *s, void *fdt, const RCarGen3Dev *d,
                        uint32_t phandle)
{
    g_autofree char *node = fdt_add_dev_node(s, fdt, d, NULL, NULL);

    qemu_fdt_setprop_cell(fdt, node, "#clock-cells", 2);
    qemu_fdt_setprop_cell(fdt, node, "#power-domain-cells", 0);
    qemu_fdt_setprop_cell(fdt, node, "#reset-cells", 1);
    qemu_fdt_setprop_cell(fdt, node, "phandle", phandle);
}

/*
 * The EtherAVB with its 25 lines "ch0".."ch24", disabled until the board
 * gives it its PHY.  Only the first "reg" window: the driver maps no other.
 */
static void fdt_add_avb(RCarGen3State *s, void *fdt, const RCarGen3Dev *d,
                        uint32_t cpg, uint32_t ipmmu)
{
    g_autofree char *node = rcar_gen3_fdt_path(s, d->kind, d->index);
    g_autofree uint32_t *irqs = g_new(uint32_t, 3 * d->num_spis);
    g_autoptr(GString) names = g_string_new(NULL);

    qemu_fdt_add_subnode(fdt, node);
    rcar_gen3_fdt_setprop_strings(fdt, node, "compatible", d->compatible,
                                  "renesas,etheravb-rcar-gen3", NULL);
    qemu_fdt_setprop_sized_cells(fdt, node, "reg", 2, d->base, 2, d->size);
    for (unsigned i = 0; i < d->num_spis; i++) {
        g_autofree char *name = g_strdup_printf("ch%u", i);

        irqs[3 * i] = cpu_to_be32(GIC_FDT_IRQ_TYPE_SPI);
        irqs[3 * i + 1] = cpu_to_be32(d->spi + i);
        irqs[3 * i + 2] = cpu_to_be32(GIC_FDT_IRQ_FLAGS_LEVEL_HI);
        g_string_append_len(names, name, strlen(name) + 1);
    }
    qemu_fdt_setprop(fdt, node, "interrupts", irqs,
                     3 * d->num_spis * sizeof(uint32_t));
    qemu_fdt_setprop(fdt, node, "interrupt-names", names->str, names->len);
    qemu_fdt_setprop_cells(fdt, node, "clocks", cpg, CPG_MOD, d->mstp);
    qemu_fdt_setprop_string(fdt, node, "clock-names", "fck");
    qemu_fdt_setprop_cell(fdt, node, "power-domains", cpg);
    qemu_fdt_setprop_cells(fdt, node, "resets", cpg, d->mstp);
    qemu_fdt_setprop_string(fdt, node, "phy-mode", "rgmii");
    /* The MAC's RGMII delays (APSR), which the board may change */
    qemu_fdt_setprop_cell(fdt, node, "rx-internal-delay-ps", 0);
    if (RCAR_GEN3_SOC_GET_CLASS(s)->avb_has_tx_delay) {
        qemu_fdt_setprop_cell(fdt, node, "tx-internal-delay-ps", 0);
    }
    if (ipmmu && d->utlb >= 0) {
        qemu_fdt_setprop_cells(fdt, node, "iommus", ipmmu, d->utlb);
    }
    qemu_fdt_setprop_cell(fdt, node, "#address-cells", 1);
    qemu_fdt_setprop_cell(fdt, node, "#size-cells", 0);
    qemu_fdt_setprop_string(fdt, node, "status", "disabled");
}

/*
 * The SoC's nodes in unit-address order, as in the .dtsi: Linux creates
 * and probes the devices in this order, so the IPMMUs (main instance
 * first) are bound before the SDHIs that use them, as on the board.  In
 * the other order the SDHIs and IPMMU-DS1 are deferred and retried at
 * once, and ipmmu_probe() registers DS1 before it sets the drvdata that
 * an SDHI's ipmmu_of_xlate() takes: an SDHI retried in that window probes
 * without its IOMMU.  qemu_fdt_add_subnode() puts a node before its
 * siblings, so the nodes are made from the highest address down; the
 * phandles they refer to are allocated first.
 */
static void fdt_add_soc_nodes(RCarGen3State *s, void *fdt)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);
    uint32_t ipmmu_mm = 0, ipmmu_ds0 = 0, ipmmu_ds1 = 0, gic = 0;
    uint32_t cpg = qemu_fdt_alloc_phandle(fdt);
    RCarGen3USB2Phandles usb2[RCAR_GEN3_MAX_USB2] = { 0 };

    for (unsigned i = 0; i < RCAR_GEN3_MAX_USB2; i++) {
        if (rcar_gen3_has_usb2(s, i)) {
            usb2[i].ohci = qemu_fdt_alloc_phandle(fdt);
            usb2[i].phy = qemu_fdt_alloc_phandle(fdt);
        }
    }
    /* iommu=off: no master goes through it, so the DT has no IPMMU */
    if (s->iommu) {
        ipmmu_mm = qemu_fdt_alloc_phandle(fdt);
        ipmmu_ds0 = qemu_fdt_alloc_phandle(fdt);
        ipmmu_ds1 = qemu_fdt_alloc_phandle(fdt);
    }

    qemu_fdt_add_subnode(fdt, "/soc");
    qemu_fdt_setprop_string(fdt, "/soc", "compatible", "simple-bus");
    qemu_fdt_setprop_cell(fdt, "/soc", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/soc", "#size-cells", 2);
    qemu_fdt_setprop(fdt, "/soc", "ranges", NULL, 0);

    for (int i = sc->num_devs - 1; i >= 0; i--) {
        const RCarGen3Dev *d = &sc->devs[i];
        g_autofree char *node = NULL;

        switch (d->kind) {
        case RCAR_GEN3_PRR:
            /* renesas-soc.c finds it through this node */
            node = fdt_add_dev_node(s, fdt, d, NULL, NULL);
            break;
        case RCAR_GEN3_GIC:
            if (d->index == RCAR_GEN3_GIC_DIST) {
                gic = fdt_add_gic(s, fdt, d);
            }
            break;
        case RCAR_GEN3_SDHI:
            fdt_add_sdhi(s, fdt, d, ipmmu_ds1);
            break;
        case RCAR_GEN3_AVB:
            fdt_add_avb(s, fdt, d, cpg, ipmmu_ds0);
            break;
        case RCAR_GEN3_OHCI:
        case RCAR_GEN3_EHCI:
        case RCAR_GEN3_USB2_PHY:
            if (rcar_gen3_has_usb2(s, d->index)) {
                fdt_add_usb2(s, fdt, d, cpg, &usb2[d->index]);
            }
            break;
        case RCAR_GEN3_IPMMU_DS0:
            if (s->iommu) {
                fdt_add_ipmmu(s, fdt, d, ipmmu_ds0, ipmmu_mm);
            }
            break;
        case RCAR_GEN3_IPMMU_DS1:
            if (s->iommu) {
                fdt_add_ipmmu(s, fdt, d, ipmmu_ds1, ipmmu_mm);
            }
            break;
        case RCAR_GEN3_CPG:
            fdt_add_cpg(s, fdt, d, cpg);
            break;
        case RCAR_GEN3_RST:
            /* The CPG driver reads the mode pins in it */
            node = fdt_add_dev_node(s, fdt, d, NULL, NULL);
            break;
        case RCAR_GEN3_IPMMU_MM:
            if (s->iommu) {
                fdt_add_ipmmu(s, fdt, d, ipmmu_mm, 0);
            }
            break;
        case RCAR_GEN3_SCIF2:
            node = fdt_add_dev_node(s, fdt, d, "renesas,rcar-gen3-scif",
                                    "renesas,scif");
            break;
        case RCAR_GEN3_PFC:
            node = fdt_add_dev_node(s, fdt, d, NULL, NULL);
            break;
        default:
            /* No node: fixed clocks stand in for the SYSC, and so on */
            break;
        }
    }
    assert(gic);
    qemu_fdt_setprop_cell(fdt, "/", "interrupt-parent", gic);
}

void rcar_gen3_fdt_populate(RCarGen3State *s, void *fdt)
{
    /* Created in reverse order of appearance: see fdt_add_cpus() */
    fdt_add_soc_nodes(s, fdt);
    fdt_add_timer(s, fdt);
    fdt_add_cpus(s, fdt);
}

/* Was a CPU with this MPIDR created (-smp)? */
static bool rcar_gen3_has_cpu(RCarGen3State *s, uint64_t mpidr)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);

    for (unsigned i = 0; i < s->num_cpus; i++) {
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

static bool phandle_in(uint32_t phandle, const uint32_t *list, unsigned num)
{
    for (unsigned i = 0; i < num; i++) {
        if (list[i] == phandle) {
            return true;
        }
    }
    return false;
}

/*
 * A PMU node (arm,cortex-a5x-pmu) names its cores in interrupt-affinity
 * (the only nodes of the Gen3 .dtsi that do: any such node qualifies);
 * with all of them absent, pmu_parse_irq_affinity() finds a logical CPU
 * for none of its interrupts and Linux's arm_pmu_device_probe() fails
 * with "hw perfevents: failed to probe PMU!".  Firmware that starts fewer
 * cores disables such a node: do the same.
 */
static void fdt_disable_orphan_pmus(void *fdt, const uint32_t *gone,
                                    unsigned num_gone)
{
    int node;

    for (node = fdt_next_node(fdt, -1, NULL); node >= 0;
         node = fdt_next_node(fdt, node, NULL)) {
        int len;
        const fdt32_t *cpus = fdt_getprop(fdt, node, "interrupt-affinity",
                                          &len);
        bool all_gone = cpus && len >= 4;

        for (int i = 0; all_gone && i < len / 4; i++) {
            uint32_t cpu = fdt32_to_cpu(cpus[i]);

            /* (A CPU that no node refers to has phandle 0: no match) */
            all_gone = cpu && phandle_in(cpu, gone, num_gone);
        }
        if (all_gone) {
            /*
             * Later nodes move, but the walk resumes from this node's
             * offset, which does not
             */
            fdt_setprop_string(fdt, node, "status", "disabled");
        }
    }
}

/*
 * A DTB of the user's lists every CPU of the SoC; firmware on the board
 * starts them all.  Mark "fail" the CPU nodes whose MPIDR QEMU did not
 * create, and drop their cpu-map entries, so that Linux does not try to
 * start them (PSCI would fail with -22).  The nodes stay, as the PMU and
 * thermal nodes refer to them by phandle; of_get_next_cpu_node() skips
 * them.
 */
static void fdt_prune_cpus(RCarGen3State *s, void *fdt)
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
        if (rcar_gen3_has_cpu(s, mpidr)) {
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
    if (num_gone) {
        fdt_disable_orphan_pmus(fdt, gone, num_gone);
    }
}

/*
 * iommu=off takes the IPMMU out of the SD/MMC hosts' path: a DTB of the
 * user's must not send them through it either.
 */
static void fdt_drop_sdhi_iommus(void *fdt)
{
    int node = -1;

    while ((node = fdt_node_offset_by_compatible(fdt, node,
                                                 "renesas,rcar-gen3-sdhi"))
           >= 0) {
        fdt_delprop(fdt, node, "iommus");
    }
}

void rcar_gen3_fdt_fixup(RCarGen3State *s, void *fdt)
{
    fdt_prune_cpus(s, fdt);
    if (!s->iommu) {
        fdt_drop_sdhi_iommus(fdt);
    }
}
