/*
 * QTest for the Renesas R-Car Gen3 SoC and the Salvator-XS board:
 * product register, reset controller, SCIF2 console and the peripheral
 * windows that Linux may probe.
 *
 * Expected values come from the R-Car Gen3 device trees and drivers of
 * Linux 6.12, not from the model.
 *
 * Copyright (c) 2026 The R-Car Gen3 QEMU authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qemu/units.h"
#include "qemu/bitops.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "rcar-gen3-machines.h"
#include <sys/socket.h>

#define MACHINE "-M r8a77951-salvator-xs -smp 1 -m 1G "

#define PRR_ADDR    rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_PRR, 0)
#define RST_BASE    rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_RST, 0)
#define MODEMR      (RST_BASE + 0x60)
#define CR7BAR      (RST_BASE + 0x70)

#define SCIF2_BASE  rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_SCIF2, 0)
#define SCSMR       0x00
#define SCBRR       0x04
#define SCSCR       0x08
#define SCFTDR      0x0c
#define SCFSR       0x10
#define SCFRDR      0x14
#define SCFCR       0x18
#define SCFDR       0x1c
#define SCDL        0x30
#define SCCKS       0x34

#define SCSCR_RIE   (1 << 6)
#define SCSCR_TE    (1 << 5)
#define SCSCR_RE    (1 << 4)
#define SCFSR_TEND  (1 << 6)
#define SCFSR_TDFE  (1 << 5)
#define SCFSR_RDF   (1 << 1)
#define SCFSR_DR    (1 << 0)
#define SCFCR_RFRST (1 << 1)

/* drivers/soc/renesas/renesas-soc.c: H3 is product 0x4f */
static void test_prr_default(void)
{
    QTestState *qts = qtest_init(MACHINE);

    /* 0x4f20: R-Car H3 ES3.0, as Linux prints "r8a7795 ES3.0" */
    g_assert_cmphex(qtest_readl(qts, PRR_ADDR), ==, 0x00004f20);
    qtest_quit(qts);
}

static void test_prr_cut_property(void)
{
    QTestState *qts = qtest_init("-M r8a77951-salvator-xs,prr-cut=0x10 "
                                 "-smp 1 -m 1G");

    /* ES2.0: the IPMMU deny list case */
    g_assert_cmphex(qtest_readl(qts, PRR_ADDR), ==, 0x00004f10);
    qtest_quit(qts);
}

static void test_prr_read_only(void)
{
    QTestState *qts = qtest_init(MACHINE);

    qtest_writel(qts, PRR_ADDR, 0x12345678);
    g_assert_cmphex(qtest_readl(qts, PRR_ADDR), ==, 0x00004f20);
    qtest_quit(qts);
}

static void test_modemr(void)
{
    QTestState *qts = qtest_init(MACHINE);

    /* Salvator-XS straps MD14/MD13/MD19/MD17 = 0: PLL configuration 0 */
    g_assert_cmphex(qtest_readl(qts, MODEMR), ==, 0);
    qtest_quit(qts);

    qts = qtest_init(MACHINE "-global r8a77951.modemr=0x00108004");
    g_assert_cmphex(qtest_readl(qts, MODEMR), ==, 0x00108004);
    /* The mode pins are latched at power-on: writes do not change them */
    qtest_writel(qts, MODEMR, 0);
    g_assert_cmphex(qtest_readl(qts, MODEMR), ==, 0x00108004);
    qtest_quit(qts);
}

static void test_rst_cr7bar(void)
{
    QTestState *qts = qtest_init(MACHINE);

    g_assert_cmphex(qtest_readl(qts, CR7BAR), ==, 0);
    qtest_writel(qts, CR7BAR, 0x40040000);
    g_assert_cmphex(qtest_readl(qts, CR7BAR), ==, 0x40040000);
    qtest_system_reset(qts);
    g_assert_cmphex(qtest_readl(qts, CR7BAR), ==, 0);
    qtest_quit(qts);
}

/* PFC (pfc-r8a77951.c register names) */
#define PFC_BASE        rcar_gen3_test_base(RCAR_GEN3_H3, RCAR_GEN3_PFC, 0)
#define PFC_PMMR        (PFC_BASE + 0x000)
#define PFC_GPSR4       (PFC_BASE + 0x110)
#define PFC_POCCTRL0    (PFC_BASE + 0x380)

/* sh_pfc_write(): the inverse of the value to PMMR, then the value */
static void pfc_write(QTestState *qts, uint64_t reg, uint32_t val)
{
    qtest_writel(qts, PFC_PMMR, ~val);
    qtest_writel(qts, reg, val);
}

static void test_pfc_pmmr_lock(void)
{
    QTestState *qts = qtest_init(MACHINE);

    /* Without the key a write does nothing */
    qtest_writel(qts, PFC_GPSR4, 0x0003ffff);
    g_assert_cmphex(qtest_readl(qts, PFC_GPSR4), ==, 0);
    /* A key for another value does not open it either */
    qtest_writel(qts, PFC_PMMR, ~0x1u);
    qtest_writel(qts, PFC_GPSR4, 0x2);
    g_assert_cmphex(qtest_readl(qts, PFC_GPSR4), ==, 0);
    /* The key opens exactly one write */
    pfc_write(qts, PFC_GPSR4, 0x0003ffff);
    g_assert_cmphex(qtest_readl(qts, PFC_GPSR4), ==, 0x0003ffff);
    qtest_writel(qts, PFC_GPSR4, 0);
    g_assert_cmphex(qtest_readl(qts, PFC_GPSR4), ==, 0x0003ffff);
    qtest_quit(qts);
}

/*
 * sh_pfc_pinconf_set() for "power-source": a read-modify-write of the
 * pin's POCCTRL0 bit, 1 for 3.3 V and 0 for 1.8 V.  The eMMC's pins
 * (sdhi2_data8, sdhi2_ctrl, sdhi2_ds) are GP3_8-11 and GP4_0-6: bits 8-11
 * and 12-18 (r8a77951_pin_to_pocctrl()).
 */
static void test_pfc_power_source(void)
{
    QTestState *qts = qtest_init(MACHINE);
    const uint32_t sd2_pins = 0x0007ff00;
    uint32_t val = qtest_readl(qts, PFC_POCCTRL0);

    /* The SD/MMC pins come up at 3.3 V */
    g_assert_cmphex(val & sd2_pins, ==, sd2_pins);
    pfc_write(qts, PFC_POCCTRL0, val & ~sd2_pins);
    g_assert_cmphex(qtest_readl(qts, PFC_POCCTRL0), ==, val & ~sd2_pins);
    qtest_system_reset(qts);
    g_assert_cmphex(qtest_readl(qts, PFC_POCCTRL0), ==, val);
    qtest_quit(qts);
}

static uint16_t scif_readw(QTestState *qts, unsigned reg)
{
    return qtest_readw(qts, SCIF2_BASE + reg);
}

static void scif_writew(QTestState *qts, unsigned reg, uint16_t val)
{
    qtest_writew(qts, SCIF2_BASE + reg, val);
}

static void test_scif_transmit(void)
{
    int sock;
    QTestState *qts = qtest_init_with_serial(MACHINE, &sock);
    char c = 0;
    uint16_t fsr;

    scif_writew(qts, SCSCR, SCSCR_TE | SCSCR_RE);
    qtest_writeb(qts, SCIF2_BASE + SCFTDR, 'R');
    g_assert_cmpint(recv(sock, &c, 1, 0), ==, 1);
    g_assert_cmpint(c, ==, 'R');

    /*
     * The character left at once: the FIFO is empty again, so TDFE and
     * TEND come back (sh-sci.c sci_poll_put_char() polls TDFE).
     */
    scif_readw(qts, SCFSR);
    fsr = scif_readw(qts, SCFSR);
    g_assert_cmphex(fsr & (SCFSR_TDFE | SCFSR_TEND), ==,
                    SCFSR_TDFE | SCFSR_TEND);

    /* Linux acknowledges with a write of 0 to the bits it read as 1 */
    scif_writew(qts, SCFSR, fsr & ~(SCFSR_TDFE | SCFSR_TEND));
    qtest_writeb(qts, SCIF2_BASE + SCFTDR, 'C');
    g_assert_cmpint(recv(sock, &c, 1, 0), ==, 1);
    g_assert_cmpint(c, ==, 'C');
    close(sock);
    qtest_quit(qts);
}

static void test_scif_receive(void)
{
    int sock;
    QTestState *qts = qtest_init_with_serial(MACHINE, &sock);
    uint16_t fsr;
    int tries;

    qtest_irq_intercept_out(qts, "/machine/soc/scif2-irq");
    scif_writew(qts, SCFCR, SCFCR_RFRST);
    scif_writew(qts, SCFCR, 0);
    scif_writew(qts, SCSCR, SCSCR_TE | SCSCR_RE | SCSCR_RIE);
    g_assert_false(qtest_get_irq(qts, 0));

    g_assert_cmpint(send(sock, "ok", 2, 0), ==, 2);
    for (tries = 0; tries < 1000 && (scif_readw(qts, SCFDR) & 0x1f) < 2;
         tries++) {
        g_usleep(1000);
    }
    /* SCFDR[4:0] counts the characters in the receive FIFO */
    g_assert_cmpint(scif_readw(qts, SCFDR) & 0x1f, ==, 2);
    fsr = scif_readw(qts, SCFSR);
    g_assert_cmphex(fsr & SCFSR_RDF, ==, SCFSR_RDF);
    /* One SPI for all SCIF sources: the receive interrupt is on it */
    g_assert_true(qtest_get_irq(qts, 0));

    g_assert_cmpint(qtest_readb(qts, SCIF2_BASE + SCFRDR), ==, 'o');
    g_assert_cmpint(qtest_readb(qts, SCIF2_BASE + SCFRDR), ==, 'k');
    g_assert_cmpint(scif_readw(qts, SCFDR) & 0x1f, ==, 0);

    /* Clearing RDF and DR drops the interrupt */
    scif_writew(qts, SCFSR, fsr & ~(SCFSR_RDF | SCFSR_DR));
    g_assert_false(qtest_get_irq(qts, 0));
    close(sock);
    qtest_quit(qts);
}

static void test_scif_receive_disabled_irq(void)
{
    int sock;
    QTestState *qts = qtest_init_with_serial(MACHINE, &sock);
    int tries;

    qtest_irq_intercept_out(qts, "/machine/soc/scif2-irq");
    scif_writew(qts, SCSCR, SCSCR_TE | SCSCR_RE);
    g_assert_cmpint(send(sock, "z", 1, 0), ==, 1);
    for (tries = 0; tries < 1000 && !(scif_readw(qts, SCFDR) & 0x1f);
         tries++) {
        g_usleep(1000);
    }
    g_assert_cmpint(scif_readw(qts, SCFDR) & 0x1f, ==, 1);
    /* RIE is off: no interrupt yet */
    g_assert_false(qtest_get_irq(qts, 0));
    /* Enabling RIE with data waiting raises it */
    scif_writew(qts, SCSCR, SCSCR_TE | SCSCR_RE | SCSCR_RIE);
    g_assert_true(qtest_get_irq(qts, 0));
    close(sock);
    qtest_quit(qts);
}

static void test_scif_brg_registers(void)
{
    QTestState *qts = qtest_init(MACHINE);

    /*
     * sh-sci.c sci_set_termios() programs the baud rate generator
     * (SCDL, SCCKS) or BRR and reads back none of them, but the window
     * must decode all of them (SCIx_SH4_SCIF_BRG_REGTYPE).
     */
    qtest_writeb(qts, SCIF2_BASE + SCBRR, 0x1a);
    g_assert_cmphex(qtest_readb(qts, SCIF2_BASE + SCBRR), ==, 0x1a);
    scif_writew(qts, SCDL, 0x0024);
    scif_writew(qts, SCCKS, 0x4000);
    g_assert_cmphex(scif_readw(qts, SCDL), ==, 0x0024);
    g_assert_cmphex(scif_readw(qts, SCCKS), ==, 0x4000);
    scif_writew(qts, SCSMR, 0x0001);
    g_assert_cmphex(scif_readw(qts, SCSMR), ==, 0x0001);
    qtest_quit(qts);
}

/* Run QEMU with @args until it exits; returns its exit status */
static int run_qemu_to_exit(const char *args, char **err)
{
    g_autofree char *cmd = g_strdup_printf(
        "timeout 30 %s -display none -S -accel qtest %s",
        g_getenv("QTEST_QEMU_BINARY"), args);
    g_autoptr(GError) error = NULL;
    int status;

    g_assert_true(g_spawn_command_line_sync(cmd, NULL, err, &status, &error));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Is @addr inside a range of the flat view printed by "info mtree -f"? */
static bool flatview_decodes(const char *mtree, uint64_t addr)
{
    g_auto(GStrv) lines = g_strsplit(mtree, "\n", -1);
    bool in_memory_view = false;

    for (int i = 0; lines[i]; i++) {
        uint64_t start, end;
        char kind[64];

        if (g_str_has_prefix(lines[i], "FlatView")) {
            in_memory_view = false;
        }
        if (strstr(lines[i], "AS \"memory\"")) {
            in_memory_view = true;
        }
        if (!in_memory_view ||
            sscanf(lines[i], " %" SCNx64 "-%" SCNx64 " (prio %*d, %63[^)])",
                   &start, &end, kind) != 3) {
            continue;
        }
        if (addr >= start && addr <= end) {
            return true;
        }
    }
    return false;
}

/*
 * Every window of the SoC's .dtsi must be decoded by something (a model or
 * an unimplemented device): an access to nothing is an external abort,
 * and a built-in driver of a larger kernel may touch any of them.
 */
static void test_peripheral_windows_decode(const void *data)
{
    const RCarGen3TestMachine *m = data;
    QTestState *qts = qtest_initf("-M %s -smp 1", m->name);
    g_autofree char *mtree = qtest_hmp(qts, "info mtree -f");

    for (unsigned i = 0; i < m->num_devs; i++) {
        const RCarGen3Dev *d = &m->devs[i];

        if (!flatview_decodes(mtree, d->base) ||
            !flatview_decodes(mtree, d->base + d->size - 1)) {
            g_test_message("%s at 0x%" PRIx64 " is not decoded", d->name,
                           d->base);
            g_test_fail();
        }
        qtest_readl(qts, d->base);
    }
    /* Sanity check of the parser: a hole in the map is reported as one */
    g_assert_false(flatview_decodes(mtree, 0x40000000));
    qtest_quit(qts);
}

/* drivers/soc/renesas/renesas-soc.c: product and cut of each SoC */
static void test_soc_prr(const void *data)
{
    const RCarGen3TestMachine *m = data;
    QTestState *qts = qtest_initf("-M %s -smp 1", m->name);

    g_assert_cmphex(qtest_readl(qts, rcar_gen3_test_base(m, RCAR_GEN3_PRR, 0)),
                    ==, m->prr);
    qtest_quit(qts);
}

/* prr-cut=0 is ES1.0, not "the default": E3's default is ES1.1 */
static void test_prr_cut_zero(void)
{
    QTestState *qts = qtest_init("-M r8a77990-ebisu,prr-cut=0 -smp 1");

    g_assert_cmphex(qtest_readl(qts, PRR_ADDR), ==, 0x00005700);
    qtest_quit(qts);
}

/*
 * The SD/MMC hosts of the SoC answer with the SDHI's VERSION (0xcc10, the
 * Gen3 SDHI with internal DMAC); a channel the SoC has not (SDHI2 on E3) is
 * no SDHI: no device, and its window reads zero.
 */
static void test_soc_sdhi_set(const void *data)
{
    const RCarGen3TestMachine *m = data;
    QTestState *qts = qtest_initf("-M %s -smp 1", m->name);
    const uint64_t sdhi0 = 0xee100000, version = 0x388;

    for (unsigned n = 0; n < 4; n++) {
        g_autofree char *path = g_strdup_printf("/machine/soc/sdhi%u", n);
        bool has = m->sdhi_mask & BIT(n);
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'qom-list', "
                               "'arguments': { 'path': %s } }", path);

        g_assert_cmpint(qdict_haskey(rsp, "return"), ==, has);
        qobject_unref(rsp);
        g_assert_cmphex(qtest_readw(qts, sdhi0 + n * 0x20000 + version), ==,
                        has ? 0xcc10 : 0);
    }
    qtest_quit(qts);
}

/* -smp defaults to the board's CPUs; more is refused with one message */
static void test_soc_cpus(const void *data)
{
    const RCarGen3TestMachine *m = data;
    QTestState *qts = qtest_initf("-M %s", m->name);
    g_autofree char *args = g_strdup_printf("-M %s -smp %u", m->name,
                                            m->cpus + 1);
    g_autofree char *err = NULL;
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-cpus-fast' }");

    g_assert_cmpuint(qlist_size(qdict_get_qlist(rsp, "return")), ==, m->cpus);
    qobject_unref(rsp);
    qtest_quit(qts);

    g_assert_cmpint(run_qemu_to_exit(args, &err), ==, 1);
    g_assert_nonnull(strstr(err, "Invalid SMP CPUs"));
}

/* The machine's property @prop, as qom-get gives it */
static char *machine_prop(QTestState *qts, const char *prop)
{
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                           "{ 'path': '/machine', 'property': %s } }", prop);
    char *val = g_strdup(qdict_get_str(rsp, "return"));

    qobject_unref(rsp);
    return val;
}

/*
 * emmc-mode and timing are enum properties: hs400 and off by default,
 * each value of theirs reads back as given, and another is refused with
 * one message that names it
 */
static void test_machine_enum_properties(void)
{
    static const char *const values[][2] = {
        { "emmc-mode", "hs52" }, { "emmc-mode", "hs200" },
        { "emmc-mode", "hs400" }, { "timing", "off" },
        { "timing", "board" },
    };
    QTestState *qts = qtest_init(MACHINE);
    g_autofree char *emmc_mode = machine_prop(qts, "emmc-mode");
    g_autofree char *timing = machine_prop(qts, "timing");
    g_autofree char *err = NULL;
    g_autofree char *err2 = NULL;

    g_assert_cmpstr(emmc_mode, ==, "hs400");
    g_assert_cmpstr(timing, ==, "off");
    qtest_quit(qts);
    for (unsigned i = 0; i < ARRAY_SIZE(values); i++) {
        g_autofree char *got = NULL;

        qts = qtest_initf("-M r8a77951-salvator-xs,%s=%s -smp 1",
                          values[i][0], values[i][1]);
        got = machine_prop(qts, values[i][0]);
        g_assert_cmpstr(got, ==, values[i][1]);
        qtest_quit(qts);
    }
    g_assert_cmpint(run_qemu_to_exit("-M r8a77951-salvator-xs,emmc-mode=hs300",
                                     &err), ==, 1);
    g_assert_nonnull(strstr(err, "'hs300'"));
    g_assert_cmpint(run_qemu_to_exit("-M r8a77951-salvator-xs,timing=fast",
                                     &err2), ==, 1);
    g_assert_nonnull(strstr(err2, "'fast'"));
}

static void test_unimplemented_reads_zero(void)
{
    QTestState *qts = qtest_init(MACHINE);

    /* The watchdog (RWDT) and the thermal sensors have no model: RAZ/WI */
    qtest_writel(qts, 0xe6020000, 0xffffffff);
    g_assert_cmphex(qtest_readl(qts, 0xe6020000), ==, 0);
    g_assert_cmphex(qtest_readl(qts, 0xe6198000), ==, 0);
    qtest_quit(qts);
}

static void test_ram_layout(void)
{
    QTestState *qts = qtest_init("-M r8a77951-salvator-xs -smp 1 -m 2G");
    /*
     * salvator-xs.dts: 896 MiB at 0x48000000, then 1 GiB banks at
     * 0x5_0000_0000 and 0x6_0000_0000: 2 GiB ends 128 MiB into the third.
     */
    static const uint64_t ram_words[] = {
        0x48000000, 0x48000000ULL + 0x38000000 - 4,
        0x500000000ULL, 0x500000000ULL + 0x40000000 - 4,
        0x600000000ULL, 0x600000000ULL + 0x08000000 - 4,
    };

    for (int i = 0; i < ARRAY_SIZE(ram_words); i++) {
        qtest_writel(qts, ram_words[i], 0xcafe0000 + i);
    }
    for (int i = 0; i < ARRAY_SIZE(ram_words); i++) {
        g_assert_cmphex(qtest_readl(qts, ram_words[i]), ==, 0xcafe0000 + i);
    }
    /* Past the end of RAM there is nothing to keep the data */
    qtest_writel(qts, 0x600000000ULL + 0x08000000, 0xcafe00ff);
    g_assert_cmphex(qtest_readl(qts, 0x600000000ULL + 0x08000000), ==, 0);
    qtest_quit(qts);
}

/*
 * -m up to the board's DRAM: past the banks of the .dts, the last 128 MiB
 * go to the secure firmware's DRAM at 0x40000000; one MiB more is refused
 * with one message.
 */
static void test_soc_dram(const void *data)
{
    const RCarGen3TestMachine *m = data;
    QTestState *qts = qtest_initf("-M %s -smp 1 -m %uM", m->name,
                                  m->dram_mib - 128);
    g_autofree char *args = g_strdup_printf("-M %s -m %uM", m->name,
                                            m->dram_mib + 1);
    g_autofree char *msg = g_strdup_printf("more than the board's %u MiB",
                                           m->dram_mib);
    g_autofree char *err = NULL;

    /* Linux's DRAM only: nothing at 0x40000000 */
    qtest_writel(qts, 0x40000000, 0xcafe0001);
    g_assert_cmphex(qtest_readl(qts, 0x40000000), ==, 0);
    qtest_quit(qts);

    qts = qtest_initf("-M %s -smp 1 -m %uM", m->name, m->dram_mib);
    qtest_writel(qts, 0x40000000, 0xcafe0002);
    qtest_writel(qts, 0x40000000 + 128 * MiB - 4, 0xcafe0003);
    g_assert_cmphex(qtest_readl(qts, 0x40000000), ==, 0xcafe0002);
    g_assert_cmphex(qtest_readl(qts, 0x40000000 + 128 * MiB - 4), ==,
                    0xcafe0003);
    qtest_quit(qts);

    g_assert_cmpint(run_qemu_to_exit(args, &err), ==, 1);
    g_assert_nonnull(strstr(err, msg));
}

/* The QOM type of CPU @index, from query-cpus-fast and qom-get */
static char *cpu_qom_type(QTestState *qts, unsigned index)
{
    QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-cpus-fast' }");
    QList *cpus = qdict_get_qlist(rsp, "return");
    const QListEntry *e = qlist_first(cpus);
    QDict *type_rsp;
    char *type;

    for (unsigned i = 0; i < index; i++) {
        e = qlist_next(e);
    }
    g_assert_nonnull(e);
    type_rsp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                         "{ 'path': %s, 'property': 'type' } }",
                         qdict_get_str(qobject_to(QDict, qlist_entry_obj(e)),
                                       "qom-path"));
    type = g_strdup(qdict_get_str(type_rsp, "return"));
    qobject_unref(type_rsp);
    qobject_unref(rsp);
    return type;
}

/*
 * -cpu may name a core type of the SoC (LAVA always passes one) and then
 * changes nothing; any other type is refused with a message that names
 * the SoC's cores.
 */
static void test_soc_cpu_option(const void *data)
{
    const RCarGen3TestMachine *m = data;
    g_autofree char *args = g_strdup_printf("-M %s -cpu max", m->name);
    g_autofree char *err = NULL;

    for (unsigned i = 0; i < ARRAY_SIZE(m->cores) && m->cores[i]; i++) {
        QTestState *qts = qtest_initf("-M %s -cpu %s", m->name, m->cores[i]);
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-cpus-fast' }");
        g_autofree char *first_type = g_strdup_printf("%s-arm-cpu",
                                                      m->cores[0]);
        g_autofree char *last_type = g_strdup_printf(
            "%s-arm-cpu", m->cores[1] ? m->cores[1] : m->cores[0]);
        g_autofree char *first = NULL, *last = NULL;

        /* As many CPUs as without -cpu, each cluster of its own type */
        g_assert_cmpuint(qlist_size(qdict_get_qlist(rsp, "return")), ==,
                         m->cpus);
        qobject_unref(rsp);
        first = cpu_qom_type(qts, 0);
        last = cpu_qom_type(qts, m->cpus - 1);
        g_assert_cmpstr(first, ==, first_type);
        g_assert_cmpstr(last, ==, last_type);
        qtest_quit(qts);
    }

    g_assert_cmpint(run_qemu_to_exit(args, &err), ==, 1);
    g_assert_nonnull(strstr(err, "Invalid CPU model: max"));
    for (unsigned i = 0; i < ARRAY_SIZE(m->cores) && m->cores[i]; i++) {
        g_assert_nonnull(strstr(err, m->cores[i]));
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/rcar-gen3/prr/default", test_prr_default);
    qtest_add_func("/rcar-gen3/prr/cut-property", test_prr_cut_property);
    qtest_add_func("/rcar-gen3/prr/read-only", test_prr_read_only);
    qtest_add_func("/rcar-gen3/prr/cut-zero", test_prr_cut_zero);
    qtest_add_func("/rcar-gen3/rst/modemr", test_modemr);
    qtest_add_func("/rcar-gen3/rst/cr7bar", test_rst_cr7bar);
    qtest_add_func("/rcar-gen3/pfc/pmmr-lock", test_pfc_pmmr_lock);
    qtest_add_func("/rcar-gen3/pfc/power-source", test_pfc_power_source);
    qtest_add_func("/rcar-gen3/scif/transmit", test_scif_transmit);
    qtest_add_func("/rcar-gen3/scif/receive", test_scif_receive);
    qtest_add_func("/rcar-gen3/scif/receive-irq-enable",
                   test_scif_receive_disabled_irq);
    qtest_add_func("/rcar-gen3/scif/brg-registers", test_scif_brg_registers);
    qtest_add_func("/rcar-gen3/memmap/unimplemented-raz",
                   test_unimplemented_reads_zero);
    qtest_add_func("/rcar-gen3/memmap/ram-layout", test_ram_layout);
    qtest_add_func("/rcar-gen3/machine/enum-properties",
                   test_machine_enum_properties);

    for (unsigned i = 0; i < ARRAY_SIZE(rcar_gen3_test_machines); i++) {
        const RCarGen3TestMachine *m = &rcar_gen3_test_machines[i];
        g_autofree char *prr = g_strdup_printf("/rcar-gen3/%s/prr", m->name);
        g_autofree char *sdhi = g_strdup_printf("/rcar-gen3/%s/sdhi-set",
                                                m->name);
        g_autofree char *win = g_strdup_printf("/rcar-gen3/%s/windows-decode",
                                               m->name);
        g_autofree char *cpus = g_strdup_printf("/rcar-gen3/%s/cpus", m->name);
        g_autofree char *dram = g_strdup_printf("/rcar-gen3/%s/dram", m->name);
        g_autofree char *cpu_opt = g_strdup_printf("/rcar-gen3/%s/cpu-option",
                                                   m->name);

        qtest_add_data_func(prr, m, test_soc_prr);
        qtest_add_data_func(sdhi, m, test_soc_sdhi_set);
        qtest_add_data_func(win, m, test_peripheral_windows_decode);
        qtest_add_data_func(cpus, m, test_soc_cpus);
        qtest_add_data_func(dram, m, test_soc_dram);
        qtest_add_data_func(cpu_opt, m, test_soc_cpu_option);
    }

    return g_test_run();
}
