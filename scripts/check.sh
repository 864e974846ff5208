#!/usr/bin/env bash
# Run every test of the project against the built QEMU and guest:
#   1. QEMU's checkpatch.pl on our C files and patches;
#   2. the qtests (register level);
#   3. the functional boot tests;
#   4. a LAVA job (contrib/lava/) run by lava-run;
#   5. the qtests and a fuzz pass on the ASan + UBSan build.
# Each suite's TAP output is counted; the last line is "N passed, N failed".
. "$(dirname "$0")/common.sh"

[ -x "$QEMU" ] || die "build QEMU first: make qemu"
LOGDIR=$BUILD/test-logs
mkdir -p "$LOGDIR"

passed=0 failed=0 skipped=0
failures=()

# Count the TAP lines of one suite's output file.
count_tap() {
    local suite=$1 file=$2 p f s
    p=$(grep -Ec '^ok [0-9]+' "$file" || true)
    s=$(grep -Eic '^ok [0-9]+.*# skip' "$file" || true)
    f=$(grep -Ec '^not ok [0-9]+' "$file" || true)
    passed=$((passed + p - s)); skipped=$((skipped + s)); failed=$((failed + f))
    grep -E '^not ok [0-9]+' "$file" | sed "s/^/  $suite: /" || true
    if [ "$f" -gt 0 ]; then failures+=("$suite"); fi
}

# A suite that produced no TAP at all (crashed before its plan) fails.
run_suite() {
    local suite=$1; shift
    local log=$LOGDIR/$suite.tap rc=0
    local start=$SECONDS
    log "$suite"
    "$@" > "$log" 2> "$LOGDIR/$suite.err" || rc=$?
    echo "  ($suite: $((SECONDS - start)) s)"
    count_tap "$suite" "$log"
    if [ "$rc" -ne 0 ] && ! grep -Eq '^not ok' "$log"; then
        echo "  $suite: exited with $rc and no failing test case (see $LOGDIR/$suite.err)"
        failed=$((failed + 1)); failures+=("$suite")
    fi
    if ! grep -Eq '^(not )?ok [0-9]+' "$log"; then
        echo "  $suite: ran no test"
        failed=$((failed + 1)); failures+=("$suite")
    fi
}

# 1. Style: QEMU's checkpatch on every C file and patch of ours.
# sh_serial.h keeps the MIT licence of sh_serial.c, which its code comes from
CHECKPATCH_ACCEPTED=("Saw acceptable license 'MIT'")
checkpatch_tap() {
    local n=0 f
    for f in $(cd "$TOP" && git ls-files '*.c' '*.h') "$TOP"/patches/qemu/*.patch \
             "$BUILD"/patches/series/0*[1-9]-*.patch; do
        n=$((n + 1))
        case $f in
            *.patch) args=("$f") ;;
            *) args=(--no-tree -f "$f") ;;   # relative: checkpatch keys rules on tests/
        esac
        out=$(cd "$TOP" && perl "$QEMU_TREE/scripts/checkpatch.pl" --terse "${args[@]}" 2>&1)
        # Warnings count as failures too, except those we accept on purpose
        problems=$(echo "$out" | grep -E 'ERROR|WARNING' | grep -vF "${CHECKPATCH_ACCEPTED[@]/#/-e}" || true)
        if [ -z "$problems" ]; then
            echo "ok $n checkpatch $(basename "$f")"
        else
            echo "not ok $n checkpatch $(basename "$f")"
            echo "$problems" | sed 's/^/# /'
        fi
    done
    echo "1..$n"
}
# The series that `make export-patches` posts must apply and pass too.
# It signs off with the user's git identity; a machine that has none
# checks the series under a stand-in (never posted).
if git -C "$TOP" config user.email >/dev/null; then
    signoff=()
else
    signoff=(env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name
             GIT_CONFIG_VALUE_0="make check" GIT_CONFIG_KEY_1=user.email
             GIT_CONFIG_VALUE_1=check@invalid)
fi
"${signoff[@]}" "$TOP/scripts/export-patches.sh" > "$LOGDIR/export-patches.log" 2>&1 ||
    { echo "  export-patches failed (see $LOGDIR/export-patches.log)"; failed=$((failed + 1)); }
run_suite checkpatch checkpatch_tap
# The SoC tables against the .dtsi files they come from
run_suite memmap "$TOP/tests/guest/check-memmap.sh"

# 2. qtests: every one of ours, and QEMU's own tests of SD hosts, which go
#    through the patched card model.
for t in "$QEMU_BUILD"/tests/qtest/{rcar,renesas}*-test; do
    [ -x "$t" ] || continue
    run_suite "qtest-$(basename "$t")" timeout 900 env QTEST_QEMU_BINARY="$QEMU" \
        G_TEST_DBUS_DAEMON=/bin/true "$t" --tap -k
done
# Debian's source has no option ROMs, and the build installs no blobs: give
# QEMU the boot ROMs of the source tree and no NIC ROM.  The wrapper keeps
# the binary's name, from which libqtest takes the target.
wrap=$BUILD/qtest-wrap
mkdir -p "$wrap"
printf '#!/bin/sh\nexec "%s" -L "%s" -global virtio-net-pci.romfile= "$@"\n' \
    "$QEMU" "$QEMU_TREE/pc-bios" > "$wrap/qemu-system-aarch64"
chmod +x "$wrap/qemu-system-aarch64"
npcm=$QEMU_BUILD/tests/qtest/npcm7xx_sdhci-test
if [ -x "$npcm" ]; then
    run_suite qtest-npcm7xx_sdhci-test timeout 900 env \
        QTEST_QEMU_BINARY="$wrap/qemu-system-aarch64" "$npcm" --tap -k
fi
qos=$QEMU_BUILD/tests/qtest/qos-test
if [ -x "$qos" ]; then
    sdhci_paths=()
    for p in $(QTEST_QEMU_BINARY="$wrap/qemu-system-aarch64" "$qos" -l |
               grep '^/.*sdhci'); do
        sdhci_paths+=(-p "$p")
    done
    # (the sanitizer build has the R-Car boards only: no SDHCI to test)
    if [ ${#sdhci_paths[@]} -gt 0 ]; then
        run_suite qtest-qos-sdhci timeout 900 env \
            QTEST_QEMU_BINARY="$wrap/qemu-system-aarch64" "$qos" --tap -k \
            "${sdhci_paths[@]}"
    fi
fi

# 3. Functional boot tests, in QEMU's functional-test framework.
for t in "$QEMU_TREE"/tests/functional/test_aarch64_rcar*.py; do
    [ -f "$t" ] || continue
    # The defconfig kernel's tests: make check-kernel-ci (KERNEL_CI=1)
    case $t in *_defconfig.py) [ "${KERNEL_CI:-0}" = 1 ] || continue ;; esac
    run_suite "functional-$(basename "$t" .py)" timeout 2400 env \
        QEMU_TEST_QEMU_BINARY="$QEMU" QEMU_BUILD_ROOT="$QEMU_BUILD" \
        PYTHONPATH="$QEMU_TREE/python:$QEMU_TREE/tests/functional" \
        RCAR_GUEST_DIR="$BUILD/guest" RCAR_REQUIRE_GUEST=1 \
        /usr/bin/python3 "$t"
done

# 4. Kernel CI: a LAVA job run by Debian's LAVA dispatcher (lava-run) with
#    LAVA's own qemu device type and ours (contrib/lava/), the test kernel
#    (the defconfig kernel with KERNEL_CI=1) and the upstream DTB; every
#    LAVA test case must pass.
run_suite lava timeout 1800 env LAVA_KERNEL="$([ "${KERNEL_CI:-0}" = 1 ] &&
    echo Image-defconfig || echo Image-4k)" "$TOP/tests/guest/check-lava.sh"

# 5. The sanitizer build (ASan + UBSan, scripts/build-qemu.sh SANITIZE=1):
#    our qtests on it (unless everything above already ran on it), then a
#    bounded pass of scripts/fuzz.py with a fixed seed.
if [ "${SANITIZE:-0}" != 1 ]; then
    log "building QEMU with ASan + UBSan in $QEMU_BUILD_SAN"
    san_start=$SECONDS
    SANITIZE=1 "$TOP/scripts/build-qemu.sh" > "$LOGDIR/build-san.log" 2>&1 ||
        die "the sanitizer build failed (see $LOGDIR/build-san.log)"
    log "sanitizer build: $((SECONDS - san_start)) s"
    for t in "$QEMU_BUILD_SAN"/tests/qtest/{rcar,renesas}*-test; do
        [ -x "$t" ] || continue
        run_suite "san-qtest-$(basename "$t")" timeout 1800 env \
            QTEST_QEMU_BINARY="$QEMU_BUILD_SAN/qemu-system-aarch64" \
            G_TEST_DBUS_DAEMON=/bin/true "$t" --tap -k
    done
fi
run_suite fuzz timeout 1800 /usr/bin/python3 "$TOP/scripts/fuzz.py" --tap \
    --qemu "$QEMU_BUILD_SAN/qemu-system-aarch64" --seed 1 \
    --ops "${FUZZ_CHECK_OPS:-300000}" --out "$LOGDIR/fuzz"

echo
if [ ${#failures[@]} -gt 0 ]; then
    echo "failed suites: ${failures[*]} (logs in $LOGDIR)"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
