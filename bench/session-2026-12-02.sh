#!/usr/bin/env bash
# The measurements of BENCHMARKS.md's section "Intel Xeon VM, 2026-12-02": memory-bound matrices against the peers,
# the conversion to the compressed format against the plain one, non-temporal y stores on and off, small matrices at
# 1 and 2 threads, and spmv-bench's bytes per nonzero. Needs a Release build in build/ and ../shared/peers built
# (make -C ../shared/peers SPMV_DIR=$PWD) with its generated matrices and binary caches (peers-compare.sh makes them).
#   bench/session-2026-12-02.sh [OUT_DIR]      (default: a new folder under /tmp)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
peers=$here/../shared/peers
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
cd "$here"
export PEERS_BINCACHE=1 OMP_PROC_BIND=close OMP_PLACES=cores
REPEATS=3 THREADS="1 2" PEERS="ref-csr petsc-aij petsc-sell eigen mkl" SPMV_CONFIGS="-C 8,16,32 -s 1" \
  PEERS_MIN_TIME=0.5 bench/peers-compare.sh memory > "$OUT/memory.txt"
/usr/bin/python3 bench/peers_summary.py "$OUT/memory.txt" > "$OUT/memory.md"
for t in 1 2; do for m in hpcg_128 lap2d_2000; do
  build/bench/spmv-irregular "$peers/matrices/$m.mtx.csrbin" -t $t --rounds 5 --sections compress; done; done > "$OUT/compress.txt"
for i in 1 2 3; do for nt in 0 1; do for m in lap2d_2000 hpcg_128; do
  SPMV_SELL_NT=$nt OMP_NUM_THREADS=2 PEERS_MIN_TIME=0.5 "$peers/bench_spmv" "$peers/matrices/$m.mtx" -t 1,2 -p 16:1,32:1 \
    --no-crs 2>/dev/null | sed "s/^/nt=$nt rep=$i /"
done; done; done > "$OUT/nt.txt"
for i in 1 2 3; do for m in cryg2500 G51 pow hangGlider_2 bcspwr10 karate; do
  OMP_NUM_THREADS=2 PEERS_MIN_TIME=0.3 "$peers/bench_spmv" "$here/../shared/matrices/$m.mtx" -t 1,2 -p 32:1,16:256,8:1 \
    2>/dev/null | sed "s/^/rep=$i /"
  for t in 1 2; do OMP_NUM_THREADS=$t PEERS_MIN_TIME=0.3 "$peers/bench_mkl" "$here/../shared/matrices/$m.mtx" 2>/dev/null |
    sed "s/^/rep=$i /"; done
done; done > "$OUT/small.txt"
for f in "-f crs" "-f sell -C 32 -s 1" "-f sell -C 8 -s 1"; do
  build/tools/spmv-bench --hpcg 128 $f -t 1,2 --machine machines/intel-xeon-kvm-2core.machine
done > "$OUT/bytes.txt" 2>&1
echo "results in $OUT"
