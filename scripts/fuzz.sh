#!/usr/bin/env bash
# Build the libFuzzer harnesses (tests/fuzz, clang: -fsanitize=fuzzer,address,undefined) in build-fuzz/ and run each
# for SECONDS (default 60) from its seeds, one after the other:
#   scripts/fuzz.sh [SECONDS] [HARNESS...]      HARNESS: mm machine db sell (default: all four)
# Seeds: mm ../shared/matrices/mm-edge (SPMV_TEST_MATRICES overrides ../shared/matrices), machine machines/, db and
# sell tests/fuzz/seeds/<h>/; plus every regression input of tests/fuzz/regress/<h>/. The corpus grows in
# build-fuzz/corpus/<h>/ (kept between runs). Limits per input: -rss_limit_mb=2048 -timeout=10.
# Exits non-zero when a harness crashes (its input is saved in build-fuzz/crashes/<h>/: add it to
# tests/fuzz/regress/<h>/ with the fix, where ctest's fuzz_replay.<h> replays it in every normal build).
# Prints executions and coverage (cov: edges, ft: features) per harness at the end.
# SPMV_NO_CLANG=1 skips everything (exit 0); SPMV_FUZZ_BUILD=DIR another build folder; SPMV_FUZZ_JOBS build jobs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
all=(mm machine db sell)

secs=60
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
    secs=$1
    shift
fi
case "${1:-}" in -h | --help)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 0 ;;
esac
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
    if [[ ! " ${all[*]} " =~ " $h " ]]; then
        echo "fuzz.sh: unknown harness '$h' (known: ${all[*]}; usage: scripts/fuzz.sh [SECONDS] [HARNESS...])" >&2
        exit 2
    fi
done

if [ "${SPMV_NO_CLANG:-0}" = 1 ]; then
    echo "fuzz.sh: SPMV_NO_CLANG=1: the libFuzzer harnesses are skipped"
    exit 0
fi
cc="${SPMV_FUZZ_CC:-clang}"
if ! command -v "$cc" > /dev/null; then
    echo "fuzz.sh: $cc not found: the harnesses need clang with libFuzzer (scripts/install-deps.sh installs clang and" \
         "libclang-rt-14-dev; SPMV_NO_CLANG=1 skips fuzzing)" >&2
    exit 1
fi

bdir="${SPMV_FUZZ_BUILD:-$root/build-fuzz}"
mkdir -p "$bdir/logs"
echo "fuzz.sh: building the harnesses in $bdir ($cc, ASan + UBSan + libFuzzer)"
if ! cmake -S "$root" -B "$bdir" -DCMAKE_C_COMPILER="$cc" -DSPMV_FUZZ=ON -DSPMV_BUILD_TESTS=OFF \
        -DSPMV_BUILD_TOOLS=OFF -DSPMV_WITH_MPI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" > "$bdir/logs/configure.log" 2>&1; then
    cat "$bdir/logs/configure.log" >&2
    exit 1
fi
targets=()
for h in "${harnesses[@]}"; do targets+=(--target "fuzz_$h"); done
if ! cmake --build "$bdir" -j"${SPMV_FUZZ_JOBS:-$(nproc)}" "${targets[@]}" > "$bdir/logs/build.log" 2>&1; then
    tail -n 40 "$bdir/logs/build.log" >&2
    exit 1
fi

shared="${SPMV_TEST_MATRICES:-$root/../shared/matrices}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# the third-party leaks the sanitizer leg suppresses too (libomp keeps its thread pools until the process ends)
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp:print_suppressions=0}"
export OMP_WAIT_POLICY=passive
command -v llvm-symbolizer > /dev/null || [ ! -x /usr/lib/llvm-14/bin/llvm-symbolizer ] ||
    export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer

summary=()
failed=0
for h in "${harnesses[@]}"; do
    case $h in
    mm) seeds=("$shared/mm-edge") ;;
    machine) seeds=("$root/machines") ;;
    *) seeds=("$root/tests/fuzz/seeds/$h") ;;
    esac
    seeds+=("$root/tests/fuzz/regress/$h")
    dirs=()
    for d in "${seeds[@]}"; do
        if [ -d "$d" ]; then dirs+=("$d"); else echo "fuzz.sh: $h: seed folder $d is missing (fuzzing without it)"; fi
    done
    corpus="$bdir/corpus/$h"
    crashes="$bdir/crashes/$h"
    mkdir -p "$corpus" "$crashes"
    stamp="$bdir/logs/$h.start"
    touch "$stamp"
    dict=()
    [ -f "$root/tests/fuzz/$h.dict" ] && dict=(-dict="$root/tests/fuzz/$h.dict")
    log="$bdir/logs/$h.log"
    echo "fuzz.sh: $h: ${secs} s (log $log)"
    rc=0
    (cd "$bdir" && "$bdir/tests/fuzz/fuzz_$h" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" "$corpus" "${dirs[@]}") > "$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2 || true)
    units=$(find "$corpus" -type f | wc -l)
    status=ok
    if [ $rc -ne 0 ]; then
        status="FAILED (exit $rc)"
        failed=1
        echo "fuzz.sh: $h: FAILED, exit $rc; the end of its log:" >&2
        tail -n 60 "$log" >&2
        find "$crashes" -type f -newer "$stamp" | while read -r a; do
            echo "fuzz.sh: $h: input saved as $a (minimize: $bdir/tests/fuzz/fuzz_$h -minimize_crash=1" \
                "-runs=10000 $a; then add it to tests/fuzz/regress/$h/ with the fix)" >&2
        done
    fi
    summary+=("$(printf '%-8s %12s %8s %8s %8s %9s  %s' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$units" \
        "${rss:-?}" "$status")")
done

echo
echo "fuzz.sh: ${secs} s per harness"
printf '%-8s %12s %8s %8s %8s %9s  %s\n' harness executions cov ft corpus "rss (MB)" result
for l in "${summary[@]}"; do echo "$l"; done
exit $failed
