#!/usr/bin/env bash
# Edit our patches to existing QEMU files with git.
#
#   scripts/patchwork.sh init   build/patchwork/q: the pristine QEMU source in
#                               git, with patches/qemu/*.patch applied as
#                               commits.  Edit, commit, `git rebase -i` there.
#   scripts/patchwork.sh save   write the commits back to patches/qemu/
#                               (then check the names in patches/qemu/series).
. "$(dirname "$0")/common.sh"

repo=$BUILD/patchwork/q
id=(-c user.name="R-Car Gen3 QEMU" -c user.email="rcar-gen3@localhost")

case ${1:-} in
init)
    "$TOP/scripts/qemu-tree.sh" >/dev/null
    PRISTINE=$(cat "$QEMU_TREE/.rcar-pristine")
    rm -rf "$repo"; mkdir -p "$repo"
    rsync -a --exclude=.git --exclude=/build --exclude=.rcar-unpacked "$PRISTINE"/ "$repo"/
    git -C "$repo" init -q
    git -C "$repo" add -A
    git -C "$repo" "${id[@]}" commit -q -m pristine
    git -C "$repo" tag pristine
    for p in "$TOP"/patches/qemu/*.patch; do
        git -C "$repo" "${id[@]}" am -q "$p"
    done
    log "$repo is ready: $(git -C "$repo" rev-list --count pristine..HEAD) patches applied"
    ;;
save)
    [ -d "$repo/.git" ] || die "run '$0 init' first"
    rm -f "$TOP"/patches/qemu/*.patch
    git -C "$repo" format-patch -q --zero-commit --no-signature \
        -o "$TOP/patches/qemu" pristine..HEAD
    ls "$TOP/patches/qemu"
    ;;
*)
    die "usage: $0 init|save"
    ;;
esac
