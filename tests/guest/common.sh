# Settings shared by the guest-kit scripts.  Sourced, not executed.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
GUEST=$BUILD/guest
GUEST_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Download Debian 13 packages (any architecture) into $GUEST/debs.
# Prints the path of each .deb.
fetch_debs() {
    apt_private_update trixie
    mkdir -p "$GUEST/debs"
    local p f
    for p in "$@"; do
        f=$(ls "$GUEST/debs/${p%%:*}"_*"${p#*:}".deb 2>/dev/null | head -n1 || true)
        if [ -z "$f" ]; then
            log "downloading $p (Debian 13)"
            (cd "$GUEST/debs" && apt_private trixie apt-get -q download "$p/trixie" >&2)
            f=$(ls "$GUEST/debs/${p%%:*}"_*.deb | head -n1)
        fi
        echo "$f"
    done
}
