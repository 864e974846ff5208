/*
 * Renesas R-Car Gen3 SoCs (R-Car H3 r8a77951 and H3e-2G r8a779m1, M3-N
 * r8a77965, E3 r8a77990)
 *
 * The SoC container: the Cortex-A57 and Cortex-A53 clusters, the GIC-400,
 * the devices that Linux needs to boot and to reach the SD/MMC hosts
 * through the IPMMU, and, for every other peripheral window, an
 * unimplemented device so that a driver probing it reads zeros instead
 * of taking an external abort.
 *
 * Addresses, interrupts, CPG modules and uTLBs all come from the SoC's
 * table in rcar-gen3-memmap-tables.h, generated from the SoC's .dtsi in
 * Linux 6.12.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/units.h"
#include "system/address-spaces.h"
#include "hw/arm/bsa.h"
#include "hw/arm/rcar-gen3.h"
#include "hw/boards.h"
#include "hw/irq.h"
#include "hw/misc/unimp.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "system/system.h"
#include "target/arm/cpu-qom.h"

#define GIC_PAGE_SIZE 0x1000
#define SCIF_REGSIZE  SH_SERIAL_REGSIZE_BRG

typedef struct RCarGen3Window {
    const char *name;
    hwaddr base;
    hwaddr size;
} RCarGen3Window;

/*
 * Catch-all windows under those of the SoC's table: the 16 MiB peripheral
 * areas that hold the .dtsi windows.  A bigger kernel (arm64 defconfig)
 * that probes something that is not in the .dtsi reads zeros there
 * instead of crashing.
 */
static const RCarGen3Window rcar_gen3_catch_all[] = {
    { "rcar-gen3.periph-e6", 0xe6000000, 32 * MiB },
    { "rcar-gen3.periph-ec", 0xec000000, 64 * MiB },
    { "rcar-gen3.periph-f1", 0xf1000000, 16 * MiB },
    { "rcar-gen3.periph-fd", 0xfd000000, 48 * MiB },
};
#define CATCH_ALL_PRIORITY (-2000)

const RCarGen3Dev *rcar_gen3_dev(const RCarGen3Class *sc,
                                 RCarGen3DevKind kind, unsigned index)
{
    return rcar_gen3_find_dev(sc->devs, sc->num_devs, kind, index);
}

bool rcar_gen3_has_sdhi(const RCarGen3Class *sc, unsigned n)
{
    return rcar_gen3_dev(sc, RCAR_GEN3_SDHI, n) != NULL;
}

bool rcar_gen3_has_i2c(const RCarGen3Class *sc, unsigned n)
{
    return rcar_gen3_dev(sc, RCAR_GEN3_I2C, n) != NULL;
}

bool rcar_gen3_has_usb2(const RCarGen3State *s, unsigned n)
{
    return (s->usb2_channels & BIT(n)) &&
           rcar_gen3_dev(RCAR_GEN3_SOC_GET_CLASS(s), RCAR_GEN3_EHCI, n);
}

unsigned rcar_gen3_num_cpus(const RCarGen3Class *sc)
{
    return sc->cluster_cpus[0] + sc->cluster_cpus[1];
}

/* The window of a device that every SoC of the family has */
static const RCarGen3Dev *rcar_gen3_soc_dev(RCarGen3State *s,
                                            RCarGen3DevKind kind,
                                            unsigned index)
{
    const RCarGen3Dev *d = rcar_gen3_dev(RCAR_GEN3_SOC_GET_CLASS(s), kind,
                                         index);

    assert(d);
    return d;
}

static hwaddr rcar_gen3_base(RCarGen3State *s, RCarGen3DevKind kind,
                             unsigned index)
{
    return rcar_gen3_soc_dev(s, kind, index)->base;
}

unsigned rcar_gen3_cpu_cluster(const RCarGen3Class *sc, unsigned index)
{
    return index < sc->cluster_cpus[0] ? 0 : 1;
}

uint64_t rcar_gen3_cpu_mpidr(const RCarGen3Class *sc, unsigned index)
{
    unsigned cluster = rcar_gen3_cpu_cluster(sc, index);
    unsigned core = cluster ? index - sc->cluster_cpus[0] : index;

    return (cluster << ARM_AFF1_SHIFT) | core;
}

static void rcar_gen3_map_unimp(const RCarGen3Window *w, int priority)
{
    DeviceState *dev = qdev_new(TYPE_UNIMPLEMENTED_DEVICE);

    qdev_prop_set_string(dev, "name", w->name);
    qdev_prop_set_uint64(dev, "size", w->size);
    sysbus_realize_and_unref(SYS_BUS_DEVICE(dev), &error_fatal);
    sysbus_mmio_map_overlap(SYS_BUS_DEVICE(dev), 0, w->base, priority);
}

static bool rcar_gen3_is_usb2_kind(RCarGen3DevKind kind)
{
    return kind == RCAR_GEN3_OHCI || kind == RCAR_GEN3_EHCI ||
           kind == RCAR_GEN3_USB2_PHY;
}

/*
 * The windows that no model answers: those of the table without one, the
 * virtual GIC interfaces (no virtualization extensions here) and the USB
 * 2.0 channels that the board does not wire.
 */
static void rcar_gen3_map_unimplemented(RCarGen3State *s)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);

    for (unsigned i = 0; i < sc->num_devs; i++) {
        const RCarGen3Dev *d = &sc->devs[i];
        g_autofree char *name = NULL;

        if (d->kind != RCAR_GEN3_UNIMP &&
            !(d->kind == RCAR_GEN3_GIC && d->index >= RCAR_GEN3_GIC_VIFACE) &&
            !(rcar_gen3_is_usb2_kind(d->kind) &&
              !rcar_gen3_has_usb2(s, d->index))) {
            continue;
        }
        name = g_strdup_printf("rcar-gen3.%s", d->name);
        create_unimplemented_device(name, d->base, d->size);
    }
}

static qemu_irq rcar_gen3_spi(RCarGen3State *s, int spi)
{
    return qdev_get_gpio_in(DEVICE(&s->gic), spi);
}

/* Put the MMIO region of @dev at the window of model @kind number @index */
static const RCarGen3Dev *rcar_gen3_map_mmio(RCarGen3State *s,
                                             SysBusDevice *dev,
                                             RCarGen3DevKind kind,
                                             unsigned index)
{
    const RCarGen3Dev *d = rcar_gen3_soc_dev(s, kind, index);

    /* The model decodes the window of the .dtsi, no more, no less */
    assert(memory_region_size(sysbus_mmio_get_region(dev, 0)) == d->size);
    sysbus_mmio_map(dev, 0, d->base);
    return d;
}

/*
 * Put @dev where the SoC's table has model @kind number @index: its MMIO
 * region at the window, its interrupt on the window's SPI.
 */
static void rcar_gen3_map_dev(RCarGen3State *s, SysBusDevice *dev,
                              RCarGen3DevKind kind, unsigned index)
{
    const RCarGen3Dev *d = rcar_gen3_map_mmio(s, dev, kind, index);

    if (d->spi >= 0) {
        sysbus_connect_irq(dev, 0, rcar_gen3_spi(s, d->spi));
    }
}

static bool rcar_gen3_realize_cpus(RCarGen3State *s, Error **errp)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);
    unsigned max = rcar_gen3_num_cpus(sc);
    unsigned num_clusters;

    if (s->num_cpus < 1 || s->num_cpus > max) {
        error_setg(errp, "%s has 1 to %u CPUs, not %u",
                   object_get_typename(OBJECT(s)), max, s->num_cpus);
        return false;
    }

    /*
     * Cortex-A57 and Cortex-A53 are different CPU types and so must sit
     * in different clusters (include/hw/cpu/cluster.h).  A cluster with
     * no CPU started (-smp 4 or less on H3) is not created at all.
     */
    num_clusters = rcar_gen3_cpu_cluster(sc, s->num_cpus - 1) + 1;
    for (unsigned c = 0; c < num_clusters; c++) {
        object_initialize_child(OBJECT(s), c ? "cluster1" : "cluster0",
                                &s->cluster[c], TYPE_CPU_CLUSTER);
        qdev_prop_set_uint32(DEVICE(&s->cluster[c]), "cluster-id", c);
    }

    for (unsigned i = 0; i < s->num_cpus; i++) {
        unsigned c = rcar_gen3_cpu_cluster(sc, i);
        Object *cpu;

        object_initialize_child(OBJECT(&s->cluster[c]), "cpu[*]", &s->cpu[i],
                                sc->cluster_cpu_type[c]);
        cpu = OBJECT(&s->cpu[i]);
        object_property_set_int(cpu, "mp-affinity",
                                rcar_gen3_cpu_mpidr(sc, i), &error_abort);
        /* No firmware: Linux boots at EL1, PSCI is QEMU's over SMC */
        object_property_set_bool(cpu, "has_el3", false, &error_abort);
        object_property_set_bool(cpu, "has_el2", false, &error_abort);
        object_property_set_int(cpu, "reset-cbar",
                                rcar_gen3_base(s, RCAR_GEN3_GIC,
                                               RCAR_GEN3_GIC_DIST) - 0x10000,
                                &error_abort);
        object_property_set_int(cpu, "core-count", sc->cluster_cpus[c],
                                &error_abort);
        object_property_set_uint(cpu, "cntfrq", s->cntfrq, &error_abort);
    }

    /* Clusters are realized after their CPUs are added, before the CPUs */
    for (unsigned c = 0; c < num_clusters; c++) {
        if (!qdev_realize(DEVICE(&s->cluster[c]), NULL, errp)) {
            return false;
        }
    }
    for (unsigned i = 0; i < s->num_cpus; i++) {
        if (!qdev_realize(DEVICE(&s->cpu[i]), NULL, errp)) {
            return false;
        }
    }
    return true;
}

/*
 * The GIC-400 decodes its CPU interface with each 4 KiB page repeated
 * across 64 KiB (r8a77951.dtsi gives a 0x20000-byte window).  Linux relies
 * on this when it boots at EL2 (irq-gic.c gic_check_eoimode()).  The
 * virtual CPU interface would need the same, with EL2 support.
 */
static void rcar_gen3_map_gic_cpu_interface(RCarGen3State *s)
{
    MemoryRegion *mr = sysbus_mmio_get_region(SYS_BUS_DEVICE(&s->gic), 1);
    hwaddr base = rcar_gen3_base(s, RCAR_GEN3_GIC, RCAR_GEN3_GIC_CPU);

    for (unsigned page = 0; page < RCAR_GEN3_GICC_PAGES; page++) {
        for (unsigned j = 0; j < RCAR_GEN3_GIC_PAGE_ALIASES; j++) {
            MemoryRegion *alias = &s->gicc_alias[page][j];
            hwaddr addr = base + page * RCAR_GEN3_GIC_PAGE_ALIASES *
                          GIC_PAGE_SIZE + j * GIC_PAGE_SIZE;

            memory_region_init_alias(alias, OBJECT(s), "rcar-gen3.gic-alias",
                                     mr, page * GIC_PAGE_SIZE, GIC_PAGE_SIZE);
            memory_region_add_subregion(get_system_memory(), addr, alias);
        }
    }
}

static bool rcar_gen3_realize_gic(RCarGen3State *s, Error **errp)
{
    SysBusDevice *gic;
    unsigned n = s->num_cpus;
    /* PPI numbers of the per-CPU timer outputs, in GTIMER_* order */
    static const int timer_ppi[] = {
        [GTIMER_PHYS] = ARCH_TIMER_NS_EL1_IRQ,
        [GTIMER_VIRT] = ARCH_TIMER_VIRT_IRQ,
        [GTIMER_HYP]  = ARCH_TIMER_NS_EL2_IRQ,
        [GTIMER_SEC]  = ARCH_TIMER_S_EL1_IRQ,
    };

    object_initialize_child(OBJECT(s), "gic", &s->gic, TYPE_ARM_GIC);
    gic = SYS_BUS_DEVICE(&s->gic);
    qdev_prop_set_uint32(DEVICE(gic), "num-irq", RCAR_GEN3_NUM_SPIS + 32);
    qdev_prop_set_uint32(DEVICE(gic), "revision", 2);
    qdev_prop_set_uint32(DEVICE(gic), "num-cpu", n);
    qdev_prop_set_bit(DEVICE(gic), "has-security-extensions", false);
    qdev_prop_set_bit(DEVICE(gic), "has-virtualization-extensions", false);
    if (!sysbus_realize(gic, errp)) {
        return false;
    }

    sysbus_mmio_map(gic, 0, rcar_gen3_base(s, RCAR_GEN3_GIC,
                                           RCAR_GEN3_GIC_DIST));
    rcar_gen3_map_gic_cpu_interface(s);

    for (unsigned i = 0; i < n; i++) {
        DeviceState *cpu = DEVICE(&s->cpu[i]);
        int ppi_base = RCAR_GEN3_NUM_SPIS + i * GIC_INTERNAL;

        sysbus_connect_irq(gic, i, qdev_get_gpio_in(cpu, ARM_CPU_IRQ));
        sysbus_connect_irq(gic, i + n, qdev_get_gpio_in(cpu, ARM_CPU_FIQ));
        sysbus_connect_irq(gic, i + 2 * n, qdev_get_gpio_in(cpu, ARM_CPU_VIRQ));
        sysbus_connect_irq(gic, i + 3 * n, qdev_get_gpio_in(cpu, ARM_CPU_VFIQ));
        for (unsigned t = 0; t < ARRAY_SIZE(timer_ppi); t++) {
            qdev_connect_gpio_out(cpu, t,
                                  qdev_get_gpio_in(DEVICE(gic),
                                                   ppi_base + timer_ppi[t]));
        }
    }
    return true;
}

static bool rcar_gen3_realize_scif2(RCarGen3State *s, Error **errp)
{
    DeviceState *scif = DEVICE(&s->scif2);
    DeviceState *or = DEVICE(&s->scif2_irq);
    static const char *const lines[] = { "eri", "rxi", "txi", "bri" };

    qdev_prop_set_chr(scif, "chardev", serial_hd(0));
    qdev_prop_set_uint8(scif, "features", SH_SERIAL_FEAT_SCIF);
    qdev_prop_set_uint32(scif, "regsize", SCIF_REGSIZE);
    if (!sysbus_realize(SYS_BUS_DEVICE(scif), errp)) {
        return false;
    }
    sysbus_mmio_map(SYS_BUS_DEVICE(scif), 0,
                    rcar_gen3_base(s, RCAR_GEN3_SCIF2, 0));

    /* One SPI per SCIF, demultiplexed by sh-sci.c sci_mpxed_interrupt() */
    qdev_prop_set_uint16(or, "num-lines", ARRAY_SIZE(lines));
    if (!qdev_realize(or, NULL, errp)) {
        return false;
    }
    for (unsigned i = 0; i < ARRAY_SIZE(lines); i++) {
        qdev_connect_gpio_out_named(scif, lines[i], 0,
                                    qdev_get_gpio_in(or, i));
    }
    qdev_connect_gpio_out(or, 0,
        rcar_gen3_spi(s, rcar_gen3_soc_dev(s, RCAR_GEN3_SCIF2, 0)->spi));
    return true;
}

/*
 * IPMMU-MM holds the contexts and the fault IRQ; IPMMU-DS0 is the cache
 * IPMMU in front of the EtherAVB, IPMMU-DS1 in front of the SDHIs.  The
 * other cache IPMMUs stay unimplemented: Linux puts no device behind them
 * on Gen3 (ipmmu-vmsa.c's devices_allowlist has only the SDHIs).
 */
static bool rcar_gen3_realize_ipmmu_cache(RCarGen3State *s,
                                          RCarIPMMUState *cache,
                                          RCarGen3DevKind kind, Error **errp)
{
    object_property_set_link(OBJECT(cache), "downstream",
                             OBJECT(get_system_memory()), &error_abort);
    object_property_set_link(OBJECT(cache), "main", OBJECT(&s->ipmmu_mm),
                             &error_abort);
    if (!sysbus_realize(SYS_BUS_DEVICE(cache), errp)) {
        return false;
    }
    rcar_gen3_map_dev(s, SYS_BUS_DEVICE(cache), kind, 0);
    return true;
}

static bool rcar_gen3_realize_ipmmu(RCarGen3State *s, Error **errp)
{
    SysBusDevice *mm = SYS_BUS_DEVICE(&s->ipmmu_mm);

    object_property_set_link(OBJECT(mm), "downstream",
                             OBJECT(get_system_memory()), &error_abort);
    if (!sysbus_realize(mm, errp)) {
        return false;
    }
    rcar_gen3_map_dev(s, mm, RCAR_GEN3_IPMMU_MM, 0);
    return rcar_gen3_realize_ipmmu_cache(s, &s->ipmmu_ds0,
                                         RCAR_GEN3_IPMMU_DS0, errp) &&
           rcar_gen3_realize_ipmmu_cache(s, &s->ipmmu_ds1,
                                         RCAR_GEN3_IPMMU_DS1, errp);
}

/*
 * The EtherAVB masters through its uTLB of IPMMU-DS0 and has the 25
 * interrupt lines "ch0".."ch24" in a row; the board links its PHY
 */
static bool rcar_gen3_realize_avb(RCarGen3State *s, Error **errp)
{
    const RCarGen3Dev *d = rcar_gen3_soc_dev(s, RCAR_GEN3_AVB, 0);
    SysBusDevice *avb = SYS_BUS_DEVICE(&s->avb);
    MemoryRegion *dma = get_system_memory();

    if (s->iommu && d->utlb >= 0) {
        dma = rcar_ipmmu_utlb_mr(&s->ipmmu_ds0, d->utlb);
    }
    object_property_set_link(OBJECT(avb), "dma-memory", OBJECT(dma),
                             &error_abort);
    qemu_configure_nic_device(DEVICE(avb), true, NULL);
    if (!sysbus_realize(avb, errp)) {
        return false;
    }
    rcar_gen3_map_dev(s, avb, RCAR_GEN3_AVB, 0);
    assert(d->num_spis == RCAR_AVB_NUM_IRQS);
    for (unsigned i = 1; i < RCAR_AVB_NUM_IRQS; i++) {
        sysbus_connect_irq(avb, i, rcar_gen3_spi(s, d->spi + i));
    }
    return true;
}

/* Each SDHI masters through its uTLB of IPMMU-DS1 ("iommus" in the .dtsi) */
static bool rcar_gen3_realize_sdhi(RCarGen3State *s, Error **errp)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);

    for (unsigned i = 0; i < RCAR_GEN3_NUM_SDHI; i++) {
        const RCarGen3Dev *d = rcar_gen3_dev(sc, RCAR_GEN3_SDHI, i);
        MemoryRegion *dma = get_system_memory();
        SysBusDevice *sdhi;

        if (!d) {
            continue;           /* not on this SoC: never initialized */
        }
        sdhi = SYS_BUS_DEVICE(&s->sdhi[i]);
        if (s->iommu && d->utlb >= 0) {
            dma = rcar_ipmmu_utlb_mr(&s->ipmmu_ds1, d->utlb);
        }
        object_property_set_link(OBJECT(sdhi), "dma-memory", OBJECT(dma),
                                 &error_abort);
        qdev_prop_set_uint32(DEVICE(sdhi), "x-sdn-clock-hz", RCAR_GEN3_SDN_HZ);
        if (s->sdhi_timing) {
            qdev_prop_set_bit(DEVICE(sdhi), "x-timing", true);
        }
        if (!sysbus_realize(sdhi, errp)) {
            return false;
        }
        rcar_gen3_map_dev(s, sdhi, RCAR_GEN3_SDHI, i);
    }
    return true;
}

/*
 * The USB 2.0 channels the board wires: an EHCI with its OHCI as the
 * companion that takes full- and low-speed devices, with two ports (the
 * channel's connector, and one for the hub that QEMU's USB core puts on a
 * bus's last free port: see rcar-gen3-ehci-usb), and the channel's PHY
 * block, whose INT_ENABLE gates both controllers' interrupts onto the
 * channel's GIC line (the line of the EHCI's node: the .dtsi gives the PHY
 * of a host-only channel none).  Neither controller masters through an
 * IPMMU in the .dtsi.  The EHCI's registers fill the first 0x80 bytes of
 * QEMU's 4 KiB container, whose holes let what is behind them answer: it
 * is mapped below the PHY block that follows its 0x100-byte window.
 * Created here, as the board's "usb2-channels" says which, from the
 * highest channel down: "-device usb-..." without a bus takes the first
 * USB bus of the main bus's children, the device realized last, which
 * is then the board's first connector (its buses are "usb-bus.N" in
 * realize order, so from the highest channel).
 */
static bool rcar_gen3_realize_usb2(RCarGen3State *s, Error **errp)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);

    for (int i = RCAR_GEN3_MAX_USB2 - 1; i >= 0; i--) {
        const RCarGen3Dev *d = rcar_gen3_dev(sc, RCAR_GEN3_EHCI, i);
        RCarGen3USB2 *usb = &s->usb2[i];
        g_autofree char *ehci_name = NULL, *ohci_name = NULL;
        g_autofree char *phy_name = NULL;
        SysBusDevice *ehci, *ohci, *phy;

        if (!rcar_gen3_has_usb2(s, i)) {
            continue;           /* an unimplemented window */
        }
        ehci_name = g_strdup_printf("ehci%d", i);
        ohci_name = g_strdup_printf("ohci%d", i);
        phy_name = g_strdup_printf("usb2-phy%d", i);
        object_initialize_child(OBJECT(s), phy_name, &usb->phy,
                                TYPE_RCAR_USB2_PHY);
        object_initialize_child(OBJECT(s), ehci_name, &usb->ehci,
                                TYPE_RCAR_GEN3_EHCI);
        object_initialize_child(OBJECT(s), ohci_name, &usb->ohci,
                                TYPE_SYSBUS_OHCI);
        phy = SYS_BUS_DEVICE(&usb->phy);
        ehci = SYS_BUS_DEVICE(&usb->ehci);
        ohci = SYS_BUS_DEVICE(&usb->ohci);

        if (!sysbus_realize(phy, errp)) {
            return false;
        }
        rcar_gen3_map_mmio(s, phy, RCAR_GEN3_USB2_PHY, i);
        sysbus_connect_irq(phy, 0, rcar_gen3_spi(s, d->spi));

        if (!sysbus_realize(ehci, errp)) {
            return false;
        }
        sysbus_mmio_map_overlap(ehci, 0, d->base, -1);
        sysbus_connect_irq(ehci, 0,
                           qdev_get_gpio_in_named(DEVICE(phy), "host-irq",
                                                  RCAR_USB2_PHY_IN_EHCI));

        qdev_prop_set_string(DEVICE(ohci), "masterbus",
                             usb->ehci.ehci.bus.qbus.name);
        qdev_prop_set_uint32(DEVICE(ohci), "num-ports",
                             usb->ehci.ehci.portnr);
        if (!sysbus_realize(ohci, errp)) {
            return false;
        }
        rcar_gen3_map_mmio(s, ohci, RCAR_GEN3_OHCI, i);
        sysbus_connect_irq(ohci, 0,
                           qdev_get_gpio_in_named(DEVICE(phy), "host-irq",
                                                  RCAR_USB2_PHY_IN_OHCI));
    }
    return true;
}

/* The CPG's reset of a USB 2.0 channel: its host controllers and PHY */
static void rcar_gen3_reset_usb2(void *opaque, int n, int level)
{
    RCarGen3USB2 *usb = opaque;

    if (level) {
        device_cold_reset(DEVICE(&usb->ohci));
        device_cold_reset(DEVICE(&usb->ehci));
        device_cold_reset(DEVICE(&usb->phy));
    }
}

/* A module reset from the CPG for a device without an input of its own */
static void rcar_gen3_reset_device(void *opaque, int n, int level)
{
    if (level) {
        device_cold_reset(DEVICE(opaque));
    }
}

/* Connect the module reset of model @kind number @index to @irq */
static void rcar_gen3_connect_module_reset(RCarGen3State *s,
                                           RCarGen3DevKind kind,
                                           unsigned index, qemu_irq irq)
{
    int module = rcar_gen3_soc_dev(s, kind, index)->mstp;

    assert(module >= 0 && RCAR_CPG_MODULE(module) < RCAR_CPG_NUM_MODULES);
    qdev_connect_gpio_out_named(DEVICE(&s->cpg), "module-reset",
                                RCAR_CPG_MODULE(module), irq);
}

/*
 * The CPG's resets go to the modules that are modelled: the SDHIs and the
 * I2C controllers have a "module-reset" input, the others are reset
 * through the device's cold reset.  Either way the module is reset when
 * its SRCR bit is set (Linux's cpg_mssr_reset() releases it 35 us later)
 * and works again at once.
 */
static void rcar_gen3_wire_module_resets(RCarGen3State *s)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);

    for (unsigned i = 0; i < RCAR_GEN3_NUM_SDHI; i++) {
        if (rcar_gen3_has_sdhi(sc, i)) {
            rcar_gen3_connect_module_reset(s, RCAR_GEN3_SDHI, i,
                qdev_get_gpio_in_named(DEVICE(&s->sdhi[i]), "module-reset",
                                       0));
        }
    }
    rcar_gen3_connect_module_reset(s, RCAR_GEN3_SCIF2, 0,
        qemu_allocate_irq(rcar_gen3_reset_device, &s->scif2, 0));
    rcar_gen3_connect_module_reset(s, RCAR_GEN3_AVB, 0,
        qemu_allocate_irq(rcar_gen3_reset_device, &s->avb, 0));
    for (unsigned i = 0; i < sc->num_gpio_banks; i++) {
        rcar_gen3_connect_module_reset(s, RCAR_GEN3_GPIO, i,
            qemu_allocate_irq(rcar_gen3_reset_device, &s->gpio[i], 0));
    }
    /* The I2C controllers have inputs of their own: not their buses */
    for (unsigned i = 0; i < RCAR_GEN3_MAX_I2C; i++) {
        if (rcar_gen3_has_i2c(sc, i)) {
            rcar_gen3_connect_module_reset(s, RCAR_GEN3_I2C, i,
                qdev_get_gpio_in_named(DEVICE(&s->i2c[i]), "module-reset",
                                       0));
        }
    }
    rcar_gen3_connect_module_reset(s, RCAR_GEN3_IIC, 0,
        qdev_get_gpio_in_named(DEVICE(&s->iic), "module-reset", 0));
    for (unsigned i = 0; i < RCAR_GEN3_MAX_USB2; i++) {
        if (rcar_gen3_has_usb2(s, i)) {
            rcar_gen3_connect_module_reset(s, RCAR_GEN3_EHCI, i,
                qemu_allocate_irq(rcar_gen3_reset_usb2, &s->usb2[i], 0));
        }
    }
}

static bool rcar_gen3_realize_clocks_and_power(RCarGen3State *s,
                                               Error **errp)
{
    if (!sysbus_realize(SYS_BUS_DEVICE(&s->cpg), errp) ||
        !sysbus_realize(SYS_BUS_DEVICE(&s->sysc), errp)) {
        return false;
    }
    rcar_gen3_map_dev(s, SYS_BUS_DEVICE(&s->cpg), RCAR_GEN3_CPG, 0);
    rcar_gen3_map_dev(s, SYS_BUS_DEVICE(&s->sysc), RCAR_GEN3_SYSC, 0);
    return true;
}

static bool rcar_gen3_realize_gpio(RCarGen3State *s, Error **errp)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);

    for (unsigned i = 0; i < sc->num_gpio_banks; i++) {
        SysBusDevice *gpio = SYS_BUS_DEVICE(&s->gpio[i]);

        qdev_prop_set_uint32(DEVICE(gpio), "num-pins", sc->gpio_pins[i]);
        if (!sysbus_realize(gpio, errp)) {
            return false;
        }
        rcar_gen3_map_dev(s, gpio, RCAR_GEN3_GPIO, i);
    }
    return true;
}

/* The I2C channels and the IIC, each with its I2C bus for the board */
static bool rcar_gen3_realize_i2c(RCarGen3State *s, Error **errp)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(s);

    for (unsigned i = 0; i < RCAR_GEN3_MAX_I2C; i++) {
        if (!rcar_gen3_has_i2c(sc, i)) {
            continue;
        }
        if (!sysbus_realize(SYS_BUS_DEVICE(&s->i2c[i]), errp)) {
            return false;
        }
        rcar_gen3_map_dev(s, SYS_BUS_DEVICE(&s->i2c[i]), RCAR_GEN3_I2C, i);
    }
    if (!sysbus_realize(SYS_BUS_DEVICE(&s->iic), errp)) {
        return false;
    }
    rcar_gen3_map_dev(s, SYS_BUS_DEVICE(&s->iic), RCAR_GEN3_IIC, 0);
    return true;
}

static void rcar_gen3_init(Object *obj)
{
    RCarGen3State *s = RCAR_GEN3_SOC(obj);
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(obj);

    object_initialize_child(obj, "prr", &s->prr, TYPE_RCAR_PRR);
    object_initialize_child(obj, "rst", &s->rst, TYPE_RCAR_RST);
    object_initialize_child(obj, "pfc", &s->pfc, sc->pfc_type);
    object_initialize_child(obj, "cpg", &s->cpg, sc->cpg_type);
    object_initialize_child(obj, "sysc", &s->sysc, sc->sysc_type);
    for (unsigned i = 0; i < sc->num_gpio_banks; i++) {
        g_autofree char *name = g_strdup_printf("gpio%u", i);

        object_initialize_child(obj, name, &s->gpio[i], TYPE_RCAR_GPIO);
    }
    for (unsigned i = 0; i < RCAR_GEN3_MAX_I2C; i++) {
        g_autofree char *name = NULL;

        if (!rcar_gen3_has_i2c(sc, i)) {
            continue;
        }
        /* The child name is the name of its I2C bus: "i2c2" */
        name = g_strdup_printf("i2c%u", i);
        object_initialize_child(obj, name, &s->i2c[i], TYPE_RCAR_I2C);
    }
    object_initialize_child(obj, "i2c-dvfs", &s->iic, TYPE_RCAR_IIC);
    object_initialize_child(obj, "scif2", &s->scif2, TYPE_SH_SERIAL);
    object_initialize_child(obj, "scif2-irq", &s->scif2_irq, TYPE_OR_IRQ);
    for (unsigned i = 0; i < RCAR_GEN3_NUM_SDHI; i++) {
        g_autofree char *name = NULL;

        if (!rcar_gen3_has_sdhi(sc, i)) {
            continue;
        }
        name = g_strdup_printf("sdhi%u", i);

        /* The child name makes the SD bus "sdhi<i>.sd-bus" */
        object_initialize_child(obj, name, &s->sdhi[i], TYPE_RENESAS_SDHI);
    }
    object_initialize_child(obj, "ipmmu-mm", &s->ipmmu_mm, TYPE_RCAR_IPMMU);
    object_initialize_child(obj, "ipmmu-ds0", &s->ipmmu_ds0, TYPE_RCAR_IPMMU);
    object_initialize_child(obj, "ipmmu-ds1", &s->ipmmu_ds1, TYPE_RCAR_IPMMU);
    object_initialize_child(obj, "avb", &s->avb, TYPE_RCAR_AVB);

    s->prr_cut = sc->prr_cut;
    s->cntfrq = sc->cntfrq;
}

static void rcar_gen3_realize(DeviceState *dev, Error **errp)
{
    RCarGen3State *s = RCAR_GEN3_SOC(dev);
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(dev);

    if (!rcar_gen3_realize_cpus(s, errp) ||
        !rcar_gen3_realize_gic(s, errp)) {
        return;
    }

    qdev_prop_set_uint8(DEVICE(&s->prr), "product", sc->prr_product);
    qdev_prop_set_uint8(DEVICE(&s->prr), "cut", s->prr_cut);
    if (!sysbus_realize(SYS_BUS_DEVICE(&s->prr), errp)) {
        return;
    }
    rcar_gen3_map_dev(s, SYS_BUS_DEVICE(&s->prr), RCAR_GEN3_PRR, 0);

    qdev_prop_set_uint32(DEVICE(&s->rst), "modemr", s->modemr);
    if (!sysbus_realize(SYS_BUS_DEVICE(&s->rst), errp)) {
        return;
    }
    rcar_gen3_map_dev(s, SYS_BUS_DEVICE(&s->rst), RCAR_GEN3_RST, 0);

    if (!sysbus_realize(SYS_BUS_DEVICE(&s->pfc), errp)) {
        return;
    }
    rcar_gen3_map_dev(s, SYS_BUS_DEVICE(&s->pfc), RCAR_GEN3_PFC, 0);

    if (!rcar_gen3_realize_clocks_and_power(s, errp) ||
        !rcar_gen3_realize_gpio(s, errp) ||
        !rcar_gen3_realize_i2c(s, errp) ||
        !rcar_gen3_realize_scif2(s, errp) ||
        !rcar_gen3_realize_ipmmu(s, errp) ||
        !rcar_gen3_realize_sdhi(s, errp) ||
        !rcar_gen3_realize_avb(s, errp) ||
        !rcar_gen3_realize_usb2(s, errp)) {
        return;
    }
    rcar_gen3_wire_module_resets(s);

    rcar_gen3_map_unimplemented(s);
    for (unsigned i = 0; i < ARRAY_SIZE(rcar_gen3_catch_all); i++) {
        rcar_gen3_map_unimp(&rcar_gen3_catch_all[i], CATCH_ALL_PRIORITY);
    }
}

static const Property rcar_gen3_properties[] = {
    DEFINE_PROP_UINT32("num-cpus", RCarGen3State, num_cpus, 1),
    DEFINE_PROP_UINT8("prr-cut", RCarGen3State, prr_cut, 0),
    DEFINE_PROP_UINT32("modemr", RCarGen3State, modemr, 0),
    DEFINE_PROP_UINT64("cntfrq", RCarGen3State, cntfrq, 0),
    DEFINE_PROP_BOOL("iommu", RCarGen3State, iommu, true),
    /* The USB 2.0 channels the board wires (rcar_gen3_realize_usb2()) */
    DEFINE_PROP_UINT32("usb2-channels", RCarGen3State, usb2_channels,
                       MAKE_64BIT_MASK(0, RCAR_GEN3_MAX_USB2)),
    /* The SD/MMC hosts' timing mode (renesas_sdhi.c x-timing) */
    DEFINE_PROP_BOOL("x-sdhi-timing", RCarGen3State, sdhi_timing, false),
};

static void rcar_gen3_class_init(ObjectClass *oc, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);

    dc->realize = rcar_gen3_realize;
    device_class_set_props(dc, rcar_gen3_properties);
    /* Reason: uses serial_hd() and owns the CPUs; created by the boards */
    dc->user_creatable = false;
}

#define RCAR_GEN3_SET_DEVS(sc, soc) do {                    \
        (sc)->devs = soc##_devs;                            \
        (sc)->num_devs = ARRAY_SIZE(soc##_devs);            \
        (sc)->gpio_pins = soc##_gpio_pins;                  \
        (sc)->num_gpio_banks = ARRAY_SIZE(soc##_gpio_pins); \
        QEMU_BUILD_BUG_ON(ARRAY_SIZE(soc##_gpio_pins) >     \
                          RCAR_GEN3_MAX_GPIO_BANKS);         \
    } while (0)

/*
 * QEMU ticks the generic timer in whole nanoseconds: the counter runs at
 * the rate with the whole period nearest to what the firmware programs.
 */
#define RCAR_GEN3_CNTFRQ(hz) \
    (NANOSECONDS_PER_SECOND / ((NANOSECONDS_PER_SECOND + (hz) / 2) / (hz)))

static void r8a77951_class_init(ObjectClass *oc, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    RCarGen3Class *sc = RCAR_GEN3_SOC_CLASS(oc);

    dc->desc = "Renesas R-Car H3 (r8a77951)";
    sc->dt_compatible[0] = "renesas,r8a7795";
    sc->prr_product = RCAR_PRR_PRODUCT_H3;
    sc->prr_cut = 0x20;                     /* ES3.0 */
    sc->cluster_cpu_type[0] = ARM_CPU_TYPE_NAME("cortex-a57");
    sc->cluster_cpu_type[1] = ARM_CPU_TYPE_NAME("cortex-a53");
    sc->cluster_cpus[0] = 4;
    sc->cluster_cpus[1] = 4;
    sc->cluster_dmips_mhz[0] = 1024;        /* r8a77951.dtsi */
    sc->cluster_dmips_mhz[1] = 535;
    /*
     * TF-A's 8.32 MHz on Salvator-XS, 8.3333 MHz on the ULCB (EXTAL / 2):
     * both 8333333 Hz (120 ns)
     */
    sc->cntfrq = RCAR_GEN3_CNTFRQ(8320000);
    sc->cpg_type = TYPE_RCAR_CPG_R8A77951;
    sc->sysc_type = TYPE_RCAR_SYSC_R8A77951;
    sc->pfc_type = TYPE_RCAR_PFC_R8A77951;
    sc->avb_has_tx_delay = true;
    RCAR_GEN3_SET_DEVS(sc, r8a77951);
}

/*
 * r8a779m1.dtsi is r8a77951.dtsi with one more compatible and its own
 * CPU operating points (up to 2 GHz), which the generated tree has none
 * of: the same silicon, binned for speed, whose PRR reads as the H3
 * ES3.0 (renesas-soc.c gives "renesas,r8a779m1" soc_rcar_h3).
 */
static void r8a779m1_class_init(ObjectClass *oc, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    RCarGen3Class *sc = RCAR_GEN3_SOC_CLASS(oc);

    dc->desc = "Renesas R-Car H3e-2G (r8a779m1)";
    sc->dt_compatible[0] = "renesas,r8a779m1";
    sc->dt_compatible[1] = "renesas,r8a7795";
}

static void r8a77965_class_init(ObjectClass *oc, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    RCarGen3Class *sc = RCAR_GEN3_SOC_CLASS(oc);

    dc->desc = "Renesas R-Car M3-N (r8a77965)";
    sc->dt_compatible[0] = "renesas,r8a77965";
    sc->prr_product = RCAR_PRR_PRODUCT_M3N;
    sc->prr_cut = 0x00;                     /* ES1.0 */
    sc->cluster_cpu_type[0] = ARM_CPU_TYPE_NAME("cortex-a57");
    sc->cluster_cpus[0] = 2;
    /* TF-A's 8.32 MHz on Salvator-XS, 8.3333 MHz on the ULCB, as on H3 */
    sc->cntfrq = RCAR_GEN3_CNTFRQ(8320000);
    sc->cpg_type = TYPE_RCAR_CPG_R8A77965;
    sc->sysc_type = TYPE_RCAR_SYSC_R8A77965;
    sc->pfc_type = TYPE_RCAR_PFC_R8A77965;
    sc->avb_has_tx_delay = true;
    RCAR_GEN3_SET_DEVS(sc, r8a77965);
}

static void r8a77990_class_init(ObjectClass *oc, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    RCarGen3Class *sc = RCAR_GEN3_SOC_CLASS(oc);

    dc->desc = "Renesas R-Car E3 (r8a77990)";
    sc->dt_compatible[0] = "renesas,r8a77990";
    sc->prr_product = RCAR_PRR_PRODUCT_E3;
    sc->prr_cut = 0x01;                     /* ES1.1 */
    /* Two Cortex-A53, cluster 0 (MPIDR 0x0, 0x1) */
    sc->cluster_cpu_type[0] = ARM_CPU_TYPE_NAME("cortex-a53");
    sc->cluster_cpus[0] = 2;
    /* TF-A's 24 MHz on Ebisu: 23809523 Hz (42 ns) */
    sc->cntfrq = RCAR_GEN3_CNTFRQ(24000000);
    sc->cpg_type = TYPE_RCAR_CPG_R8A77990;
    sc->sysc_type = TYPE_RCAR_SYSC_R8A77990;
    sc->pfc_type = TYPE_RCAR_PFC_R8A77990;
    RCAR_GEN3_SET_DEVS(sc, r8a77990);
}

static const TypeInfo rcar_gen3_types[] = {
    {
        .name = TYPE_RCAR_GEN3_SOC,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarGen3State),
        .instance_init = rcar_gen3_init,
        .class_size = sizeof(RCarGen3Class),
        .class_init = rcar_gen3_class_init,
        .abstract = true,
    }, {
        .name = TYPE_R8A77951,
        .parent = TYPE_RCAR_GEN3_SOC,
        .class_init = r8a77951_class_init,
    }, {
        .name = TYPE_R8A779M1,
        .parent = TYPE_R8A77951,
        .class_init = r8a779m1_class_init,
    }, {
        .name = TYPE_R8A77965,
        .parent = TYPE_RCAR_GEN3_SOC,
        .class_init = r8a77965_class_init,
    }, {
        .name = TYPE_R8A77990,
        .parent = TYPE_RCAR_GEN3_SOC,
        .class_init = r8a77990_class_init,
    },
};

DEFINE_TYPES(rcar_gen3_types)
