/*
 * Renesas R-Car Gen3 boards: Salvator-XS with R-Car H3 (r8a77951) or
 * M3-N (r8a77965), Ebisu with R-Car E3 (r8a77990), and the ULCB starter
 * kits with R-Car H3 (r8a77951), H3e-2G (r8a779m1) or M3-N (r8a77965)
 *
 * The board chooses the SoC, gives it the RAM, puts the cards in the
 * SD/MMC hosts and wires the SD slots' switches.  When the user passes no
 * -dtb it generates a device tree that is a strict subset of the upstream
 * board .dts: the SoC adds its nodes (rcar-gen3-fdt.c), the board its
 * memory, clocks, regulators, pin groups and which SD/MMC hosts it uses.
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
#include "exec/icount.h"
#include "system/address-spaces.h"
#include "hw/arm/boot.h"
#include "hw/arm/machines-qom.h"
#include "hw/arm/rcar-gen3.h"
#include "hw/boards.h"
#include "hw/i2c/i2c.h"
#include "hw/irq.h"
#include "hw/misc/bd9571mwv.h"
#include "hw/qdev-properties.h"
#include "system/block-backend.h"
#include "system/blockdev.h"
#include "system/device_tree.h"
#include "system/qtest.h"
#include "system/system.h"
#include <libfdt.h>

#define TYPE_RCAR_GEN3_MACHINE MACHINE_TYPE_NAME("rcar-gen3")
OBJECT_DECLARE_TYPE(RCarGen3MachineState, RCarGen3MachineClass,
                    RCAR_GEN3_MACHINE)

#define RCAR_GEN3_MAX_RAM_BANKS 4

/*
 * The first 128 MiB of DRAM on every Gen3 board belong to the secure
 * firmware (Trusted Firmware-A's BL31 at 0x44000000, OP-TEE at 0x44100000),
 * which is why the boards' .dts have memory start at 0x48000000.  QEMU runs
 * no firmware (PSCI is emulated) and has no TrustZone here, so this is
 * plain RAM; -m counts it as the board does: filled last, never in the
 * device tree, so that Linux does not use it.
 */
#define RCAR_GEN3_FW_DRAM_BASE 0x40000000
#define RCAR_GEN3_FW_DRAM_SIZE (128 * MiB)

/* A DRAM bank that the board populates */
typedef struct RCarGen3RamBank {
    hwaddr base;
    uint64_t size;
} RCarGen3RamBank;

/* The card-detect (active low) and write-protect GPIOs of an SD slot */
typedef struct RCarGen3SlotWiring {
    unsigned sdhi;
    unsigned cd_bank, cd_pin;
    bool has_wp;
    unsigned wp_bank, wp_pin;
} RCarGen3SlotWiring;

/*
 * The EtherAVB's PHY (a KSZ9031RNX on every board): its MDIO address and
 * the GPIO its INT_N (active low) goes to
 */
typedef struct RCarGen3PhyWiring {
    uint8_t addr;
    unsigned int_bank, int_pin;
    uint32_t max_speed;         /* Mb/s, if the .dts limits it */
    uint32_t mac_tx_delay_ps;   /* &avb's tx-internal-delay-ps, if set */
} RCarGen3PhyWiring;

/* The IIC for DVFS, as the bus of an RCarGen3I2CDevice */
#define RCAR_GEN3_BUS_IIC   (-1)

/*
 * A chip on one of the SoC's I2C buses: @bus is an I2C channel or
 * RCAR_GEN3_BUS_IIC.  A chip with an interrupt line the model does not
 * drive has the GPIO it goes to held high (inactive, by the pull-up of
 * its open-drain line): @has_int, @int_bank, @int_pin.
 */
typedef struct RCarGen3I2CDevice {
    int bus;
    uint8_t addr;
    const char *type;
    bool has_int;
    unsigned int_bank, int_pin;
} RCarGen3I2CDevice;

struct RCarGen3MachineClass {
    MachineClass parent_class;

    const char *soc_type;
    /* Root compatible of the board, before the SoC's */
    const char *board_compat;
    const char *model;
    /* Frequency of the SCIF functional clock (S3D4) on this board */
    uint32_t scif_fck_hz;
    /* The crystal the CPG's PLLs multiply (the .dts's extal_clk) */
    uint32_t extal_hz;
    /* The SDHI wired to the on-board eMMC; the others are SD slots */
    unsigned emmc_sdhi;
    /* "fixed-emmc-driver-type" of the eMMC node; -1: none */
    int emmc_driver_type;
    /* SDHI channels the board uses (enabled in the device tree) */
    uint32_t sdhi_used;
    /*
     * The USB 2.0 channels with a connector on the board: the EHCIs its
     * .dts enables (the SoC's others stay unimplemented windows, so that
     * "-device usb-storage" lands on the board's first connector)
     */
    uint32_t usb2_used;
    /* Where the SD slots' switches go: cd-gpios, wp-gpios of each SDHI */
    const RCarGen3SlotWiring *slots;
    unsigned num_slots;
    const RCarGen3PhyWiring *phy;
    /* The chips on the I2C buses */
    const RCarGen3I2CDevice *i2c_devs;
    unsigned num_i2c_devs;
    /* Where RAM goes, in order of filling (the board's .dts) */
    const RCarGen3RamBank *ram_banks;
    unsigned num_ram_banks;
    /* The SoC's core types: what -cpu may name (valid_cpu_types) */
    const char *cpu_types[RCAR_GEN3_NUM_CLUSTERS + 1];
};

/* The fastest bus mode the device tree lets Linux use on the eMMC */
typedef enum RCarGen3EmmcMode {
    RCAR_GEN3_EMMC_HS52,
    RCAR_GEN3_EMMC_HS200,
    RCAR_GEN3_EMMC_HS400,
    RCAR_GEN3_EMMC_MODE_MAX,
} RCarGen3EmmcMode;

static const QEnumLookup rcar_gen3_emmc_mode_lookup = {
    .array = (const char *const[]) {
        [RCAR_GEN3_EMMC_HS52] = "hs52",
        [RCAR_GEN3_EMMC_HS200] = "hs200",
        [RCAR_GEN3_EMMC_HS400] = "hs400",
    },
    .size = RCAR_GEN3_EMMC_MODE_MAX,
};

/* "timing": how long an SD/MMC transfer takes */
typedef enum RCarGen3Timing {
    RCAR_GEN3_TIMING_OFF,       /* as long as QEMU takes to move the data */
    RCAR_GEN3_TIMING_BOARD,     /* the time of the board's bus and eMMC */
    RCAR_GEN3_TIMING_MAX,
} RCarGen3Timing;

static const QEnumLookup rcar_gen3_timing_lookup = {
    .array = (const char *const[]) {
        [RCAR_GEN3_TIMING_OFF] = "off",
        [RCAR_GEN3_TIMING_BOARD] = "board",
    },
    .size = RCAR_GEN3_TIMING_MAX,
};

struct RCarGen3MachineState {
    MachineState parent_obj;

    RCarGen3State *soc;
    KSZ9031PhyState phy;
    struct arm_boot_info binfo;
    int fdt_size;
    Notifier machine_done;
    /* How -m spreads over the board's banks */
    RCarGen3RamBank ram_banks[RCAR_GEN3_MAX_RAM_BANKS];
    unsigned num_ram_banks;
    MemoryRegion ram_alias[RCAR_GEN3_MAX_RAM_BANKS];
    MemoryRegion fw_dram;

    /* Properties */
    bool prr_cut_set;           /* else the SoC's default */
    uint8_t prr_cut;
    bool iommu;
    RCarGen3EmmcMode emmc_mode;
    RCarGen3Timing timing;
};

/*
 * What the eMMC itself takes in timing=board.  The boards' eMMC parts are
 * not public; these are the figures Samsung published for its first eMMC
 * 5.1 devices (64 GB, 2015-02-17): 250 MB/s sequential read, 125 MB/s
 * sequential write, 11,000 and 13,000 random 4 KiB IOPS.  A command's
 * latency is what 1/IOPS leaves once its 4 KiB have streamed at the
 * sequential rate: 90.9 - 16.4 us for a read, 76.9 - 32.8 us for a write.
 */
static const struct {
    const char *prop;
    uint64_t value;
} rcar_gen3_emmc_timing[] = {
    { "x-read-bytes-per-sec", 250000000 },
    { "x-write-bytes-per-sec", 125000000 },
    { "x-read-latency-ns", 74500 },
    { "x-write-latency-ns", 44100 },
};

/*
 * The eMMC's volatile write cache, in every timing mode as Linux uses it:
 * 8 MiB, the CACHE_SIZE of 0x10000 kilobits that Samsung's eMMC 5.1
 * devices report (KLM8G1GETF-B041's EXT_CSD as mmc-utils dumps it).  In
 * timing=board it drains at the sequential write rate above: a long write
 * runs at that rate once the cache is full.
 */
#define RCAR_GEN3_EMMC_CACHE_SIZE   (8 * MiB)

static void rcar_gen3_set_emmc_timing(DeviceState *card)
{
    for (unsigned i = 0; i < ARRAY_SIZE(rcar_gen3_emmc_timing); i++) {
        qdev_prop_set_uint64(card, rcar_gen3_emmc_timing[i].prop,
                             rcar_gen3_emmc_timing[i].value);
    }
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

/* The card in SDHI @n (from -drive or -device), or NULL */
static DeviceState *sdhi_card(RCarGen3MachineState *m, unsigned n)
{
    g_autofree char *name = g_strdup_printf("sdhi%u.sd-bus", n);
    BusState *bus;
    BusChild *kid;

    if (!rcar_gen3_has_sdhi(RCAR_GEN3_SOC_GET_CLASS(m->soc), n)) {
        return NULL;
    }
    bus = qdev_get_child_bus(DEVICE(&m->soc->sdhi[n]), name);
    kid = bus ? QTAILQ_FIRST(&bus->children) : NULL;
    return kid ? kid->child : NULL;
}

/*
 * The channels the board uses, and any other that the user gave a card:
 * SDHI1 is not wired on Salvator-XS, but a card in it means the user
 * wants it.
 */
static uint32_t sdhi_enabled(RCarGen3MachineState *m)
{
    uint32_t mask = RCAR_GEN3_MACHINE_GET_CLASS(m)->sdhi_used;

    for (unsigned n = 0; n < RCAR_GEN3_NUM_SDHI; n++) {
        if (sdhi_card(m, n)) {
            mask |= BIT(n);
        }
    }
    return mask;
}

/* The board's eMMC host, unless the user put an SD card in it */
static bool sdhi_is_emmc(RCarGen3MachineState *m, unsigned n)
{
    DeviceState *card = sdhi_card(m, n);

    return n == RCAR_GEN3_MACHINE_GET_CLASS(m)->emmc_sdhi &&
           (!card || object_dynamic_cast(OBJECT(card), TYPE_EMMC));
}

/* Phandles of what the board's SDHI properties refer to */
typedef struct RCarGen3SdhiFdtRefs {
    uint32_t clk;
    uint32_t vmmc;          /* 3.3 V card power */
    uint32_t vqmmc_1v8;     /* the eMMC's fixed 1.8 V I/O supply */
    uint32_t emmc_pins;     /* pin group of the eMMC channel, 1.8 V */
} RCarGen3SdhiFdtRefs;

/*
 * The eMMC as the board's .dts describes it: 8 bits at 1.8 V, with the
 * pinctrl states without which the SDHI driver refuses 1.8 V signalling,
 * and the HS200/HS400 capabilities that emmc-mode allows.
 */
static void fdt_add_emmc_props(RCarGen3MachineState *m, void *fdt,
                               const char *node,
                               const RCarGen3SdhiFdtRefs *refs)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);

    qemu_fdt_setprop_cells(fdt, node, "pinctrl-0", refs->emmc_pins);
    qemu_fdt_setprop_cells(fdt, node, "pinctrl-1", refs->emmc_pins);
    rcar_gen3_fdt_setprop_strings(fdt, node, "pinctrl-names", "default",
                                  "state_uhs", NULL);
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
    if (mc->emmc_driver_type >= 0) {
        qemu_fdt_setprop_cell(fdt, node, "fixed-emmc-driver-type",
                              mc->emmc_driver_type);
    }
    qemu_fdt_setprop(fdt, node, "full-pwr-cycle-in-suspend", NULL, 0);
}

/*
 * What the board adds to an SDHI node of the SoC: a fixed clock and
 * regulator stand in for the CPG and the board's GPIO regulators; no
 * cd-gpios, so card detect is native (SD_INFO1).
 */
static void fdt_add_sdhi_board_props(RCarGen3MachineState *m, void *fdt,
                                     unsigned n,
                                     const RCarGen3SdhiFdtRefs *refs)
{
    g_autofree char *node = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_SDHI, n);
    bool emmc = sdhi_is_emmc(m, n);

    qemu_fdt_setprop_cell(fdt, node, "clocks", refs->clk);
    qemu_fdt_setprop_string(fdt, node, "clock-names", "core");
    qemu_fdt_setprop_cell(fdt, node, "vmmc-supply", refs->vmmc);
    qemu_fdt_setprop_cell(fdt, node, "bus-width", emmc ? 8 : 4);
    if (emmc) {
        fdt_add_emmc_props(m, fdt, node, refs);
    }
    qemu_fdt_setprop_string(fdt, node, "status", "okay");
}

/*
 * One pin group in the SoC's PFC node: the eMMC pins of the board (data8,
 * ctrl and the HS400 data strobe) at 1.8 V.  Returns its phandle.
 */
static uint32_t fdt_add_emmc_pins(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    g_autofree char *pfc = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_PFC, 0);
    g_autofree char *grp = g_strdup_printf("%s/sd%u", pfc, mc->emmc_sdhi);
    g_autofree char *data8 = g_strdup_printf("sdhi%u_data8", mc->emmc_sdhi);
    g_autofree char *ctrl = g_strdup_printf("sdhi%u_ctrl", mc->emmc_sdhi);
    g_autofree char *ds = g_strdup_printf("sdhi%u_ds", mc->emmc_sdhi);
    g_autofree char *func = g_strdup_printf("sdhi%u", mc->emmc_sdhi);
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);

    qemu_fdt_add_subnode(fdt, grp);
    rcar_gen3_fdt_setprop_strings(fdt, grp, "groups", data8, ctrl, ds, NULL);
    qemu_fdt_setprop_string(fdt, grp, "function", func);
    qemu_fdt_setprop_cell(fdt, grp, "power-source", 1800);
    qemu_fdt_setprop_cell(fdt, grp, "phandle", phandle);
    return phandle;
}

/* mmc0 is the eMMC, then the SD slots in channel order (as the .dts) */
static void fdt_add_mmc_aliases(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    unsigned alias = 0;
    g_autofree char *emmc = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_SDHI,
                                               mc->emmc_sdhi);

    qemu_fdt_setprop_string(fdt, "/aliases", "mmc0", emmc);
    for (unsigned n = 0; n < RCAR_GEN3_NUM_SDHI; n++) {
        g_autofree char *name = NULL;
        g_autofree char *node = NULL;

        if (n == mc->emmc_sdhi || !(sdhi_enabled(m) & BIT(n))) {
            continue;
        }
        name = g_strdup_printf("mmc%u", ++alias);
        node = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_SDHI, n);
        qemu_fdt_setprop_string(fdt, "/aliases", name, node);
    }
}

/* The board's clocks and regulators, and what it sets in the SoC's nodes */
/* The .dts's EXTALR: the 32.768 kHz RTC crystal, the same on every board */
#define RCAR_GEN3_EXTALR_HZ 32768

/* The CPG's crystals, as the .dts gives them to the .dtsi's &cpg */
static void fdt_add_cpg_clocks(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    g_autofree char *cpg = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_CPG, 0);
    uint32_t extal = fdt_add_fixed_clock(fdt, "clock-extal", mc->extal_hz);
    uint32_t extalr = fdt_add_fixed_clock(fdt, "clock-extalr",
                                          RCAR_GEN3_EXTALR_HZ);

    qemu_fdt_setprop_cells(fdt, cpg, "clocks", extal, extalr);
    rcar_gen3_fdt_setprop_strings(fdt, cpg, "clock-names", "extal", "extalr",
                                  NULL);
}

/*
 * The EtherAVB's PHY node (salvator-common.dtsi, ulcb.dtsi, ebisu.dtsi)
 * without its interrupt and reset GPIOs, which the generated tree has no
 * node for: phylib polls the link
 */
static void fdt_add_avb_phy(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    g_autofree char *avb = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_AVB, 0);
    g_autofree char *phy = g_strdup_printf("%s/ethernet-phy@%x", avb,
                                           mc->phy->addr);
    uint32_t phandle = qemu_fdt_alloc_phandle(fdt);

    qemu_fdt_add_subnode(fdt, phy);
    rcar_gen3_fdt_setprop_strings(fdt, phy, "compatible",
                                  "ethernet-phy-id0022.1622",
                                  "ethernet-phy-ieee802.3-c22", NULL);
    qemu_fdt_setprop_cell(fdt, phy, "reg", mc->phy->addr);
    qemu_fdt_setprop_cell(fdt, phy, "rxc-skew-ps", 1500);
    if (mc->phy->max_speed) {
        qemu_fdt_setprop_cell(fdt, phy, "max-speed", mc->phy->max_speed);
    }
    qemu_fdt_setprop_cell(fdt, phy, "phandle", phandle);
    qemu_fdt_setprop_cell(fdt, avb, "phy-handle", phandle);
    if (mc->phy->mac_tx_delay_ps) {
        qemu_fdt_setprop_cell(fdt, avb, "tx-internal-delay-ps",
                              mc->phy->mac_tx_delay_ps);
    }
    qemu_fdt_setprop_string(fdt, avb, "status", "okay");
}

static void fdt_add_board_devices(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    g_autofree char *scif = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_SCIF2, 0);
    RCarGen3SdhiFdtRefs refs = { 0 };
    uint32_t scif_fck;

    scif_fck = fdt_add_fixed_clock(fdt, "clock-scif", mc->scif_fck_hz);
    refs.clk = fdt_add_fixed_clock(fdt, "clock-sdhi", RCAR_GEN3_SDN_HZ);
    refs.vmmc = fdt_add_fixed_regulator(fdt, "3p3v", 3300000);
    refs.vqmmc_1v8 = fdt_add_fixed_regulator(fdt, "1p8v", 1800000);

    rcar_gen3_fdt_populate(m->soc, fdt);
    fdt_add_cpg_clocks(m, fdt);
    fdt_add_avb_phy(m, fdt);

    refs.emmc_pins = fdt_add_emmc_pins(m, fdt);
    for (unsigned n = 0; n < RCAR_GEN3_NUM_SDHI; n++) {
        if (sdhi_enabled(m) & BIT(n)) {
            fdt_add_sdhi_board_props(m, fdt, n, &refs);
        }
    }
    qemu_fdt_setprop_cell(fdt, scif, "clocks", scif_fck);
    qemu_fdt_setprop_string(fdt, scif, "clock-names", "fck");
}

/*
 * The board's compatible, then the SoC's (r8a779m1-ulcb.dts:
 * "renesas,h3ulcb", "renesas,r8a779m1", "renesas,r8a7795")
 */
static void fdt_set_root_compatible(RCarGen3MachineState *m, void *fdt)
{
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    const char *compat[RCAR_GEN3_MAX_SOC_COMPATS + 1] = {
        RCAR_GEN3_MACHINE_GET_CLASS(m)->board_compat,
    };
    unsigned n = 1;

    for (const char *const *c = sc->dt_compatible; *c; c++) {
        compat[n++] = *c;
    }
    qemu_fdt_setprop_string_array(fdt, "/", "compatible", (char **)compat, n);
}

static void rcar_gen3_create_fdt(RCarGen3MachineState *m)
{
    MachineState *ms = MACHINE(m);
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    g_autofree char *scif = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_SCIF2, 0);
    g_autofree char *avb = rcar_gen3_fdt_path(m->soc, RCAR_GEN3_AVB, 0);
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

    fdt_set_root_compatible(m, fdt);
    qemu_fdt_setprop_string(fdt, "/", "model", mc->model);
    qemu_fdt_setprop_cell(fdt, "/", "#address-cells", 2);
    qemu_fdt_setprop_cell(fdt, "/", "#size-cells", 2);

    /* Created in reverse order of appearance: see fdt_add_cpus() */
    fdt_add_board_devices(m, fdt);
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
    qemu_fdt_setprop_string(fdt, "/aliases", "serial0", scif);
    qemu_fdt_setprop_string(fdt, "/aliases", "ethernet0", avb);
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
    RCarGen3Class *sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    const char *name = MACHINE_GET_CLASS(m)->name;

    for (unsigned n = 0; n < RCAR_GEN3_NUM_SDHI; n++) {
        DriveInfo *di = drive_get(IF_SD, 0, n);
        g_autofree char *bus_name = g_strdup_printf("sdhi%u.sd-bus", n);
        DeviceState *card;

        if (!di) {
            continue;
        }
        if (!rcar_gen3_has_sdhi(sc, n)) {
            error_report("%s has no SD/MMC host SDHI%u: -drive if=sd,index=%u "
                         "has nowhere to go", name, n, n);
            exit(1);
        }
        if (n == mc->emmc_sdhi) {
            /* An eMMC 5.1 device, as soldered on the board */
            card = qdev_new(TYPE_EMMC);
            qdev_prop_set_bit(card, "hs400", true);
            qdev_prop_set_uint64(card, "cache-size",
                                 RCAR_GEN3_EMMC_CACHE_SIZE);
            if (m->timing == RCAR_GEN3_TIMING_BOARD) {
                rcar_gen3_set_emmc_timing(card);
            }
        } else {
            card = qdev_new(TYPE_SD_CARD);
        }
        qdev_prop_set_drive_err(card, "drive", blk_by_legacy_dinfo(di),
                                &error_fatal);
        qdev_realize_and_unref(card,
                               qdev_get_child_bus(DEVICE(&m->soc->sdhi[n]),
                                                  bus_name),
                               &error_fatal);
    }
    if (drive_get(IF_SD, 0, RCAR_GEN3_NUM_SDHI)) {
        error_report("%s has SD/MMC hosts SDHI0 to SDHI%u: -drive if=sd,"
                     "index=%u has nowhere to go", name,
                     RCAR_GEN3_NUM_SDHI - 1, RCAR_GEN3_NUM_SDHI);
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
        if (w->has_wp) {
            qdev_connect_gpio_out_named(sdhi, "write-protect", 0,
                qdev_get_gpio_in(DEVICE(&m->soc->gpio[w->wp_bank]),
                                 w->wp_pin));
        }
    }
}

/* The PHY on the EtherAVB's MDIO lines; its interrupt goes to a GPIO */
static void rcar_gen3_create_phy(RCarGen3MachineState *m)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);

    object_initialize_child(OBJECT(m), "ethernet-phy", &m->phy,
                            TYPE_KSZ9031_PHY);
    qdev_prop_set_uint8(DEVICE(&m->phy), "addr", mc->phy->addr);
    sysbus_realize(SYS_BUS_DEVICE(&m->phy), &error_fatal);
    object_property_set_link(OBJECT(&m->soc->avb), "phy", OBJECT(&m->phy),
                             &error_abort);
}

static void rcar_gen3_wire_phy(RCarGen3MachineState *m)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);

    qdev_connect_gpio_out_named(DEVICE(&m->phy), "int", 0,
        qdev_get_gpio_in(DEVICE(&m->soc->gpio[mc->phy->int_bank]),
                         mc->phy->int_pin));
}

static I2CBus *rcar_gen3_i2c_bus(RCarGen3MachineState *m, int bus)
{
    return bus == RCAR_GEN3_BUS_IIC ? m->soc->iic.bus : m->soc->i2c[bus].bus;
}

static void rcar_gen3_create_i2c_devs(RCarGen3MachineState *m)
{
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);

    for (unsigned i = 0; i < mc->num_i2c_devs; i++) {
        const RCarGen3I2CDevice *d = &mc->i2c_devs[i];

        i2c_slave_create_simple(rcar_gen3_i2c_bus(m, d->bus), d->type,
                                d->addr);
        if (d->has_int) {
            qemu_irq_raise(qdev_get_gpio_in(
                DEVICE(&m->soc->gpio[d->int_bank]), d->int_pin));
        }
    }
}

static void *rcar_gen3_get_dtb(const struct arm_boot_info *binfo, int *size)
{
    RCarGen3MachineState *m = container_of(binfo, RCarGen3MachineState, binfo);

    *size = m->fdt_size;
    return MACHINE(m)->fdt;
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
        rcar_gen3_fdt_fixup(m->soc, fdt);
    }
}

/*
 * Spread -m over the board's banks, in order, and map each part where its
 * bank is; what is left past them goes to the firmware's DRAM.
 */
static void rcar_gen3_map_ram(RCarGen3MachineState *m)
{
    MachineState *ms = MACHINE(m);
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(m);
    uint64_t left = ms->ram_size, offset = 0, linux_ram = 0;

    for (unsigned i = 0; i < mc->num_ram_banks; i++) {
        linux_ram += mc->ram_banks[i].size;
    }
    if (ms->ram_size > linux_ram + RCAR_GEN3_FW_DRAM_SIZE) {
        error_report("%s: -m %" PRIu64 "M is more than the board's %" PRIu64
                     " MiB of DRAM (%" PRIu64 " MiB for Linux, 128 MiB for "
                     "the secure firmware)",
                     MACHINE_GET_CLASS(ms)->name, ms->ram_size / MiB,
                     (linux_ram + RCAR_GEN3_FW_DRAM_SIZE) / MiB,
                     linux_ram / MiB);
        exit(1);
    }
    for (unsigned i = 0; i < mc->num_ram_banks && left; i++) {
        RCarGen3RamBank *bank = &m->ram_banks[m->num_ram_banks++];

        bank->base = mc->ram_banks[i].base;
        bank->size = MIN(left, mc->ram_banks[i].size);
        memory_region_init_alias(&m->ram_alias[i], OBJECT(m), "rcar-gen3.ram",
                                 ms->ram, offset, bank->size);
        memory_region_add_subregion(get_system_memory(), bank->base,
                                    &m->ram_alias[i]);
        offset += bank->size;
        left -= bank->size;
    }
    if (left) {
        memory_region_init_alias(&m->fw_dram, OBJECT(m), "rcar-gen3.fw-dram",
                                 ms->ram, offset, left);
        memory_region_add_subregion(get_system_memory(),
                                    RCAR_GEN3_FW_DRAM_BASE, &m->fw_dram);
    }
}

/*
 * The device tree goes in once the machine is complete: a card that
 * -device put in an SD/MMC host enables that host too.
 */
static void rcar_gen3_machine_done(Notifier *notifier, void *data)
{
    RCarGen3MachineState *m = container_of(notifier, RCarGen3MachineState,
                                           machine_done);
    ARMCPU *cpu = &m->soc->cpu[0];

    if (!MACHINE(m)->dtb) {
        rcar_gen3_create_fdt(m);
    }
    if (arm_load_dtb(m->binfo.dtb_start, &m->binfo, m->binfo.dtb_limit,
                     arm_boot_address_space(cpu, &m->binfo), MACHINE(m),
                     cpu) < 0) {
        exit(1);
    }
}

static void rcar_gen3_board_init(MachineState *ms)
{
    RCarGen3MachineState *m = RCAR_GEN3_MACHINE(ms);
    RCarGen3MachineClass *mc = RCAR_GEN3_MACHINE_GET_CLASS(ms);
    RCarGen3Class *sc;

    rcar_gen3_map_ram(m);
    m->soc = RCAR_GEN3_SOC(object_new(mc->soc_type));
    object_property_add_child(OBJECT(ms), "soc", OBJECT(m->soc));
    sc = RCAR_GEN3_SOC_GET_CLASS(m->soc);
    assert(rcar_gen3_has_sdhi(sc, mc->emmc_sdhi));
    for (unsigned i = 0; i < mc->num_slots; i++) {
        assert(rcar_gen3_has_sdhi(sc, mc->slots[i].sdhi) &&
               mc->slots[i].cd_bank < sc->num_gpio_banks &&
               (!mc->slots[i].has_wp ||
                mc->slots[i].wp_bank < sc->num_gpio_banks));
    }
    qdev_prop_set_uint32(DEVICE(m->soc), "num-cpus", ms->smp.cpus);
    if (m->prr_cut_set) {
        qdev_prop_set_uint8(DEVICE(m->soc), "prr-cut", m->prr_cut);
    }
    qdev_prop_set_bit(DEVICE(m->soc), "iommu", m->iommu);
    qdev_prop_set_uint32(DEVICE(m->soc), "usb2-channels", mc->usb2_used);
    assert(mc->phy && mc->phy->int_bank < sc->num_gpio_banks);
    for (unsigned i = 0; i < mc->num_i2c_devs; i++) {
        assert(mc->i2c_devs[i].bus == RCAR_GEN3_BUS_IIC ||
               rcar_gen3_has_i2c(sc, mc->i2c_devs[i].bus));
        assert(!mc->i2c_devs[i].has_int ||
               (mc->i2c_devs[i].int_bank < sc->num_gpio_banks &&
                mc->i2c_devs[i].int_pin <
                sc->gpio_pins[mc->i2c_devs[i].int_bank]));
    }
    rcar_gen3_create_phy(m);
    if (m->timing == RCAR_GEN3_TIMING_BOARD) {
        qdev_prop_set_bit(DEVICE(m->soc), "x-sdhi-timing", true);
        if (!icount_enabled() && !qtest_enabled()) {
            warn_report("timing=board without -icount: the guest's CPU runs "
                        "as fast as TCG does, not as the board's cores do");
        }
    }
    sysbus_realize_and_unref(SYS_BUS_DEVICE(m->soc), &error_fatal);
    rcar_gen3_attach_cards(m);
    rcar_gen3_wire_slots(m);
    rcar_gen3_wire_phy(m);
    rcar_gen3_create_i2c_devs(m);

    m->binfo = (struct arm_boot_info) {
        .loader_start = m->ram_banks[0].base,
        .ram_size = m->ram_banks[0].size,
        .board_id = -1,
        .psci_conduit = QEMU_PSCI_CONDUIT_SMC,
        .get_dtb = rcar_gen3_get_dtb,
        .modify_dtb = rcar_gen3_modify_dtb,
        /* Loaded once -device has put its cards in: see machine_done */
        .skip_dtb_autoload = true,
    };
    if (!qtest_enabled()) {
        arm_load_kernel(&m->soc->cpu[0], ms, &m->binfo);
        m->machine_done.notify = rcar_gen3_machine_done;
        qemu_add_machine_init_done_notifier(&m->machine_done);
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
    RCarGen3MachineState *m = RCAR_GEN3_MACHINE(obj);

    if (visit_type_uint8(v, name, &m->prr_cut, errp)) {
        m->prr_cut_set = true;
    }
}

static bool rcar_gen3_get_iommu(Object *obj, Error **errp)
{
    return RCAR_GEN3_MACHINE(obj)->iommu;
}

static void rcar_gen3_set_iommu(Object *obj, bool value, Error **errp)
{
    RCAR_GEN3_MACHINE(obj)->iommu = value;
}

static int rcar_gen3_get_emmc_mode(Object *obj, Error **errp)
{
    return RCAR_GEN3_MACHINE(obj)->emmc_mode;
}

static void rcar_gen3_set_emmc_mode(Object *obj, int value, Error **errp)
{
    RCAR_GEN3_MACHINE(obj)->emmc_mode = value;
}

static int rcar_gen3_get_timing(Object *obj, Error **errp)
{
    return RCAR_GEN3_MACHINE(obj)->timing;
}

static void rcar_gen3_set_timing(Object *obj, int value, Error **errp)
{
    RCAR_GEN3_MACHINE(obj)->timing = value;
}

static void rcar_gen3_machine_instance_init(Object *obj)
{
    RCAR_GEN3_MACHINE(obj)->iommu = true;
    RCAR_GEN3_MACHINE(obj)->emmc_mode = RCAR_GEN3_EMMC_HS400;
}

static void rcar_gen3_machine_class_init(ObjectClass *oc, const void *data)
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
        "Silicon revision in the PRR: on H3 0x20 is ES3.0 (the default), "
        "0x10 ES2.0, 0x00 ES1.0; on M3-N 0x00 is ES1.0 (the default); on "
        "E3 0x01 is ES1.1 (the default), 0x00 ES1.0");
    object_class_property_add_bool(oc, "iommu", rcar_gen3_get_iommu,
                                   rcar_gen3_set_iommu);
    object_class_property_set_description(oc, "iommu",
        "Set off to connect the SD/MMC hosts straight to memory instead of "
        "through the IPMMU, and leave the IPMMU out of the device tree");
    object_class_property_add_enum(oc, "emmc-mode", "RCarGen3EmmcMode",
                                   &rcar_gen3_emmc_mode_lookup,
                                   rcar_gen3_get_emmc_mode,
                                   rcar_gen3_set_emmc_mode);
    object_class_property_set_description(oc, "emmc-mode",
        "The fastest eMMC bus mode in the device tree: hs400 (the default, "
        "as on the board), hs200, or hs52 (no tuning)");
    object_class_property_add_enum(oc, "timing", "RCarGen3Timing",
                                   &rcar_gen3_timing_lookup,
                                   rcar_gen3_get_timing, rcar_gen3_set_timing);
    object_class_property_set_description(oc, "timing",
        "off (the default): SD/MMC transfers end as soon as QEMU has moved "
        "the data; board: they take the time of the bus mode the guest "
        "set and of the eMMC (use with -icount shift=0,sleep=off)");
}

/* The board's SoC, and the CPUs it has */
static void rcar_gen3_machine_set_soc(ObjectClass *oc, const char *soc_type)
{
    MachineClass *mc = MACHINE_CLASS(oc);
    RCarGen3Class *sc = RCAR_GEN3_SOC_CLASS(object_class_by_name(soc_type));
    RCarGen3MachineClass *rmc = RCAR_GEN3_MACHINE_CLASS(oc);
    unsigned n = 0;

    rmc->soc_type = soc_type;
    /*
     * -cpu may name a core type of the SoC, as kernel CI's command lines
     * always do (LAVA passes -cpu cortex-a57).  It does not change the
     * SoC, which builds each cluster with its own core type; any other
     * type is refused.
     */
    for (unsigned c = 0; c < RCAR_GEN3_NUM_CLUSTERS; c++) {
        if (sc->cluster_cpu_type[c]) {
            rmc->cpu_types[n++] = sc->cluster_cpu_type[c];
        }
    }
    assert(n);
    mc->valid_cpu_types = rmc->cpu_types;
    mc->min_cpus = 1;
    mc->max_cpus = rcar_gen3_num_cpus(sc);
    mc->default_cpus = mc->max_cpus;
}

/* salvator-common.dtsi: &sdhi0 and &sdhi3 cd-gpios, wp-gpios */
static const RCarGen3SlotWiring salvator_xs_slots[] = {
    { .sdhi = 0, .cd_bank = 3, .cd_pin = 12,
      .has_wp = true, .wp_bank = 3, .wp_pin = 13 },
    { .sdhi = 3, .cd_bank = 4, .cd_pin = 15,
      .has_wp = true, .wp_bank = 4, .wp_pin = 16 },
};

/* salvator-common.dtsi: &avb's phy0, interrupt on GPIO2 11; TX delay */
static const RCarGen3PhyWiring salvator_xs_phy = {
    .addr = 0, .int_bank = 2, .int_pin = 11, .mac_tx_delay_ps = 2000,
};

/*
 * salvator-common.dtsi: the PMIC on the IIC for DVFS; the PCA9654 GPIO
 * expander on I2C4 (a PCA9554 to Linux: gpio-pca953x.c), no interrupt
 */
static const RCarGen3I2CDevice salvator_xs_i2c[] = {
    { .bus = RCAR_GEN3_BUS_IIC, .addr = 0x30, .type = TYPE_BD9571MWV },
    { .bus = 4, .addr = 0x20, .type = "pca9554" },
};

/* What Salvator-XS is with either SoC (salvator-common.dtsi) */
static void salvator_xs_class_init(ObjectClass *oc)
{
    RCarGen3MachineClass *rmc = RCAR_GEN3_MACHINE_CLASS(oc);

    rmc->board_compat = "renesas,salvator-xs";
    /* S3D4 = EXTAL 16.64 MHz * 192 / 2 / 6 / 4 with MODEMR = 0 */
    rmc->scif_fck_hz = 66560000;
    rmc->extal_hz = 16640000;           /* salvator-xs.dtsi */
    /* SD slots on SDHI0 and SDHI3, eMMC on SDHI2 */
    rmc->emmc_sdhi = 2;
    rmc->emmc_driver_type = 1;
    rmc->sdhi_used = BIT(0) | BIT(2) | BIT(3);
    /*
     * USB 2.0 on every channel the SoC has: salvator-common.dtsi enables
     * 0, 1 and 2 (SOC_HAS_USB2_CH2), salvator-xs.dtsi 3
     */
    rmc->usb2_used = BIT(0) | BIT(1) | BIT(2) | BIT(3);
    rmc->slots = salvator_xs_slots;
    rmc->num_slots = ARRAY_SIZE(salvator_xs_slots);
    rmc->phy = &salvator_xs_phy;
    rmc->i2c_devs = salvator_xs_i2c;
    rmc->num_i2c_devs = ARRAY_SIZE(salvator_xs_i2c);
}

/* ulcb.dtsi: &sdhi0 cd-gpios; the slot has no write-protect switch */
static const RCarGen3SlotWiring ulcb_slots[] = {
    { .sdhi = 0, .cd_bank = 3, .cd_pin = 12 },
};

/* ulcb.dtsi: &avb's phy0, interrupt on GPIO2 11; TX delay */
static const RCarGen3PhyWiring ulcb_phy = {
    .addr = 0, .int_bank = 2, .int_pin = 11, .mac_tx_delay_ps = 2000,
};

/* ulcb.dtsi: the PMIC on the IIC for DVFS */
static const RCarGen3I2CDevice ulcb_i2c[] = {
    { .bus = RCAR_GEN3_BUS_IIC, .addr = 0x30, .type = TYPE_BD9571MWV },
};

/* What the ULCB starter kit is with any of its SoCs (ulcb.dtsi) */
static void ulcb_class_init(ObjectClass *oc)
{
    RCarGen3MachineClass *rmc = RCAR_GEN3_MACHINE_CLASS(oc);

    /* S3D4 = EXTAL 16.666666 MHz * 192 / 2 / 6 / 4 with MODEMR = 0 */
    rmc->scif_fck_hz = 66666664;
    rmc->extal_hz = 16666666;           /* ulcb.dtsi */
    /* An SD slot on SDHI0, eMMC on SDHI2 */
    rmc->emmc_sdhi = 2;
    rmc->emmc_driver_type = -1;
    rmc->sdhi_used = BIT(0) | BIT(2);
    rmc->usb2_used = BIT(1);            /* &ehci1 */
    rmc->slots = ulcb_slots;
    rmc->num_slots = ARRAY_SIZE(ulcb_slots);
    rmc->phy = &ulcb_phy;
    rmc->i2c_devs = ulcb_i2c;
    rmc->num_i2c_devs = ARRAY_SIZE(ulcb_i2c);
}

/*
 * The H3 boards' 4 GiB (r8a77951-salvator-xs.dts, r8a77951-ulcb.dts and
 * r8a779m1-ulcb.dts): 896 MiB below 4 GiB, then three 1 GiB banks
 */
static const RCarGen3RamBank h3_board_ram[] = {
    { 0x0048000000, 0x38000000 },
    { 0x0500000000, 1 * GiB },
    { 0x0600000000, 1 * GiB },
    { 0x0700000000, 1 * GiB },
};

/* A board with an H3 (@soc_type r8a77951 or r8a779m1) and its RAM */
static void h3_board_class_init(ObjectClass *oc, const char *soc_type)
{
    MachineClass *mc = MACHINE_CLASS(oc);
    RCarGen3MachineClass *rmc = RCAR_GEN3_MACHINE_CLASS(oc);

    /* 2 GiB puts RAM above 4 GiB, where 32-bit DMA masters need bouncing */
    mc->default_ram_size = 2 * GiB;
    rcar_gen3_machine_set_soc(oc, soc_type);
    rmc->ram_banks = h3_board_ram;
    rmc->num_ram_banks = ARRAY_SIZE(h3_board_ram);
}

/*
 * The M3-N boards' 2 GiB (r8a77965-salvator-xs.dts, r8a77965-ulcb.dts):
 * 1920 MiB, all below 4 GiB
 */
static const RCarGen3RamBank m3n_board_ram[] = {
    { 0x0048000000, 0x78000000 },
};

/* A board with an M3-N and its RAM */
static void m3n_board_class_init(ObjectClass *oc)
{
    MachineClass *mc = MACHINE_CLASS(oc);
    RCarGen3MachineClass *rmc = RCAR_GEN3_MACHINE_CLASS(oc);

    mc->default_ram_size = 1920 * MiB;
    rcar_gen3_machine_set_soc(oc, TYPE_R8A77965);
    rmc->ram_banks = m3n_board_ram;
    rmc->num_ram_banks = ARRAY_SIZE(m3n_board_ram);
}

static void salvator_xs_h3_class_init(ObjectClass *oc, const void *data)
{
    MACHINE_CLASS(oc)->desc =
        "Renesas Salvator-XS board with R-Car H3 (r8a77951)";
    h3_board_class_init(oc, TYPE_R8A77951);
    salvator_xs_class_init(oc);
    RCAR_GEN3_MACHINE_CLASS(oc)->model =
        "Renesas Salvator-X 2nd version board based on r8a77951";
}

static void salvator_xs_m3n_class_init(ObjectClass *oc, const void *data)
{
    MACHINE_CLASS(oc)->desc =
        "Renesas Salvator-XS board with R-Car M3-N (r8a77965)";
    m3n_board_class_init(oc);
    salvator_xs_class_init(oc);
    RCAR_GEN3_MACHINE_CLASS(oc)->model =
        "Renesas Salvator-X 2nd version board based on r8a77965";
}

/* The H3ULCB (R-Car Starter Kit Premier) with either H3 */
static void h3ulcb_class_init(ObjectClass *oc, const char *soc_type)
{
    h3_board_class_init(oc, soc_type);
    ulcb_class_init(oc);
    RCAR_GEN3_MACHINE_CLASS(oc)->board_compat = "renesas,h3ulcb";
}

/* r8a77951-ulcb.dts */
static void ulcb_h3_class_init(ObjectClass *oc, const void *data)
{
    MACHINE_CLASS(oc)->desc = "Renesas H3ULCB board with R-Car H3 (r8a77951)";
    h3ulcb_class_init(oc, TYPE_R8A77951);
    RCAR_GEN3_MACHINE_CLASS(oc)->model =
        "Renesas H3ULCB board based on r8a77951";
}

/* r8a779m1-ulcb.dts: the H3ULCB with the H3e-2G, as kernel CI's labs have */
static void ulcb_h3e_class_init(ObjectClass *oc, const void *data)
{
    MACHINE_CLASS(oc)->desc =
        "Renesas H3ULCB board with R-Car H3e-2G (r8a779m1)";
    h3ulcb_class_init(oc, TYPE_R8A779M1);
    RCAR_GEN3_MACHINE_CLASS(oc)->model =
        "Renesas H3ULCB board based on r8a779m1";
}

/* r8a77965-ulcb.dts: the M3NULCB (R-Car Starter Kit Pro with M3-N) */
static void ulcb_m3n_class_init(ObjectClass *oc, const void *data)
{
    RCarGen3MachineClass *rmc = RCAR_GEN3_MACHINE_CLASS(oc);

    MACHINE_CLASS(oc)->desc =
        "Renesas M3NULCB board with R-Car M3-N (r8a77965)";
    m3n_board_class_init(oc);
    ulcb_class_init(oc);
    rmc->board_compat = "renesas,m3nulcb";
    rmc->model = "Renesas M3NULCB board based on r8a77965";
}

/* ebisu.dtsi: &sdhi0 cd-gpios, wp-gpios; &sdhi1 cd-gpios only */
static const RCarGen3SlotWiring ebisu_slots[] = {
    { .sdhi = 0, .cd_bank = 3, .cd_pin = 12,
      .has_wp = true, .wp_bank = 3, .wp_pin = 13 },
    { .sdhi = 1, .cd_bank = 3, .cd_pin = 14 },
};

/* ebisu.dtsi: &avb's phy0, interrupt on GPIO2 21, 100 Mb/s at most */
static const RCarGen3PhyWiring ebisu_phy = {
    .addr = 0, .int_bank = 2, .int_pin = 21, .max_speed = 100,
};

/*
 * ebisu.dtsi: the PMIC on the IIC for DVFS; the PCA9654 on I2C0, its
 * INT_N on GPIO2 22 (level low), which the model never pulls
 */
static const RCarGen3I2CDevice ebisu_i2c[] = {
    { .bus = RCAR_GEN3_BUS_IIC, .addr = 0x30, .type = TYPE_BD9571MWV },
    { .bus = 0, .addr = 0x20, .type = "pca9554",
      .has_int = true, .int_bank = 2, .int_pin = 22 },
};

/* r8a77990-ebisu.dts: 896 MiB */
static const RCarGen3RamBank ebisu_ram[] = {
    { 0x0048000000, 0x38000000 },
};

static void ebisu_class_init(ObjectClass *oc, const void *data)
{
    MachineClass *mc = MACHINE_CLASS(oc);
    RCarGen3MachineClass *rmc = RCAR_GEN3_MACHINE_CLASS(oc);

    mc->desc = "Renesas Ebisu board with R-Car E3 (r8a77990)";
    mc->default_ram_size = 896 * MiB;
    rcar_gen3_machine_set_soc(oc, TYPE_R8A77990);
    rmc->board_compat = "renesas,ebisu";
    rmc->model = "Renesas Ebisu board based on r8a77990";
    rmc->ram_banks = ebisu_ram;
    rmc->num_ram_banks = ARRAY_SIZE(ebisu_ram);
    /* S3D4C = EXTAL 48 MHz * 100 / 3 / 6 / 4: PLL1 and S3 with MODEMR = 0 */
    rmc->scif_fck_hz = 66666666;
    rmc->extal_hz = 48000000;           /* ebisu.dtsi */
    /* SD slots on SDHI0 and SDHI1, eMMC on SDHI3 */
    rmc->emmc_sdhi = 3;
    rmc->emmc_driver_type = -1;
    rmc->sdhi_used = BIT(0) | BIT(1) | BIT(3);
    rmc->usb2_used = BIT(0);            /* &ehci0 */
    rmc->slots = ebisu_slots;
    rmc->num_slots = ARRAY_SIZE(ebisu_slots);
    rmc->phy = &ebisu_phy;
    rmc->i2c_devs = ebisu_i2c;
    rmc->num_i2c_devs = ARRAY_SIZE(ebisu_i2c);
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
        .interfaces = aarch64_machine_interfaces,
    }, {
        .name = MACHINE_TYPE_NAME("r8a77965-salvator-xs"),
        .parent = TYPE_RCAR_GEN3_MACHINE,
        .class_init = salvator_xs_m3n_class_init,
        .interfaces = aarch64_machine_interfaces,
    }, {
        .name = MACHINE_TYPE_NAME("r8a77951-ulcb"),
        .parent = TYPE_RCAR_GEN3_MACHINE,
        .class_init = ulcb_h3_class_init,
        .interfaces = aarch64_machine_interfaces,
    }, {
        .name = MACHINE_TYPE_NAME("r8a779m1-ulcb"),
        .parent = TYPE_RCAR_GEN3_MACHINE,
        .class_init = ulcb_h3e_class_init,
        .interfaces = aarch64_machine_interfaces,
    }, {
        .name = MACHINE_TYPE_NAME("r8a77965-ulcb"),
        .parent = TYPE_RCAR_GEN3_MACHINE,
        .class_init = ulcb_m3n_class_init,
        .interfaces = aarch64_machine_interfaces,
    }, {
        .name = MACHINE_TYPE_NAME("r8a77990-ebisu"),
        .parent = TYPE_RCAR_GEN3_MACHINE,
        .class_init = ebisu_class_init,
        .interfaces = aarch64_machine_interfaces,
    },
};

DEFINE_TYPES(rcar_gen3_machine_types)
