#!/usr/bin/env bash
# Run every test of the project against the built QEMU and guest:
#   1. QEMU's checkpatch.pl on our C files and patches;
#   2. the qtests (register level);
#   3. the functional boot tests;
#   4. LAVA jobs (contrib/lava/) run by lava-run;
#   5. the qtests and a fuzz pass on the ASan + UBSan build.
# Each suite's TAP output is counted; the last line is "N passed, N failed".
. "$(dirname "$0")/common.sh"

[ -x "$QEMU" ] || die "build QEMU first: make qemu"
LOGDIR=$BUILD/test-logs
mkdir -p "$LOGDIR"

passed=0 failed=0
failures=()
# Test cases per suite, as run: suite -> "cases passed"
declare -A suite_cases=()
# Seconds per suite, for the slowest ones in the last lines
declare -A suite_secs=()
# The suites that must run, with the fewest cases each may report
SUITES_LIST=$TOP/tests/suites.list

# Count the TAP lines of one suite's output file.  A skipped case is a
# failure: every test of ours must run in make check.
count_tap() {
    local suite=$1 file=$2 p f s
    p=$(grep -Ec '^ok [0-9]+' "$file" || true)
    s=$(grep -Eic '^ok [0-9]+.*# skip' "$file" || true)
    f=$(grep -Ec '^not ok [0-9]+' "$file" || true)
    grep -E '^not ok [0-9]+' "$file" | sed "s/^/  $suite: /" || true
    grep -Ei '^ok [0-9]+.*# skip' "$file" | sed "s/^ok/  $suite: skipped, a failure:/" || true
    p=$((p - s)); f=$((f + s))
    suite_cases[$suite]="$((p + f)) $p"
    if [ "$suite" != checkpatch ] && [[ $suite != san-* ]]; then
        passed=$((passed + p))
    fi
    failed=$((failed + f))
    if [ "$f" -gt 0 ]; then failures+=("$suite"); fi
}

# CHECK_ONLY=<regex>: only the suites whose names match (a developer's
# rerun; the suite list is then checked for those alone)
selected() {
    [ -z "${CHECK_ONLY:-}" ] && return 0
    local rc=0
    [[ $1 =~ $CHECK_ONLY ]] || rc=$?
    [ "$rc" -ne 2 ] || die "CHECK_ONLY=$CHECK_ONLY is not a regular expression"
    return "$rc"
}

# A suite that produced no TAP at all (crashed before its plan) fails.
run_suite() {
    local suite=$1; shift
    local log=$LOGDIR/$suite.tap rc=0
    local start=$SECONDS
    selected "$suite" || return 0
    log "$suite"
    "$@" > "$log" 2> "$LOGDIR/$suite.err" || rc=$?
    suite_secs[$suite]=$((SECONDS - start))
    echo "  ($suite: ${suite_secs[$suite]} s)"
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

# Whether a suite of the list runs in this configuration: "all", "plain"
# (not with SANITIZE=1, where the sanitizer build is the only one) or
# "kernel-ci" (make check-kernel-ci)
suite_expected_here() {
    case $1 in
        all) true ;;
        plain) [ "${SANITIZE:-0}" != 1 ] ;;
        kernel-ci) [ "${KERNEL_CI:-0}" = 1 ] ;;
        *) die "tests/suites.list: unknown condition $1" ;;
    esac
}

# What ran against tests/suites.list: every suite listed for this
# configuration ran with at least its count of cases, and nothing ran
# that the list does not name.  Writes what ran in the list's format to
# $LOGDIR/suites.ran, from which the list is updated by hand.
check_suite_list() {
    local suite min when cases n p listed=" "
    for suite in "${!suite_cases[@]}"; do
        read -r n p <<< "${suite_cases[$suite]}"
        printf '%-48s %5d\n' "$suite" "$n"
    done | sort > "$LOGDIR/suites.ran"
    while read -r suite min when; do
        case $suite in ''|'#'*) continue ;; esac
        listed+="$suite "
        [[ $min =~ ^[0-9]+$ ]] || die "tests/suites.list: $suite: bad count '$min'"
        suite_expected_here "$when" && selected "$suite" || continue
        if [ -z "${suite_cases[$suite]:-}" ]; then
            echo "  $suite: in tests/suites.list, did not run"
            failed=$((failed + 1)); failures+=("$suite")
            continue
        fi
        read -r n p <<< "${suite_cases[$suite]}"
        if [ "$n" -lt "$min" ]; then
            echo "  $suite: ran $n test cases, tests/suites.list expects at least $min"
            failed=$((failed + 1)); failures+=("$suite")
        fi
    done < <(cat "$SUITES_LIST"; echo)
    if [ ${#suite_cases[@]} -eq 0 ]; then
        echo "  no suite ran"
        failed=$((failed + 1)); failures+=(none)
    fi
    for suite in "${!suite_cases[@]}"; do
        if [[ $listed != *" $suite "* ]]; then
            echo "  $suite: ran, but tests/suites.list does not name it"
            failed=$((failed + 1)); failures+=("$suite")
        fi
    done
}

# The headline counts distinct checks: checkpatch's per-file lines are
# one check, and the sanitizer build's repeats of the qtests are counted
# apart (their failures still fail)
summary() {
    local suite n p total=0 san_n=0 san_p=0 style=
    echo
    echo "distinct checks per suite:"
    for suite in $(printf '%s\n' "${!suite_cases[@]}" | sort); do
        read -r n p <<< "${suite_cases[$suite]}"
        case $suite in
            checkpatch) style="$p of $n files clean" ;;
            san-*) san_n=$((san_n + n)); san_p=$((san_p + p)) ;;
            *) printf '  %-46s %4d\n' "$suite" "$n"; total=$((total + n)) ;;
        esac
    done
    echo "  $total checks; checkpatch (one check, not counted above): ${style:-not run};"
    echo "  the sanitizer build repeated $san_n qtest cases: $san_p passed"
    if [ -n "$style" ] && [ "${suite_cases[checkpatch]% *}" = "${suite_cases[checkpatch]#* }" ]; then
        passed=$((passed + 1))
    fi
}

# 1. Style: QEMU's checkpatch on every C file and patch of ours.
# sh_serial.h keeps the MIT licence of sh_serial.c, which its code comes from
CHECKPATCH_ACCEPTED=("Saw acceptable license 'MIT'")
checkpatch_tap() {
    local n=0 f rc
    shopt -s nullglob
    for f in $(cd "$TOP" && git ls-files '*.c' '*.h') "$TOP"/patches/qemu/*.patch \
             "$BUILD"/patches/series/[0-9][0-9][0-9][0-9]-*.patch; do
        case $f in */0000-cover-letter.patch) continue ;; esac
        n=$((n + 1))
        case $f in
            *.patch) args=("$f") ;;
            *) args=(--no-tree -f "$f") ;;   # relative: checkpatch keys rules on tests/
        esac
        rc=0
        out=$(cd "$TOP" && perl "$QEMU_TREE/scripts/checkpatch.pl" --terse "${args[@]}" 2>&1) || rc=$?
        # checkpatch --terse prints nothing for a clean file: any line is a
        # problem (a warning, an error, a file it could not read), except
        # the warnings we accept on purpose and the total they make
        problems=$(echo "$out" | grep -v '^$' | grep -vF "${CHECKPATCH_ACCEPTED[@]/#/-e}" |
                   grep -vE '^total: 0 errors, [0-9]+ warnings?, [0-9]+ lines checked$' || true)
        [ "$rc" -eq 0 ] || problems+=" (checkpatch exited with $rc)"
        if [ -z "$problems" ]; then
            echo "ok $n checkpatch $(basename "$f")"
        else
            echo "not ok $n checkpatch $(basename "$f")"
            echo "$problems" | sed 's/^/# /'
        fi
    done
    shopt -u nullglob
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
    { echo "  export-patches failed (see $LOGDIR/export-patches.log)"; failed=$((failed + 1))
      failures+=(export-patches); }
run_suite checkpatch checkpatch_tap
# The SoC tables against the .dtsi files they come from
run_suite memmap "$TOP/tests/guest/check-memmap.sh"
# git log --oneline stays readable
run_suite commit-subjects "$TOP/tests/guest/check-commit-subjects.sh"

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
# Debian's 10.2 source lacks npcm7xx_bootrom.bin too (built from
# roms/vbootrom with an ARM32 toolchain): the kudo-bmc machine of
# npcm7xx_sdhci-test only has to find one, as qtest runs no guest code,
# so a zero-filled stand-in comes from a directory of its own.
mkdir -p "$wrap/roms"
[ -s "$wrap/roms/npcm7xx_bootrom.bin" ] ||
    head -c 4096 /dev/zero > "$wrap/roms/npcm7xx_bootrom.bin"
printf '#!/bin/sh\nexec "%s" -L "%s" -L "%s" -global virtio-net-pci.romfile= "$@"\n' \
    "$QEMU" "$QEMU_TREE/pc-bios" "$wrap/roms" > "$wrap/qemu-system-aarch64"
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
for t in "$QEMU_TREE"/tests/functional/aarch64/test_rcar_gen3*.py; do
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
lava_kernel=$([ "${KERNEL_CI:-0}" = 1 ] && echo Image-defconfig || echo Image-4k)
run_suite lava timeout 1800 env LAVA_KERNEL="$lava_kernel" \
    "$TOP/tests/guest/check-lava.sh"
#    ... and on r8a779m1-ulcb, the board of KernelCI's R-Car jobs
run_suite lava-r8a779m1-ulcb timeout 1800 env LAVA_KERNEL="$lava_kernel" \
    LAVA_MACHINE=r8a779m1-ulcb "$TOP/tests/guest/check-lava.sh"
#    ... and its NFS-root job (deploy to nfs, boot qemu-nfs), as KernelCI's
#    baseline-nfs, over the EtherAVB
run_suite lava-nfs-r8a779m1-ulcb timeout 1800 env LAVA_KERNEL="$lava_kernel" \
    LAVA_MACHINE=r8a779m1-ulcb LAVA_JOB=nfs "$TOP/tests/guest/check-lava.sh"

# 5. The sanitizer build (ASan + UBSan, scripts/build-qemu.sh SANITIZE=1):
#    our qtests on it (unless everything above already ran on it), then a
#    bounded pass of scripts/fuzz.py with a fixed seed.
if [ "${SANITIZE:-0}" != 1 ] &&
   { [ -z "${CHECK_ONLY:-}" ] || [[ $CHECK_ONLY == *san* ]] || selected fuzz; }; then
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

# The failing cases and what their suites said last: CI shows only the
# end of the output
failure_reasons() {
    local suite
    for suite in $(printf '%s\n' "${failures[@]}" | sort -u); do
        echo "  $suite:"
        grep -E '^not ok [0-9]+' "$LOGDIR/$suite.tap" 2>/dev/null | head -8 |
            sed 's/^/    /' || true
        grep -E '(Error|error|Exception)\b' "$LOGDIR/$suite.err" 2>/dev/null |
            grep -v '^Traceback' | tail -4 | cut -c1-240 | sed 's/^/    /' || true
    done
}

# Where the time went: the slowest suites, the tests in all, and make
# check in all (from its start, builds included: Makefile's check-clock)
timing() {
    local start total
    printf '%s\n' "${!suite_secs[@]}" | while read -r suite; do
        echo "${suite_secs[$suite]} $suite"
    done | sort -rn | head -6 | awk '{ printf "%s %s s, ", $2, $1 }' |
        sed 's/, $//; s/^/slowest suites: /'
    echo
    total="tests $SECONDS s"
    start=$(cat "$BUILD/.check-start" 2>/dev/null || true)
    if [[ $start =~ ^[0-9]+$ ]]; then
        total+=", make check $(( $(date +%s) - start )) s with its builds"
    fi
    echo "time: $total"
}

check_suite_list
summary
echo
timing
if [ ${#failures[@]} -gt 0 ]; then
    echo "failed suites: $(printf '%s\n' "${failures[@]}" | sort -u | tr '\n' ' ')(logs in $LOGDIR)"
    failure_reasons
fi
if [ -n "${CHECK_ONLY:-}" ]; then
    echo "(a partial run: CHECK_ONLY=$CHECK_ONLY)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
