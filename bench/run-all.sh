#!/usr/bin/env bash
# The figures of BENCHMARKS.md, in one run (build first: cmake --build build). Prints markdown tables.
# usage: bench/run-all.sh [sections...]   sections: foundation model tune cg baseline (default: all)
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
M=${MATRICES:-../shared/matrices}
MF=${MACHINE:-machines/amd-epyc-zen5-kvm-2core.machine}
T=${BENCH_TIME:-0.2}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
secs=${*:-foundation model tune cg baseline}
echo "# $(date -u '+%F %T UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $secs; do case $s in
foundation)
  echo; echo "## foundation: CRS and SELL-32-sigma, 1 and 2 threads (bench/table.sh, --time $T)"
  B=$B bench/table.sh "--hpcg 64|$M/bcsstk13.mtx|$M/Groebner_id2003_aug.mtx|$M/sparse-images-1024_subset.mtx" \
    "-f crs;-f sell -C 32 -s 1;-f sell -C 32 -s 256" 1,2 --machine "$MF" --time "$T" ;;
model)
  echo; echo "## model against measurement: 8 matrices, every kernel variant, 1 and 2 threads (bench/model-vs-measurement.sh)"
  bench/model-vs-measurement.sh --build "$B" --machine "$MF" ;;
tune)
  echo; echo "## spmv-tune: HPCG 128^3 (built-in) and five shared matrices"
  export XDG_DATA_HOME=$(mktemp -d)
  mkdir -p "$XDG_DATA_HOME/spmv/machines" && cp "$MF" "$XDG_DATA_HOME/spmv/machines/"
  for m in "" $M/bcsstk13.mtx $M/Groebner_id2003_aug.mtx $M/sparse-images-1024_subset.mtx $M/bayer10.mtx $M/rajat01.mtx; do
    echo; echo "### spmv-tune ${m:-(built-in)}"
    $B/tools/spmv-tune $m --max-time 60 2>/dev/null | sed -n '/^Recommendation/,/^total/p'
  done
  echo; echo "### SPMV_VERBOSE=1 spmv-bench --auto $M/Groebner_id2003_aug.mtx (uses the recorded choice)"
  SPMV_VERBOSE=1 $B/tools/spmv-bench $M/Groebner_id2003_aug.mtx --auto --time "$T" 2>&1 | grep -E "spmv:|format|perf|roofline|ECM  "
  rm -rf "$XDG_DATA_HOME" ;;
cg)
  echo; echo "## CG (examples/cg, Jacobi-preconditioned, to 1e-8) on HPCG 128^3: CRS, SELL (auto C and sigma), SELL fused"
  cc -O2 -fopenmp -o "$B/cg-example" examples/cg/cg.c -Iinclude -L"$B" -lspmv -Wl,-rpath,"$PWD/$B" -lm
  for t in 1 2; do echo "### $t thread(s)"; OMP_NUM_THREADS=$t "$B/cg-example" --hpcg 128; done ;;
baseline)
  echo; echo "## baselines: plain OpenMP CRS loop (-O3 -march=native) and read-only bandwidth"
  for n in 16 32 64 128; do for t in 1 2; do $B/bench/spmv-plain-crs --hpcg $n -t $t --time "$T"; done; done
  for t in 1 2; do $B/bench/spmv-load-bw -t $t 256 16384 1048576; done ;;
esac; done
