/*
 * QTest for the USB 2.0 channels of the Renesas R-Car Gen3 SoCs
 *
 * On every board, every channel its .dts enables: the EHCI and OHCI at
 * their windows, with two ports (the channel's connector, and one for the
 * hub QEMU's USB core adds on a bus's last free port) and the OHCI as the
 * EHCI's companion, as ehci-platform.c and ohci-platform.c read them
 * through the EHCI and OHCI specifications' registers, and the PHY block
 * right after the EHCI's 0x100 bytes; the SoC's other channels are
 * unimplemented windows.  Then the PHY block as Linux 6.12's
 * phy-rcar-gen3-usb2.c programs it: INT_ENABLE's gates of the two host
 * controllers' interrupts onto the channel's line, raised by the
 * controllers themselves (rcar_gen3_phy_usb2_init()), the OTG channel's
 * ID pin and VBUS (rcar_gen3_init_otg_phase0/1(),
 * rcar_gen3_device_recognition()), and the resets.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "rcar-gen3-machines.h"
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "qobject/qdict.h"

/* EHCI 1.0, 2.2: capability registers */
#define EHCI_CAPLENGTH      0x00        /* byte */
#define EHCI_HCIVERSION     0x02        /* 16 bits */
#define EHCI_HCSPARAMS      0x04
#define HCS_N_PORTS(p)      ((p) & 0xf)
#define HCS_N_PCC(p)        (((p) >> 8) & 0xf)
#define HCS_N_CC(p)         (((p) >> 12) & 0xf)

/* OHCI 1.0a, 7.1 and 7.4 */
#define OHCI_REVISION       0x00
#define OHCI_RH_DESC_A      0x48
#define OHCI_NDP(a)         ((a) & 0xff)

/* phy-rcar-gen3-usb2.c, from the PHY block's base */
#define USB2_INT_ENABLE     0x000
#define USB2_USBCTR         0x00c
#define USB2_SPD_RSM_TIMSET 0x10c
#define USB2_OC_TIMSET      0x110
#define USB2_COMMCTRL       0x600
#define USB2_OBINTSTA       0x604
#define USB2_OBINTEN        0x608
#define USB2_VBCTRL         0x60c
#define USB2_LINECTRL1      0x610
#define USB2_ADPCTRL        0x630

#define INT_ENABLE_UCOM_INTEN   BIT(3)
#define INT_ENABLE_USBH_INTB_EN BIT(2)  /* EHCI */
#define INT_ENABLE_USBH_INTA_EN BIT(1)  /* OHCI */
#define USBCTR_PLL_RST          BIT(1)
#define SPD_RSM_TIMSET_INIT     0x014e029b
#define OC_TIMSET_INIT          0x000209ab
#define COMMCTRL_OTG_PERI       BIT(31)
#define OBINT_SESSVLDCHG        BIT(12)
#define OBINT_IDDIGCHG          BIT(11)
#define VBCTRL_DRVVBUSSEL       BIT(8)
#define LINECTRL1_DPRPD_EN      BIT(19)
#define LINECTRL1_DMRPD_EN      BIT(17)
#define LINECTRL1_DM_RPD        BIT(16)
#define ADPCTRL_IDDIG           BIT(19)
#define ADPCTRL_IDPULLUP        BIT(5)
#define ADPCTRL_DRVVBUS         BIT(4)

/* The PHY block's inputs (rcar_usb2_phy.h) */
#define HOST_IRQ_OHCI       0
#define HOST_IRQ_EHCI       1

#define H3_PHY(n)   rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_USB2_PHY, n)

static QTestState *boot(const char *machine, const char *extra)
{
    return qtest_initf("-M %s -smp 1 -m 1G %s", machine, extra);
}

/*
 * Every channel the board's .dts enables answers at its windows as Linux
 * finds it; the SoC's other channels are unimplemented windows, so that a
 * USB device given to QEMU lands on a channel the guest uses.
 */
static void check_channel(QTestState *qts, const RCarGen3TestMachine *m,
                          const RCarGen3Dev *ehci)
{
    const RCarGen3Dev *ohci = rcar_gen3_find_dev(m->devs, m->num_devs,
                                                 RCAR_GEN3_OHCI, ehci->index);
    const RCarGen3Dev *phy = rcar_gen3_find_dev(m->devs, m->num_devs,
                                                RCAR_GEN3_USB2_PHY,
                                                ehci->index);
    uint32_t params;

    g_assert(ohci && phy);
    g_assert_cmphex(qtest_readw(qts, ehci->base + EHCI_HCIVERSION), ==,
                    0x0100);
    g_assert_cmpuint(qtest_readb(qts, ehci->base + EHCI_CAPLENGTH), >=, 0x10);
    params = qtest_readl(qts, ehci->base + EHCI_HCSPARAMS);
    g_assert_cmpuint(HCS_N_PORTS(params), ==, 2);
    g_assert_cmpuint(HCS_N_CC(params), ==, 1);
    g_assert_cmpuint(HCS_N_PCC(params), ==, 2);

    g_assert_cmphex(qtest_readl(qts, ohci->base + OHCI_REVISION) & 0xff, ==,
                    0x10);
    g_assert_cmpuint(OHCI_NDP(qtest_readl(qts, ohci->base + OHCI_RH_DESC_A)),
                     ==, 2);

    /* The PHY block right after the EHCI's window answers, not the EHCI */
    qtest_writel(qts, phy->base + USB2_SPD_RSM_TIMSET, SPD_RSM_TIMSET_INIT);
    g_assert_cmphex(qtest_readl(qts, phy->base + USB2_SPD_RSM_TIMSET), ==,
                    SPD_RSM_TIMSET_INIT);
    g_assert_cmphex(qtest_readl(qts, ehci->base + EHCI_HCSPARAMS), ==,
                    params);
}

static void test_channels(const void *data)
{
    const RCarGen3TestMachine *m = data;
    QTestState *qts = boot(m->name, "");
    unsigned channels = 0;

    for (unsigned i = 0; i < m->num_devs; i++) {
        const RCarGen3Dev *ehci = &m->devs[i];

        if (ehci->kind != RCAR_GEN3_EHCI) {
            continue;
        }
        if (m->usb2_mask & BIT(ehci->index)) {
            check_channel(qts, m, ehci);
            channels++;
        } else {
            g_autofree char *path = g_strdup_printf("/machine/soc/ehci%u",
                                                    ehci->index);
            QDict *rsp = qtest_qmp(qts, "{ 'execute': 'qom-list', "
                                   "'arguments': { 'path': %s } }", path);

            g_assert_true(qdict_haskey(rsp, "error"));
            qobject_unref(rsp);
            g_assert_cmphex(qtest_readl(qts, ehci->base + EHCI_HCSPARAMS),
                            ==, 0);
        }
    }
    g_assert_cmpuint(channels, ==, ctpop8(m->usb2_mask));
    qtest_quit(qts);
}

static void host_irq(QTestState *qts, int input, int level)
{
    qtest_set_irq_in(qts, "/machine/soc/usb2-phy0", "host-irq", input,
                     level);
}

/*
 * rcar_gen3_phy_usb2_init() of each host controller's PHY sets its
 * INT_ENABLE bit and UCOM_INTEN: only then does the controller's
 * interrupt reach the channel's line, and rcar_gen3_phy_usb2_exit()
 * takes it away again.
 */
static void test_interrupt_gates(void)
{
    QTestState *qts = boot("r8a77951-salvator-xs", "");

    qtest_irq_intercept_out_named(qts, "/machine/soc/usb2-phy0",
                                  "sysbus-irq");
    host_irq(qts, HOST_IRQ_OHCI, 1);
    host_irq(qts, HOST_IRQ_EHCI, 1);
    g_assert_false(qtest_get_irq(qts, 0));

    qtest_writel(qts, H3_PHY(0) + USB2_INT_ENABLE,
                 INT_ENABLE_UCOM_INTEN | INT_ENABLE_USBH_INTA_EN);
    g_assert_true(qtest_get_irq(qts, 0));
    host_irq(qts, HOST_IRQ_OHCI, 0);
    g_assert_false(qtest_get_irq(qts, 0));   /* the EHCI's is still gated */

    qtest_writel(qts, H3_PHY(0) + USB2_INT_ENABLE,
                 INT_ENABLE_UCOM_INTEN | INT_ENABLE_USBH_INTA_EN |
                 INT_ENABLE_USBH_INTB_EN);
    g_assert_true(qtest_get_irq(qts, 0));
    host_irq(qts, HOST_IRQ_EHCI, 0);
    g_assert_false(qtest_get_irq(qts, 0));
    host_irq(qts, HOST_IRQ_EHCI, 1);
    g_assert_true(qtest_get_irq(qts, 0));

    /* The exit of the EHCI's PHY */
    qtest_writel(qts, H3_PHY(0) + USB2_INT_ENABLE,
                 INT_ENABLE_UCOM_INTEN | INT_ENABLE_USBH_INTA_EN);
    g_assert_false(qtest_get_irq(qts, 0));

    /* Reserved bits read as 0 */
    qtest_writel(qts, H3_PHY(0) + USB2_INT_ENABLE, 0xffffffff);
    g_assert_cmphex(qtest_readl(qts, H3_PHY(0) + USB2_INT_ENABLE), ==,
                    INT_ENABLE_UCOM_INTEN | INT_ENABLE_USBH_INTA_EN |
                    INT_ENABLE_USBH_INTB_EN);
    qtest_quit(qts);
}

/* EHCI 1.0, 2.3: operational registers, from CAPLENGTH on */
#define EHCI_USBSTS         0x04
#define EHCI_USBINTR        0x08
#define EHCI_CONFIGFLAG     0x40
#define USBSTS_PCD          BIT(2)

/* OHCI 1.0a, 7.1.4-7.1.5 */
#define OHCI_INTR_STATUS    0x0c
#define OHCI_INTR_ENABLE    0x10
#define OHCI_INTR_DISABLE   0x14
#define OHCI_INTR_RHSC      BIT(6)
#define OHCI_INTR_MIE       BIT(31)

#define H3_EHCI(n)  rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_EHCI, n)
#define H3_OHCI(n)  rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_OHCI, n)

/*
 * The controllers' own interrupts reach the channel's line, each through
 * its gate: a full-speed keyboard plugged in while the companion owns the
 * port (CONFIGFLAG 0) is the OHCI's root hub status change; a high-speed
 * stick plugged in once the EHCI owns the ports is the EHCI's port change
 * (each on the first port: not behind a hub of QEMU's).
 */
static void test_controller_interrupts(void)
{
    QTestState *qts = boot("r8a77951-salvator-xs",
                           "-blockdev driver=null-co,node-name=stick,"
                           "size=1048576");
    uint64_t op = H3_EHCI(0) + qtest_readb(qts, H3_EHCI(0) + EHCI_CAPLENGTH);

    qtest_irq_intercept_out_named(qts, "/machine/soc/usb2-phy0",
                                  "sysbus-irq");
    qtest_writel(qts, H3_PHY(0) + USB2_INT_ENABLE, INT_ENABLE_USBH_INTB_EN);
    qtest_writel(qts, H3_OHCI(0) + OHCI_INTR_ENABLE,
                 OHCI_INTR_MIE | OHCI_INTR_RHSC);
    /* Without a bus: the board's first connector, channel 0 */
    qtest_qmp_device_add(qts, "usb-kbd", "kbd", "{}");
    g_assert_cmphex(qtest_readl(qts, H3_OHCI(0) + OHCI_INTR_STATUS) &
                    OHCI_INTR_RHSC, ==, OHCI_INTR_RHSC);
    g_assert_false(qtest_get_irq(qts, 0));      /* the EHCI's gate only */
    qtest_writel(qts, H3_PHY(0) + USB2_INT_ENABLE, INT_ENABLE_USBH_INTA_EN);
    g_assert_true(qtest_get_irq(qts, 0));
    qtest_writel(qts, H3_OHCI(0) + OHCI_INTR_STATUS, OHCI_INTR_RHSC);
    g_assert_false(qtest_get_irq(qts, 0));
    /* The channel's one port for the stick; the OHCI quiet meanwhile */
    qtest_writel(qts, H3_OHCI(0) + OHCI_INTR_DISABLE, OHCI_INTR_MIE);
    qtest_qmp_device_del_send(qts, "kbd");

    qtest_writel(qts, op + EHCI_CONFIGFLAG, 1);
    qtest_writel(qts, op + EHCI_USBSTS, USBSTS_PCD);
    qtest_writel(qts, op + EHCI_USBINTR, USBSTS_PCD);
    qtest_qmp_device_add(qts, "usb-storage", "storage",
                         "{ 'drive': 'stick' }");
    g_assert_cmphex(qtest_readl(qts, op + EHCI_USBSTS) & USBSTS_PCD, ==,
                    USBSTS_PCD);
    g_assert_false(qtest_get_irq(qts, 0));      /* the OHCI's gate only */
    qtest_writel(qts, H3_PHY(0) + USB2_INT_ENABLE, INT_ENABLE_USBH_INTB_EN);
    g_assert_true(qtest_get_irq(qts, 0));
    qtest_writel(qts, op + EHCI_USBSTS, USBSTS_PCD);
    g_assert_false(qtest_get_irq(qts, 0));
    qtest_quit(qts);
}

/* rcar_gen3_phy_usb2_power_on(): the PLL's reset pulsed */
static void power_on(QTestState *qts, uint64_t phy)
{
    uint32_t val = qtest_readl(qts, phy + USB2_USBCTR);

    qtest_writel(qts, phy + USB2_USBCTR, val | USBCTR_PLL_RST);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_USBCTR), ==,
                    val | USBCTR_PLL_RST);
    qtest_writel(qts, phy + USB2_USBCTR, val & ~USBCTR_PLL_RST);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_USBCTR), ==,
                    val & ~USBCTR_PLL_RST);
}

/*
 * The OTG channel's initialisation, as rcar_gen3_init_otg_phase0() and
 * _phase1() do it, then what rcar_gen3_device_recognition() decides from
 * the ID pin: with it low (the default, an A-plug), host mode and VBUS
 * driven; with it high, a peripheral.
 */
static void otg_init(QTestState *qts, uint64_t phy)
{
    uint32_t val = qtest_readl(qts, phy + USB2_LINECTRL1);

    qtest_writel(qts, phy + USB2_LINECTRL1, val | LINECTRL1_DPRPD_EN |
                 LINECTRL1_DMRPD_EN | LINECTRL1_DM_RPD);
    qtest_writel(qts, phy + USB2_VBCTRL,
                 qtest_readl(qts, phy + USB2_VBCTRL) | VBCTRL_DRVVBUSSEL);
    qtest_writel(qts, phy + USB2_ADPCTRL,
                 qtest_readl(qts, phy + USB2_ADPCTRL) | ADPCTRL_IDPULLUP);
    qtest_writel(qts, phy + USB2_OBINTSTA, 0xffffffff);
    qtest_writel(qts, phy + USB2_OBINTEN, OBINT_SESSVLDCHG | OBINT_IDDIGCHG);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_OBINTEN), ==,
                    OBINT_SESSVLDCHG | OBINT_IDDIGCHG);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_OBINTSTA), ==, 0);
}

/* rcar_gen3_init_for_host(): host mode, then VBUS on */
static void init_for_host(QTestState *qts, uint64_t phy)
{
    qtest_writel(qts, phy + USB2_COMMCTRL,
                 qtest_readl(qts, phy + USB2_COMMCTRL) & ~COMMCTRL_OTG_PERI);
    qtest_writel(qts, phy + USB2_ADPCTRL,
                 qtest_readl(qts, phy + USB2_ADPCTRL) | ADPCTRL_DRVVBUS);
}

static void test_otg_host(void)
{
    QTestState *qts = boot("r8a77951-salvator-xs", "");
    uint64_t phy = H3_PHY(0);
    uint32_t adp;

    power_on(qts, phy);
    otg_init(qts, phy);
    adp = qtest_readl(qts, phy + USB2_ADPCTRL);
    g_assert_cmphex(adp & ADPCTRL_IDDIG, ==, 0);     /* A-device: host */
    init_for_host(qts, phy);
    adp = qtest_readl(qts, phy + USB2_ADPCTRL);
    g_assert_cmphex(adp & (ADPCTRL_IDDIG | ADPCTRL_DRVVBUS |
                           ADPCTRL_IDPULLUP), ==,
                    ADPCTRL_DRVVBUS | ADPCTRL_IDPULLUP);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_COMMCTRL), ==, 0);
    /* The pin does not change: no OTG event */
    g_assert_cmphex(qtest_readl(qts, phy + USB2_OBINTSTA), ==, 0);
    qtest_quit(qts);
}

static void test_otg_peripheral(void)
{
    QTestState *qts = boot("r8a77951-salvator-xs",
                           "-global rcar-usb2-phy.id-high=on");
    uint64_t phy = H3_PHY(0);

    otg_init(qts, phy);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_ADPCTRL) & ADPCTRL_IDDIG,
                    ==, ADPCTRL_IDDIG);
    /* rcar_gen3_init_for_peri(): peripheral mode, VBUS off */
    qtest_writel(qts, phy + USB2_COMMCTRL, COMMCTRL_OTG_PERI);
    qtest_writel(qts, phy + USB2_ADPCTRL,
                 qtest_readl(qts, phy + USB2_ADPCTRL) & ~ADPCTRL_DRVVBUS);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_COMMCTRL), ==,
                    COMMCTRL_OTG_PERI);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_ADPCTRL) &
                    (ADPCTRL_IDDIG | ADPCTRL_DRVVBUS), ==, ADPCTRL_IDDIG);
    qtest_quit(qts);
}

/* A system reset puts the block back to its reset state */
static void test_reset(void)
{
    QTestState *qts = boot("r8a77951-salvator-xs", "");
    uint64_t phy = H3_PHY(1);

    qtest_writel(qts, phy + USB2_INT_ENABLE, INT_ENABLE_USBH_INTB_EN);
    qtest_writel(qts, phy + USB2_OC_TIMSET, OC_TIMSET_INIT);
    qtest_qmp_assert_success(qts, "{ 'execute': 'system_reset' }");
    qtest_qmp_eventwait(qts, "RESET");
    g_assert_cmphex(qtest_readl(qts, phy + USB2_INT_ENABLE), ==, 0);
    g_assert_cmphex(qtest_readl(qts, phy + USB2_OC_TIMSET), ==, 0);
    qtest_quit(qts);
}

/*
 * The CPG's reset of a channel's module (r8a77951.dtsi: <&cpg 703> for
 * channel 0, 702 for channel 1; cpg_mssr_reset() sets the module's bit
 * in SRCR7) resets that channel and no other
 */
#define CPG_SRCR7   0x1cc       /* renesas-cpg-mssr.c: srcr[7] */

static void test_module_reset(void)
{
    QTestState *qts = boot("r8a77951-salvator-xs", "");
    uint64_t cpg = rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_CPG, 0);

    qtest_writel(qts, H3_PHY(0) + USB2_OC_TIMSET, OC_TIMSET_INIT);
    qtest_writel(qts, H3_PHY(1) + USB2_OC_TIMSET, OC_TIMSET_INIT);
    qtest_writel(qts, cpg + CPG_SRCR7, BIT(2));         /* module 702 */
    g_assert_cmphex(qtest_readl(qts, H3_PHY(1) + USB2_OC_TIMSET), ==, 0);
    g_assert_cmphex(qtest_readl(qts, H3_PHY(0) + USB2_OC_TIMSET), ==,
                    OC_TIMSET_INIT);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    for (unsigned i = 0; i < ARRAY_SIZE(rcar_gen3_test_machines); i++) {
        const RCarGen3TestMachine *m = &rcar_gen3_test_machines[i];
        g_autofree char *path = g_strdup_printf("/rcar-usb/%s/channels",
                                                m->name);

        qtest_add_data_func(path, m, test_channels);
    }
    qtest_add_func("/rcar-usb/interrupt-gates", test_interrupt_gates);
    qtest_add_func("/rcar-usb/otg-host", test_otg_host);
    qtest_add_func("/rcar-usb/otg-peripheral", test_otg_peripheral);
    qtest_add_func("/rcar-usb/reset", test_reset);
    qtest_add_func("/rcar-usb/module-reset", test_module_reset);
    qtest_add_func("/rcar-usb/controller-interrupts",
                   test_controller_interrupts);
    return g_test_run();
}
