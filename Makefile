# R-Car Gen3 emulation for QEMU: the front door.
#
#   make run      set up everything, boot the emulated board with and
#                 without the IPMMU and report how Linux's block requests
#                 reached the SD/MMC host (scripts/demo.py)
#   make shell    boot it to a shell on the console
#   make record   the same, recorded for replay (EMMC=, SD=, SCRIPT= too)
#   make replay   play the last recording back (docs: "Deterministic runs")
#   make check    set up everything, run every test (style, qtests, boot tests,
#                 a LAVA job)
#   make check-kernel-ci   make check, plus a defconfig kernel's boot tests
#   make bench    set up everything, run the benchmark (scripts/bench.py):
#                 MEASUREMENTS.md, build/bench/report.csv, report.png
#   make fuzz     fuzz the SDHI, DMAC, SCC, IPMMU and I2C over qtest on the
#                 ASan + UBSan build for FUZZ_SECONDS (600); reproducers in
#                 build/fuzz/
#   make deb      a Debian package of our QEMU for kernel-CI containers
#                 (Debian trixie): qemu-system-rcar-gen3, whose binary is
#                 qemu-system-aarch64-rcar (scripts/build-deb.sh)
#   make check-deb  install it into a clean trixie root and boot a board
#                 from it there (slow: builds QEMU in trixie; not part of
#                 make check)
#   make check-series   apply the exported series (make export-patches) to
#                 the pristine QEMU tree with git am and build after every
#                 patch (slow; not part of make check)
#
# MACHINE= picks the board of make run and make shell:
# r8a77951-salvator-xs (R-Car H3, the default), r8a77965-salvator-xs
# (R-Car M3-N), r8a77990-ebisu (R-Car E3), or a ULCB starter kit:
# r8a77951-ulcb, r8a77965-ulcb, r8a779m1-ulcb (H3e-2G).  DTB=upstream
# boots it with the unmodified upstream DTB instead of the generated one.
#
# SANITIZE=1 (make check SANITIZE=1, make run SANITIZE=1...) uses QEMU built
# with ASan + UBSan in build/qemu-build-san for everything.  make check runs
# our qtests and a short fuzz pass on that build in any case.
#
# Everything lands in build/.  QEMU_SRC=/path/to/qemu builds against a QEMU
# checkout of your own instead of Debian's source package.

SHELL := /bin/bash
PAGE_SIZE ?= 4k
export PAGE_SIZE
SANITIZE ?= 0
export SANITIZE
FUZZ_SECONDS ?= 600
MACHINE ?= r8a77951-salvator-xs
export MACHINE

.PHONY: all deps qemu guest kernel kernel-defconfig initramfs dtbs run shell record replay check check-kernel-ci check-clock bench fuzz export-patches check-series deb check-deb clean

all: qemu guest

deps:
	@scripts/deps.sh

qemu: deps
	@scripts/build-qemu.sh >/dev/null

kernel: deps
	@PAGE_SIZE=$(PAGE_SIZE) tests/guest/build-kernel.sh >/dev/null

# The kernel that kernel CI builds: defconfig (see the script)
kernel-defconfig: deps
	@tests/guest/build-kernel-defconfig.sh >/dev/null

initramfs: kernel
	@tests/guest/build-initramfs.sh >/dev/null

dtbs: deps
	@tests/guest/build-dtbs.sh >/dev/null

guest: kernel initramfs dtbs

run: qemu guest
	@/usr/bin/python3 scripts/demo.py

bench: qemu guest
	@scripts/deps.sh --bench
	@tests/guest/build-bench-initramfs.sh >/dev/null
	@PAGE_SIZE=64k tests/guest/build-kernel.sh >/dev/null
	@/usr/bin/python3 scripts/bench.py

shell: qemu guest
	@scripts/run.sh

record: qemu guest
	@RR=record scripts/run.sh

replay: qemu
	@RR=replay scripts/run.sh

# When make check started, before its builds: check.sh reports the whole
check-clock:
	@mkdir -p "$${BUILD:-build}" && date +%s > "$${BUILD:-build}/.check-start"

check: check-clock qemu guest
	@scripts/deps.sh --lava
	@scripts/check.sh

# make check, plus the defconfig kernel: its boot tests, and the LAVA job
# with it instead of the test kernel (45 more minutes on 2 cores, cold)
check-kernel-ci: check-clock qemu guest kernel-defconfig
	@scripts/deps.sh --lava
	@KERNEL_CI=1 scripts/check.sh

fuzz: deps
	@SANITIZE=1 scripts/build-qemu.sh >/dev/null
	@/usr/bin/python3 scripts/fuzz.py --seconds $(FUZZ_SECONDS) \
	    --qemu build/qemu-build-san/qemu-system-aarch64

export-patches: deps
	@scripts/export-patches.sh

deb: deps
	@scripts/deps.sh --deb
	@scripts/build-deb.sh

check-deb: guest
	@scripts/deps.sh --deb
	@scripts/check-deb.sh

# The exported series applied with git am to the pristine QEMU tree and
# built after every patch: it is bisectable (slow, not part of make check)
check-series: deps
	@scripts/check-series.sh

clean:
	rm -rf build/qemu-build build/qemu-build-san build/qemu-src build/patches \
		build/qemu-src-user build/qemu-build-user build/check-series
