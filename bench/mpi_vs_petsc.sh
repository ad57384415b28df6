#!/usr/bin/env bash
# spmv's distributed multiply (spmv::mpi, overlapped and not) against PETSc's MATMPIAIJ and MATMPISELL on HPCG 128^3
# with 2 ranks x 1 thread, in one interleaved run: each repeat runs spmv (both variants, alternating run by run
# inside one process), then petsc-aij-mpi, then petsc-sell-mpi, and the table gives medians over the repeats.
#
#   bench/mpi_vs_petsc.sh                 # 3 repeats (REPEATS=5 for more), logs in build/bench-mpi/run-<UTC>/
#
# Environment: B (build dir, default build), PEERS_DIR (default ../shared/peers: its bench_petsc, built with
# `make -C ../shared/peers peers` if missing; its gen_hpcg.py writes the matrix file PETSc reads, or spmv-convert
# when python3-numpy is missing), N (grid, default 128),
# RANKS (default 2), REPEATS (default 3, at least 3), MATDIR (where hpcg_N.mtx and its binary cache go, default
# $B/bench-mpi), MACHINE (machine file for spmv's node-level limit; default: the one spmv-machine --install wrote,
# else spmv-machine --quick once into MATDIR),
# PEERS_MIN_TIME (PETSc's timed seconds per run, default 1.0).
#
# spmv builds the matrix with its generator (every rank its own rows; the same matrix, entry for entry, as the file
# gen_hpcg.py writes: HPCG's numbering, 26 on the diagonal, -1 elsewhere; spmv-bench-mpi checks it against a serial
# multiply), PETSc reads the file (each rank inserts its block of rows; PETSc splits rows evenly, spmv balances
# nonzeros: for this symmetric stencil both cut at the middle plane). Ranks are bound to cores; OMP_NUM_THREADS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
PEERS_DIR=${PEERS_DIR:-../shared/peers}
N=${N:-128}
RANKS=${RANKS:-2}
REPEATS=${REPEATS:-3}
MATDIR=${MATDIR:-$B/bench-mpi}
[ "$REPEATS" -ge 3 ] || { echo "REPEATS must be >= 3 (medians of at least 3)"; exit 2; }
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive PEERS_BINCACHE=1 PEERS_MIN_TIME=${PEERS_MIN_TIME:-1.0}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mpirun=(mpirun -n "$RANKS" --bind-to core)
[ "$RANKS" -le "$(getconf _NPROCESSORS_ONLN)" ] || mpirun+=(--oversubscribe)

spmv_bench=$B/tools/spmv-bench
[ -x "$B/tools/spmv-bench-mpi" ] || { echo "$B/tools/spmv-bench-mpi missing: build spmv with MPI (cmake -DSPMV_WITH_MPI=ON)"; exit 1; }
if [ ! -x "$PEERS_DIR/bench_petsc" ]; then
  echo "# building the peers: make -C $PEERS_DIR peers"
  make -C "$PEERS_DIR" peers > /dev/null
fi
mkdir -p "$MATDIR"
mtx=$MATDIR/hpcg_$N.mtx
if [ ! -f "$mtx" ]; then
  if python3 -c 'import numpy' 2> /dev/null; then
    echo "# writing $mtx with $PEERS_DIR/gen_hpcg.py (once)"
    python3 "$PEERS_DIR/gen_hpcg.py" hpcg "$N" "$N" "$N" "$mtx.tmp"
  else # without numpy: spmv's own writer (general coordinate format, the same entries)
    echo "# writing $mtx with spmv-convert --hpcg $N -o (once; python3-numpy for gen_hpcg.py is not installed)"
    "$B/tools/spmv-convert" --hpcg "$N" -o "$mtx.tmp" > /dev/null
  fi
  mv "$mtx.tmp" "$mtx"
fi
out=$B/bench-mpi/run-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
# the machine file of spmv's node-level limit: MACHINE, else the one spmv-machine --install wrote, else a quick
# measurement made once and kept in MATDIR
machine_args=()
if [ -n "${MACHINE:-}" ]; then
  machine_args=(--machine "$MACHINE")
elif ! ls "${XDG_DATA_HOME:-$HOME/.local/share}"/spmv/machines/*.machine > /dev/null 2>&1; then
  [ -f "$MATDIR/this-host.machine" ] || { echo "# spmv-machine --quick -o $MATDIR/this-host.machine (once)";
    OMP_NUM_THREADS=$(getconf _NPROCESSORS_ONLN) "$B/tools/spmv-machine" --quick -o "$MATDIR/this-host.machine" > /dev/null 2>&1 ||
    rm -f "$MATDIR/this-host.machine"; }
  [ -f "$MATDIR/this-host.machine" ] && machine_args=(--machine "$MATDIR/this-host.machine")
fi
{
  echo "# $(date -u '+%F %T UTC') $(hostname): $(getconf _NPROCESSORS_ONLN) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# spmv $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo '+dirty'), $(mpirun --version | head -1), HPCG $N^3, $RANKS ranks x 1 thread, $REPEATS repeats"
} | tee "$out/summary.txt"

for rep in $(seq 1 "$REPEATS"); do
  echo "# repeat $rep/$REPEATS: spmv, petsc-aij-mpi, petsc-sell-mpi"
  # spmv: both variants interleaved run by run (5 runs each, median); the check only in the first repeat
  check=(--no-check); [ "$rep" = 1 ] && check=()
  "${mpirun[@]}" "$spmv_bench" --mpi --hpcg "$N" --overlap both --runs 5 --time 0.3 "${check[@]}" "${machine_args[@]}" \
    > "$out/spmv.$rep.txt" 2>&1 || { cat "$out/spmv.$rep.txt"; exit 1; }
  for v in overlap no-overlap; do
    g=$(sed -n "s/^result   variant=$v gflops=\([0-9.]*\).*/\1/p" "$out/spmv.$rep.txt")
    echo "peer=spmv-mpi-$v rep=$rep gflops=$g" >> "$out/results.txt"
  done
  for fmt in aij sell; do
    "${mpirun[@]}" "$PEERS_DIR/bench_petsc" "$mtx" "$fmt" > "$out/petsc-$fmt.$rep.txt" 2> "$out/petsc-$fmt.$rep.err" ||
      { cat "$out/petsc-$fmt.$rep.err"; exit 1; }
    g=$(sed -n 's/.*gflops=\([0-9.]*\).*/\1/p' "$out/petsc-$fmt.$rep.txt" | head -1)
    err=$(sed -n 's/.*max_rel_err_vs_ref=\([^ ]*\).*/\1/p' "$out/petsc-$fmt.$rep.err" | head -1)
    echo "peer=petsc-$fmt-mpi rep=$rep gflops=$g max_rel_err_vs_ref=$err" >> "$out/results.txt"
  done
  tail -4 "$out/results.txt"
done

echo | tee -a "$out/summary.txt"
grep -E '^(matrix|partition|local|halo|check|pingpong|limit|model) ' "$out/spmv.1.txt" | sed 's/^/    /' | tee -a "$out/summary.txt"
python3 - "$out/results.txt" <<'EOF' | tee -a "$out/summary.txt"
import sys, statistics, collections
g = collections.OrderedDict()
for line in open(sys.argv[1]):
    f = dict(kv.split('=', 1) for kv in line.split())
    g.setdefault(f['peer'], []).append(float(f['gflops']))
med = {p: statistics.median(v) for p, v in g.items()}
print()
print('| code (2 ranks x 1 thread) | Gflop/s median | min .. max | n |')
print('|---|---|---|---|')
for p, v in g.items():
    print(f'| {p} | {med[p]:.3f} | {min(v):.3f} .. {max(v):.3f} | {len(v)} |')
best = max(('petsc-aij-mpi', 'petsc-sell-mpi'), key=lambda p: med.get(p, 0))
print()
print(f'spmv overlapped / best PETSc ({best}): {med["spmv-mpi-overlap"] / med[best]:.3f} (target >= 1.2)')
print(f'spmv overlapped / not overlapped: {med["spmv-mpi-overlap"] / med["spmv-mpi-no-overlap"]:.3f} (target >= 1)')
EOF
echo "# logs: $out"
