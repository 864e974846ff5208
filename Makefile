# R-Car Gen3 emulation for QEMU: the front door.
#
#   make run      set up everything, boot the emulated Salvator-XS (R-Car H3)
#                 with and without the IPMMU and report how Linux's block
#                 requests reached the SD/MMC host (scripts/demo.py)
#   make shell    boot it to a shell on the console
#   make check    set up everything, run every test (style, qtests, boot tests)
#   make bench    set up everything, run the benchmark (scripts/bench.py):
#                 build/bench/report.md, report.csv, report.png
#
# Everything lands in build/.  QEMU_SRC=/path/to/qemu builds against a QEMU
# checkout of your own instead of Debian's source package.

SHELL := /bin/bash
PAGE_SIZE ?= 4k
export PAGE_SIZE

.PHONY: all deps qemu guest kernel initramfs run shell check bench export-patches clean

all: qemu guest

deps:
	@scripts/deps.sh

qemu: deps
	@scripts/build-qemu.sh >/dev/null

kernel: deps
	@PAGE_SIZE=$(PAGE_SIZE) tests/guest/build-kernel.sh >/dev/null

initramfs: kernel
	@tests/guest/build-initramfs.sh >/dev/null

guest: kernel initramfs

run: qemu guest
	@/usr/bin/python3 scripts/demo.py

bench: qemu guest
	@scripts/deps.sh --bench
	@tests/guest/build-bench-initramfs.sh >/dev/null
	@PAGE_SIZE=64k tests/guest/build-kernel.sh >/dev/null
	@/usr/bin/python3 scripts/bench.py

shell: qemu guest
	@scripts/run.sh

check: qemu guest
	@scripts/check.sh

export-patches: deps
	@scripts/export-patches.sh

clean:
	rm -rf build/qemu-build build/qemu-src build/patches
