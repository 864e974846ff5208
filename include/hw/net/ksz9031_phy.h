/*
 * Microchip (Micrel) KSZ9031RNX gigabit Ethernet PHY
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_NET_KSZ9031_PHY_H
#define HW_NET_KSZ9031_PHY_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_KSZ9031_PHY "ksz9031-phy"
OBJECT_DECLARE_SIMPLE_TYPE(KSZ9031PhyState, KSZ9031_PHY)

/* The MMDs (IEEE 802.3 clause 22 annex 22D) the PHY has registers in */
#define KSZ9031_NUM_MMDS        6
#define KSZ9031_MMD_REGS        0x40

/* Where the clause 22 management frame on MDIO is */
typedef enum KSZ9031MdioState {
    KSZ9031_MDIO_PREAMBLE,      /* counting ones; a 0 after 32 starts */
    KSZ9031_MDIO_HEADER,        /* ST's second bit, OP, PHYAD, REGAD */
    KSZ9031_MDIO_READ_TA,       /* the PHY drives the turnaround's 0 */
    KSZ9031_MDIO_READ_DATA,     /* the PHY drives the register */
    KSZ9031_MDIO_WRITE_DATA,    /* TA and data from the MAC */
    KSZ9031_MDIO_IGNORE,        /* another PHY's frame, or a bad one */
} KSZ9031MdioState;

struct KSZ9031PhyState {
    SysBusDevice parent_obj;

    qemu_irq int_pin;           /* INT_N's level (polarity: reg 0x1f) */

    /* Clause 22 registers */
    uint16_t bmcr;
    uint16_t anar;
    uint16_t ctrl1000;
    uint16_t mmd_ctrl;          /* MMD access control (reg 13) */
    uint16_t mmd_addr[KSZ9031_NUM_MMDS];
    uint16_t intcs;             /* enables 15:8, latched status 7:0 */
    uint16_t ctrl2;             /* PHY control (reg 0x1f) */
    uint16_t mmd[KSZ9031_NUM_MMDS][KSZ9031_MMD_REGS];
    bool link_up;
    bool link_down_latched;     /* BMSR link status is latched low */

    /* The management frame being clocked in or out */
    uint32_t mdio_state;
    uint32_t mdio_count;        /* bits of the state so far */
    uint32_t mdio_shift;
    uint32_t mdio_reg;          /* the register a write frame is for */

    /* Properties */
    uint8_t addr;
};

/*
 * One rising edge of MDC with @mdio on the line.  Returns what the PHY
 * drives on MDIO until the next rising edge: 0 or 1, or -1 if it does not
 * drive (the line's pull-up then reads 1).
 */
int ksz9031_phy_mdc_rise(KSZ9031PhyState *s, bool mdio);

/* The copper link's state (the peer's cable) */
void ksz9031_phy_set_link(KSZ9031PhyState *s, bool up);

/* Is the link up and the PHY powered up, so that frames pass? */
bool ksz9031_phy_link_ok(KSZ9031PhyState *s);

#endif
