/*
 * Renesas R-Car Gen3 SoCs (R-Car H3 r8a77951)
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_ARM_RCAR_GEN3_H
#define HW_ARM_RCAR_GEN3_H

#include "cpu.h"
#include "hw/arm/rcar_ipmmu.h"
#include "hw/char/sh_serial.h"
#include "hw/cpu/cluster.h"
#include "hw/gpio/rcar_gpio.h"
#include "hw/intc/arm_gic.h"
#include "hw/misc/rcar_cpg.h"
#include "hw/misc/rcar_prr.h"
#include "hw/misc/rcar_pfc.h"
#include "hw/misc/rcar_rst.h"
#include "hw/misc/rcar_sysc.h"
#include "hw/or-irq.h"
#include "hw/sd/renesas_sdhi.h"
#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_GEN3_SOC "rcar-gen3-soc"
OBJECT_DECLARE_TYPE(RCarGen3State, RCarGen3Class, RCAR_GEN3_SOC)

#define TYPE_R8A77951 "r8a77951"

#define RCAR_GEN3_NUM_CLUSTERS      2
#define RCAR_GEN3_MAX_CLUSTER_CPUS  4
#define RCAR_GEN3_MAX_CPUS \
    (RCAR_GEN3_NUM_CLUSTERS * RCAR_GEN3_MAX_CLUSTER_CPUS)
#define RCAR_GEN3_NUM_SPIS          480
#define RCAR_GEN3_MAX_RAM_BANKS     4
#define RCAR_GEN3_NUM_SDHI          4
#define RCAR_GEN3_MAX_GPIO_BANKS    8
/* GICC: each of its two 4 KiB pages repeated over 64 KiB (GIC-400 on AXI) */
#define RCAR_GEN3_GICC_PAGES        2
#define RCAR_GEN3_GIC_PAGE_ALIASES  16

/* Peripherals shared by every Gen3 SoC, at the same address everywhere */
enum {
    RCAR_GEN3_DEV_GIC_DIST,
    RCAR_GEN3_DEV_GIC_CPU,
    RCAR_GEN3_DEV_GIC_VIFACE,
    RCAR_GEN3_DEV_GIC_VCPU,
    RCAR_GEN3_DEV_PRR,
    RCAR_GEN3_DEV_RST,
    RCAR_GEN3_DEV_PFC,
    RCAR_GEN3_DEV_SCIF2,
    RCAR_GEN3_DEV_IPMMU_MM,
    RCAR_GEN3_DEV_IPMMU_DS1,
    RCAR_GEN3_DEV_SDHI0,
    RCAR_GEN3_DEV_SDHI1,
    RCAR_GEN3_DEV_SDHI2,
    RCAR_GEN3_DEV_SDHI3,
    RCAR_GEN3_DEV_DRAM0,
    RCAR_GEN3_DEV_CPG,
    RCAR_GEN3_DEV_SYSC,
    RCAR_GEN3_DEV_GPIO0,        /* GPIO n at RCAR_GEN3_DEV_GPIO0 + n */
    RCAR_GEN3_DEV_GPIO7 = RCAR_GEN3_DEV_GPIO0 + RCAR_GEN3_MAX_GPIO_BANKS - 1,
    RCAR_GEN3_NUM_DEVS
};

/* GIC SPI numbers (GIC_SPI n in the device trees) */
enum {
    RCAR_GEN3_SPI_GPIO0 = 4,            /* GPIO bank n is SPI 4 + n */
    RCAR_GEN3_SPI_SCIF2 = 164,
    RCAR_GEN3_SPI_SDHI0 = 165,          /* SDHI n is SPI 165 + n */
    RCAR_GEN3_SPI_IPMMU_MM = 196,
    RCAR_GEN3_SPI_IPMMU_MM_SECURE = 197, /* in the DT; Linux never uses it */
};

/* SDHI n is wired to uTLB 32 + n of IPMMU-DS1 (r8a77951.dtsi "iommus") */
#define RCAR_GEN3_SDHI0_UTLB    32

/* CPG module numbers ("resets = <&cpg N>" in r8a77951.dtsi) */
#define RCAR_GEN3_MOD_SCIF2     310
#define RCAR_GEN3_MOD_SDHI0     314     /* SDHI n is 314 - n */
#define RCAR_GEN3_MOD_GPIO0     912     /* GPIO n is 912 - n */

typedef struct RCarGen3Window {
    const char *name;
    hwaddr base;
    hwaddr size;
} RCarGen3Window;

typedef struct RCarGen3RamBank {
    hwaddr base;
    uint64_t size;
} RCarGen3RamBank;

struct RCarGen3Class {
    SysBusDeviceClass parent_class;

    /* SoC name in the device-tree compatibles ("r8a7795") */
    const char *dt_name;
    uint8_t prr_product;
    uint8_t prr_cut;
    /* CPU type and count of each cluster; cluster 0 boots */
    const char *cluster_cpu_type[RCAR_GEN3_NUM_CLUSTERS];
    unsigned cluster_cpus[RCAR_GEN3_NUM_CLUSTERS];
    unsigned cluster_dmips_mhz[RCAR_GEN3_NUM_CLUSTERS];
    /* CNTFRQ that the boot firmware would program */
    uint64_t cntfrq;
    /* Where RAM goes, in order of filling */
    const RCarGen3RamBank *ram_banks;
    unsigned num_ram_banks;
    /* The SoC's flavours of the CPG and SYSC models */
    const char *cpg_type;
    const char *sysc_type;
    /* GPIO banks and their pins */
    unsigned num_gpio_banks;
    uint8_t gpio_pins[RCAR_GEN3_MAX_GPIO_BANKS];
    /* Windows with no model yet: RAZ/WI and logged under -d unimp */
    const RCarGen3Window *unimp;
    unsigned num_unimp;
};

struct RCarGen3State {
    SysBusDevice parent_obj;

    CPUClusterState cluster[RCAR_GEN3_NUM_CLUSTERS];
    ARMCPU cpu[RCAR_GEN3_MAX_CPUS];
    GICState gic;
    MemoryRegion gicc_alias[RCAR_GEN3_GICC_PAGES][RCAR_GEN3_GIC_PAGE_ALIASES];
    MemoryRegion ram_alias[RCAR_GEN3_MAX_RAM_BANKS];
    RCarPrrState prr;
    RCarRstState rst;
    RCarPfcState pfc;
    RCarCPGState cpg;
    RCarSyscState sysc;
    RCarGPIOState gpio[RCAR_GEN3_MAX_GPIO_BANKS];
    SHSerialState scif2;
    OrIRQState scif2_irq;
    RenesasSDHIState sdhi[RCAR_GEN3_NUM_SDHI];
    RCarIPMMUState ipmmu_mm;
    RCarIPMMUState ipmmu_ds1;

    /* Properties */
    MemoryRegion *dram;
    uint32_t num_cpus;
    uint8_t prr_cut;
    uint32_t modemr;
    uint64_t cntfrq;
    bool iommu;                 /* SDHI DMA through the IPMMU */
};

extern const hwaddr rcar_gen3_memmap[RCAR_GEN3_NUM_DEVS];

/*
 * rcar_gen3_ram_layout: how @ram_size bytes of RAM spread over the banks
 * of SoC class @sc.  Fills @banks and returns how many are used, or 0 when
 * @ram_size does not fit.
 */
unsigned rcar_gen3_ram_layout(const RCarGen3Class *sc, uint64_t ram_size,
                              RCarGen3RamBank banks[RCAR_GEN3_MAX_RAM_BANKS]);

/* The most RAM the banks of SoC class @sc can hold */
uint64_t rcar_gen3_max_ram(const RCarGen3Class *sc);

/* MPIDR affinity of CPU @index, CPUs numbered cluster by cluster */
uint64_t rcar_gen3_cpu_mpidr(const RCarGen3Class *sc, unsigned index);

/* The cluster that CPU @index belongs to */
unsigned rcar_gen3_cpu_cluster(const RCarGen3Class *sc, unsigned index);

#endif
