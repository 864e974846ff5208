# Debian trixie roots for make deb and make check-deb, made with
# debootstrap and cached by what goes into them.  Sourced after common.sh.
# shellcheck shell=bash

DEB_SUITE=trixie
DEB_MIRROR=http://deb.debian.org/debian
DEB_PACKAGE=qemu-system-rcar-gen3
DEB_BINARY=qemu-system-aarch64-rcar
# A trixie root with @packages, made once per package list (cached)
# Usage: trixie_root <name> <packages...>; prints its path
trixie_root() {
    local name=$1 key dir
    shift
    key=$( { echo "$DEB_SUITE $DEB_MIRROR $*"; } | sha256sum | cut -c1-12)
    dir=$CACHE/deb/$name-$key
    if [ ! -f "$dir/.done" ]; then
        command -v debootstrap >/dev/null ||
            as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
                install --no-install-recommends debootstrap >&2
        log "making a Debian $DEB_SUITE root with debootstrap ($name)"
        as_root rm -rf "$dir"; mkdir -p "$(dirname "$dir")"
        local include
        include=$(IFS=,; echo "$*")
        as_root debootstrap --variant=minbase ${include:+--include="$include"} \
            "$DEB_SUITE" "$dir" "$DEB_MIRROR" >&2 ||
            die "debootstrap $DEB_SUITE failed (see $dir/debootstrap/debootstrap.log)"
        touch "$dir/.done"
    fi
    echo "$dir"
}

# Run a command in root @1 as root, with /proc and /dev mounted for it
in_root() {
    local root=$1
    shift
    as_root mount -t proc proc "$root/proc"
    as_root mount --bind /dev "$root/dev"
    local rc=0
    as_root chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 "$@" || rc=$?
    as_root umount "$root/dev" "$root/proc"
    return $rc
}

