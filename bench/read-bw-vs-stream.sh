#!/usr/bin/env bash
# spmv-machine's read bandwidth against the peers' read-only STREAM in the same run (issue 16: "spmv-machine's
# saturated read bandwidth within 5 % of STREAM's in the same run"), with STREAM's arrays on 4 KiB pages (as the
# peers run it: aligned_alloc, and transparent huge pages only on request where THP is "madvise") and on huge pages
# (the same binary under GLIBC_TUNABLES=glibc.malloc.hugetlb=1, glibc >= 2.35: malloc advises MADV_HUGEPAGE, as
# the library and spmv-machine do for arrays of 4 MiB and more, src/util/alloc.c):
#
#   bench/read-bw-vs-stream.sh [ROUNDS] > LOG.txt
#
# Per round (ROUNDS, default 6): STREAM `stream 1024 6` (kernel=sum, best of 6) at 1 and 2 threads on 4 KiB pages
# and on huge pages, `spmv-machine --only bw -q` (read column, 1 and 2 threads, 1 GiB, sustained over all its timed
# windows, the median of its 16 passes), the four STREAMs again. The ratio of a round is spmv-machine over the mean
# of the STREAM before and after it; the summary gives the medians, over all rounds and over the rounds in one host
# phase (the 4k STREAM before and after within 10 % of each other: the Zen 5 VM's memory bandwidth drops to one
# core's for tens of seconds at a time, 2 threads at 28-32 GB/s in STREAM and spmv-machine alike, BENCHMARKS.md
# 2026-12-07 06:02). 2 threads are the saturated figure on a 2-core machine only.
# Needs build/tools/spmv-machine and ../shared/peers/stream (make -C ../shared/peers stream).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
peers=${PEERS_DIR:-$here/../shared/peers}
machine=$here/build/tools/spmv-machine
ROUNDS=${1:-6}
[ -x "$machine" ] || { echo "$0: $machine missing: build first" >&2; exit 2; }
[ -x "$peers/stream" ] || { echo "$0: $peers/stream missing: make -C $peers stream" >&2; exit 2; }
export OMP_PROC_BIND=close OMP_PLACES=cores
st() { # threads pages(4k|huge) -> best GB/s of the sum kernel; a run without that figure stops the script
    local tun= v
    [ "$2" = huge ] && tun=glibc.malloc.hugetlb=1
    v=$(GLIBC_TUNABLES=$tun OMP_NUM_THREADS=$1 "$peers/stream" 1024 6 2>/dev/null |
        sed -n 's/.*kernel=sum .*best_GBs=\([0-9.]*\).*/\1/p')
    [ -n "$v" ] || { echo "$0: stream at $1 thread(s), $2 pages, printed no sum figure" >&2; exit 1; }
    echo "$v"
}
echo "# $(date -u +%FT%TZ) spmv $(git -C "$here" rev-parse --short HEAD) on $(lscpu | sed -n 's/^Model name: *//p')"
echo "# round | STREAM 4k 1t 2t, huge 1t 2t (before) | spmv-machine read 1t 2t | STREAM 4k 1t 2t, huge 1t 2t (after)"
for r in $(seq 1 "$ROUNDS"); do
    # one assignment per line: set -e sees each substitution's status (a line of several sees only the last)
    a1=$(st 1 4k)
    a2=$(st 2 4k)
    a3=$(st 1 huge)
    a4=$(st 2 huge)
    m=$("$machine" --only bw -q 2>&1 | awk '$1 == 1 || $1 == 2 { if (NF == 6) printf "%s ", $2 }')
    [ "$(echo "$m" | wc -w)" = 2 ] ||
        { echo "$0: spmv-machine --only bw printed no read figures for 1 and 2 threads" >&2; exit 1; }
    b1=$(st 1 4k)
    b2=$(st 2 4k)
    b3=$(st 1 huge)
    b4=$(st 2 huge)
    before="$a1 $a2 $a3 $a4" after="$b1 $b2 $b3 $b4"
    echo "round $r | $before | $m| $after"
done | tee /dev/stderr | awk -F'|' '
    function med(a, n,    i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
                                     return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { split($2, b, " "); split($3, m, " "); split($4, a, " "); n++
      for (t = 1; t <= 2; t++) { k4 = (b[t] + a[t]) / 2; kh = (b[t + 2] + a[t + 2]) / 2
          r4[t, n] = m[t] / k4; rh[t, n] = m[t] / kh
          # one host phase: the STREAM (4k) before and after within 10 % of each other
          st[t, n] = b[t] > 0 && a[t] > 0 && (b[t] > a[t] ? b[t] / a[t] : a[t] / b[t]) <= 1.10
          printf "round %d, %d thread(s): spmv-machine %.2f, STREAM 4k %.2f (x%.3f; before %.2f, after %.2f%s), huge pages %.2f (x%.3f)\n",
                 n, t, m[t], k4, m[t] / k4, b[t], a[t], st[t, n] ? "" : ": the host changed phase", kh, m[t] / kh } }
    END { if (!n) exit 1
          for (t = 1; t <= 2; t++) { ns = 0
              for (i = 1; i <= n; i++) { x[i] = r4[t, i]; y[i] = rh[t, i]; if (st[t, i]) { ns++; z[ns] = r4[t, i]; w[ns] = rh[t, i] } }
              printf "median over %d rounds, %d thread(s): spmv-machine / STREAM 4k %.3f, / STREAM huge pages %.3f\n", n, t, med(x, n), med(y, n)
              if (ns) printf "median over the %d of them in one host phase, %d thread(s): spmv-machine / STREAM 4k %.3f, / STREAM huge pages %.3f\n", ns, t, med(z, ns), med(w, ns)
              else printf "no round in one host phase at %d thread(s)\n", t } }'
