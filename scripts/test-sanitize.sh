#!/usr/bin/env bash
# The whole test suite again under AddressSanitizer (LeakSanitizer included) and UndefinedBehaviorSanitizer; CI
# runs it after scripts/test.sh (.ci/run). SPMV_NO_CLANG=1 skips it (install-deps.sh then leaves clang out).
#   1. install the Debian packages (scripts/install-deps.sh: clang, its sanitizer runtimes, libomp, llvm-symbolizer)
#   2. configure build-san with clang -fsanitize=address,undefined -fno-sanitize-recover=undefined (any undefined
#      behaviour ends the test that reaches it), -O2 -g -fno-omit-frame-pointer; libomp as the OpenMP runtime;
#      spmv::mpi included (SPMV_NO_MPI=1 builds without it)
#   3. build, then ctest over every test: the kernel families this CPU has (AVX-512, AVX2, reference), the AVX-512
#      emulation, the tools, the install tests (they build the examples against the installed, sanitized package
#      with the same compiler and flags: CC, CFLAGS, LDFLAGS and OMPI_CC are exported), and the MPI tests
# Any report fails the test it comes from: sanitizer errors and leaks exit 86 (not 1 or 2, which the tests of the
# tools' error paths expect). LeakSanitizer's suppressions (scripts/lsan.supp) name third-party libraries only (Open
# MPI and what it loads, libomp); nothing of spmv is suppressed. About 5 minutes on the 2-core development VM, 3 of
# them building.
# One test is not run here:
#   avx512_inner_loop  checks the machine code of the optimized AVX-512 kernels (objdump against the shapes they
#                      declare); instrumented code is not that code. scripts/test.sh runs it on the normal build.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SPMV_NO_CLANG:-0}" = 1 ]; then
    echo "test-sanitize: SPMV_NO_CLANG=1: the sanitizer leg is skipped (it needs clang)"
    exit 0
fi
scripts/install-deps.sh
start=$(date +%s)
root=$PWD build=${SPMV_SAN_BUILD:-build-san}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# the compiler and flags for the build and for what the tests build themselves (examples against the installed
# package: CMake reads CC, CFLAGS and LDFLAGS at a first configure; mpicc reads OMPI_CC)
export CC=clang CFLAGS="$san" LDFLAGS="$san" OMPI_CC=clang
# detect_stack_use_after_return: stack frames on the heap, so a pointer to a returned frame's local is caught;
# strict_string_checks: the whole string argument of strtol and friends must be addressable
common="exitcode=86:print_summary=1"
export ASAN_OPTIONS="$common:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1"
export UBSAN_OPTIONS="$common:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="$common:suppressions=$root/scripts/lsan.supp:print_suppressions=0"
symb=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$symb" ] && export ASAN_SYMBOLIZER_PATH=$symb UBSAN_SYMBOLIZER_PATH=$symb LSAN_SYMBOLIZER_PATH=$symb
mpi=ON; [ "${SPMV_NO_MPI:-0}" = 1 ] && mpi=OFF
# SPMV_POISON_UNWRITTEN: the positions of col a compressed SELL matrix never writes hold a column far outside any
# matrix (src/formats/sell.c), so a reader of them fails here
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$san -DSPMV_POISON_UNWRITTEN" \
      -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" -DSPMV_WITH_MPI=$mpi
cmake --build "$build" -j"$(nproc)"
skip='^avx512_inner_loop$'
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -E "$skip" -LE mpi
# the MPI tests (none without spmv::mpi): Open MPI's libraries have no frame pointers, so the fast unwinder stops in
# them and a leak of theirs shows only an address in a component already unloaded; the DWARF unwinder
# (fast_unwind_on_malloc=0, slower) reaches the libraries that scripts/lsan.supp names (libmpi: MPI_Init)
ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" \
    ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -E "$skip" -L mpi
echo "test-sanitize: the whole suite under ASan + UBSan: ok ($(( $(date +%s) - start )) s)"
