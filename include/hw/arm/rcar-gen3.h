/*
 * Renesas R-Car Gen3 SoCs (R-Car H3 r8a77951, M3-N r8a77965, E3 r8a77990)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_ARM_RCAR_GEN3_H
#define HW_ARM_RCAR_GEN3_H

#include "cpu.h"
#include "hw/arm/rcar-gen3-memmap.h"
#include "hw/arm/rcar_ipmmu.h"
#include "hw/net/rcar_avb.h"
#include "hw/char/sh_serial.h"
#include "hw/cpu/cluster.h"
#include "hw/gpio/rcar_gpio.h"
#include "hw/i2c/rcar_i2c.h"
#include "hw/i2c/rcar_iic.h"
#include "hw/intc/arm_gic.h"
#include "hw/misc/rcar_cpg.h"
#include "hw/misc/rcar_prr.h"
#include "hw/misc/rcar_pfc.h"
#include "hw/misc/rcar_rst.h"
#include "hw/misc/rcar_sysc.h"
#include "hw/or-irq.h"
#include "hw/sd/renesas_sdhi.h"
#include "hw/sysbus.h"
#include "hw/usb/hcd-ehci.h"
#include "hw/usb/hcd-ohci.h"
#include "hw/usb/rcar_usb2_phy.h"
#include "qom/object.h"

#define TYPE_RCAR_GEN3_SOC "rcar-gen3-soc"
OBJECT_DECLARE_TYPE(RCarGen3State, RCarGen3Class, RCAR_GEN3_SOC)

#define TYPE_R8A77951 "r8a77951"
#define TYPE_R8A77965 "r8a77965"
#define TYPE_R8A77990 "r8a77990"
/* R-Car H3e-2G: the H3 ES3.0 with its cores up to 2 GHz */
#define TYPE_R8A779M1 "r8a779m1"

#define RCAR_GEN3_NUM_CLUSTERS      2
#define RCAR_GEN3_MAX_CLUSTER_CPUS  4
#define RCAR_GEN3_MAX_CPUS \
    (RCAR_GEN3_NUM_CLUSTERS * RCAR_GEN3_MAX_CLUSTER_CPUS)
#define RCAR_GEN3_NUM_SPIS          480
/* SDHI channels 0-3; a SoC has those its table lists (E3: no SDHI2) */
#define RCAR_GEN3_NUM_SDHI          4
/*
 * The SDn clock of the SD/MMC hosts: what Linux sets for HS200 and HS400
 * on H3, M3-N and E3 (renesas_sdhi_clk_update(): SDnH 800 MHz / 4, or
 * 400 MHz / 2 on the SoCs with the hs400_4taps quirk)
 */
#define RCAR_GEN3_SDN_HZ            200000000
#define RCAR_GEN3_MAX_GPIO_BANKS    8
/* Root compatibles of a SoC: its own, and the H3's for the H3e-2G */
#define RCAR_GEN3_MAX_SOC_COMPATS   2
/* I2C channels 0-7; a SoC has those its table lists (H3, M3-N: 0-6) */
#define RCAR_GEN3_MAX_I2C           8
#define RCAR_GEN3_MAX_USB2          4
/* GICC: each of its two 4 KiB pages repeated over 64 KiB (GIC-400 on AXI) */
#define RCAR_GEN3_GICC_PAGES        2
#define RCAR_GEN3_GIC_PAGE_ALIASES  16

struct RCarGen3Class {
    SysBusDeviceClass parent_class;

    /*
     * The SoC's compatibles in the device tree's root node, after the
     * board's, as its .dtsi has them; NULL-terminated.  renesas-soc.c
     * names the SoC after the first ("r8a779m1" on the H3e-2G).
     */
    const char *dt_compatible[RCAR_GEN3_MAX_SOC_COMPATS + 1];
    uint8_t prr_product;
    uint8_t prr_cut;
    /* CPU type and count of each cluster; cluster 0 boots */
    const char *cluster_cpu_type[RCAR_GEN3_NUM_CLUSTERS];
    unsigned cluster_cpus[RCAR_GEN3_NUM_CLUSTERS];
    /* capacity-dmips-mhz of each cluster; 0: the .dtsi has none */
    unsigned cluster_dmips_mhz[RCAR_GEN3_NUM_CLUSTERS];
    /* CNTFRQ that the boot firmware would program */
    uint64_t cntfrq;
    /* The SoC's flavours of the CPG, SYSC and PFC models */
    const char *cpg_type;
    const char *sysc_type;
    const char *pfc_type;
    /* The .dtsi's &avb has tx-internal-delay-ps = <0> (E3's has none) */
    bool avb_has_tx_delay;
    /* Every window of the SoC (rcar-gen3-memmap-tables.h) */
    const RCarGen3Dev *devs;
    unsigned num_devs;
    /* GPIO banks and their pins */
    unsigned num_gpio_banks;
    const uint8_t *gpio_pins;
};

/* A USB 2.0 channel (rcar_gen3_realize_usb2()) */
typedef struct RCarGen3USB2 {
    EHCISysBusState ehci;
    OHCISysBusState ohci;
    RCarUSB2PhyState phy;
} RCarGen3USB2;

struct RCarGen3State {
    SysBusDevice parent_obj;

    CPUClusterState cluster[RCAR_GEN3_NUM_CLUSTERS];
    ARMCPU cpu[RCAR_GEN3_MAX_CPUS];
    GICState gic;
    MemoryRegion gicc_alias[RCAR_GEN3_GICC_PAGES][RCAR_GEN3_GIC_PAGE_ALIASES];
    RCarPrrState prr;
    RCarRstState rst;
    RCarPfcState pfc;
    RCarCPGState cpg;
    RCarSyscState sysc;
    RCarGPIOState gpio[RCAR_GEN3_MAX_GPIO_BANKS];
    RCarI2CState i2c[RCAR_GEN3_MAX_I2C];
    RCarIICState iic;
    SHSerialState scif2;
    OrIRQState scif2_irq;
    RenesasSDHIState sdhi[RCAR_GEN3_NUM_SDHI];
    RCarIPMMUState ipmmu_mm;
    RCarIPMMUState ipmmu_ds0;
    RCarIPMMUState ipmmu_ds1;
    RCarAVBState avb;
    RCarGen3USB2 usb2[RCAR_GEN3_MAX_USB2];

    /* Properties */
    uint32_t num_cpus;
    uint8_t prr_cut;
    uint32_t modemr;
    uint64_t cntfrq;
    bool iommu;                 /* SDHI and AVB DMA through the IPMMU */
    uint32_t usb2_channels;     /* the USB 2.0 channels the board wires */
    bool sdhi_timing;           /* SDHI transfers take the bus's time */
};

/* The window of SoC class @sc's model @kind number @index, or NULL */
const RCarGen3Dev *rcar_gen3_dev(const RCarGen3Class *sc,
                                 RCarGen3DevKind kind, unsigned index);

/* Does SoC class @sc have SD/MMC host channel @n? */
bool rcar_gen3_has_sdhi(const RCarGen3Class *sc, unsigned n);

/* Does SoC class @sc have I2C channel @n? */
bool rcar_gen3_has_i2c(const RCarGen3Class *sc, unsigned n);

/* Whether USB 2.0 channel @n is on the SoC and wired by the board */
bool rcar_gen3_has_usb2(const RCarGen3State *s, unsigned n);

/* The number of CPUs of SoC class @sc */
unsigned rcar_gen3_num_cpus(const RCarGen3Class *sc);

/*
 * rcar_gen3_fdt_populate: add the SoC's nodes to the device tree @fdt:
 * CPUs, timer and the nodes of the modelled devices under /soc, with the
 * SD/MMC hosts disabled (rcar-gen3-fdt.c).
 */
void rcar_gen3_fdt_populate(RCarGen3State *s, void *fdt);

/*
 * rcar_gen3_fdt_fixup: fix up a DTB of the user's for SoC @s as the
 * board's firmware does: the CPUs that -smp did not create are marked
 * "fail" and leave cpu-map; without the IPMMU the SD/MMC hosts lose
 * their "iommus"
 */
void rcar_gen3_fdt_fixup(RCarGen3State *s, void *fdt);

/* The path of the node of model @kind number @index ("/soc/mmc@ee100000") */
char *rcar_gen3_fdt_path(RCarGen3State *s, RCarGen3DevKind kind,
                         unsigned index);

/* Set a string-list property from a NULL-terminated list of strings */
void G_GNUC_NULL_TERMINATED rcar_gen3_fdt_setprop_strings(void *fdt,
                                                          const char *node,
                                                          const char *prop,
                                                          ...);

/* MPIDR affinity of CPU @index, CPUs numbered cluster by cluster */
uint64_t rcar_gen3_cpu_mpidr(const RCarGen3Class *sc, unsigned index);

/* The cluster that CPU @index belongs to */
unsigned rcar_gen3_cpu_cluster(const RCarGen3Class *sc, unsigned index);

#endif
