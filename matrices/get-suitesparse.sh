#!/usr/bin/env bash
# Download matrices of the SuiteSparse Matrix Collection (Matrix Market format) and check what arrived.
#
#   matrices/get-suitesparse.sh [-d DIR] [GROUP/NAME ...]
#
# Without names it fetches the set of the reference paper (Alappat et al., PMBS 2020, Fig. 6).
# Each archive GROUP/NAME.tar.gz is unpacked into DIR (default: matrices/suitesparse) and NAME.mtx is checked:
# the first line must be a %%MatrixMarket banner and the first non-comment line a size line of 3 integers
# (coordinate) or 2 (array). Needs curl or wget, and internet access.
set -euo pipefail
base=${SUITESPARSE_URL:-https://sparse.tamu.edu/MM}
dir="$(dirname "$0")/suitesparse"
if [ "${1:-}" = "-d" ]; then dir=$2; shift 2; fi
paper=(Schenk_AFE/af_shell10 BenElechi/BenElechi1 Oberwolfach/bone010 Janna/ML_Geer Schenk/nlpkkt120 Boeing/pwtk)
[ $# -gt 0 ] || set -- "${paper[@]}"
mkdir -p "$dir"
fetch() { if command -v curl >/dev/null; then curl -fsSL "$1" -o "$2"; else wget -q "$1" -O "$2"; fi; }
check() { # FILE: banner and size line
  local f=$1
  head -c 14 "$f" | grep -qi '^%%MatrixMarket' || { echo "bad: $f has no %%MatrixMarket banner"; return 1; }
  local size
  size=$(grep -v -m1 -E '^\s*(%|$)' "$f")
  echo "$size" | grep -qE '^\s*[0-9]+\s+[0-9]+(\s+[0-9]+)?\s*$' || { echo "bad: $f size line '$size'"; return 1; }
  echo "ok   $f: $(head -1 "$f" | tr -d '\r'), size line: $size"
}
rc=0
for m in "$@"; do
  case $m in */*) ;; *) echo "bad: '$m' is not GROUP/NAME"; rc=1; continue ;; esac
  name=${m#*/}
  tgz="$dir/$name.tar.gz"
  if ! fetch "$base/$m.tar.gz" "$tgz"; then echo "bad: download of $m failed"; rc=1; continue; fi
  tar -xzf "$tgz" -C "$dir" && rm -f "$tgz"
  check "$dir/$name/$name.mtx" || rc=1
done
exit $rc
