#!/usr/bin/env bash
# One line per (matrix, format, threads) from spmv-bench: Gflop/s, GB/s, beta, the model's roofline (a bound) and the
# measured % of it, the ECM prediction and its error.
# usage: bench/table.sh "MATRIX_SPEC..." "FORMAT_ARGS;..." THREADS [extra spmv-bench args]
#   e.g. bench/table.sh "--hpcg 64|../shared/matrices/bcsstk13.mtx" "-f crs;-f sell -C 32 -s 256" 1,2
set -euo pipefail
B=${B:-build}
IFS='|' read -ra mats <<< "$1"
IFS=';' read -ra fmts <<< "$2"
threads=$3; shift 3
printf '| matrix | format | kernel | threads | Gflop/s | GB/s | beta | roofline | %% of roofline | ECM | ECM error | data |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
for m in "${mats[@]}"; do
  for f in "${fmts[@]}"; do
    out=$($B/tools/spmv-bench $m $f -t "$threads" "$@" 2>&1) || { echo "| $m | $f | FAILED: $(echo "$out" | tail -1) |"; continue; }
    name=$(echo "$out" | sed -n 's/^matrix   \([^:]*\):.*/\1/p')
    fmt=$(echo "$out" | sed -n 's/^format   \([^ :]*\).*/\1/p')
    beta=$(echo "$out" | sed -n 's/.*beta \([0-9.]*\).*/\1/p' | head -1); beta=${beta:-1}
    kern=$(echo "$out" | sed -n 's/^kernel   \(.*\)/\1/p')
    echo "$out" | awk -v n="$name" -v f="$fmt" -v b="$beta" -v k="$kern" '
      function flush() { if (row != "") print row (c ? " in cache |" : " |"); row = ""; c = 0 }
      /^threads/ {flush(); t=$2} /^perf/ {g=$2; bw=$4}
      /^roofline [0-9]/ {l=$2; p=$0; sub(/.*measured /,"",p); sub(/ %.*/,"",p); c = $0 !~ /% MEM/}
      /^ECM      [0-9]/ {e=$2; er=$0; sub(/.*error /,"",er); sub(/ %.*/,"",er);
                        row = sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s %% |", n, f, k, t, g, bw, b, l,
                                      p, e, er)}
      END {flush()}'
  done
done
