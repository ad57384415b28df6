#!/usr/bin/env bash
# The benchmark campaign of BENCHMARKS.md's Intel Xeon VM sections (issues 12-18), in one go, on a quiet machine:
# peers in cache (the AVX2 and reference families forced too), memory-bound and irregular; the model against
# measurement; the solver handle; spmv::mpi against PETSc; spmv-tune timed. About an hour on 2 cores.
#   usage: bench/campaign.sh [OUT_DIR]     (default /tmp/spmv-campaign; logs and summaries there)
# Needs the peers built (../shared/peers: install-peers.sh, make SPMV_DIR=THIS_REPO) and build/ (Release).
set -uo pipefail
cd "$(dirname "$0")/.."
L=${1:-/tmp/spmv-campaign}
mkdir -p "$L"
data=$(cd .. && pwd)/shared/peers/matrices
machine=${CAMPAIGN_MACHINE:-machines/intel-xeon-kvm-2core.machine}
echo "start $(date -u +%FT%TZ) $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)" > "$L/status"
REPEATS=3 THREADS="1 2" PEERS="ref-csr petsc-aij petsc-sell eigen graphblas scipy mkl" SPMV_ARCHS="avx2 ref" \
    PEERS_MIN_TIME=0.3 SPMV_CONFIGS="-C 8,16,32 -s 1,256,rows" bench/peers-compare.sh incache > "$L/incache.txt"
REPEATS=3 THREADS="1 2" PEERS="ref-csr petsc-aij petsc-sell eigen graphblas mkl" SPMV_ARCHS="avx2" \
    PEERS_MIN_TIME=0.5 SPMV_CONFIGS="-C 8,16,32 -s 1,rows" bench/peers-compare.sh memory irregular > "$L/memirr.txt"
for g in incache memirr; do /usr/bin/python3 bench/peers_summary.py "$L/$g.txt" > "$L/$g.sum"; done
echo "peers done $(date -u +%T)" >> "$L/status"
bench/model-vs-measurement.sh --data "$data" --machine "$machine" --out "$L/mvm.md" --csv "$L/mvm.csv" > "$L/mvm.log" 2>&1
OMP_NUM_THREADS=2 build/bench/spmv-cg-handle --hpcg 128 --rounds 3 --iters 1000 > "$L/cg_handle.txt" 2>&1
OMP_NUM_THREADS=2 build/tools/spmv-bench --hpcg 128 -f sell -C 32 -s 1 --rcm -t 2 > "$L/prep_t2.txt" 2>&1
REPEATS=3 bench/mpi_vs_petsc.sh > "$L/mpi.txt" 2>&1
XDG_DATA_HOME=$(mktemp -d) bash -c 'time build/tools/spmv-tune' > "$L/tune.txt" 2>&1
echo "all done $(date -u +%T)" >> "$L/status"
