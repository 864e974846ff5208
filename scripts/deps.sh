#!/usr/bin/env bash
# Install everything the build needs on a fresh Debian 12 (or 13) machine.
#
# Host packages come from the host's own apt sources.  meson >= 1.5 is not in
# bookworm, so on Debian 12 its .deb is downloaded from bookworm-backports
# through a private apt directory and installed as a local file: the host's
# apt sources are never modified.
. "$(dirname "$0")/common.sh"

HOST_PKGS=(
    # QEMU
    build-essential pkg-config ninja-build python3 python3-venv
    libglib2.0-dev libfdt-dev libpixman-1-dev zlib1g-dev flex bison ccache
    # -net user, which kernel CI (LAVA, tuxlava) passes
    libslirp-dev
    dpkg-dev debian-archive-keyring perl
    # the guest kit: cross compiler and kernel build tools
    gcc-aarch64-linux-gnu bc libssl-dev libelf-dev cpio kmod xz-utils
    device-tree-compiler rsync
    # the boot tests: qcow2 images (qemu-img), reverse debugging (gdb),
    # an NFS server for the NFS-root boots (user space, NFSv3 needs rpcbind)
    qemu-utils gdb-multiarch nfs-ganesha nfs-ganesha-vfs rpcbind
)

# `make bench` also draws its plot with matplotlib and serves its network
# rows with iperf3; `make check` runs a
# LAVA job with Debian's LAVA dispatcher (lava-run), which needs none of its
# recommended packages for a QEMU job, but a kernel in /boot: libguestfs
# boots one to write LAVA's test overlay disk
case "${1:-}" in
    --bench) HOST_PKGS+=(python3-matplotlib iperf3) ;;
    # make deb and make check-deb: Debian trixie roots
    --deb) HOST_PKGS+=(debootstrap) ;;
    --lava) HOST_PKGS+=(lava-dispatcher)
            # only where /boot has none (a container): never a second one
            compgen -G '/boot/vmlinuz-*' >/dev/null || HOST_PKGS+=(linux-image-amd64) ;;
esac

stamp=$BUILD/.deps-installed
want=$(printf '%s\n' "${HOST_PKGS[@]}" | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && command -v meson >/dev/null &&
   dpkg --compare-versions "$(meson --version)" ge 1.5 && /usr/bin/python3 -c 'import pycotap' 2>/dev/null; then
    exit 0
fi
mkdir -p "$BUILD"

missing=()
for p in "${HOST_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing host packages: ${missing[*]}"
    as_root apt-get -q update >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends "${missing[@]}"
fi

# Packages that Debian 12 only has in bookworm-backports: meson >= 1.5,
# which QEMU 10.2's meson.build asks for, and pycotap, which QEMU's
# functional tests report through.
need_backports() {
    if ! command -v meson >/dev/null || ! dpkg --compare-versions "$(meson --version)" ge 1.5; then
        echo meson
    fi
    /usr/bin/python3 -c 'import pycotap' 2>/dev/null || echo python3-pycotap
}
mapfile -t bpo < <(need_backports)
if [ ${#bpo[@]} -gt 0 ]; then
    . /etc/os-release
    if [ "${VERSION_CODENAME:-}" = bookworm ]; then
        apt_private_update bookworm-backports
        log "installing ${bpo[*]} from bookworm-backports"
        dl=$BUILD/apt/debs
        rm -rf "$dl"; mkdir -p "$dl"
        (cd "$dl" && apt_private bookworm-backports apt-get -q download \
            $(printf '%s/bookworm-backports ' "${bpo[@]}"))
        as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends "$dl"/*.deb
    else
        as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends "${bpo[@]}"
    fi
fi
echo "$want" > "$stamp"
