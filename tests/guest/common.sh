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
# the current version is there already.  Prints the path of each .deb.
fetch_debs() {
    local p name arch ver f
    mkdir -p "$DEBS"
    for p in "$@"; do
        name=${p%%:*}; arch=${p#*:}; [ "$arch" != "$p" ] || arch=
        ver=$(deb_version "$p")
        [ -n "$ver" ] || die "Debian 13 has no package $p"
        f=$(ls "$DEBS/${name}_${ver//:/%3a}_"${arch:-*}.deb 2>/dev/null | head -n1 || true)
        if [ -z "$f" ]; then
            log "downloading $p $ver (Debian 13)"
            (cd "$DEBS" && apt_private trixie apt-get -q download "$p=$ver" >&2)
            f=$(ls "$DEBS/${name}_${ver//:/%3a}_"${arch:-*}.deb | head -n1)
        fi
        echo "$f"
    done
}
