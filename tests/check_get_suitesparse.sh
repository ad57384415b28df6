#!/usr/bin/env bash
# matrices/get-suitesparse.sh without internet: its options (--help, -d without a folder, a bad name, an unknown
# option give usage or a clear error, never a shell error), and a download from a local mirror (SUITESPARSE_URL=
# file://...) of a good, a missing and a corrupt archive. Skipped (77) for the mirror part when curl is missing.
# usage: check_get_suitesparse.sh SOURCE_DIR
set -euo pipefail
src=$1
get=$src/matrices/get-suitesparse.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() { # RC PATTERN ARGS...: exit status RC, stdout+stderr match PATTERN, no shell error
  local want=$1 pat=$2 rc=0 out; shift 2
  out=$("$get" "$@" 2>&1) || rc=$?
  [ "$rc" = "$want" ] || fail "get-suitesparse.sh $*: exit $rc, expected $want: $out"
  grep -qE -- "$pat" <<<"$out" || fail "get-suitesparse.sh $*: output lacks /$pat/: $out"
  if grep -qE 'unbound variable|line [0-9]+:|command not found' <<<"$out"; then fail "get-suitesparse.sh $*: $out"; fi
  echo "ok: get-suitesparse.sh $* -> exit $rc: $(head -1 <<<"$out")"
}
expect 0 '^usage: matrices/get-suitesparse.sh \[-d DIR\]' --help
expect 0 'SUITESPARSE_URL=' -h
expect 0 'internet' --help
expect 2 '-d needs a folder' -d
expect 2 '-d needs a folder' -d ''
expect 2 '-d needs a folder' -d --help
expect 2 "'pwtk' is not GROUP/NAME" -d "$tmp/out" pwtk
expect 2 "'a/b/c' is not GROUP/NAME" -d "$tmp/out" a/b/c
expect 2 "unknown option '-x'" -x Boeing/pwtk
[ ! -e "$tmp/out" ] || fail "a usage error created the folder $tmp/out"

command -v curl >/dev/null || { echo "curl missing: the mirror part is skipped"; exit 77; }
# a mirror with GROUP/NAME.tar.gz, as sparse.tamu.edu/MM: a good matrix, a corrupt one (no banner)
mkdir -p "$tmp/mirror/Grp" "$tmp/pack/good" "$tmp/pack/corrupt"
printf '%%%%MatrixMarket matrix coordinate real general\n%% a comment\n2 2 1\n1 2 3.5\n' > "$tmp/pack/good/good.mtx"
printf 'not a matrix\n' > "$tmp/pack/corrupt/corrupt.mtx"
tar -czf "$tmp/mirror/Grp/good.tar.gz" -C "$tmp/pack" good
tar -czf "$tmp/mirror/Grp/corrupt.tar.gz" -C "$tmp/pack" corrupt
export SUITESPARSE_URL=file://$tmp/mirror/
expect 0 "ok   $tmp/out/good/good.mtx: %%MatrixMarket matrix coordinate real general, size line: 2 2 1" \
  -d "$tmp/out" Grp/good
cmp "$tmp/out/good/good.mtx" "$tmp/pack/good/good.mtx" || fail "good.mtx differs from the mirror's"
[ ! -e "$tmp/out/good.tar.gz" ] || fail "the archive was left behind"
expect 1 "bad: download of file://$tmp/mirror/Grp/none.tar.gz failed .*SUITESPARSE_URL" -d "$tmp/out" Grp/none
[ ! -e "$tmp/out/none.tar.gz" ] || fail "a failed download left $tmp/out/none.tar.gz"
expect 1 "bad: $tmp/out/corrupt/corrupt.mtx has no %%MatrixMarket banner" -d "$tmp/out" Grp/corrupt
# one bad name among good ones: the good one still arrives, the exit status says 1
rm -rf "$tmp/out"
expect 1 "ok   $tmp/out/good/good.mtx" -d "$tmp/out" Grp/none Grp/good
echo "get-suitesparse.sh: options and a local mirror: ok"
