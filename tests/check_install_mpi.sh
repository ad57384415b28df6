#!/usr/bin/env bash
# Install spmv with its MPI component to a temporary prefix, build examples/cg-mpi against the installed package with
# find_package(spmv COMPONENTS mpi) and with mpicc + `pkg-config --cflags --libs spmv-mpi`, and run both under
# mpirun with 2 and 3 ranks on the HPCG matrix (and bcsstk13 when the shared matrices are there): the CG must
# converge (cg_mpi's exit status says so). The installed spmv-bench-mpi must start without LD_LIBRARY_PATH.
# usage: check_install_mpi.sh BUILD_DIR SOURCE_DIR SHARED_MATRICES_DIR MPIEXEC [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 src=$2 shared=${SPMV_TEST_MATRICES:-$3} mpiexec=$4 # SPMV_TEST_MATRICES overrides the folder
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
test -f "$prefix/include/spmv_mpi.h" && test -f "$prefix/lib/cmake/spmv/spmvMpiTargets.cmake"
ls "$prefix"/lib/libspmv_mpi.so.* "$prefix"/lib/libspmv_mpi.a > /dev/null
# 1. find_package(spmv COMPONENTS mpi)
cmake -S "$src/examples/cg-mpi" -B "$tmp/cg-cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > "$tmp/cfg.log"
cmake --build "$tmp/cg-cmake" > "$tmp/build.log"
# 2. pkg-config spmv-mpi with mpicc
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --exists spmv-mpi
# (CFLAGS and LDFLAGS from the environment, as make would take them; scripts/test-sanitize.sh sets them, and OMPI_CC)
mpicc ${CFLAGS:-} -O2 -o "$tmp/cg-pc" "$src/examples/cg-mpi/cg_mpi.c" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs spmv-mpi) -Wl,-rpath,"$prefix/lib" ${LDFLAGS:-}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
# 3. the installed spmv-bench-mpi starts without LD_LIBRARY_PATH (RUNPATH $ORIGIN/../lib)
out=$(env -u LD_LIBRARY_PATH "$mpiexec" -n 1 "$@" "$prefix/bin/spmv-bench-mpi" --help 2>&1) ||
  { echo "FAIL: $prefix/bin/spmv-bench-mpi --help: $out"; exit 1; }
grep -q "usage: mpirun" <<<"$out" || { echo "FAIL: spmv-bench-mpi --help printed no usage: $out"; exit 1; }
for exe in "$tmp/cg-cmake/cg_mpi" "$tmp/cg-pc"; do
  for np in 2 3; do
    echo "== mpiexec -n $np $exe --hpcg 16"
    "$mpiexec" -n $np "$@" "$exe" --hpcg 16
  done
  echo "== mpiexec -n 2 $exe --hpcg-local 8"
  "$mpiexec" -n 2 "$@" "$exe" --hpcg-local 8
  if [ -f "$shared/bcsstk13.mtx" ]; then
    echo "== mpiexec -n 3 $exe $shared/bcsstk13.mtx"
    "$mpiexec" -n 3 "$@" "$exe" "$shared/bcsstk13.mtx" --maxit 20000
  fi
done
echo "install + find_package(spmv COMPONENTS mpi) + pkg-config spmv-mpi + distributed CG: ok"
if [ ! -f "$shared/bcsstk13.mtx" ]; then echo "skipped: no $shared/bcsstk13.mtx: the CG on it did not run"; exit 77; fi
