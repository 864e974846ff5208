# Settings shared by the guest-kit scripts.  Sourced, not executed.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
GUEST=$BUILD/guest
GUEST_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

DEBS=$CACHE/debs

# The version of Debian 13 package $1 that apt would download now.
deb_version() {
    apt_private_update trixie
    apt_private trixie apt-cache show "$1/trixie" 2>/dev/null |
        sed -n 's/^Version: //p' | head -n1
}

# Download Debian 13 packages (name or name:arch) into the cache, unless
# the current version is there already.  Prints the path of each .deb, in
# order.  One apt-cache and one apt-get call for all of them.
fetch_debs() {
    local name arch ver f
    local -a paths=() missing=()
    mkdir -p "$DEBS"
    apt_private_update trixie
    while read -r name arch ver; do
        f=$DEBS/${name}_${ver//:/%3a}_$arch.deb
        paths+=("$f")
        [ -f "$f" ] || missing+=("$name:$arch=$ver")
    done < <(apt_private trixie apt-cache show --no-all-versions "$@" 2>/dev/null |
             awk '/^Package:/ {p = $2} /^Architecture:/ {a = $2}
                  /^Version:/ {v = $2} /^$/ {if (p) print p, a, v; p = ""}')
    [ "${#paths[@]}" -eq "$#" ] || die "Debian 13 lacks one of: $*"
    if [ "${#missing[@]}" -gt 0 ]; then
        log "downloading ${#missing[@]} packages (Debian 13)"
        (cd "$DEBS" && apt_private trixie apt-get -q download "${missing[@]}" >&2)
    fi
    for f in "${paths[@]}"; do
        [ -f "$f" ] || die "apt-get download did not write $f"
        echo "$f"
    done
}

# The root file system of the test initramfs in directory $1: the .debs
# that follow (busybox-static) unpacked, merged-/usr links, our /init.
build_base_root() {
    local root=$1 d; shift
    rm -rf "$root"; mkdir -p "$root"
    for d in "$@"; do dpkg-deb -x "$d" "$root"; done
    rm -rf "$root/usr/share/doc" "$root/usr/share/man"
    # Debian 13 packages install into /usr only (merged /usr)
    for d in bin sbin lib; do
        mkdir -p "$root/usr/$d"
        [ -e "$root/$d" ] || ln -s "usr/$d" "$root/$d"
    done
    mkdir -p "$root/dev"
    install -m 0755 "$GUEST_SRC/init" "$root/init"
}

CROSS=aarch64-linux-gnu-
JOBS=${JOBS:-$(nproc)}

# make in the kernel tree $LINUX for build directory $out, cross compiled
# (through ccache when there is one)
kmake() {
    local cc=${CROSS}gcc
    command -v ccache >/dev/null && cc="ccache $cc"
    make -s -C "$LINUX" O="$out" ARCH=arm64 CROSS_COMPILE=$CROSS CC="$cc" "$@"
}

# The version of linux-source-6.12 that Debian 13 has now.
linux_source_version() {
    local ver
    ver=$(deb_version linux-source-6.12)
    [ -n "$ver" ] || die "Debian 13 has no linux-source-6.12"
    echo "$ver"
}

# Unpack linux-source-6.12 (version $1) once into $GUEST/linux-$1.
unpack_linux_source() {
    local linux=$GUEST/linux-$1 deb tarball
    [ -f "$linux/.unpacked" ] && return
    deb=$(fetch_debs linux-source-6.12)
    log "unpacking $(basename "$deb") (1.7 GB, once)"
    rm -rf "$GUEST/linux-deb" "$linux"
    dpkg-deb -x "$deb" "$GUEST/linux-deb"
    tarball=$(ls "$GUEST"/linux-deb/usr/src/linux-source-6.12*.tar.* | head -n1)
    mkdir -p "$linux"
    tar -xf "$tarball" -C "$linux" --strip-components=1
    rm -rf "$GUEST/linux-deb"
    touch "$linux/.unpacked"
}
