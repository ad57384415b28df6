#!/usr/bin/env bash
# spmv against PETSc's SeqAIJ MatMult at 1 thread with every library timed in batches of calls (bench/batched_vs_petsc.c
# says why: the peers' harness reads the clock after every spmv call and times PETSc in batches, which matters for
# matrices whose multiply takes well under a microsecond, such as karate):
#
#   bench/batched-vs-petsc.sh [MATRIX.mtx...]     (default: ../shared/matrices/karate.mtx)
#
# Options through the environment: SELL="-C 8 -s rows" (the SELL-C-sigma configuration), ROUNDS (default 7),
# REPEATS (runs of the program per matrix, default 3). Needs PETSc (`pkg-config petsc`, Debian petsc-dev) and
# build/ (Release) of this checkout; prints "skipped" and exits 0 without PETSc.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if ! pkg-config --exists petsc 2>/dev/null; then
    echo "batched-vs-petsc: skipped: PETSc not found (pkg-config petsc; Debian: petsc-dev)"
    exit 0
fi
[ -e "$here/build/libspmv.so" ] || { echo "batched-vs-petsc: build/ has no libspmv.so: build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
cc -O2 -std=c11 "$here/bench/batched_vs_petsc.c" -o "$tmp/batched_vs_petsc" -I"$here/include" \
    $(pkg-config --cflags petsc) $(pkg-config --cflags mpi 2>/dev/null || true) \
    -L"$here/build" -lspmv -Wl,-rpath,"$here/build" $(pkg-config --libs petsc) $(pkg-config --libs mpi 2>/dev/null || true) -lm
[ $# -gt 0 ] || set -- "$here/../shared/matrices/karate.mtx"
read -r -a sell <<< "${SELL:--C 8 -s rows}"
for m in "$@"; do
    for r in $(seq "${REPEATS:-3}"); do
        echo "## $(basename "$m") run $r"
        OMP_NUM_THREADS=1 "$tmp/batched_vs_petsc" "$m" "${sell[@]}" --rounds "${ROUNDS:-7}"
    done
done
