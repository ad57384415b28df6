#!/usr/bin/env bash
# Run the native x86-64 tests as another CPU model would, under qemu-x86_64 (qemu-user): by default AMD EPYC-Milan
# (Zen 3: AVX2 and FMA, no AVX-512), the machine without AVX-512 this project also runs on. On an AVX-512 machine
# this checks the AVX2-only path: the registry must choose the AVX2 kernels by itself, the AVX-512 tests must report
# skipped (exit 77), and the AVX2 and reference families must run and pass.
#
#   scripts/test-cpu-model.sh [MODEL]        MODEL: a name from `qemu-x86_64 -cpu help` (default EPYC-Milan)
#
#   1. configures its own build folder (SPMV_CPU_BUILD, default build-cpu) with CMAKE_CROSSCOMPILING_EMULATOR set to
#      scripts/qemu-x86_64-cpu.sh, so ctest runs each test executable under qemu as QEMU_CPU=MODEL (CMake <= 3.28
#      applies the emulator to native builds too; from 3.29 on the project's cmake_minimum_required(3.20) keeps
#      policy CMP0158 at OLD, which does the same), and builds only the tests below and spmv-convert;
#   2. the registry's choice under the model (SPMV_VERBOSE=1 spmv-convert): crs-avx2 and sell-avx2-* expected (with
#      --expect ref: crs-ref and sell-ref, for a model without AVX2 such as Westmere);
#   3. SPMV_ARCH=avx512 (and avx2 with --expect ref) must be refused: test_kernels exits 77, never SIGILL;
#   4. ctest on the subset (SPMV_CPU_TESTS, a ctest -R regex), the one that finishes in a few minutes on two cores:
#        test_kernels.*          every family and x-access variant (ref, avx2, avx2-gather, avx2-emul; the avx512 ones
#                                and sve must report skipped)
#        test_kernels_shared.ref|avx2   the shared matrices with the reference and AVX2 kernels
#        test_irregular.ref|avx2|avx512  (avx512: skipped)
#        test_crs test_sell test_handle test_tune
#      and then checks that every avx512 test in it was skipped and every avx2 and ref one passed.
# Not in the subset (slow under qemu, or nothing ISA-specific): the other x-access variants on the shared matrices,
# test_mmio, test_rcm, test_model, test_machine_bench (measures the host), test_pmu (host counters), avx512_emu
# (portable C), the MPI and install tests (their commands are mpiexec and shell scripts, not run under qemu).
# The qemu run times are not performance figures. Logs: BUILD/cpu-model-MODEL.log.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

model=EPYC-Milan expect=avx2
while [ $# -gt 0 ]; do
    case $1 in
        --expect) expect=$2; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "test-cpu-model: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) model=$1; shift ;;
    esac
done
case $expect in avx2 | ref) ;; *) echo "test-cpu-model: --expect avx2 or ref, not '$expect'" >&2; exit 2 ;; esac
case $(uname -m) in x86_64) ;; *) echo "test-cpu-model: x86-64 hosts only ($(uname -m))" >&2; exit 2 ;; esac
if ! command -v qemu-x86_64 > /dev/null; then
    echo "test-cpu-model: qemu-x86_64 not found: install Debian's qemu-user (scripts/install-deps.sh does)" >&2
    exit 2
fi
models=$(qemu-x86_64 -cpu help 2>&1 | awk '{print $2}' || true) # qemu 7.2 exits 1 after the list
if ! grep -qx -- "$model" <<< "$models"; then
    echo "test-cpu-model: qemu-x86_64 has no CPU model '$model' (qemu-x86_64 -cpu help)" >&2
    exit 2
fi

B=${SPMV_CPU_BUILD:-build-cpu}
default_tests='^(test_kernels\.|test_kernels_shared\.(ref|avx2)$|test_irregular\.(ref|avx2|avx512)$|test_crs$|test_sell$|test_handle$|test_tune$)'
TESTS=${SPMV_CPU_TESTS:-$default_tests}
export QEMU_CPU=$model
run=$root/scripts/qemu-x86_64-cpu.sh
t0=$(date +%s)

# ---------------------------------------------------------------- 1. build
mkdir -p "$B"
LOG=$B/cpu-model-$model.log
: > "$LOG"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DSPMV_WITH_MPI=OFF -DCMAKE_CROSSCOMPILING_EMULATOR="$run" \
    >> "$LOG" 2>&1 || { tail -30 "$LOG"; echo "test-cpu-model: configure failed"; exit 1; }
cmake --build "$B" -j"${SPMV_CPU_JOBS:-2}" --target test_kernels test_irregular test_crs test_sell test_handle test_tune \
    spmv-convert >> "$LOG" 2>&1 || { tail -50 "$LOG"; echo "test-cpu-model: build failed"; exit 1; }
t_built=$(date +%s)
echo "test-cpu-model: $model under $(qemu-x86_64 --version | head -1); built in $((t_built - t0)) s ($B)"

fail=0
# ---------------------------------------------------------------- 2. the registry's choice
choice=$(SPMV_VERBOSE=1 "$run" "$B/tools/spmv-convert" --hpcg 4 -C 8 2>&1 > /dev/null | grep -E 'kernel' || true)
echo "$choice" | sed 's/^/  /'
if grep -q "CRS: kernel crs-$expect" <<< "$choice" && grep -q "SELL-8-1: kernel sell-$expect" <<< "$choice"; then
    echo "test-cpu-model: the registry chose the $expect kernels: ok"
else
    echo "test-cpu-model: FAILED: expected crs-$expect and sell-$expect-* on $model"
    fail=1
fi

# ---------------------------------------------------------------- 3. families this model lacks are refused
refused=(avx512)
[ "$expect" = ref ] && refused+=(avx2)
for f in "${refused[@]}"; do
    st=0
    SPMV_ARCH=$f "$run" "$B/tests/test_kernels" > "$B/refused-$f.log" 2>&1 || st=$?
    if [ "$st" = 77 ]; then
        echo "test-cpu-model: SPMV_ARCH=$f on $model: skipped (77), as required ($(grep -m1 skipped "$B/refused-$f.log"))"
    else
        echo "test-cpu-model: FAILED: SPMV_ARCH=$f on $model: exit $st, expected 77"
        tail -5 "$B/refused-$f.log"
        fail=1
    fi
done

# ---------------------------------------------------------------- 4. the tests
echo "test-cpu-model: ctest -R '$TESTS' under qemu ($model)"
st=0
ctest --test-dir "$B" -R "$TESTS" --output-on-failure -j"${SPMV_CPU_JOBS:-2}" > "$B/ctest-$model.log" 2>&1 || st=$?
grep -E '^ *[0-9]+/[0-9]+ Test +#' "$B/ctest-$model.log" | sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /  /'
grep -E '^[0-9]+% tests passed' "$B/ctest-$model.log" || true
if [ "$st" != 0 ]; then
    sed -n '/The following tests FAILED/,$p' "$B/ctest-$model.log"
    echo "test-cpu-model: FAILED: ctest (output in $B/ctest-$model.log)"
    fail=1
fi
# what ran as what: every avx512 (and sve) test skipped; the expected family and ref passed
while read -r name verdict; do
    case $name in
        *avx512* | *sve*) want=Skipped ;;
        *avx2*) [ "$expect" = avx2 ] && want=Passed || want=Skipped ;;
        *) want=Passed ;;
    esac
    if [ "$verdict" != "$want" ]; then
        echo "test-cpu-model: FAILED: $name: $verdict, expected $want on $model"
        fail=1
    fi
done < <(grep -E '^ *[0-9]+/[0-9]+ Test +#' "$B/ctest-$model.log" |
         sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) [.* ]*([A-Za-z]+).*/\1 \2/')

echo "test-cpu-model: $model: $([ $fail = 0 ] && echo "passed" || echo FAILED) in $(($(date +%s) - t0)) s"
exit $fail
