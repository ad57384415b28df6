#!/usr/bin/env bash
# Issue 14's benchmark: spmv against the peers on irregular matrices, interleaved, medians of REPEATS runs.
#
#   bench/irregular.sh [REPEATS]          (build first: cmake --build build)
#
# Matrices: the two generated ones of the issue (written to $WORK/matrices, never into the checkout)
#   gen_irregular powerlaw 2097152 16 2.3 12345      (30.6 M nonzeros, rows 2 .. 177,634)
#   gen_irregular longrows 2097152 12 8 1000000 777  (30.5 M nonzeros, 8 rows of about 800,000)
# and the irregular shared matrices arrow, rajat01, pow, karate, hangGlider_2 (../shared/matrices).
# Steps:
#   1. a private copy of the peers harness ($PEERS, default ../shared/peers) in $WORK/peers, where bench_spmv is
#      built against this checkout (make bench_spmv SPMV_DIR=...) and gen_irregular with the peers' Makefile: the
#      shared folder is left as it is;
#   2. REPEATS rounds (outer loop) of run_peers.sh over every matrix at each thread count of THREADS (the peers'
#      run_all.sh), spmv with the configurations of SPMV_CONFIGS (bench_spmv -p C:sigma; CRS always), all with
#      PEERS_BINCACHE=1 (binary CSR caches next to the matrices, in $WORK);
#   3. spmv-irregular (bench/irregular.c) on the two generated matrices: thread scaling of CRS, SELL with and
#      without the CRS part, x locality of orderings (section list IRR_SECTIONS);
#   4. a table per matrix: the medians of spmv's best configuration and of CRS, the best peer (ref-csr, the plain
#      loop, is shown but is not a peer), spmv best / best peer (target >= 1.2) and 2 threads / 1 thread (target
#      >= 1.7 on the generated matrices).
# Environment: WORK (default /tmp/spmv-irregular-<checkout name>), PEERS, SHARED (default ../shared/matrices),
# B (build folder, default build), THREADS (default "1 2"), PEER_LIST (default: ref-csr petsc-aij petsc-sell
# graphblas eigen mkl mkl-intelpath), SPMV_CONFIGS (default 8:256,8:rows,32:rows), PEERS_MIN_TIME (default 0.5),
# IRR_ROUNDS (default 7), IRR_SECTIONS (default threads,sell,locality; "none" skips step 3), MATS (the matrices to
# run, default "powerlaw_2M longrows_2M arrow rajat01 pow karate hangGlider_2").
# Logs: $WORK/logs/run-<UTC>/ (results.txt, details.txt, summary.md, irregular-*.txt, table.md).
# About 20-30 minutes on a 2-core VM with 3 repeats; on a shared machine the figures are noisy (the load average is
# printed at the start of every block in details.txt).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
reps=${1:-3}
B=${B:-build}
PEERS=${PEERS:-$here/../shared/peers}
SHARED=${SHARED:-$here/../shared/matrices}
WORK=${WORK:-/tmp/spmv-irregular-$(basename "$here")}
THREADS=${THREADS:-1 2}
PEER_LIST=${PEER_LIST:-ref-csr petsc-aij petsc-sell graphblas eigen mkl mkl-intelpath}
SPMV_CONFIGS=${SPMV_CONFIGS:-8:256,8:rows,32:rows}
export PEERS_MIN_TIME=${PEERS_MIN_TIME:-0.5}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}

[ -f "$B/libspmv.so" ] || { echo "irregular.sh: no $B/libspmv.so: build first (cmake --build $B)"; exit 1; }
[ -d "$PEERS" ] || { echo "irregular.sh: no peers harness at $PEERS"; exit 1; }

# ------------------------------------------------------------------ 1. private peers copy, bench_spmv, matrices
mkdir -p "$WORK/peers" "$WORK/matrices"
( cd "$PEERS" && tar -cf - --exclude=matrices --exclude=logs --exclude='*.csrbin' --exclude=spc5-src . ) |
    ( cd "$WORK/peers" && tar -xf - )
make -s -C "$WORK/peers" bench_spmv gen_irregular SPMV_DIR="$here" >/dev/null ||
    { echo "irregular.sh: building bench_spmv / gen_irregular in $WORK/peers failed"; exit 1; }
gen=$WORK/peers/gen_irregular
MATS=${MATS:-powerlaw_2M longrows_2M arrow rajat01 pow karate hangGlider_2}
want() { case " $MATS " in *" $1 "*) return 0 ;; esac; return 1; }
mats=()
if want powerlaw_2M; then
    [ -s "$WORK/matrices/powerlaw_2M.mtx" ] || "$gen" powerlaw 2097152 16 2.3 12345 "$WORK/matrices/powerlaw_2M.mtx"
    mats+=("$WORK/matrices/powerlaw_2M.mtx")
fi
if want longrows_2M; then
    [ -s "$WORK/matrices/longrows_2M.mtx" ] || "$gen" longrows 2097152 12 8 1000000 777 "$WORK/matrices/longrows_2M.mtx"
    mats+=("$WORK/matrices/longrows_2M.mtx")
fi
for m in arrow rajat01 pow karate hangGlider_2; do
    want "$m" || continue
    if [ -f "$SHARED/$m.mtx" ]; then
        ln -sf "$SHARED/$m.mtx" "$WORK/matrices/$m.mtx" # the binary cache lands next to the link, in $WORK
        mats+=("$WORK/matrices/$m.mtx")
    else
        echo "irregular.sh: $SHARED/$m.mtx missing: left out"
    fi
done

LOG=$WORK/logs/run-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$LOG"
{
    echo "# bench/irregular.sh, $(date -u '+%F %T UTC'), spmv $(git -C "$here" rev-parse --short HEAD 2>/dev/null)"
    echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# repeats $reps, threads $THREADS, peers: $PEER_LIST, spmv configs: CRS, $SPMV_CONFIGS"
} | tee "$LOG/header.txt"

# ------------------------------------------------------------------ 2. interleaved runs
PEERS="$PEER_LIST spmv" PEERS_SPMV_ARGS="-p $SPMV_CONFIGS" PEERS_BINCACHE=1 THREADS="$THREADS" LOGDIR="$LOG" \
    "$WORK/peers/run_all.sh" "$reps" "${mats[@]}" >"$LOG/run_all.out" 2>&1
grep -E '^checksums=' "$LOG/results.txt" | sort | uniq -c | sed 's/^/# /'

# ------------------------------------------------------------------ 3. spmv-irregular on the generated matrices
if [ "${IRR_SECTIONS:-}" != none ] && [ -x "$B/bench/spmv-irregular" ]; then
    tmax=0
    for t in $THREADS; do [ "$t" -gt "$tmax" ] && tmax=$t; done
    for m in powerlaw_2M longrows_2M; do
        [ -s "$WORK/matrices/$m.mtx.csrbin" ] && want "$m" || continue
        "$B/bench/spmv-irregular" "$WORK/matrices/$m.mtx.csrbin" -t "$tmax" --rounds "${IRR_ROUNDS:-7}" \
            --sections "${IRR_SECTIONS:-threads,sell,locality}" >"$LOG/irregular-$m.txt" 2>&1
        cat "$LOG/irregular-$m.txt"
    done
fi

# ------------------------------------------------------------------ 4. the table
python3 - "$LOG/results.txt" "$THREADS" <<'EOF' | tee "$LOG/table.md"
import collections, statistics, sys
path, threads = sys.argv[1], [int(t) for t in sys.argv[2].split()]
g = collections.defaultdict(list)
block = []
def close():
    if block:
        treq = max(int(r.get("threads", 1)) for r in block)
        for r in block:
            if "gflops" in r: g[(r["matrix"], r["peer"], treq)].append(float(r["gflops"]))
        block.clear()
mats = []
for line in open(path):
    line = line.strip()
    if line.startswith("checksums="): close(); continue
    if line.startswith("peer="):
        r = dict(f.split("=", 1) for f in line.split() if "=" in f)
        block.append(r)
        if "gflops" in r and r["matrix"] not in mats: mats.append(r["matrix"])
close()
med = {k: statistics.median(v) for k, v in g.items()}
print("\n| matrix | t | spmv best (config) | spmv CRS | ref-csr (plain loop) | best peer | spmv best / best peer | spmv best t/1t |")
print("|---|---|---|---|---|---|---|---|")
best1 = {}
for m in mats:
    for t in threads:
        sp = {p: v for (mm, p, tt), v in med.items() if mm == m and tt == t and p.startswith("spmv")}
        pe = {p: v for (mm, p, tt), v in med.items() if mm == m and tt == t and not p.startswith("spmv") and p != "ref-csr"}
        if not sp: continue
        bp, bv = max(sp.items(), key=lambda kv: kv[1])
        if t == threads[0]: best1[m] = bv
        pp, pv = max(pe.items(), key=lambda kv: kv[1]) if pe else ("-", 0.0)
        ref = med.get((m, "ref-csr", t), 0.0)
        crs = med.get((m, "spmv-crs", t), 0.0)
        n = len(g[(m, bp, t)])
        scal = "%.2f" % (bv / best1[m]) if t != threads[0] and best1.get(m) else "-"
        print("| %s | %d | %.3f (%s, n=%d) | %.3f | %.3f | %.3f (%s) | **%.2f** | %s |" % (
            m, t, bv, bp.replace("spmv-", ""), n, crs, ref, pv, pp, bv / pv if pv else float("nan"), scal))
EOF
echo "logs: $LOG"
