/*
 * Renesas R-Car Gen3 USB 2.0 PHY and host bridge
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_USB_RCAR_USB2_PHY_H
#define HW_USB_RCAR_USB2_PHY_H

#include "hw/sysbus.h"
#include "qom/object.h"

#define TYPE_RCAR_USB2_PHY "rcar-usb2-phy"
OBJECT_DECLARE_SIMPLE_TYPE(RCarUSB2PhyState, RCAR_USB2_PHY)

/* The "usb-phy" window of the .dtsi */
#define RCAR_USB2_PHY_MMIO_SIZE 0x700

/* Inputs: the interrupts of the channel's host controllers */
enum {
    RCAR_USB2_PHY_IN_OHCI,
    RCAR_USB2_PHY_IN_EHCI,
    RCAR_USB2_PHY_NUM_IN,
};

struct RCarUSB2PhyState {
    SysBusDevice parent_obj;

    MemoryRegion iomem;
    qemu_irq irq;
    const char *name;
    bool host_irq[RCAR_USB2_PHY_NUM_IN];

    uint32_t int_enable;
    uint32_t ahb_bus_ctr;
    uint32_t usbctr;
    uint32_t spd_rsm_timset;
    uint32_t oc_timset;
    uint32_t commctrl;
    uint32_t obintsta;
    uint32_t obinten;
    uint32_t vbctrl;
    uint32_t linectrl1;
    uint32_t adpctrl;

    /* Property: the OTG connector's ID pin is high (a B-device or none) */
    bool id_high;
};

#endif
