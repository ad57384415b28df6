#!/usr/bin/env bash
# The command-line tools with bad arguments, bad files and failing writes (issue 11): exit codes and messages.
# Every check is functional; nothing depends on timing (the few runs that measure use --max-time of 1-2 s and a
# tiny matrix, and only their messages and exit codes are checked).
# usage: check_tools.sh TOOLS_DIR SOURCE_DIR
set -uo pipefail
bin=$1 src=$2
machine=$src/machines/amd-epyc-zen3-kvm-2core.machine
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_WAIT_POLICY=passive
# no user files: no machine file, no tuning database, nothing written outside $tmp
export XDG_DATA_HOME=$tmp/xdg HOME=$tmp/home SPMV_TUNE_DB=$tmp/db.txt
mkdir -p "$XDG_DATA_HOME" "$HOME"
fail=0 n=0

# run NAME EXPECTED_RC CMD...: runs CMD with stdout in $tmp/out, stderr in $tmp/err; checks the exit code
run() {
  local name=$1 want=$2
  shift 2
  n=$((n + 1))
  "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  cur=$name
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit status $rc, wanted $want"
    sed 's/^/  stderr: /' "$tmp/err" | head -5
    fail=1
  fi
}
# has FILE(out|err) TEXT: the output contains TEXT (fixed string)
has() {
  if ! grep -qF -- "$2" "$tmp/$1"; then
    echo "FAIL $cur: std$1 lacks '$2'"
    sed "s/^/  std$1: /" "$tmp/$1" | head -5
    fail=1
  fi
}
hasnt() {
  if grep -qF -- "$2" "$tmp/$1"; then
    echo "FAIL $cur: std$1 has '$2'"
    fail=1
  fi
}
# no raw control bytes (other than newline and tab) in stderr: nothing from a file reaches the terminal unescaped
clean_err() {
  if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/err" || [ "$(tr -d '\000' < "$tmp/err" | wc -c)" != "$(wc -c < "$tmp/err")" ]; then
    echo "FAIL $cur: raw control bytes on stderr"
    fail=1
  fi
}

# ---------------------------------------------------------------------------------------------- write safety
if [ -c /dev/full ] && [ -w /dev/full ]; then
  run "convert -o /dev/full" 1 "$bin/spmv-convert" --hpcg 4 -o /dev/full
  has err "/dev/full: write error: No space left on device"
  [ -c /dev/full ] || { echo "FAIL /dev/full is gone"; fail=1; }
fi
# a disk that fills up during the write (a file size limit, EFBIG; SIGXFSZ ignored as the C tests do): the old file
# stays, no temporary file is left
echo old > "$tmp/old.mtx"
run "convert -o FILE on a full disk (ulimit -f)" 1 bash -c "trap '' XFSZ; ulimit -f 8; exec '$bin/spmv-convert' --hpcg 12 -o '$tmp/old.mtx'"
has err "$tmp/old.mtx: write error: File too large (nothing was replaced"
[ "$(cat "$tmp/old.mtx")" = old ] || { echo "FAIL the old file changed"; fail=1; }
[ -z "$(ls -A "$tmp" | grep '\.tmp-')" ] || { echo "FAIL a temporary file is left: $(ls -A "$tmp")"; fail=1; }
# a real full tmpfs, where a private mount namespace is allowed (root): Matrix Market, CSV, JSON, plots
if unshare -m true 2> /dev/null; then
  cat > "$tmp/full.sh" << EOF
set -u
mount -t tmpfs -o size=64k tmpfs "$tmp/full" || exit 3
echo old > "$tmp/full/x.mtx"; echo old > "$tmp/full/a.csv"; echo old > "$tmp/full/a.json"
head -c 60000 /dev/zero > "$tmp/full/fill" 2> /dev/null
"$bin/spmv-convert" --hpcg 12 -o "$tmp/full/x.mtx" > /dev/null 2> "$tmp/full.err1"; echo "convert \$?"
"$bin/spmv-tune" --hpcg 4 --max-time 1 --machine "$machine" --no-record -q --csv "$tmp/full/a.csv" \
  --json "$tmp/full/a.json" > /dev/null 2> "$tmp/full.err2"; echo "tune \$?"
for f in x.mtx a.csv a.json; do printf '%s %s\n' "\$f" "\$(cat "$tmp/full/\$f")"; done
ls -A "$tmp/full" | grep -c '\.tmp-' || true
EOF
  mkdir -p "$tmp/full"
  if unshare -m bash "$tmp/full.sh" > "$tmp/full.out" 2>&1; then
    cur="full 64 KiB tmpfs"
    n=$((n + 1))
    for want in "convert 1" "tune 1" "x.mtx old" "a.csv old" "a.json old"; do
      grep -qxF "$want" "$tmp/full.out" || { echo "FAIL $cur: wanted '$want'"; cat "$tmp/full.out"; fail=1; }
    done
    [ "$(tail -1 "$tmp/full.out")" = 0 ] || { echo "FAIL $cur: temporary files left"; fail=1; }
    grep -qF "No space left on device" "$tmp/full.err1" || { echo "FAIL $cur: convert: no reason"; fail=1; }
    grep -qF "No space left on device" "$tmp/full.err2" || { echo "FAIL $cur: tune: no reason"; fail=1; }
  else
    echo "note: no tmpfs in a private mount namespace here ($(head -1 "$tmp/full.out")): full-disk check by ulimit only"
  fi
fi
# a symbolic link stays a link
ln -s old.mtx "$tmp/link.mtx"
run "convert -o LINK" 0 "$bin/spmv-convert" --hpcg 3 -o "$tmp/link.mtx"
[ -L "$tmp/link.mtx" ] && head -1 "$tmp/old.mtx" | grep -q MatrixMarket || { echo "FAIL the link or its file"; fail=1; }
# /dev/stdout is written in place
run "convert -o /dev/stdout" 0 "$bin/spmv-convert" --hpcg 3 -o /dev/stdout
has out "%%MatrixMarket matrix coordinate real general"

# plots: gnuplot that fails, or exits 0 and writes nothing: exit 1 and a message, no PNG
mkdir -p "$tmp/fake"
printf '#!/bin/sh\nexit 3\n' > "$tmp/fake/gnuplot"
chmod +x "$tmp/fake/gnuplot"
run "tune --plot, gnuplot exits 3" 1 env PATH="$tmp/fake:$PATH" "$bin/spmv-tune" --hpcg 4 --max-time 1 --machine "$machine" --no-record -q --plot "$tmp/plots1"
has err "gnuplot failed (exit status 3)"
[ ! -e "$tmp/plots1/threads.png" ] || { echo "FAIL a PNG after a failed gnuplot"; fail=1; }
printf '#!/bin/sh\nexit 0\n' > "$tmp/fake/gnuplot"
run "tune --plot, gnuplot writes nothing" 1 env PATH="$tmp/fake:$PATH" "$bin/spmv-tune" --hpcg 4 --max-time 1 --machine "$machine" --no-record -q --plot "$tmp/plots2"
has err "gnuplot exited 0 but $tmp/plots2/threads.png is missing: not written"
has err "gnuplot exited 0 but $tmp/plots2/sigma.png is missing: not written"

# ---------------------------------------------------------------------------------------------- checks before the work
run "machine -o missing folder" 1 "$bin/spmv-machine" -o /nonexistent-spmv-dir/x.machine
has err "/nonexistent-spmv-dir/x.machine: cannot create a file in the folder /nonexistent-spmv-dir"
hasnt out "== System" # nothing measured
run "tune --csv /proc/x.csv" 1 "$bin/spmv-tune" --hpcg 4 --csv /proc/spmv-x.csv --machine "$machine"
has err "--csv: /proc/spmv-x.csv: cannot create"
hasnt out "search" # the search did not start
run "bench --machine missing" 1 "$bin/spmv-bench" --hpcg 4 --machine /nonexistent-spmv.machine
has err "--machine: /nonexistent-spmv.machine: cannot open"
hasnt out "perf" # nothing timed
run "convert -o missing folder" 1 "$bin/spmv-convert" --hpcg 4 -o /nonexistent-spmv-dir/x.mtx
hasnt out "matrix" # nothing read

# ---------------------------------------------------------------------------------------------- corrupt files
printf 'choice: m\n  cpu: X\000Y\n' > "$tmp/nul.db"
run "tune --db with a NUL byte" 1 "$bin/spmv-tune" --hpcg 4 --max-time 1 --machine "$machine" --db "$tmp/nul.db"
has err "$tmp/nul.db:2: NUL byte at line 2: not a text file"
hasnt err "spmv-tune: the choice was not recorded: spmv-tune:" # one prefix
hasnt out "search"
clean_err
printf 'choice: m\n  col\033[31mour: red\n' > "$tmp/esc.db"
run "tune --db with an escape sequence" 1 "$bin/spmv-tune" --hpcg 4 --max-time 1 --machine "$machine" --db "$tmp/esc.db"
has err "unknown key 'col\\x1b[31mour'"
clean_err
# a corrupt default machine file: named with its line, not overwritten, an estimate instead
mkdir -p "$XDG_DATA_HOME/spmv/machines"
own="$XDG_DATA_HOME/spmv/machines/$(uname -n).machine"
printf 'spmv machine file: 1\nmodel name: x\nclock: fast\n' > "$own"
cp "$own" "$tmp/own.bak"
run "tune with a corrupt default machine file" 0 "$bin/spmv-tune" --hpcg 4 --max-time 2 --no-record -q
has err "this machine's file is corrupt: $own:3: 'clock': expected a number, got 'fast'"
has err "it is not overwritten; re-measure with \`spmv-machine --install\`"
has out "ESTIMATE"
cmp -s "$own" "$tmp/own.bak" || { echo "FAIL the corrupt machine file was overwritten"; fail=1; }
rm -f "$own"
# no machine file and a small --max-time: no spmv-machine run, an estimate with the reason
run "tune --max-time 2 without a machine file" 0 "$bin/spmv-tune" --hpcg 4 --max-time 2 --no-record -q
has err "too few for spmv-machine --quick"
hasnt err "running \`"
has out "ESTIMATE"
[ ! -e "$own" ] || { echo "FAIL a machine file was written"; fail=1; }

# ---------------------------------------------------------------------------------------------- empty matrix
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 0\n' > "$tmp/empty.mtx"
run "bench empty --machine" 0 "$bin/spmv-bench" "$tmp/empty.mtx" --machine "$machine" --time 0.001 --runs 1
has out "the model does not apply to an empty matrix"
run "bench empty" 0 "$bin/spmv-bench" "$tmp/empty.mtx" --time 0.001 --runs 1
run "tune empty" 0 "$bin/spmv-tune" "$tmp/empty.mtx" --machine "$machine" --no-record
has out "nothing to tune"

# ---------------------------------------------------------------------------------------------- messages, exit codes
run "bench -t 1,,2" 2 "$bin/spmv-bench" --hpcg 4 -t 1,,2
has err "spmv-bench: -t: empty item in '1,,2'"
run "bench -t 1,2," 2 "$bin/spmv-bench" --hpcg 4 -t 1,2,
run "tune -C 8,,16" 2 "$bin/spmv-tune" --hpcg 4 -C 8,,16
has err "-C: empty item"
run "convert --hpcg 4,,4" 2 "$bin/spmv-convert" --hpcg 4,,4
run "convert --hpcg 0" 2 "$bin/spmv-convert" --hpcg 0
has err "--hpcg: item '0' in '0' is not an integer"
run "convert --hpcg 4,4" 2 "$bin/spmv-convert" --hpcg 4,4
run "convert bad option" 2 "$bin/spmv-convert" --hpcg 4 --bogus
run "bench --hpcg x" 2 "$bin/spmv-bench" --hpcg x
run "tune --hpcg -3" 2 "$bin/spmv-tune" --hpcg -3
printf '%%%%MatrixMarket matrix coordinate real general\n1 1 9223372036854775807\n' > "$tmp/big.mtx"
run "convert entries = INT64_MAX" 1 "$bin/spmv-convert" "$tmp/big.mtx"
has err "big.mtx:2: entries = 9223372036854775807 exceeds the supported maximum of"
hasnt err "64 bits"

# ---------------------------------------------------------------------------------------------- the environment
# OpenMP asked for more threads than the library takes (libgomp itself crashes at 100 000): an error naming it
for t in spmv-convert spmv-bench spmv-tune; do
  run "$t OMP_NUM_THREADS=100000" 2 env OMP_NUM_THREADS=100000 "$bin/$t" --hpcg 4
  has err "$t: OMP_NUM_THREADS=100000: 100000 threads, the most is 4096"
done
run "machine SPMV_VIDX=2" 1 env SPMV_VIDX=2 "$bin/spmv-machine" --quick -q -o "$tmp/m.machine"
has err "spmv-machine: SPMV_VIDX=2: use 1 (on) or 0 (off)"
[ ! -e "$tmp/m.machine" ] || { echo "FAIL a machine file was written"; fail=1; }
# the library's variables with a value they do not take: the variable named, not the file
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 2.0\n' > "$tmp/two.mtx"
for e in SPMV_SELL_NT=abc SPMV_PREFETCH=2 SPMV_VIDX=yes SPMV_XACCESS=foo SPMV_TEAM=foo SPMV_FORK_JOIN_NS=-1; do
  run "bench $e" 1 env "$e" "$bin/spmv-bench" "$tmp/two.mtx" --time 0.001 --runs 1
  has err "spmv-bench: $e: use "
  hasnt err "two.mtx"
done
run "convert SPMV_ARCH=nonsense" 1 env SPMV_ARCH=nonsense "$bin/spmv-convert" "$tmp/two.mtx"
has err "spmv-convert: SPMV_ARCH=nonsense: unknown kernel family"
hasnt err "two.mtx"
run "bench SPMV_SELL_NT=0" 0 env SPMV_SELL_NT=0 SPMV_XACCESS=EMUL "$bin/spmv-bench" "$tmp/two.mtx" --time 0.001 --runs 1
# spmv-machine: sizes, names, parts; its errors also with -q
run "machine --mem-size 1T" 2 "$bin/spmv-machine" --mem-size 4096T -q
has err "--mem-size: '4096T' is more than this machine's memory"
run "machine --mem-size inf" 2 "$bin/spmv-machine" --mem-size inf -q
has err "--mem-size: 'inf' is not a size"
run "machine --mem-size 1e300G" 2 "$bin/spmv-machine" --mem-size 1e300G -q
has err "is more than this machine's memory"
run "machine --mem-size 100k" 2 "$bin/spmv-machine" --mem-size 100k -q
has err "--mem-size: '100k' is below 1M"
run "machine --name with a newline" 2 "$bin/spmv-machine" --quick -q -o "$tmp/n.machine" --name $'x\nclock: 99 GHz'
has err "--name: a control character (byte 0x0A)"
[ ! -e "$tmp/n.machine" ] || { echo "FAIL a machine file was written"; fail=1; }
run "machine --only ," 2 "$bin/spmv-machine" --only , -q
has err "--only: ',' names no part"
run "convert -o ''" 2 "$bin/spmv-convert" --hpcg 4 -o ''
has err "-o: the output path is empty"
run "bench ''" 1 "$bin/spmv-bench" ''
has err "argument path is empty"

# ---------------------------------------------------------------------------------------------- vector order
run "SPMV_VERBOSE names the permuted order" 0 env SPMV_VERBOSE=1 "$bin/spmv-bench" --hpcg 4 --permuted --time 0.001 --runs 1
has err "x and y in the PERMUTED order"

# ---------------------------------------------------------------------------------------------- compression
# HPCG 16^3, SELL-32-1: 3036 run columns (91.7 % of the stored entries) by default, value indices off (below 2 MiB of
# values); --plain keeps 32-bit indices and 8-byte values everywhere (12 B per entry)
run "bench default compression" 0 "$bin/spmv-bench" --hpcg 16 --time 0.001 --runs 1
has out "format   compression: run columns 3036 (91.7 % of stored entries), 16-bit indices on 0.0 %, value indices off"
run "bench --plain" 0 "$bin/spmv-bench" --hpcg 16 --plain --time 0.001 --runs 1
has out "format   compression: none (32-bit indices, 8-byte values)"
has out "traffic  "
has out "(12 B/entry,"
# the model at the clock of the run: spmv-bench measures the core clock around the timing and names the machine file's
# (the Zen 3 file: 3.044 GHz); the ECM line follows it. The clock's value is a measurement: only its form is checked
run "bench: the model at the clock of the run" 0 "$bin/spmv-bench" --hpcg 8 --time 0.001 --runs 1 --machine "$machine"
has out "the machine file's 3.044 GHz: the model at "
if ! grep -qE '^clock    [0-9]+\.[0-9]{3} GHz during the timing' "$tmp/out"; then
  echo "FAIL $cur: no clock line with a number"; fail=1
fi
has out "ECM      "
clk=$(awk '/^clock / {print $2; exit}' "$tmp/out")
if ! awk -v c="$clk" 'BEGIN { exit !(c > 0.2 && c < 10) }'; then echo "FAIL $cur: clock '$clk' GHz"; fail=1; fi
# with --model, the memory's latency before and after the timing (the host's state): a measurement, its form and a
# plausible range checked (a load from memory takes more than an L1 hit and less than a millisecond)
run "bench --model: the memory's latency around the timing" 0 "$bin/spmv-bench" --hpcg 8 --time 0.001 --runs 1 \
  --machine "$machine" --model
if ! grep -qE '^memlat   [0-9]+\.[0-9] ns before, [0-9]+\.[0-9] ns after the timing \(pointer chase over 64 MiB' "$tmp/out"; then
  echo "FAIL $cur: no memlat line with two numbers"; fail=1
fi
if ! awk '/^memlat / { ok = $2 > 1 && $2 < 1e6 && $5 > 1 && $5 < 1e6 } END { exit !ok }' "$tmp/out"; then
  echo "FAIL $cur: memlat out of range: $(grep '^memlat' "$tmp/out")"; fail=1
fi
# and the memory's read bandwidth before and after (spmv-machine's read stream), with the ECM at it next to the file's
if ! awk '/^membw / { ok = $2 > 0.01 && $2 < 1e5 && $3 == "GB/s" && $4 == "before," && $5 > 0.01 && $5 < 1e5 }
          END { exit !ok }' "$tmp/out"; then
  echo "FAIL $cur: no membw line with two bandwidths: $(grep '^membw' "$tmp/out")"; fail=1
fi
if ! grep -qE "^ECMrun   [0-9]+\.[0-9]{3} Gflop/s predicted at this run's read bandwidth \([0-9.e+]+ GB/s on [0-9]+ threads?, x [0-9.]+ the machine file's\): error [-+][0-9]+ %$" "$tmp/out"; then
  echo "FAIL $cur: no ECMrun line: $(grep '^ECMrun' "$tmp/out")"; fail=1
fi
# without --model no pointer chase runs (spmv-bench's usual output stays as it was)
run "bench without --model: no latency line" 0 "$bin/spmv-bench" --hpcg 8 --time 0.001 --runs 1 --machine "$machine"
if grep -qE '^(memlat|membw|ECMrun)' "$tmp/out"; then echo "FAIL $cur: memlat, membw or ECMrun printed without --model"; fail=1; fi
# spmv-bench --suite models its matrices at the memory's read bandwidth now, as spmv-tune
"$bin/spmv-convert" --hpcg 6 -o "$tmp/suite6.mtx" > /dev/null 2>&1
run "bench --suite: the model at the memory bandwidth of the run" 0 "$bin/spmv-bench" --suite "$tmp/suite6.mtx" \
  --machine "$machine" --time 0.001 --runs 1 --tune-time 0 --no-record -t 2 --csv "$tmp/suite6.csv"
if ! grep -qE "^membw        [0-9.]+ GB/s read now on 2 threads over [0-9]+ MiB \(the machine file's 3[0-9]\.[0-9] GB/s\): the model's memory at this bandwidth$" "$tmp/out"; then
  echo "FAIL $cur: no membw line: $(grep '^membw' "$tmp/out")"; fail=1
fi
# the CSV: every row has the header's fields (the note quoted), the kernel variant's columns before the note; the
# JSON: every point has them
run "tune --csv --json: the variant's columns" 0 "$bin/spmv-tune" --hpcg 4 --max-time 1 --machine "$machine" --no-record -q \
  --csv "$tmp/cols.csv" --json "$tmp/cols.json"
if ! awk -F, 'NR == 1 { want = NF; ok = $(NF - 1) == "nt_stores" && $(NF - 2) == "vidx"; next }
              { gsub(/"([^"]|"")*"/, "q"); if (NF != want) ok = 0; rows++ }
              END { exit !(ok && rows > 0) }' "$tmp/cols.csv"; then
  echo "FAIL $cur: CSV rows and header disagree, or no nt_stores column: $(head -2 "$tmp/cols.csv")"; fail=1
fi
if [ "$(grep -o '"nt_stores": \(true\|false\)' "$tmp/cols.json" | wc -l)" != "$(grep -o '"run_columns": ' "$tmp/cols.json" | wc -l)" ] ||
   ! grep -q '"nt_stores": ' "$tmp/cols.json"; then
  echo "FAIL $cur: a JSON point without nt_stores"; fail=1
fi
run "tune: the model at the clock of the run" 0 "$bin/spmv-tune" --hpcg 4 --max-time 1 --machine "$machine" --no-record -q -t 2
has out "GHz measured now on "
has out "(the machine file's 3.04 GHz): the model at the clock now"
# and at the memory's read bandwidth now (the file's curve point or saturated figure as the reference)
if ! grep -qE "^membw        [0-9.]+ GB/s read now on 2 threads over [0-9]+ MiB \(the machine file's 3[0-9]\.[0-9] GB/s\): the model's memory at this bandwidth$" "$tmp/out"; then
  echo "FAIL $cur: no membw line: $(grep '^membw' "$tmp/out")"; fail=1
fi

if [ "$fail" = 0 ]; then echo "$n checks of the tools: ok"; fi
exit "$fail"
