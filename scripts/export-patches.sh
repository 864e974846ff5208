#!/usr/bin/env bash
# Turn all of our work into a `git format-patch` series against the
# pristine QEMU source (Debian's, or $QEMU_SRC): each patch of
# patches/qemu/series is applied with `git am` and the new files that
# patches/qemu/series assigns to it are added to the same commit.
# The series lands in build/patches/series/.
. "$(dirname "$0")/common.sh"

"$TOP/scripts/qemu-tree.sh" >/dev/null
PRISTINE=$(cat "$QEMU_TREE/.rcar-pristine")
work=$BUILD/patches/qemu
out=$BUILD/patches/series
series=$TOP/patches/qemu/series

# The series is signed off by whoever exports it: the patches in
# patches/qemu/ carry a project placeholder, which is no valid sign-off.
name=$(git -C "$TOP" config user.name || true)
email=$(git -C "$TOP" config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
    die "set your identity first (git config user.name / user.email): the series is signed off with it"
me="$name <$email>"
PLACEHOLDER="R-Car Gen3 QEMU <rcar-gen3@localhost>"

log "importing the pristine QEMU source into a scratch git repository"
rm -rf "$work" "$out" "$BUILD/patches/ours"*; mkdir -p "$work" "$out"
rsync -a --exclude=.git --exclude=/build --exclude=.rcar-unpacked "$PRISTINE"/ "$work"/
git -C "$work" init -q -b master
git -C "$work" add -A
git -C "$work" -c user.name=pristine -c user.email=pristine@localhost \
    commit -q -m "pristine $(basename "$PRISTINE")"
base=$(git -C "$work" rev-parse HEAD)

# Our files are whole in the patch that adds them (its series line names
# them): a patch that changes one of them instead must be folded into
# that patch (import-series.py after a git rebase in build/patches/qemu)
ours=$BUILD/patches/ours
mkdir -p "$ours"
(cd "$TOP" && git ls-files hw include tests/qtest tests/functional docs configs \
    scripts/rcar-gen3-memmap.py) > "$ours.list"
rsync -a --files-from="$ours.list" "$TOP"/ "$ours"/
while IFS= read -r p; do
    patch_part "$p" only "$ours.list" | grep -q '^diff --git' &&
        die "$(basename "$p") changes a file of ours: fold that into the patch that adds the file"
done < <(ls "$TOP"/patches/qemu/*.patch)

declare -A assigned=()
while IFS= read -r line; do
    case $line in ''|'#'*) continue ;; esac
    patch=${line%%:*}
    read -r -a files <<< "${line#*:}"
    [ -f "$TOP/patches/qemu/$patch" ] || die "series names a missing patch: $patch"
    # The exporter maintains what the series adds to MAINTAINERS: the
    # placeholder goes from the M: line, and from the context lines that
    # later patches carry of it
    sed "s|^\([ +-]\)M: $PLACEHOLDER\$|\1M: $me|" "$TOP/patches/qemu/$patch" |
        git -C "$work" am -q --committer-date-is-author-date ||
        die "$patch does not apply to $PRISTINE"
    for f in "${files[@]}"; do
        [ -f "$ours/$f" ] || die "series names a missing file: $f"
        mkdir -p "$work/$(dirname "$f")"
        cp "$ours/$f" "$work/$f"
        git -C "$work" add "$f"
        assigned[$f]=1
    done
    # The exporter is the author and signs off (the placeholder goes)
    git -C "$work" log -1 --format=%B | grep -vxF "Signed-off-by: $PLACEHOLDER" \
        > "$work/.msg"
    git -C "$work" -c user.name="$name" -c user.email="$email" \
        commit -q --amend --reset-author -s -F "$work/.msg"
done < "$series"
rm -f "$work/.msg"

# Every new file of ours must be part of some patch.  (No pipe into
# grep -q here: under pipefail, printf's SIGPIPE when grep stops early
# made the check fail at random.)
while read -r f; do
    [ -n "${assigned[$f]:-}" ] ||
        die "$f is not assigned to a patch in patches/qemu/series"
done < "$ours.list"

# The cover letter's subject and blurb: patches/qemu/cover-letter.txt,
# as the branch description that format-patch takes them from
git -C "$work" config branch.master.description "$(cat "$TOP/patches/qemu/cover-letter.txt")"
git -C "$work" format-patch -q --cover-letter --cover-from-description=subject \
    --zero-commit -o "$out" "$base"
log "$(ls "$out" | wc -l) files in $out"
ls "$out"
