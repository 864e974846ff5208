#!/usr/bin/env bash
# make check-series: the exported series is bisectable.  Export it
# (scripts/export-patches.sh), apply it with `git am` to a pristine copy
# of the QEMU source, one patch at a time, and build qemu-system-aarch64
# and every qtest of ours that exists at that point after each patch.
# Our C files are compiled with -Werror once the last patch is in.
# Slow (a full QEMU build, then one incremental build per patch): not
# part of make check.  Everything lands in build/check-series/.
. "$(dirname "$0")/common.sh"

work=$BUILD/check-series
tree=$work/qemu
bld=$work/build

# The exporter signs the series off; without an identity of the user's
# own, the check signs with a stand-in (it never leaves build/)
if ! git -C "$TOP" config user.name >/dev/null ||
   ! git -C "$TOP" config user.email >/dev/null; then
    export GIT_CONFIG_COUNT=2
    export GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="check-series"
    export GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="check-series@localhost"
fi

started=$SECONDS
"$TOP/scripts/export-patches.sh" >/dev/null
PRISTINE=$(cat "$QEMU_TREE/.rcar-pristine")
mapfile -t patches < <(find "$BUILD/patches/series" -name '[0-9]*.patch' ! -name '0000-*' | sort)
[ ${#patches[@]} -gt 0 ] || die "make export-patches wrote no patches"

log "a pristine copy of $(basename "$PRISTINE") in $tree"
rm -rf "$work"; mkdir -p "$work"
rsync -a --exclude=.git --exclude=/build --exclude=.rcar-unpacked "$PRISTINE"/ "$tree"/
git -C "$tree" init -q
git -C "$tree" add -A
git -C "$tree" -c user.name=pristine -c user.email=pristine@localhost commit -q -m pristine

# The options of scripts/build-qemu.sh: the same binary, built in steps
mkdir -p "$bld"
(cd "$bld" && "$tree/configure" "${QEMU_CONFIGURE_OPTIONS[@]}" >"$work/configure.log" 2>&1) ||
    die "configure failed on the pristine tree: $work/configure.log"

build_step() {
    local name=$1 targets=(qemu-system-aarch64) t
    ninja -C "$bld" build.ninja >>"$work/build.log" 2>&1 ||
        die "$name: meson failed to regenerate the build ($work/build.log)"
    for t in $(sed -n 's/^build \(tests\/qtest\/[a-z0-9_-]*-test\): .*/\1/p' "$bld/build.ninja" |
               grep -E 'rcar|renesas' || true); do
        targets+=("$t")
    done
    ninja -C "$bld" "${targets[@]}" >>"$work/build.log" 2>&1 ||
        die "$name: the build fails after this patch (the end of $work/build.log says why)"
}

log "building the pristine tree"
build_step pristine
n=0
for p in "${patches[@]}"; do
    n=$((n + 1))
    t0=$SECONDS
    git -C "$tree" am -q "$p" || die "$(basename "$p") does not apply with git am"
    build_step "$(basename "$p")"
    log "$n/${#patches[@]} $(basename "$p"): builds ($((SECONDS - t0)) s)"
done

# The last tree has all of our files: none of them may warn
/usr/bin/python3 "$TOP/scripts/werror-check.py" "$TOP" "$tree" "$bld"
log "check-series: ${#patches[@]} patches apply with git am and build one by one ($(( (SECONDS - started) / 60 )) min)"
