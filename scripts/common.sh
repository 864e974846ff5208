# Shared settings for the build scripts.  Sourced, not executed.
# shellcheck shell=bash

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
APT_PRIVATE=$BUILD/apt
# The QEMU tree we build and its build directory: Debian's source, or a
# copy of the user's own checkout when QEMU_SRC is set.
if [ -n "${QEMU_SRC:-}" ]; then
    QEMU_TREE=$BUILD/qemu-src-user
    QEMU_BUILD=$BUILD/qemu-build-user
else
    QEMU_TREE=$BUILD/qemu-src
    QEMU_BUILD=$BUILD/qemu-build
fi
# SANITIZE=1: the same tree built with AddressSanitizer and UBSan, apart
QEMU_BUILD_SAN=$QEMU_BUILD-san
if [ "${SANITIZE:-0}" = 1 ]; then
    QEMU_BUILD=$QEMU_BUILD_SAN
fi
# Sanitizer reports fail the process that has them
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
QEMU=$QEMU_BUILD/qemu-system-aarch64
# Downloads and built kernels that a fresh clone may reuse (never required)
CACHE=${RCAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rcar-gen3-qemu}

# QEMU's configure options, shared by build-qemu.sh and check-series.sh:
# aarch64 only, -net user through libslirp (as kernel CI passes it), and
# --disable-werror for QEMU's own files (ours are checked apart,
# scripts/werror-check.py)
QEMU_CONFIGURE_OPTIONS=(--target-list=aarch64-softmmu --python=/usr/bin/python3
         --without-default-features --enable-fdt=system --enable-slirp
         --disable-docs --disable-user --disable-install-blobs
         --enable-tcg --disable-werror)

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The part of patch $1 that changes the files listed in file $3 ($2 =
# only), or every other file ($2 = except).  A patch of patches/qemu/ may
# change new files of ours that an earlier patch adds (the features at the
# tail of the series): our repository holds those files in their final
# form, so building takes the rest of the patch only, and export-patches
# takes the part for our files back to get what the earlier patch adds.
patch_part() {
    awk -v mode="$2" -v list="$3" '
        BEGIN { while ((getline f < list) > 0) ours[f] = 1; keep = 1 }
        /^diff --git a\// {
            path = substr($3, 3)
            keep = (mode == "only") == (path in ours)
        }
        keep { print }' "$1"
}

# Run as root, or through sudo when we are not.
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# A private apt configuration for one Debian suite: its own sources list,
# package lists and cache under build/apt/<suite>, so that the host's apt
# sources stay untouched.  Usage: apt_private <suite> apt-get <args...>
apt_private_setup() {
    local suite=$1 dir=$APT_PRIVATE/$1
    mkdir -p "$dir/sources" "$dir/lists/partial" "$dir/cache/archives/partial"
    cat > "$dir/sources/debian.sources.new" <<EOT
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Architectures: amd64 arm64
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
    mv "$dir/sources/debian.sources.new" "$dir/sources/debian.sources"
}

apt_private() {
    local suite=$1; shift
    local dir=$APT_PRIVATE/$suite
    "$@" -o Dir::Etc::sourcelist=/dev/null \
         -o Dir::Etc::sourceparts="$dir/sources" \
         -o Dir::State::Lists="$dir/lists" \
         -o Dir::Cache="$dir/cache" \
         -o APT::Architectures::=amd64 -o APT::Architectures::=arm64 \
         -o Debug::NoLocking=1
}

# apt-get update of a private suite, at most once a day.
apt_private_update() {
    local suite=$1 stamp=$APT_PRIVATE/$1/updated
    apt_private_setup "$suite"
    if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
        log "apt-get update ($suite, private)"
        apt_private "$suite" apt-get -q update >/dev/null
        touch "$stamp"
    fi
}
