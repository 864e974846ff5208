/*
 * Microchip (Micrel) KSZ9031RNX gigabit Ethernet PHY
 *
 * What Linux's micrel.c (the "Micrel KSZ9031 Gigabit PHY" driver) and
 * phylib use: the clause 22 registers, the MMD registers through registers
 * 13 and 14 (ksz9031_config_init()'s pad skews, FLP timing and EDPD), the
 * interrupt control/status register and the INT_N polarity in register
 * 0x1f (kszphy_config_intr(), kszphy_handle_interrupt()).  Management
 * frames arrive bit by bit on MDC/MDIO, as from Linux's mdio-bitbang.
 * RESET_N is not modelled: the boards' boot loaders leave it released.
 *
 * The cable's peer is a gigabit full-duplex link partner with pause;
 * autonegotiation completes as soon as it starts.  Pad skews and the
 * other analogue settings are kept and read back, with no effect.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/net/ksz9031_phy.h"
#include "hw/net/mii.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "qapi/error.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

/* PHY identifier: PHY_ID_KSZ9031 0x00221620 (include/linux/micrel_phy.h) */
#define KSZ9031_PHYID1          0x0022
#define KSZ9031_PHYID2          0x1622  /* revision 2 (A4) */

/* Registers of the KSZ9031 beyond clause 22's (micrel.c) */
#define KSZ9031_INTCS           0x1b
#define KSZ9031_INTCS_LINK_UP   BIT(0)  /* status; enable in bit n + 8 */
#define KSZ9031_INTCS_LINK_DOWN BIT(2)
#define KSZ9031_INTCS_STATUS    0xff
#define KSZ9031_CTRL2           0x1f
#define KSZ9031_CTRL2_INT_HIGH  BIT(14) /* interrupt_level_mask */

/* MMD access control (IEEE 802.3 annex 22D) */
#define MMD_CTRL_FUNC_SHIFT     14
#define MMD_CTRL_DEVAD_MASK     0x1f
enum { MMD_FUNC_ADDR, MMD_FUNC_DATA, MMD_FUNC_DATA_INC_RW,
       MMD_FUNC_DATA_INC_W };

/* Clause 22 frame: ST 01, OP 10 read / 01 write */
#define MDIO_PREAMBLE_BITS      32
#define MDIO_HEADER_BITS        13      /* ST's 1, OP 2, PHYAD 5, REGAD 5 */
#define MDIO_OP_READ            2
#define MDIO_OP_WRITE           1
#define MDIO_DATA_BITS          16
#define MDIO_WRITE_BITS         (2 + MDIO_DATA_BITS)    /* TA 10, data */

/*
 * MMD 0, 1, 2 and 0x1c hold the KSZ9031's own registers; 3 and 7 the EEE
 * ability (3.20) and advertisement (7.60), 0: no EEE, so phylib leaves it
 */
static const uint8_t ksz9031_mmd_devad[KSZ9031_NUM_MMDS] = {
    0, 1, 2, 3, 7, 0x1c,
};

static void ksz9031_update_int(KSZ9031PhyState *s)
{
    bool pending = s->intcs & (s->intcs >> 8) & KSZ9031_INTCS_STATUS;
    bool active_high = s->ctrl2 & KSZ9031_CTRL2_INT_HIGH;

    qemu_set_irq(s->int_pin, pending == active_high);
}

static void ksz9031_link_event(KSZ9031PhyState *s)
{
    s->intcs |= s->link_up ? KSZ9031_INTCS_LINK_UP : KSZ9031_INTCS_LINK_DOWN;
    ksz9031_update_int(s);
}

/* The power-on values of the registers (KSZ9031RNX datasheet, 4.x) */
static void ksz9031_reset_registers(KSZ9031PhyState *s)
{
    s->bmcr = MII_BMCR_AUTOEN | MII_BMCR_FD | MII_BMCR_SPEED1000;
    s->anar = MII_ANAR_TXFD | MII_ANAR_TX | MII_ANAR_10FD | MII_ANAR_10 |
              MII_ANAR_CSMACD;
    s->ctrl1000 = MII_CTRL1000_FULL | MII_CTRL1000_HALF;
    s->mmd_ctrl = 0;
    s->intcs = 0;
    s->ctrl2 = 0;
    memset(s->mmd_addr, 0, sizeof(s->mmd_addr));
    memset(s->mmd, 0, sizeof(s->mmd));
    s->link_down_latched = !s->link_up;
}

static bool ksz9031_link_on(KSZ9031PhyState *s)
{
    return s->link_up && !(s->bmcr & MII_BMCR_PDOWN);
}

static bool ksz9031_autoneg_done(KSZ9031PhyState *s)
{
    return ksz9031_link_on(s) && (s->bmcr & MII_BMCR_AUTOEN);
}

static uint16_t ksz9031_bmsr(KSZ9031PhyState *s)
{
    uint16_t bmsr = MII_BMSR_100TX_FD | MII_BMSR_100TX_HD | MII_BMSR_10T_FD |
                    MII_BMSR_10T_HD | MII_BMSR_EXTSTAT | MII_BMSR_MFPS |
                    MII_BMSR_AUTONEG | MII_BMSR_EXTCAP;

    if (ksz9031_autoneg_done(s)) {
        bmsr |= MII_BMSR_AN_COMP;
    }
    if (ksz9031_link_on(s) && !s->link_down_latched) {
        bmsr |= MII_BMSR_LINK_ST;
    }
    return bmsr;
}

/* The MMD that register 13 selects, of ksz9031_mmd_devad[]; -1: none */
static int ksz9031_selected_mmd(KSZ9031PhyState *s)
{
    unsigned devad = s->mmd_ctrl & MMD_CTRL_DEVAD_MASK;

    for (unsigned i = 0; i < KSZ9031_NUM_MMDS; i++) {
        if (ksz9031_mmd_devad[i] == devad) {
            return i;
        }
    }
    return -1;
}

/* Register 14: the selected MMD's address, or its register and increment */
static uint16_t ksz9031_mmd_data(KSZ9031PhyState *s, bool write,
                                 uint16_t val)
{
    unsigned func = s->mmd_ctrl >> MMD_CTRL_FUNC_SHIFT;
    int mmd = ksz9031_selected_mmd(s);
    uint16_t reg;

    if (mmd >= 0 && func == MMD_FUNC_ADDR) {
        if (write) {
            s->mmd_addr[mmd] = val;
        }
        return s->mmd_addr[mmd];
    }
    if (mmd < 0 || s->mmd_addr[mmd] >= KSZ9031_MMD_REGS) {
        qemu_log_mask(LOG_UNIMP, "ksz9031-phy: MMD %u register 0x%x\n",
                      s->mmd_ctrl & MMD_CTRL_DEVAD_MASK,
                      mmd < 0 ? 0 : s->mmd_addr[mmd]);
        return 0;
    }
    reg = s->mmd_addr[mmd];
    if (write) {
        s->mmd[mmd][reg] = val;
    }
    val = s->mmd[mmd][reg];
    if (func == MMD_FUNC_DATA_INC_RW ||
        (func == MMD_FUNC_DATA_INC_W && write)) {
        s->mmd_addr[mmd]++;
    }
    return val;
}

static uint16_t ksz9031_read(KSZ9031PhyState *s, unsigned reg)
{
    uint16_t val;

    switch (reg) {
    case MII_BMCR:
        return s->bmcr;
    case MII_BMSR:
        val = ksz9031_bmsr(s);
        s->link_down_latched = false;
        return val;
    case MII_PHYID1:
        return KSZ9031_PHYID1;
    case MII_PHYID2:
        return KSZ9031_PHYID2;
    case MII_ANAR:
        return s->anar;
    case MII_ANLPAR:
        if (!ksz9031_autoneg_done(s)) {
            return 0;
        }
        return MII_ANLPAR_ACK | MII_ANLPAR_PAUSE | MII_ANLPAR_TXFD |
               MII_ANLPAR_TX | MII_ANLPAR_10FD | MII_ANLPAR_10 |
               MII_ANLPAR_CSMACD;
    case MII_ANER:
        return ksz9031_autoneg_done(s) ? MII_ANER_NWAY : 0;
    case MII_CTRL1000:
        return s->ctrl1000;
    case MII_STAT1000:
        /* The idle error count (7:0) stays 0: ksz9031_read_status() */
        if (!ksz9031_autoneg_done(s)) {
            return 0;
        }
        return MII_STAT1000_LOK | MII_STAT1000_ROK | MII_STAT1000_FULL |
               MII_STAT1000_HALF;
    case MII_MDDACR:
        return s->mmd_ctrl;
    case MII_MDDAADR:
        return ksz9031_mmd_data(s, false, 0);
    case MII_EXTSTAT:
        return MII_EXTSTAT_1000T_FD | MII_EXTSTAT_1000T_HD;
    case KSZ9031_INTCS:
        val = s->intcs;
        s->intcs &= ~KSZ9031_INTCS_STATUS;
        ksz9031_update_int(s);
        return val;
    case KSZ9031_CTRL2:
        return s->ctrl2;
    default:
        qemu_log_mask(LOG_UNIMP, "ksz9031-phy: read of register 0x%x\n", reg);
        return 0;
    }
}

static void ksz9031_write(KSZ9031PhyState *s, unsigned reg, uint16_t val)
{
    switch (reg) {
    case MII_BMCR:
        if (val & MII_BMCR_RESET) {
            /* Done at once: genphy_soft_reset() polls for the bit to clear */
            ksz9031_reset_registers(s);
            ksz9031_update_int(s);
            return;
        }
        s->bmcr = val & ~(MII_BMCR_RESET | MII_BMCR_ANRESTART);
        if (ksz9031_autoneg_done(s) && (val & MII_BMCR_ANRESTART)) {
            /* The link partner answers at once: the link is up again */
            ksz9031_link_event(s);
        }
        break;
    case MII_ANAR:
        s->anar = val;
        break;
    case MII_CTRL1000:
        s->ctrl1000 = val;
        break;
    case MII_MDDACR:
        s->mmd_ctrl = val;
        break;
    case MII_MDDAADR:
        ksz9031_mmd_data(s, true, val);
        break;
    case KSZ9031_INTCS:
        s->intcs = (val & ~KSZ9031_INTCS_STATUS) |
                   (s->intcs & KSZ9031_INTCS_STATUS);
        ksz9031_update_int(s);
        break;
    case KSZ9031_CTRL2:
        s->ctrl2 = val;
        ksz9031_update_int(s);
        break;
    case MII_BMSR:
    case MII_PHYID1:
    case MII_PHYID2:
    case MII_ANLPAR:
    case MII_ANER:
    case MII_STAT1000:
    case MII_EXTSTAT:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "ksz9031-phy: write 0x%04x to read-only register 0x%x\n",
                      val, reg);
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "ksz9031-phy: write 0x%04x to register "
                      "0x%x\n", val, reg);
        break;
    }
}

static void ksz9031_mdio_goto(KSZ9031PhyState *s, KSZ9031MdioState state)
{
    s->mdio_state = state;
    s->mdio_count = 0;
    s->mdio_shift = 0;
}

/* The 13 header bits are in: a frame for this PHY, or for another */
static void ksz9031_mdio_header_done(KSZ9031PhyState *s)
{
    unsigned st = s->mdio_shift >> 12 & 1;
    unsigned op = s->mdio_shift >> 10 & 3;
    unsigned phyad = s->mdio_shift >> 5 & 0x1f;
    unsigned regad = s->mdio_shift & 0x1f;

    if (!st || phyad != s->addr ||
        (op != MDIO_OP_READ && op != MDIO_OP_WRITE)) {
        /* Clause 45, another PHY's frame or a bad one: wait for the next */
        ksz9031_mdio_goto(s, KSZ9031_MDIO_IGNORE);
        return;
    }
    if (op == MDIO_OP_READ) {
        uint16_t val = ksz9031_read(s, regad);

        trace_ksz9031_phy_read(s->addr, regad, val);
        ksz9031_mdio_goto(s, KSZ9031_MDIO_READ_TA);
        s->mdio_shift = val;
    } else {
        ksz9031_mdio_goto(s, KSZ9031_MDIO_WRITE_DATA);
        s->mdio_reg = regad;
    }
}

int ksz9031_phy_mdc_rise(KSZ9031PhyState *s, bool mdio)
{
    switch (s->mdio_state) {
    case KSZ9031_MDIO_PREAMBLE:
    case KSZ9031_MDIO_IGNORE:
        if (mdio) {
            s->mdio_count = MIN(s->mdio_count + 1, MDIO_PREAMBLE_BITS);
        } else if (s->mdio_count >= MDIO_PREAMBLE_BITS) {
            /* ST's first bit, 0 */
            ksz9031_mdio_goto(s, KSZ9031_MDIO_HEADER);
        } else {
            ksz9031_mdio_goto(s, s->mdio_state);
        }
        return -1;
    case KSZ9031_MDIO_HEADER:
        s->mdio_shift = s->mdio_shift << 1 | mdio;
        if (++s->mdio_count == MDIO_HEADER_BITS) {
            ksz9031_mdio_header_done(s);
        }
        return -1;
    case KSZ9031_MDIO_READ_TA:
        /* TA's first bit is Z; the PHY drives the second one, 0 */
        s->mdio_state = KSZ9031_MDIO_READ_DATA;
        return 0;
    case KSZ9031_MDIO_READ_DATA:
        if (s->mdio_count == MDIO_DATA_BITS) {
            ksz9031_mdio_goto(s, KSZ9031_MDIO_PREAMBLE);
            s->mdio_count = mdio;
            return -1;
        }
        s->mdio_count++;
        return s->mdio_shift >> (MDIO_DATA_BITS - s->mdio_count) & 1;
    case KSZ9031_MDIO_WRITE_DATA:
        s->mdio_shift = s->mdio_shift << 1 | mdio;
        if (++s->mdio_count == MDIO_WRITE_BITS) {
            uint16_t val = s->mdio_shift;

            trace_ksz9031_phy_write(s->addr, s->mdio_reg, val);
            ksz9031_write(s, s->mdio_reg, val);
            ksz9031_mdio_goto(s, KSZ9031_MDIO_PREAMBLE);
        }
        return -1;
    default:
        g_assert_not_reached();
    }
}

void ksz9031_phy_set_link(KSZ9031PhyState *s, bool up)
{
    if (s->link_up == up) {
        return;
    }
    trace_ksz9031_phy_link(s->addr, up);
    s->link_up = up;
    if (!up) {
        s->link_down_latched = true;
    }
    ksz9031_link_event(s);
}

bool ksz9031_phy_link_ok(KSZ9031PhyState *s)
{
    return ksz9031_link_on(s);
}

static void ksz9031_phy_reset_hold(Object *obj, ResetType type)
{
    KSZ9031PhyState *s = KSZ9031_PHY(obj);

    ksz9031_reset_registers(s);
    ksz9031_mdio_goto(s, KSZ9031_MDIO_PREAMBLE);
}

static void ksz9031_phy_reset_exit(Object *obj, ResetType type)
{
    ksz9031_update_int(KSZ9031_PHY(obj));
}

static void ksz9031_phy_init(Object *obj)
{
    KSZ9031PhyState *s = KSZ9031_PHY(obj);

    qdev_init_gpio_out_named(DEVICE(s), &s->int_pin, "int", 1);
    /* A cable is plugged in; the MAC's net client may say otherwise */
    s->link_up = true;
}

/* The bits a state can have counted (ksz9031_phy_mdc_rise()) */
static const uint32_t ksz9031_mdio_max_count[] = {
    [KSZ9031_MDIO_PREAMBLE] = MDIO_PREAMBLE_BITS,
    [KSZ9031_MDIO_HEADER] = MDIO_HEADER_BITS - 1,
    [KSZ9031_MDIO_READ_TA] = 0,
    [KSZ9031_MDIO_READ_DATA] = MDIO_DATA_BITS,
    [KSZ9031_MDIO_WRITE_DATA] = MDIO_WRITE_BITS - 1,
    [KSZ9031_MDIO_IGNORE] = MDIO_PREAMBLE_BITS,
};

static int ksz9031_phy_post_load(void *opaque, int version_id)
{
    KSZ9031PhyState *s = opaque;

    if (s->mdio_state >= ARRAY_SIZE(ksz9031_mdio_max_count) ||
        s->mdio_count > ksz9031_mdio_max_count[s->mdio_state] ||
        s->mdio_reg > 0x1f) {
        return -EINVAL;
    }
    return 0;
}

static const VMStateDescription vmstate_ksz9031_phy = {
    .name = "ksz9031-phy",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = ksz9031_phy_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT16(bmcr, KSZ9031PhyState),
        VMSTATE_UINT16(anar, KSZ9031PhyState),
        VMSTATE_UINT16(ctrl1000, KSZ9031PhyState),
        VMSTATE_UINT16(mmd_ctrl, KSZ9031PhyState),
        VMSTATE_UINT16_ARRAY(mmd_addr, KSZ9031PhyState, KSZ9031_NUM_MMDS),
        VMSTATE_UINT16(intcs, KSZ9031PhyState),
        VMSTATE_UINT16(ctrl2, KSZ9031PhyState),
        VMSTATE_UINT16_2DARRAY(mmd, KSZ9031PhyState, KSZ9031_NUM_MMDS,
                               KSZ9031_MMD_REGS),
        VMSTATE_BOOL(link_up, KSZ9031PhyState),
        VMSTATE_BOOL(link_down_latched, KSZ9031PhyState),
        VMSTATE_UINT32(mdio_state, KSZ9031PhyState),
        VMSTATE_UINT32(mdio_count, KSZ9031PhyState),
        VMSTATE_UINT32(mdio_shift, KSZ9031PhyState),
        VMSTATE_UINT32(mdio_reg, KSZ9031PhyState),
        VMSTATE_END_OF_LIST()
    }
};

static const Property ksz9031_phy_properties[] = {
    /* PHYAD[2:0], strapped on the board; "reg" of the PHY's DT node */
    DEFINE_PROP_UINT8("addr", KSZ9031PhyState, addr, 0),
};

static void ksz9031_phy_realize(DeviceState *dev, Error **errp)
{
    KSZ9031PhyState *s = KSZ9031_PHY(dev);

    if (s->addr > 0x1f) {
        error_setg(errp, "ksz9031-phy: addr %u is not a PHY address (0-31)",
                   s->addr);
    }
}

static void ksz9031_phy_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Microchip KSZ9031 gigabit Ethernet PHY";
    dc->realize = ksz9031_phy_realize;
    dc->vmsd = &vmstate_ksz9031_phy;
    device_class_set_props(dc, ksz9031_phy_properties);
    rc->phases.hold = ksz9031_phy_reset_hold;
    rc->phases.exit = ksz9031_phy_reset_exit;
    /* Reason: a board part; the board wires its MDIO and INT_N */
    dc->user_creatable = false;
}

static const TypeInfo ksz9031_phy_types[] = {
    {
        .name = TYPE_KSZ9031_PHY,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(KSZ9031PhyState),
        .instance_init = ksz9031_phy_init,
        .class_init = ksz9031_phy_class_init,
    },
};

DEFINE_TYPES(ksz9031_phy_types)
