#!/usr/bin/env bash
# One prepared run on a borrowed machine without package access (Ubuntu 24.04, gcc 13, cmake): build against
# Debian 12 packages unpacked into build-dev/sysroot (apt-get download + dpkg -x, done beforehand), run every
# test -- including the AVX-512 kernel family where the CPU has it -- then the benchmarks, printing tables.
# usage: scripts/device-run.sh [tests|bench|all]   (output also under $OUT when set)
set -u
what=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
SR=$root/build-dev/sysroot/usr
L=$SR/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$L:$L/blas:$L/lapack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
out=${OUT:-$root/build-dev/out}
mkdir -p "$out"
exec > >(tee -a "$out/device.log") 2>&1
echo "== $(date -u) $(hostname)"; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L1d|L2|L3|Flags' | sed 's/Flags:.*\(avx512[a-z_]*\).*/Flags: ... \1 .../'
grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
nproc; free -g | head -2
B=build-device
if [ ! -f $B/CMakeCache.txt ]; then
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release \
  -DSuiteSparse_INCLUDE_DIR=$SR/include/suitesparse -DSuiteSparse_config_LIBRARY=$L/libsuitesparseconfig.so \
  -DSuiteSparse_cholmod_LIBRARY=$L/libcholmod.so -DSuiteSparse_cxsparse_LIBRARY=$L/libcxsparse.so \
  -DCUnit_INCLUDE_DIR=$SR/include -DCUnit_LIBRARY=$L/libcunit.so \
  -DJansson_INCLUDE_DIR=$SR/include -DJansson_LIBRARY=$L/libjansson.so \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$L:$L/blas:$L/lapack" \
  -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$L:$L/blas:$L/lapack" \
  -DSPMV_SHARED_MATRICES=$root/build-dev/matrices > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
fi
cmake --build $B -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E 'error' "$out/build.log" | head -30; exit 1; }
echo "== build ok"
if [ "$what" != bench ]; then
  echo "== tests"
  OMP_NUM_THREADS=4 ctest --test-dir $B -j8 --output-on-failure -E 'install_and|\.sve' --timeout 300 2>&1 | tail -40
  SPMV_ARCH=avx512 SPMV_VERBOSE=1 $B/tools/spmv-bench --hpcg 8 -f sell -C 32 --time 0.01 --runs 1 2>&1 | grep -E 'spmv:|kernel'
  [ -x src/kernels/avx512/emu/run_check.sh ] && true
fi
[ "$what" = tests ] && exit 0
echo "== benchmarks"
export OMP_PLACES=cores OMP_PROC_BIND=close
bench=$B/tools/spmv-bench
T=${BENCH_TIME:-0.1}
echo "-- read-only bandwidth (AVX-512 via -march=native, 16 partial sums): working set 1 MiB (L2), 24 MiB (L3), 2 GiB (memory)"
for t in 1 2 4 8 16; do $B/bench/spmv-load-bw -t $t 1024 24576 2097152; done
echo "-- machine file"
mf=$out/device.machine
timeout 120 $B/tools/spmv-machine --quick -o "$mf" > "$out/machine.txt" 2>&1 && tail -40 "$out/machine.txt" || echo "spmv-machine failed or absent"
[ -f "$mf" ] && M="--machine $mf" || M=""
echo "-- HPCG 16^3 / 32^3, 1 thread: ref vs avx512, CRS and SELL C in 8,16,32,64, sigma 1/32/256; plain CRS -march=native"
for n in 16 32; do
  $B/bench/spmv-plain-crs --hpcg $n -t 1 --time $T
  for arch in ref avx512; do
    SPMV_ARCH=$arch $bench --hpcg $n -f crs -t 1 --time $T $M | grep -E 'kernel|perf|limit' | tr '\n' ' '; echo
    for C in 8 16 32 64; do for s in 1 32 256; do
      SPMV_ARCH=$arch $bench --hpcg $n -f sell -C $C -s $s -t 1 --time $T $M | grep -E 'kernel|perf|limit' | tr '\n' ' '; echo
    done; done
  done
done
echo "-- HPCG 128^3 thread scaling 1..16 (CRS and SELL-32-256 / SELL-8-256), ref and avx512"
for arch in avx512 ref; do
  for f in "crs" "sell -C 32 -s 256" "sell -C 8 -s 256"; do
    echo "SPMV_ARCH=$arch -f $f"
    SPMV_ARCH=$arch $bench --hpcg 128 -f $f -t 1,2,4,6,8,10,12,14,16 --time $T $M | grep -E 'kernel|threads|perf|limit'
  done
done
$B/bench/spmv-plain-crs --hpcg 128 -t 16 --time $T
$B/bench/spmv-plain-crs --hpcg 128 -t 2 --time $T
echo "== done $(date -u)"
