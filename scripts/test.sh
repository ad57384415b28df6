#!/usr/bin/env bash
# Build spmv and run every test (README command 2; .ci/run runs exactly this):
#   1. install the Debian packages (scripts/install-deps.sh)
#   2. SVE: cross-build for aarch64 and run the kernel tests under qemu at vector lengths 128..2048 bits, on the
#      A64FX model and on a CPU without SVE (scripts/test-sve.sh; SPMV_NO_SVE=1 skips it)
#   3. native build and every test with ctest (the AVX-512 family is skipped, exit 77, on a CPU without it),
#      spmv::mpi included: its tests run under mpirun with 1..4 ranks (ctest -L mpi); SPMV_NO_MPI=1 builds without it
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/test-sve.sh
mpi=ON; [ "${SPMV_NO_MPI:-0}" = 1 ] && mpi=OFF
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSPMV_WITH_MPI=$mpi
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
