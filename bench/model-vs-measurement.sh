#!/bin/sh
# The model against measurement: BENCHMARKS.md's table "model against measurement".
#
# For every matrix (HPCG 16^3, 32^3, 128^3; lap2d 2000^2; bcsstk13, Groebner_id2003_aug, rajat01 from the shared
# SuiteSparse folder; the power-law matrix of shared/peers/gen_irregular, `powerlaw 2097152 16 2.3 12345`), every
# kernel variant of the family in use (CRS; SELL-C with C = 8 and 32, x by hardware gather and by emulated gather;
# sigma = 1, the power-law matrix's 131072, see vsigma)
# and 1 and 2 threads: the measured Gflop/s, the model's roofline (a bound) and the measured % of it, the ECM
# prediction and its error (predicted - measured) / measured. spmv-bench does the measuring (result check first) and
# the model (--model, --machine FILE).
#
# Measured = the median over --passes interleaved passes (every matrix and variant once per pass, the same order each
# pass) of each pass's best of --runs short runs (min time per multiply). The best within a pass, not its median: on
# a machine shared with other work a run loses the core for whole time slices, and the machine file's numbers
# (spmv-machine) are the best of short windows too. The median over passes: the host's slow phases last minutes
# here (the same multiply measured 1.4-1.7x apart in two runs 4 minutes apart, BENCHMARKS.md 2026-12-05 05:36), so
# one pass per point classed a point by the phase it fell in. The median of each pass's median is in the CSV too,
# and every pass's best.
# The fastest pass against its own ECM prediction is a second error column (CSV: fastest_pass_gflops,
# ecm_error_fastest_pct) and a second summary line: the machine file holds the host at its best (the best of short
# windows; the random-x table, measured again per matrix and pass, excepted), and a process here runs at times half as fast for seconds on end while an FMA throughput probe between
# the processes runs at full speed (HPCG 128^3 SELL-8 1 thread, 56 processes in a row on the Zen 5 VM, 2026-12-06
# 21:06: 11 at 8-11 Gflop/s, the others 14-17.7; CRS after each 2.9 against 4.0, 11 times, 7 of them together). The
# median stays the measured figure; the fastest pass says how far the model is from the machine it was measured on.
# Each pass's memory latency (spmv-bench --model's memlat: a pointer chase in the same process before and after the
# timing, their mean) is in the table and the CSV (passes_memlat_ns), and a third error column and summary line take
# the median over the passes at the run's usual latency, at most 1.1 x the median of all passes (CSV usual_passes,
# usual_best_gflops, ecm_error_usual_pct; "-" where a point has none): the slow phases raise that latency, partly.
# Each pass's memory read bandwidth (spmv-bench --model's membw: spmv-machine's read stream on the point's threads in
# the same process before and after the timing, their mean; CSV passes_read_gbs) and the ECM at it (its ECMrun line:
# the machine file with the memory's B/cy and GB/s scaled by that bandwidth over the file's at that thread count) give
# a fourth error column and summary line: the median over the passes of that prediction against the measured median
# (CSV ecm_run_gflops, ecm_error_run_pct): the model's error with the host's state of each pass taken out.
# usage: bench/model-vs-measurement.sh [--machine FILE] [--build DIR] [--data DIR] [--out FILE.md] [--csv FILE]
#                                      [--runs N] [--time S] [--passes P] [--matrices "NAME ..."] [--no-xrand]
#   --machine  machine file; default: measured in this run (build/tools/spmv-machine -o DATA/machine-measured.machine,
#              about 2.5 minutes), so that the model's parameters and the measured Gflop/s come from the same state
#              of the machine (a VM's bandwidth differs by 30 % from one day to the next)
#   --data     folder for the generated large matrices (default /tmp/spmv-mvm; never inside the repository)
#   --out      the Markdown table (default: stdout); --csv every point as CSV (default DATA/model-vs-measurement.csv)
#   --passes   interleaved passes over all points (default 5; measured = the median of the passes' best)
# Matrix names: hpcg16 hpcg32 hpcg128 lap2d bcsstk13 groebner rajat01 powerlaw (default: all).
# The large matrices (lap2d 2000^2: 4 M rows; powerlaw: 2 M rows, 33 M nonzeros) are generated into DATA once
# (python3 + numpy for lap2d, the peers' gen_irregular for powerlaw; about a minute each).
# x at random lines: before each matrix of each pass, `spmv-machine --only latency` measures the random-x table again
# (about 12 s) and that matrix's points use the machine file with it (the model at the state of the host, as it takes
# the clock of the run: on the Zen 5 VM the time of a random line of a 16 MiB x moved between 1.8 and 4.2 ns within
# half an hour); every table is in CSV.xrand. --no-xrand: the machine file's own table.
# OpenMP waits as the library's users get by default; MVM_WAIT_POLICY=passive sets OMP_WAIT_POLICY for a machine
# shared with other work (sleeping threads cost in-cache 2-thread points several times their multiply).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
machine=
build="$here/build"
data=/tmp/spmv-mvm
out=-
csv=
runs=20
time=0.05
passes=5
mats="hpcg16 hpcg32 hpcg128 lap2d bcsstk13 groebner rajat01 powerlaw"
xrand=1
shared="$here/../shared"
while [ $# -gt 0 ]; do
    case "$1" in
    --machine) machine=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --passes) passes=$2; shift 2 ;;
    --time) time=$2; shift 2 ;;
    --matrices) mats=$2; shift 2 ;;
    --no-xrand) xrand=0; shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "model-vs-measurement.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
bench="$build/tools/spmv-bench"
[ -x "$bench" ] || { echo "model-vs-measurement.sh: no $bench: build first" >&2; exit 1; }
case "$data" in "$here"/*) echo "model-vs-measurement.sh: --data must lie outside the repository" >&2; exit 2 ;; esac
mkdir -p "$data"
if [ -z "$machine" ]; then
    machine="$data/machine-measured.machine"
    echo "measuring the machine: $build/tools/spmv-machine -o $machine" >&2
    "$build/tools/spmv-machine" -o "$machine" > "$data/machine-measured.log" 2>&1 ||
        { tail -5 "$data/machine-measured.log" >&2; exit 1; }
fi
[ -r "$machine" ] || { echo "model-vs-measurement.sh: cannot read the machine file $machine" >&2; exit 1; }
[ -n "$csv" ] || csv="$data/model-vs-measurement.csv"

# the matrix argument of spmv-bench for a name (generating the large ones on first use)
spec() {
    case "$1" in
    hpcg16) echo "--hpcg 16" ;;
    hpcg32) echo "--hpcg 32" ;;
    hpcg128) echo "--hpcg 128" ;;
    bcsstk13) echo "$shared/matrices/bcsstk13.mtx" ;;
    groebner) echo "$shared/matrices/Groebner_id2003_aug.mtx" ;;
    rajat01) echo "$shared/matrices/rajat01.mtx" ;;
    lap2d)
        f="$data/lap2d_2000.mtx"
        if [ ! -s "$f" ]; then
            echo "generating $f" >&2
            /usr/bin/python3 "$shared/peers/gen_hpcg.py" lap2d 2000 2000 "$f.tmp" >&2 && mv "$f.tmp" "$f" ||
                { echo "model-vs-measurement.sh: cannot generate $f" >&2; exit 1; }
        fi
        echo "$f" ;;
    powerlaw)
        f="$data/powerlaw_2M.mtx"
        if [ ! -s "$f" ]; then
            echo "generating $f" >&2
            # the peers' generator, built here from its source (shared/ is read-only and holds no binaries)
            gen="$data/gen_irregular"
            if [ ! -x "$gen" ]; then
                cc -O2 -o "$gen" "$shared/peers/gen_irregular.c" -lm >&2 ||
                    { echo "model-vs-measurement.sh: cannot build $gen from $shared/peers/gen_irregular.c" >&2; exit 1; }
            fi
            "$gen" powerlaw 2097152 16 2.3 12345 "$f.tmp" >&2 && mv "$f.tmp" "$f" ||
                { echo "model-vs-measurement.sh: cannot generate $f" >&2; exit 1; }
        fi
        echo "$f" ;;
    *) echo "model-vs-measurement.sh: unknown matrix '$1'" >&2; exit 2 ;;
    esac
}

# variant name -> spmv-bench options and environment
variants="crs sell8-gather sell8-emul sell32-gather sell32-emul"
# SELL-C-1 of the power-law matrix would store 3.2x (C = 8) and 6.9x (C = 32) its nonzeros, which the padding guard
# refuses; sigma = 131072 (spmv-tune's choice for it) stores 1.00x, with its 3 500 longest rows in the CRS part
vopts() {
    case "$1" in
    crs) echo "-f crs" ;;
    sell8-*) echo "-f sell -C 8${2:+ -s $2}" ;;
    sell32-*) echo "-f sell -C 32${2:+ -s $2}" ;;
    esac
}
vsigma() { case "$1" in powerlaw) echo 131072 ;; *) echo "" ;; esac; }
vx() { case "$1" in *-gather) echo gather ;; *-emul) echo emul ;; *) echo "" ;; esac; }

case "$passes" in '' | *[!0-9]* | 0) echo "model-vs-measurement.sh: --passes takes a count of at least 1" >&2; exit 2 ;; esac
tmp=$(mktemp)
raw=$(mktemp)
pm=$(mktemp)
trap 'rm -f "$tmp" "$raw" "$pm"' EXIT
[ "$xrand" = 0 ] || : > "$csv.xrand"
# the machine file for the next points: with --no-xrand the given one; else a copy whose random-x table is the one
# spmv-machine measures now (its keys before the first level)
point_machine() {
    if [ "$xrand" = 0 ]; then echo "$machine"; return; fi
    line=$("$build/tools/spmv-machine" --only latency -q 2>/dev/null | grep '^random x lines, ns per element') || {
        echo "model-vs-measurement.sh: spmv-machine --only latency printed no random-x table; the file's own" >&2
        echo "$machine"; return; }
    echo "$1,$2,$line" | sed 's/random x lines, ns per element at x of 4 \/ 16 \/ 64 \/ 256 MiB: //' >> "$csv.xrand"
    echo "$line" | awk -v f="$machine" '
        { n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+,?$/) { v = $i; sub(/,/, "", v); t[++n] = v } }
        END { if (n != 12) exit 1 # 4 / 16 / 64 / 256, then the 8 times
              split("4 16 64 256", mib, " ")
              while ((getline l < f) > 0) {
                  if (l ~ /^random x line by /) continue
                  if (!done && l ~ /^level:/) {
                      for (i = 1; i <= 4; i++) printf "random x line by gather %s MiB: %s ns\n", mib[i], t[4 + i]
                      for (i = 1; i <= 4; i++) printf "random x line by scalar loads %s MiB: %s ns\n", mib[i], t[8 + i]
                      done = 1 }
                  print l } }' > "$pm" || { echo "model-vs-measurement.sh: cannot read the random-x table" >&2; echo "$machine"; return; }
    echo "$pm"
}
failed=0
pass=1
while [ "$pass" -le "$passes" ]; do
    echo "pass $pass of $passes" >&2
    for m in $mats; do
        s=$(spec "$m") || exit 1
        pmach=$(point_machine "$m" "$pass")
        for v in $variants; do
            x=$(vx "$v")
            # shellcheck disable=SC2086
            if ! env ${x:+SPMV_XACCESS=$x} ${MVM_WAIT_POLICY:+OMP_WAIT_POLICY=$MVM_WAIT_POLICY} "$bench" $s $(vopts "$v" "$(vsigma "$m")") -t 1,2 --time "$time" \
                --runs "$runs" --machine "$pmach" --model > "$tmp" 2>&1; then
                echo "model-vs-measurement.sh: $m $v failed (pass $pass):" >&2
                tail -3 "$tmp" >&2
                failed=$((failed + 1))
                # the pass marked "-" in the point's lists (the point keeps its place in the table)
                for t in 1 2; do echo "$m,$v,-,$t,-,$pass,-,-,-,-,-,-,-,-,-,-" >> "$raw"; done
                continue
            fi
            # one record per thread count (written when the next begins and at the end): pass, threads, best Gflop/s
            # (min time), perf (median), roofline, ECM, the data's placement, the clock the model took (spmv-bench
            # measures it around the timing), the memory's latency (spmv-bench --model: a pointer chase before and
            # after the timing; their mean), its read bandwidth (membw, the same) and the ECM at it (ECMrun)
            awk -v m="$m" -v v="$v" -v pass="$pass" '
                /^matrix / { for (i = 1; i <= NF; i++) if ($i == "nnz,") nnz = $(i - 1) }
                /^kernel / { kernel = $2 }
                /^threads / { if (ecm != "") emit(); t = $2; clk = 0; lat = "-"; rbw = "-"; erun = "-"; ecm = "" }
                /^memlat / && $2 + 0 > 0 { lat = sprintf("%.1f", ($2 + $5) / 2) }
                /^membw / && $2 + 0 > 0 { rbw = sprintf("%.2f", ($2 + $5) / 2) }
                /^ECMrun / { erun = $2 }
                /^clock / { clk = $2 + 0 }
                /^time / { for (i = 1; i <= NF; i++) if ($i == "(min") { mn = $(i + 1); sub(/,/, "", mn) } }
                /^perf / { med = $2 }
                /^roofline / { roof = $2; where = $0; sub(/.*from /, "", where); sub(/;.*/, "", where)
                               memp = 0; n = split(where, parts, ", ");
                               for (i = 1; i <= n; i++) if (parts[i] ~ /MEM$/) { split(parts[i], q, " "); memp = q[1] } }
                /^ECM / { ecm = $2 }
                function emit() {
                          best = 2 * nnz / (mn * 1e-3) * 1e-9
                          gsub(/,/, ";", where)
                          printf "%s,%s,%s,%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%s,%s,%.3f,%s,%s,%s\n", m, v, kernel, t, nnz, pass, best,
                                 med, roof, ecm, memp, where, clk, lat, rbw, erun }
                END { if (ecm != "") emit() }' "$tmp" >> "$raw"
        done
    done
    pass=$((pass + 1))
done

# per point (matrix, variant, threads, in the order measured): the median over the passes of the best, of the median,
# of the roofline and of the ECM prediction (each pass's at the clock measured in that pass: the in-core time and the
# caches' GB/s scale with it), and the fastest pass with that pass's ECM prediction; a failed pass is "-" in the
# lists and left out of the medians and of the fastest; a point that failed in every pass is left out of the table.
# Third: the median over the passes at the run's usual memory latency (spmv-bench's pointer chase in the same process
# at most 1.1 x the median of every pass of the run): on the Zen 5 VM the kernels ran at half speed in processes where
# the latency had risen by a fifth to a third (BENCHMARKS.md, 2026-12-06 23:41-), a state of the host, not of the
# machine the machine file describes. The threshold was set from 6 processes before any run of this script used it.
echo "matrix,variant,kernel,threads,nnz,best_gflops,median_gflops,roofline_gflops,pct_of_roofline,ecm_gflops,ecm_error_pct,memory_share_pct,where,passes_best_gflops,passes_clock_ghz,fastest_pass_gflops,ecm_error_fastest_pct,passes_memlat_ns,usual_passes,usual_best_gflops,ecm_error_usual_pct,passes_read_gbs,ecm_run_gflops,ecm_error_run_pct" > "$csv"
awk -F, '
    function med(list,    a, b, n, m, i, j, x) { # the median of the numbers in list ("-": a failed pass, left out)
        n = split(list, a, " ")
        m = 0
        for (i = 1; i <= n; i++) if (a[i] != "-") b[++m] = a[i] + 0
        for (i = 2; i <= m; i++) { x = b[i]; for (j = i - 1; j >= 1 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
        return m == 0 ? "" : m % 2 ? b[(m + 1) / 2] : (b[m / 2] + b[m / 2 + 1]) / 2
    }
    function fastest(list,    a, n, i, j) { # the place of the largest number in list (0: none)
        n = split(list, a, " ")
        j = 0
        for (i = 1; i <= n; i++) if (a[i] != "-" && (j == 0 || a[i] + 0 > a[j] + 0)) j = i
        return j
    }
    NR == FNR { if ($14 != "-" && $14 != "") alllat = alllat (alllat == "" ? "" : " ") $14; next } # the first reading
    FNR == 1 { usual = 1.1 * med(alllat) }
    { k = $1 "," $2 "," $4
      if (!(k in seen)) { seen[k] = 1; order[++np] = k }
      if ($3 != "-" && !(k in kern)) { kern[k] = $3; nnz[k] = $5; memp[k] = $11; where[k] = $12 }
      sp = bests[k] == "" ? "" : " "
      bests[k] = bests[k] sp $7; meds[k] = meds[k] sp $8; roofs[k] = roofs[k] sp $9; ecms[k] = ecms[k] sp $10
      clks[k] = clks[k] sp $13; lats[k] = lats[k] sp $14; rbws[k] = rbws[k] sp $15; eruns[k] = eruns[k] sp $16 }
    END { for (i = 1; i <= np; i++) { k = order[i]; split(k, f, ",")
              if (!(k in kern)) continue
              best = med(bests[k]); ecm = med(ecms[k]); roof = med(roofs[k]); pct = roof > 0 ? 100 * best / roof : 0
              err = best > 0 ? 100 * (ecm - best) / best : 0
              # the fastest pass against its own ECM prediction (the same clock)
              j = fastest(bests[k]); split(bests[k], b, " "); split(ecms[k], e, " ")
              ferr = j > 0 && b[j] > 0 ? 100 * (e[j] - b[j]) / b[j] : 0
              # the passes at the usual memory latency (a pass without a latency is not one of them)
              n = split(lats[k], l, " "); ub = ""; ue = ""; nu = 0
              for (p = 1; p <= n; p++)
                  if (l[p] != "-" && usual > 0 && l[p] + 0 <= usual && b[p] != "-") {
                      ub = ub (nu ? " " : "") b[p]; ue = ue (nu ? " " : "") e[p]; nu++ }
              ubest = nu ? med(ub) : 0; uecm = nu ? med(ue) : 0
              uerr = ubest > 0 ? sprintf("%.1f", 100 * (uecm - ubest) / ubest) : "-"
              ubs = nu ? sprintf("%.4f", ubest) : "-"
              # the ECM at the read bandwidth of each pass: the median of those predictions against the measured median
              erun = med(eruns[k]); rs = erun == "" ? "-" : sprintf("%.4f", erun)
              rerr = erun != "" && best > 0 ? sprintf("%.1f", 100 * (erun - best) / best) : "-"
              printf "%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%.1f,%.4f,%.1f,%s,%s,%s,%s,%.4f,%.1f,%s,%d,%s,%s,%s,%s,%s\n", f[1], f[2],
                     kern[k], f[3], nnz[k], best, med(meds[k]), roof, pct, ecm, err, memp[k], where[k], bests[k], clks[k],
                     b[j], ferr, lats[k], nu, ubs, uerr, rbws[k], rs, rerr } }' "$raw" "$raw" >> "$csv"

# the table and the summary against the targets
awk -F, -v machine="$(basename "$machine")" -v passes="$passes" '
    NR == 1 { next }
    { n++; mem = $12 >= 50
      uerr = $21 == "-" ? "-" : sprintf("%+.0f %% (%d)", $21, $19)
      rerr = $24 == "-" ? "-" : sprintf("%+.0f %%", $24)
      printf "| %s | %s | %s | %d | %.3f | %s | %.3f | %.0f %% | %.3f | %+.0f %% | %+.0f %% | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3,
             $4, $6, $14, $8, $9, $10, $11, $17, uerr, rerr, $13, $15, $18, $22
      if ($9 > maxpct) { maxpct = $9; maxat = $1 " " $2 " t=" $4 }
      if ($9 > 105) over++
      e = $11 < 0 ? -$11 : $11
      f = $17 < 0 ? -$17 : $17
      u = $21 == "-" ? 1e9 : $21 < 0 ? -$21 : $21
      npl = split($18, pl, " "); for (i = 1; i <= npl; i++) if (pl[i] != "-") np++
      nup += $19
      r = $24 == "-" ? 1e9 : $24 < 0 ? -$24 : $24
      if (mem) { nm++; if (e <= 15) okm++; if (f <= 15) fm++; if (u <= 15) um++; if (r <= 15) rm++ }
      else { nc++; if (e <= 25) okc++; if (f <= 25) fc++; if (u <= 25) uc++; if (r <= 25) rc++ } }
    BEGIN { print "| matrix | variant | kernel | threads | measured Gflop/s | each pass (best) | roofline | % of roofline | ECM | ECM error | ECM error, fastest pass | ECM error, passes at the usual latency (how many) | ECM error at each pass'"'"'s read bandwidth | data from | clock, GHz | memory latency, ns | read bandwidth, GB/s |"
            print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" }
    END { printf "\nmachine file %s; measured = median of %d passes; %d points: highest %% of roofline %.0f %% (%s), %d above 105 %%;\n", machine, passes, n,
                 maxpct, maxat, over
          printf "ECM within +-15 %% on %d of %d memory-bound points (%.0f %%), within +-25 %% on %d of %d in-cache points (%.0f %%)\n",
                 okm, nm, nm ? 100 * okm / nm : 0, okc, nc, nc ? 100 * okc / nc : 0
          printf "the fastest pass of each point against its ECM (the host at its best, as the machine file'"'"'s best windows): within +-15 %% on %d of %d memory-bound points (%.0f %%), within +-25 %% on %d of %d in-cache points (%.0f %%)\n",
                 fm, nm, nm ? 100 * fm / nm : 0, fc, nc, nc ? 100 * fc / nc : 0
          printf "the median of the passes at the run'"'"'s usual memory latency (at most 1.1 x the median of all passes; %d of the %d passes with a latency, counting each point and thread count): within +-15 %% on %d of %d memory-bound points (%.0f %%), within +-25 %% on %d of %d in-cache points (%.0f %%)\n",
                 nup, np, um, nm, nm ? 100 * um / nm : 0, uc, nc, nc ? 100 * uc / nc : 0
          printf "the ECM at each pass'"'"'s read bandwidth (spmv-bench'"'"'s ECMrun: the memory'"'"'s figures scaled by the read stream measured around the timing): within +-15 %% on %d of %d memory-bound points (%.0f %%), within +-25 %% on %d of %d in-cache points (%.0f %%)\n",
                 rm, nm, nm ? 100 * rm / nm : 0, rc, nc, nc ? 100 * rc / nc : 0 }' "$csv" > "$tmp"
if [ "$out" = - ]; then cat "$tmp"; else cp "$tmp" "$out"; fi
echo "csv: $csv" >&2
if [ "$failed" -gt 0 ]; then
    echo "model-vs-measurement.sh: $failed matrix/variant runs failed (above): their points' medians are over the other" \
        "passes ('-' in each pass's list), a point that failed in every pass is not in the table" >&2
    exit 1
fi
