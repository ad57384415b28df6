#!/usr/bin/env bash
# Cross-build spmv for aarch64 (cmake/toolchain-aarch64.cmake) and run the tests under qemu-aarch64 at several
# CPU settings, so the vector-length agnostic SVE kernels are checked at every SVE vector length, on the A64FX
# model, and on a CPU without SVE (where the reference kernels must run and SPMV_ARCH=sve must be refused).
# scripts/test.sh (README command 2, CI) calls it; alone: scripts/test-sve.sh.
#
#   1. objdump check of the SVE kernels' inner loops (scripts/check-sve-inner-loop.sh, ctest sve_inner_loop):
#      prints the instructions per inner-loop iteration of the SELL and CRS kernels.
#   2. per setting, under QEMU_CPU (qemu reads it from the environment; ctest prefixes each test with the
#      CMAKE_CROSSCOMPILING_EMULATOR of the toolchain file):
#        sve128 .. sve2048  max,sve-default-vector-length=16..256 bytes   test_kernels.sve, test_crs (and
#                                                                        test_irregular.sve at 128 and 2048)
#        sve512             max,sve-default-vector-length=64             test_kernels.sve, test_crs
#        a64fx              a64fx (512 bit)                              every test but test_kernels.ref
#        nosve              cortex-a57 (no SVE)                          test_kernels.ref, test_crs; the sve
#                                                                        family must exit 77 (skipped)
#      and, with spmv-convert, the registry's choice under SPMV_VERBOSE=1 (crs-sve and sell-sve-C<k>xVL for C = 32,
#      the reference kernels on cortex-a57, and the vector length qemu really gave).
#   Settings run in parallel (SPMV_SVE_JOBS, default nproc); logs in BUILD/sve-logs/.
#
# Environment: SPMV_SVE_BUILD (build folder, default build-sve), SPMV_SVE_JOBS, SPMV_SVE_SETTINGS (space-separated
# subset of the names above), SPMV_NO_SVE=1 (skip everything, as scripts/install-deps.sh does).
# The qemu run times are not performance figures.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${SPMV_NO_SVE:-0}" = 1 ]; then
    echo "test-sve: SPMV_NO_SVE=1: SVE cross tests skipped"
    exit 0
fi
t_start=$(date +%s)
scripts/install-deps.sh

B=${SPMV_SVE_BUILD:-build-sve}
JOBS=${SPMV_SVE_JOBS:-$(nproc)}
LOG=$B/sve-logs

cmake -S . -B "$B" --no-warn-unused-cli -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$B" -j"$(nproc)" >"$B/build.log" 2>&1 || { tail -50 "$B/build.log"; echo "test-sve: cross build failed"; exit 1; }
t_built=$(date +%s)
echo "test-sve: cross build in $((t_built - t_start)) s ($B, $(aarch64-linux-gnu-gcc -dumpfullversion), $(qemu-aarch64 --version | head -1))"

rm -rf "$LOG"
mkdir -p "$LOG"

# ---------------------------------------------------------------- 1. inner loops (host only, no qemu)
echo "test-sve: inner loops of the SVE kernels (objdump):"
if ! ctest --test-dir "$B" -R '^sve_inner_loop$' -V >"$LOG/inner-loop.log" 2>&1; then
    cat "$LOG/inner-loop.log"
    echo "test-sve: FAILED: sve_inner_loop"
    exit 1
fi
sed -n 's/^[0-9]*: //p' "$LOG/inner-loop.log" | grep -E '^(crs_sve|sell_sve|check-sve)' | sed 's/^/  /'

# ---------------------------------------------------------------- 2. qemu settings
# name;QEMU_CPU;VL in doubles (0: no SVE);ctest -R regex;ctest -E regex (the longest first)
settings=(
    "a64fx;a64fx;8;.;^sve_inner_loop$|^test_kernels(_shared)?\.ref$|^avx512_emu(\\..*)?$"
    "sve128;max,sve-default-vector-length=16;2;^test_kernels(_shared)?\.sve$|^test_crs$|^test_irregular\.sve$;^sve_inner_loop$"
    "sve2048;max,sve-default-vector-length=256;32;^test_kernels(_shared)?\.sve$|^test_crs$|^test_irregular\.sve$;^sve_inner_loop$"
    "sve1024;max,sve-default-vector-length=128;16;^test_kernels(_shared)?\.sve$|^test_crs$;^sve_inner_loop$"
    "sve512;max,sve-default-vector-length=64;8;^test_kernels(_shared)?\.sve$|^test_crs$;^sve_inner_loop$"
    "sve256;max,sve-default-vector-length=32;4;^test_kernels(_shared)?\.sve$|^test_crs$;^sve_inner_loop$"
    "nosve;cortex-a57;0;^test_kernels(_shared)?\.ref$|^test_crs$;^sve_inner_loop$"
)
if [ -n "${SPMV_SVE_SETTINGS:-}" ]; then
    sel=()
    for s in "${settings[@]}"; do
        for w in $SPMV_SVE_SETTINGS; do [ "${s%%;*}" = "$w" ] && sel+=("$s"); done
    done
    settings=("${sel[@]}")
fi

convert=$B/tools/spmv-convert
kt=$B/tests/test_kernels

# The registry's choice for CRS and SELL-32 (and SELL-3: never a multiple of VL, its message names VL).
check_choice() { # vl
    local vl=$1 out k
    if [ ! -x "$convert" ]; then echo "(no $convert: kernel choice not checked)"; return 0; fi
    out=$(SPMV_VERBOSE=1 qemu-aarch64 "$convert" --hpcg 4 -C 32 2>&1 >/dev/null | grep 'kernel' || true)
    out+=$'\n'$(SPMV_VERBOSE=1 qemu-aarch64 "$convert" --hpcg 4 -C 3 2>&1 >/dev/null | grep 'SELL-3-' || true)
    echo "$out"
    if [ "$vl" = 0 ]; then
        grep -q 'CRS: kernel crs-ref' <<<"$out" && grep -q 'SELL-32-1: kernel sell-ref' <<<"$out" || {
            echo "FAIL: without SVE the reference kernels must be chosen"; return 1; }
    else
        case $((32 / vl)) in 1 | 2 | 4 | 8) k="C$((32 / vl))xVL" ;; *) k=CmxVL ;; esac
        grep -q 'CRS: kernel crs-sve' <<<"$out" && grep -q "SELL-32-1: kernel sell-sve-$k" <<<"$out" || {
            echo "FAIL: expected crs-sve and sell-sve-$k at VL = $vl doubles"; return 1; }
        grep -q "VL = $vl doubles" <<<"$out" || { echo "FAIL: qemu did not give VL = $vl doubles"; return 1; }
    fi
}

run_setting() { # name cpu vl include exclude
    local name=$1 cpu=$2 vl=$3 inc=$4 exc=$5 rc=0 t0 st
    t0=$(date +%s)
    export QEMU_CPU=$cpu
    echo "== $name: QEMU_CPU=$cpu, expected $([ "$vl" = 0 ] && echo "no SVE" || echo "VL = $vl doubles")"
    check_choice "$vl" || rc=1
    ctest --test-dir "$B" -R "$inc" -E "$exc" --output-on-failure -j1 || rc=1
    if [ "$vl" = 0 ]; then # a forced SVE family must be refused (SPMV_ERR_ARCH -> exit 77), never SIGILL
        st=0
        SPMV_ARCH=sve qemu-aarch64 "$kt" || st=$?
        if [ "$st" = 77 ]; then echo "SPMV_ARCH=sve on $cpu: skipped (77), as required"
        else echo "FAIL: SPMV_ARCH=sve on $cpu: exit $st, expected 77"; rc=1; fi
    fi
    echo "== $name: $([ $rc = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - t0)) s"
    return $rc
}

echo "test-sve: ${#settings[@]} qemu settings, $JOBS at a time (logs: $LOG/)"
running=0
for s in "${settings[@]}"; do
    IFS=';' read -r name cpu vl inc exc <<<"$s"
    ( run_setting "$name" "$cpu" "$vl" "$inc" "$exc" >"$LOG/$name.log" 2>&1; echo $? >"$LOG/$name.rc" ) &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
done
wait

fail=0
for s in "${settings[@]}"; do
    name=${s%%;*}
    rc=$(cat "$LOG/$name.rc" 2>/dev/null || echo 1)
    summary=$(grep -E '^[0-9]+% tests passed' "$LOG/$name.log" | tail -1 || true)
    printf '  %-8s %s; %s\n' "$name" "$(tail -1 "$LOG/$name.log" | sed 's/^== [^:]*: //')" \
        "${summary:-no ctest summary}"
    if [ "$rc" != 0 ]; then
        fail=1
        sed 's/^/    | /' "$LOG/$name.log" | tail -60
    fi
done
echo "test-sve: total $(($(date +%s) - t_start)) s"
[ "$fail" = 0 ] || { echo "test-sve: FAILED"; exit 1; }
echo "test-sve: all settings passed"
