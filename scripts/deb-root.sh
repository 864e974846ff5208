# Debian trixie roots for make deb and make check-deb, made with
# debootstrap and cached by what goes into them.  Sourced after common.sh.
# shellcheck shell=bash

DEB_SUITE=trixie
DEB_MIRROR=http://deb.debian.org/debian
DEB_PACKAGE=qemu-system-rcar-gen3
DEB_BINARY=qemu-system-aarch64-rcar
# The package's maintainer field: the project, not whoever builds it
DEB_MAINTAINER="R-Car Gen3 QEMU <rcar-gen3@localhost>"

# A trixie root with @packages, made once per package list (cached)
# Usage: trixie_root <name> <packages...>; prints its path
trixie_root() {
    local name=$1 key dir include
    shift
    key=$( { echo "$DEB_SUITE $DEB_MIRROR $*"; } | sha256sum | cut -c1-12)
    dir=$CACHE/deb/$name-$key
    if [ ! -f "$dir/.done" ]; then
        [ -x /usr/sbin/debootstrap ] || "$TOP/scripts/deps.sh" --deb >&2
        log "making a Debian $DEB_SUITE root with debootstrap ($name)"
        remove_root "$dir"
        mkdir -p "$(dirname "$dir")"
        include=$(IFS=,; echo "$*")
        as_root /usr/sbin/debootstrap --variant=minbase \
            ${include:+--include="$include"} "$DEB_SUITE" "$dir" "$DEB_MIRROR" >&2 ||
            die "debootstrap $DEB_SUITE failed (see $dir/debootstrap/debootstrap.log)"
        as_root touch "$dir/.done"
    fi
    echo "$dir"
}

# Delete a root: never through a mount that is still there (the host's
# /dev), so only when nothing is mounted under it, and on its own file
# system only
remove_root() {
    [ -e "$1" ] || return 0
    ! awk -v d="$(realpath "$1")" '$5 == d || index($5, d "/") == 1 { m = 1 }
                                  END { exit !m }' /proc/self/mountinfo ||
        die "something is still mounted under $1"
    as_root rm -rf --one-file-system "$1"
}

# Run a command in root @1 as root, with /proc and /dev mounted for it in
# a mount namespace of its own: they go away with it, however it ends
in_root() {
    local root=$1
    shift
    as_root unshare -m --propagation private /bin/sh -c \
        'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" &&
         exec chroot "$0" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
             HOME=/root LANG=C.UTF-8 "$@"' "$root" "$@"
}
