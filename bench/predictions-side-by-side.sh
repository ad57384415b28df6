#!/bin/sh
# CRS on one thread with two machine files, alternating, the same binary: what a change to the model (or a machine
# file's keys) does to the ECM prediction against the same measurements (BENCHMARKS.md 2026-12-07, the length
# branches):
#
#   bench/predictions-side-by-side.sh MACHINE_A MACHINE_B [ROUNDS] -- MATRIX... > LOG
#
# MATRIX: a Matrix Market file or hpcgN (HPCG N^3). Per matrix and round `spmv-bench MATRIX -f crs -t 1 --model
# --machine F` for F = A, then B; one line each: matrix, file, kernel, measured Gflop/s, ECM Gflop/s. Needs
# build/tools/spmv-bench.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bench=$here/build/tools/spmv-bench
[ -x "$bench" ] || { echo "$0: $bench missing: build first" >&2; exit 2; }
[ $# -ge 4 ] || { echo "usage: $0 MACHINE_A MACHINE_B [ROUNDS] -- MATRIX..." >&2; exit 2; }
a=$1 b=$2
shift 2
rounds=2
[ "$1" = "--" ] || { rounds=$1; shift; }
[ "$1" = "--" ] || { echo "$0: '--' expected before the matrices" >&2; exit 2; }
shift
for f in "$a" "$b"; do [ -r "$f" ] || { echo "$0: cannot read machine file $f" >&2; exit 2; }; done
for mat in "$@"; do
    case $mat in
    hpcg*) set -- --hpcg "${mat#hpcg}" ;;
    *) [ -r "$mat" ] || { echo "$0: cannot read $mat" >&2; exit 2; }; set -- "$mat" ;;
    esac
    r=1
    while [ "$r" -le "$rounds" ]; do
        for m in "$a" "$b"; do
            OMP_NUM_THREADS=1 "$bench" "$@" -f crs -t 1 --model --machine "$m" 2>&1 |
                awk -v mat="$(basename "$mat")" -v m="$(basename "$m")" '
                    /^kernel/ { k = $2 } /^perf/ { p = $2 } /^ECM / { e = $2 }
                    END { if (p == "" || e == "") { print mat ": no figures" > "/dev/stderr"; exit 1 }
                          printf "%s %s %s measured %s ecm %s\n", mat, m, k, p, e }'
        done
        r=$((r + 1))
    done
done
