/*
 * Renesas R-Car Gen3 USB 2.0 PHY and host bridge
 *
 * Each USB 2.0 channel of R-Car Gen3 is an OHCI and an EHCI (generic-ohci
 * and generic-ehci in the .dtsi, QEMU's sysbus models) beside this block:
 * the "AHB bridge" in front of both host controllers, whose INT_ENABLE
 * gates their interrupts onto the channel's one GIC line, and the USB 2.0
 * PHY with its OTG part (ID pin, VBUS drive, host or peripheral role).
 * The registers are those Linux's phy-rcar-gen3-usb2.c touches:
 *
 * - rcar_gen3_phy_usb2_init() sets INT_ENABLE's bit of the host
 *   controller it initialises (USBH_INTA_EN for the OHCI, USBH_INTB_EN
 *   for the EHCI) and UCOM_INTEN, and writes the two timing registers;
 * - rcar_gen3_phy_usb2_power_on() pulses USBCTR.PLL_RST;
 * - on an OTG channel (channel 0, dr_mode = "otg"), the driver enables ID
 *   sampling, clears OBINTSTA, enables the ID and VBUS-session change
 *   interrupts (OBINTEN) and reads ADPCTRL.IDDIG: low (an A-plug in the
 *   socket) makes the channel a host, high a peripheral, which COMMCTRL
 *   and the VBUS drive then follow (rcar_gen3_device_recognition()).
 *
 * The ID pin is the "id-high" property: low by default, as with an OTG
 * adapter in the socket, so that a USB device given to QEMU is served by
 * the host controllers on every channel.  High makes Linux choose the
 * peripheral role, which only the USB function controller (not modelled)
 * would serve; the host controllers' port is not switched away.  The pin
 * does not change while the machine runs, so that no OBINT event is ever
 * raised; the register bits are there for the driver's interrupt handler
 * all the same.
 *
 * The manual's reset values are not at hand: every register resets to 0,
 * and Linux writes each bit it relies on before it reads it back.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/irq.h"
#include "hw/qdev-properties.h"
#include "hw/registerfields.h"
#include "hw/usb/rcar_usb2_phy.h"
#include "migration/vmstate.h"
#include "qemu/log.h"
#include "trace.h"

REG32(INT_ENABLE, 0x000)
    FIELD(INT_ENABLE, USBH_INTA_EN, 1, 1)       /* the OHCI's interrupt */
    FIELD(INT_ENABLE, USBH_INTB_EN, 2, 1)       /* the EHCI's interrupt */
    FIELD(INT_ENABLE, UCOM_INTEN, 3, 1)         /* the OTG interrupts */
REG32(AHB_BUS_CTR, 0x008)
    FIELD(AHB_BUS_CTR, MBL, 0, 2)
REG32(USBCTR, 0x00c)
    FIELD(USBCTR, PLL_RST, 1, 1)
    FIELD(USBCTR, DIRPD, 2, 1)
REG32(SPD_RSM_TIMSET, 0x10c)
REG32(OC_TIMSET, 0x110)
REG32(COMMCTRL, 0x600)
    FIELD(COMMCTRL, OTG_PERI, 31, 1)
REG32(OBINTSTA, 0x604)
REG32(OBINTEN, 0x608)
    FIELD(OBINT, IDDIGCHG, 11, 1)
    FIELD(OBINT, SESSVLDCHG, 12, 1)
REG32(VBCTRL, 0x60c)
    FIELD(VBCTRL, VBOUT, 0, 1)
    FIELD(VBCTRL, DRVVBUSSEL, 8, 1)
    FIELD(VBCTRL, OCCLREN, 16, 1)
REG32(LINECTRL1, 0x610)
    FIELD(LINECTRL1, OPMODE_NODRV, 6, 1)
    FIELD(LINECTRL1, DM_RPD, 16, 1)
    FIELD(LINECTRL1, DMRPD_EN, 17, 1)
    FIELD(LINECTRL1, DP_RPD, 18, 1)
    FIELD(LINECTRL1, DPRPD_EN, 19, 1)
REG32(ADPCTRL, 0x630)
    FIELD(ADPCTRL, DRVVBUS, 4, 1)
    FIELD(ADPCTRL, IDPULLUP, 5, 1)
    FIELD(ADPCTRL, IDDIG, 19, 1)

#define INT_ENABLE_MASK (R_INT_ENABLE_USBH_INTA_EN_MASK | \
                         R_INT_ENABLE_USBH_INTB_EN_MASK | \
                         R_INT_ENABLE_UCOM_INTEN_MASK)
#define OBINT_MASK (R_OBINT_IDDIGCHG_MASK | R_OBINT_SESSVLDCHG_MASK)
#define VBCTRL_MASK (R_VBCTRL_VBOUT_MASK | R_VBCTRL_DRVVBUSSEL_MASK | \
                     R_VBCTRL_OCCLREN_MASK)
#define LINECTRL1_MASK (R_LINECTRL1_OPMODE_NODRV_MASK | \
                        R_LINECTRL1_DM_RPD_MASK | R_LINECTRL1_DMRPD_EN_MASK | \
                        R_LINECTRL1_DP_RPD_MASK | R_LINECTRL1_DPRPD_EN_MASK)
#define ADPCTRL_MASK (R_ADPCTRL_DRVVBUS_MASK | R_ADPCTRL_IDPULLUP_MASK)

/* The channel's GIC line: the host controllers INT_ENABLE lets through */
static void rcar_usb2_phy_update_irq(RCarUSB2PhyState *s)
{
    bool ohci = s->host_irq[RCAR_USB2_PHY_IN_OHCI] &&
                FIELD_EX32(s->int_enable, INT_ENABLE, USBH_INTA_EN);
    bool ehci = s->host_irq[RCAR_USB2_PHY_IN_EHCI] &&
                FIELD_EX32(s->int_enable, INT_ENABLE, USBH_INTB_EN);
    bool otg = (s->obintsta & s->obinten) &&
               FIELD_EX32(s->int_enable, INT_ENABLE, UCOM_INTEN);

    qemu_set_irq(s->irq, ohci || ehci || otg);
}

static void rcar_usb2_phy_host_irq(void *opaque, int n, int level)
{
    RCarUSB2PhyState *s = RCAR_USB2_PHY(opaque);

    s->host_irq[n] = level;
    rcar_usb2_phy_update_irq(s);
}

static uint64_t rcar_usb2_phy_read(void *opaque, hwaddr offset, unsigned size)
{
    RCarUSB2PhyState *s = RCAR_USB2_PHY(opaque);
    uint32_t val = 0;

    switch (offset) {
    case A_INT_ENABLE:
        val = s->int_enable;
        break;
    case A_AHB_BUS_CTR:
        val = s->ahb_bus_ctr;
        break;
    case A_USBCTR:
        val = s->usbctr;
        break;
    case A_SPD_RSM_TIMSET:
        val = s->spd_rsm_timset;
        break;
    case A_OC_TIMSET:
        val = s->oc_timset;
        break;
    case A_COMMCTRL:
        val = s->commctrl;
        break;
    case A_OBINTSTA:
        val = s->obintsta;
        break;
    case A_OBINTEN:
        val = s->obinten;
        break;
    case A_VBCTRL:
        val = s->vbctrl;
        break;
    case A_LINECTRL1:
        val = s->linectrl1;
        break;
    case A_ADPCTRL:
        val = FIELD_DP32(s->adpctrl, ADPCTRL, IDDIG, s->id_high);
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "%s: %s: unimplemented register 0x%03"
                      HWADDR_PRIx " reads as zero\n", __func__, s->name,
                      offset);
        break;
    }
    trace_rcar_usb2_phy_read(s->name, offset, val);
    return val;
}

static void rcar_usb2_phy_write(void *opaque, hwaddr offset, uint64_t value,
                                unsigned size)
{
    RCarUSB2PhyState *s = RCAR_USB2_PHY(opaque);

    trace_rcar_usb2_phy_write(s->name, offset, value);
    switch (offset) {
    case A_INT_ENABLE:
        s->int_enable = value & INT_ENABLE_MASK;
        break;
    case A_AHB_BUS_CTR:
        s->ahb_bus_ctr = value & R_AHB_BUS_CTR_MBL_MASK;
        break;
    case A_USBCTR:
        s->usbctr = value & (R_USBCTR_PLL_RST_MASK | R_USBCTR_DIRPD_MASK);
        break;
    case A_SPD_RSM_TIMSET:
        s->spd_rsm_timset = value;
        break;
    case A_OC_TIMSET:
        s->oc_timset = value;
        break;
    case A_COMMCTRL:
        s->commctrl = value & R_COMMCTRL_OTG_PERI_MASK;
        break;
    case A_OBINTSTA:
        s->obintsta &= ~value;              /* write 1 to clear */
        break;
    case A_OBINTEN:
        s->obinten = value & OBINT_MASK;
        break;
    case A_VBCTRL:
        s->vbctrl = value & VBCTRL_MASK;
        break;
    case A_LINECTRL1:
        s->linectrl1 = value & LINECTRL1_MASK;
        break;
    case A_ADPCTRL:
        s->adpctrl = value & ADPCTRL_MASK;
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "%s: %s: unimplemented register 0x%03"
                      HWADDR_PRIx " write of 0x%" PRIx64 " ignored\n",
                      __func__, s->name, offset, value);
        return;
    }
    rcar_usb2_phy_update_irq(s);
}

static const MemoryRegionOps rcar_usb2_phy_ops = {
    .read = rcar_usb2_phy_read,
    .write = rcar_usb2_phy_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void rcar_usb2_phy_reset_hold(Object *obj, ResetType type)
{
    RCarUSB2PhyState *s = RCAR_USB2_PHY(obj);

    s->int_enable = 0;
    s->ahb_bus_ctr = 0;
    s->usbctr = 0;
    s->spd_rsm_timset = 0;
    s->oc_timset = 0;
    s->commctrl = 0;
    s->obintsta = 0;
    s->obinten = 0;
    s->vbctrl = 0;
    s->linectrl1 = 0;
    s->adpctrl = 0;
}

static void rcar_usb2_phy_reset_exit(Object *obj, ResetType type)
{
    rcar_usb2_phy_update_irq(RCAR_USB2_PHY(obj));
}

static void rcar_usb2_phy_init(Object *obj)
{
    RCarUSB2PhyState *s = RCAR_USB2_PHY(obj);

    memory_region_init_io(&s->iomem, obj, &rcar_usb2_phy_ops, s,
                          TYPE_RCAR_USB2_PHY, RCAR_USB2_PHY_MMIO_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->iomem);
    sysbus_init_irq(SYS_BUS_DEVICE(s), &s->irq);
    qdev_init_gpio_in_named(DEVICE(s), rcar_usb2_phy_host_irq, "host-irq",
                            RCAR_USB2_PHY_NUM_IN);
}

static void rcar_usb2_phy_realize(DeviceState *dev, Error **errp)
{
    RCarUSB2PhyState *s = RCAR_USB2_PHY(dev);

    /* The instance in traces and logs: "usb2-phy0" */
    s->name = object_get_canonical_path_component(OBJECT(dev));
}

static const VMStateDescription vmstate_rcar_usb2_phy = {
    .name = TYPE_RCAR_USB2_PHY,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL_ARRAY(host_irq, RCarUSB2PhyState, RCAR_USB2_PHY_NUM_IN),
        VMSTATE_UINT32(int_enable, RCarUSB2PhyState),
        VMSTATE_UINT32(ahb_bus_ctr, RCarUSB2PhyState),
        VMSTATE_UINT32(usbctr, RCarUSB2PhyState),
        VMSTATE_UINT32(spd_rsm_timset, RCarUSB2PhyState),
        VMSTATE_UINT32(oc_timset, RCarUSB2PhyState),
        VMSTATE_UINT32(commctrl, RCarUSB2PhyState),
        VMSTATE_UINT32(obintsta, RCarUSB2PhyState),
        VMSTATE_UINT32(obinten, RCarUSB2PhyState),
        VMSTATE_UINT32(vbctrl, RCarUSB2PhyState),
        VMSTATE_UINT32(linectrl1, RCarUSB2PhyState),
        VMSTATE_UINT32(adpctrl, RCarUSB2PhyState),
        VMSTATE_END_OF_LIST()
    }
};

static const Property rcar_usb2_phy_properties[] = {
    DEFINE_PROP_BOOL("id-high", RCarUSB2PhyState, id_high, false),
};

static void rcar_usb2_phy_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->desc = "Renesas R-Car Gen3 USB 2.0 PHY and host bridge";
    dc->realize = rcar_usb2_phy_realize;
    dc->vmsd = &vmstate_rcar_usb2_phy;
    device_class_set_props(dc, rcar_usb2_phy_properties);
    rc->phases.hold = rcar_usb2_phy_reset_hold;
    rc->phases.exit = rcar_usb2_phy_reset_exit;
    /* Reason: part of the R-Car Gen3 SoC, mapped and wired by the SoC */
    dc->user_creatable = false;
}

static const TypeInfo rcar_usb2_phy_types[] = {
    {
        .name = TYPE_RCAR_USB2_PHY,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RCarUSB2PhyState),
        .instance_init = rcar_usb2_phy_init,
        .class_init = rcar_usb2_phy_class_init,
    },
};

DEFINE_TYPES(rcar_usb2_phy_types)
