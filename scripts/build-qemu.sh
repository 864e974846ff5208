#!/usr/bin/env bash
# Configure (again when the options change) and build qemu-system-aarch64 and our qtests from the tree
# that scripts/qemu-tree.sh prepared.  ccache is used when installed (meson
# picks it up by itself).
. "$(dirname "$0")/common.sh"

"$TOP/scripts/qemu-tree.sh" >/dev/null

# SANITIZE=1 builds with ASan and UBSan (gcc's), in a directory of its own
extra=()
if [ "${SANITIZE:-0}" = 1 ]; then
    # Only the R-Car boards: half the files to compile with instrumentation
    extra=(--enable-asan --enable-ubsan --without-default-devices
           --with-devices-aarch64=rcar-gen3)
fi

options=("${QEMU_CONFIGURE_OPTIONS[@]}" "${extra[@]}")
# Configured again when the options change (a build directory of an older
# checkout); ninja then rebuilds only what they touch.
stamp=$QEMU_BUILD/.configure-options
if [ ! -f "$QEMU_BUILD/build.ninja" ] ||
   [ "$(cat "$stamp" 2>/dev/null)" != "${options[*]}" ]; then
    log "configuring QEMU (aarch64-softmmu only${extra:+, ASan + UBSan}) in $QEMU_BUILD"
    mkdir -p "$QEMU_BUILD"
    (cd "$QEMU_BUILD" && "$QEMU_TREE/configure" "${options[@]}" >&2)
    echo "${options[*]}" > "$stamp"
fi

# A changed meson.build (a patch that adds a test) regenerates build.ninja
# first, so that the list below sees the new targets.
ninja -C "$QEMU_BUILD" build.ninja >&2

# Our qtests are built alongside QEMU so `make check` can run them directly,
# and qos-test, which holds QEMU's own SD host tests (sdhci-test.c).
targets=(qemu-system-aarch64)
for t in $(sed -n 's/^build \(tests\/qtest\/[a-z0-9_-]*-test\): .*/\1/p' "$QEMU_BUILD/build.ninja" |
           grep -E 'rcar|renesas|sdhci|qos-test' || true); do
    targets+=("$t")
done
log "building ${targets[*]}"
ninja -C "$QEMU_BUILD" "${targets[@]}" >&2
# --disable-werror above is for QEMU's own files; ours must not warn
/usr/bin/python3 "$TOP/scripts/werror-check.py" "$TOP" "$QEMU_TREE" "$QEMU_BUILD"
echo "$QEMU_BUILD"
