#!/usr/bin/env bash
# HPCG weak scaling on paper (issue 18): 128^3 rows per node, 8 .. 1024 nodes, a 100 Gb/s network. Halo volume per
# node from spmv::mpi's partition statistics (spmv_mpi_grid_stats: the code that builds the exchange plan, run on one
# rank's generated rows) and the predicted efficiency of the distributed multiply from the library's node-level model
# (spmv_model_sell on a machine file) and its communication model (spmv_mpi_model_halo, spmv_mpi_model_allreduce).
# Needs no MPI run. Prints markdown (BENCHMARKS.md, "Distributed SpMV").
#
#   bench/mpi_weak_model.sh [spmv-mpi-model options]   e.g. --latency 1.0 --bandwidth 25 --machine FILE --local 96
# Defaults: --local 128 --machine machines/a64fx-fx700.machine (the FX700 node of the paper, which has a 100 Gb/s
# InfiniBand EDR port) --bandwidth 12.5 (GB/s = 100 Gb/s) --latency 1.5 (us) --nodes 8,16,32,64,128,256,512,1024.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
[ -x "$B/bench/spmv-mpi-model" ] || { echo "$B/bench/spmv-mpi-model missing: build spmv with MPI (cmake -DSPMV_WITH_MPI=ON)"; exit 1; }
echo "\`bench/mpi_weak_model.sh${*:+ $*}\` ($(date -u '+%F'), spmv $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
"$B/bench/spmv-mpi-model" "$@"
