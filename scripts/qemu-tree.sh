#!/usr/bin/env bash
# Prepare the QEMU source tree that we build:
#   1. the pristine source: Debian's `qemu` source package of the version
#      below (with Debian's patches applied), or $QEMU_SRC when the user
#      points at a QEMU checkout of their own of the same release;
#   2. a working copy of it in $QEMU_TREE (build/qemu-src by default);
#   3. our new files (hw/, include/, tests/, docs/) placed at their QEMU
#      paths, and patches/qemu/*.patch applied on top.
#
# Idempotent: files are only rewritten when their content changes, so ninja
# rebuilds exactly what an edit touched.  Files that an earlier run placed
# but that are no longer ours are put back to their pristine state.
. "$(dirname "$0")/common.sh"

OVERLAY_DIRS=(hw include tests/qtest tests/functional docs configs)

# The QEMU we build: Debian's `qemu` source package of this version, from
# this suite.  10.2.2 is the newest QEMU source the archive serves here
# (unstable's 11.1.x sources are listed but answer 404).  Moving on is a
# version bump here plus what QEMU-VERSIONS.md lists.
QEMU_DEBIAN_SUITE=unstable
QEMU_DEBIAN_VERSION=1:10.2.2+ds-1
QEMU_SERIES=10.2                # the QEMU release our patches are made for

# What a tree's VERSION file must say for our series to build on it.
check_qemu_version() {
    local tree=$1 version
    version=$(cat "$tree/VERSION" 2>/dev/null) || die "$tree has no VERSION file: not a QEMU source tree"
    case $version in
        "$QEMU_SERIES".*) ;;
        *) die "$tree is QEMU $version; the series in patches/qemu/ is made for QEMU $QEMU_SERIES.x (see QEMU-VERSIONS.md)" ;;
    esac
}

fetch_debian_qemu() {
    local srcdir=$BUILD/src upstream=${QEMU_DEBIAN_VERSION#*:}
    local tree
    upstream=${upstream%%+*}
    tree=$srcdir/qemu-$upstream+ds
    if [ -f "$tree/.rcar-unpacked" ]; then
        echo "$tree"; return
    fi
    apt_private_update "$QEMU_DEBIAN_SUITE"
    log "fetching Debian's qemu $QEMU_DEBIAN_VERSION source package ($QEMU_DEBIAN_SUITE, about 40 MB)"
    rm -rf "$srcdir"; mkdir -p "$srcdir"
    (cd "$srcdir" && apt_private "$QEMU_DEBIAN_SUITE" apt-get -q source "qemu=$QEMU_DEBIAN_VERSION" >&2) ||
        die "apt-get source qemu=$QEMU_DEBIAN_VERSION failed: Debian $QEMU_DEBIAN_SUITE no longer serves it? Pick a version that 'apt-cache showsrc qemu' lists and that downloads, and port the series (QEMU-VERSIONS.md)"
    [ -d "$tree" ] || die "apt-get source qemu=$QEMU_DEBIAN_VERSION did not unpack $tree"
    check_qemu_version "$tree"
    touch "$tree/.rcar-unpacked"
    echo "$tree"
}

# Files under our overlay directories, relative to $TOP.
our_files() {
    (cd "$TOP" && git ls-files --cached --others --exclude-standard -- "${OVERLAY_DIRS[@]}" 2>/dev/null ||
                  find "${OVERLAY_DIRS[@]}" -type f 2>/dev/null) | sort -u |
        while read -r f; do [ -f "$TOP/$f" ] && echo "$f"; done
}

# QEMU's files that our patches touch (the "+++ b/path" lines), not ours
# ($1 lists ours): the patches at the tail also change files of ours.
patched_files() {
    local p
    for p in "$TOP"/patches/qemu/*.patch; do
        [ -f "$p" ] || continue
        sed -n 's@^+++ b/\([^[:space:]]*\).*@\1@p' "$p"
    done | sort -u | grep -vxF -f "$1" || true
}

# Copy $1 (a file or "absent") over $2 only when the content differs.
install_if_changed() {
    local from=$1 to=$2
    if [ "$from" = absent ]; then
        rm -f "$to"
    elif ! cmp -s "$from" "$to"; then
        mkdir -p "$(dirname "$to")"
        cp "$from" "$to"
    fi
}

pristine_or_absent() {
    if [ -f "$PRISTINE/$1" ]; then echo "$PRISTINE/$1"; else echo absent; fi
}

if [ -n "${QEMU_SRC:-}" ]; then
    [ -f "$QEMU_SRC/VERSION" ] || die "QEMU_SRC=$QEMU_SRC does not look like a QEMU source tree"
    PRISTINE=$(cd "$QEMU_SRC" && pwd)
    check_qemu_version "$PRISTINE"
else
    PRISTINE=$(fetch_debian_qemu)
fi

if [ ! -f "$QEMU_TREE/.rcar-pristine" ] || [ "$(cat "$QEMU_TREE/.rcar-pristine")" != "$PRISTINE" ]; then
    log "working copy of $PRISTINE in $QEMU_TREE"
    rm -rf "$QEMU_TREE"
    mkdir -p "$QEMU_TREE"
    rsync -a --exclude=.git --exclude=/build "$PRISTINE"/ "$QEMU_TREE"/
    echo "$PRISTINE" > "$QEMU_TREE/.rcar-pristine"
    rm -f "$QEMU_TREE/.rcar-placed"
fi

stage=$(mktemp -d); ours_list=$(mktemp)
trap 'rm -rf "$stage" "$stage.part" "$ours_list"' EXIT
mapfile -t ours < <(our_files)
printf '%s\n' "${ours[@]}" > "$ours_list"

# 1. Apply every patch to pristine copies of the files it touches, in a
#    scratch directory, then install the results.  Our files are already
#    what the whole series makes of them: what a patch changes in them
#    stays out.
mapfile -t touched < <(patched_files "$ours_list")
for f in "${touched[@]}"; do
    if [ -f "$PRISTINE/$f" ]; then mkdir -p "$stage/$(dirname "$f")"; cp "$PRISTINE/$f" "$stage/$f"; fi
done
for p in "$TOP"/patches/qemu/*.patch; do
    [ -f "$p" ] || continue
    patch_part "$p" except "$ours_list" > "$stage.part"
    grep -q '^diff --git' "$stage.part" || continue
    patch -s -p1 -d "$stage" --no-backup-if-mismatch -r - < "$stage.part" ||
        die "patches/qemu/$(basename "$p") does not apply to $PRISTINE"
done

# 2. Our own files, which must not collide with QEMU's.
for f in "${ours[@]}"; do
    if [ -f "$PRISTINE/$f" ]; then
        die "$f exists in QEMU already: change it with a patch in patches/qemu/"
    fi
done

placed_now=$(mktemp)
{
    for f in "${touched[@]}"; do
        if [ -f "$stage/$f" ]; then install_if_changed "$stage/$f" "$QEMU_TREE/$f"
        else install_if_changed absent "$QEMU_TREE/$f"; fi
        echo "$f"
    done
    for f in "${ours[@]}"; do
        install_if_changed "$TOP/$f" "$QEMU_TREE/$f"
        echo "$f"
    done
} | sort -u > "$placed_now"

# 3. What an earlier run placed and is no longer ours goes back to pristine.
if [ -f "$QEMU_TREE/.rcar-placed" ]; then
    comm -23 "$QEMU_TREE/.rcar-placed" "$placed_now" | while read -r f; do
        install_if_changed "$(pristine_or_absent "$f")" "$QEMU_TREE/$f"
    done
fi
mv "$placed_now" "$QEMU_TREE/.rcar-placed"
echo "$QEMU_TREE"
