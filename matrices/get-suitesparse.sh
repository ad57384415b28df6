#!/usr/bin/env bash
# Download matrices of the SuiteSparse Matrix Collection (Matrix Market format) and check what arrived.
#
# usage: matrices/get-suitesparse.sh [-d DIR] [GROUP/NAME ...]
#
# Without names it fetches the set of the reference paper (Alappat et al., PMBS 2020, Fig. 6).
# Each archive GROUP/NAME.tar.gz is unpacked into DIR (default: matrices/suitesparse) and NAME.mtx is checked:
# the first line must be a %%MatrixMarket banner and the first non-comment line a size line of 3 integers
# (coordinate) or 2 (array).
#
# Needs curl (or wget) and internet access to https://sparse.tamu.edu. A mirror with the same layout
# (BASE/GROUP/NAME.tar.gz) replaces it: SUITESPARSE_URL=BASE, e.g. SUITESPARSE_URL=file:///srv/ssmc/MM (file:// needs
# curl) or SUITESPARSE_URL=http://mirror.local/MM. Exit status: 0 all arrived and checked, 1 a download or a check
# failed, 2 a usage error.
set -euo pipefail
me=matrices/get-suitesparse.sh
usage() { sed -n '/^# usage:/,/^# failed/s/^# \{0,1\}//p' "$0"; }
base=${SUITESPARSE_URL:-https://sparse.tamu.edu/MM}
base=${base%/}
dir="$(dirname "$0")/suitesparse"
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    -d)
      if [ $# -lt 2 ] || [ -z "$2" ] || [ "${2#-}" != "$2" ]; then
        echo "$me: -d needs a folder (-d DIR)" >&2; exit 2
      fi
      dir=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "$me: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
paper=(Schenk_AFE/af_shell10 BenElechi/BenElechi1 Oberwolfach/bone010 Janna/ML_Geer Schenk/nlpkkt120 Boeing/pwtk)
[ $# -gt 0 ] || set -- "${paper[@]}"
for m in "$@"; do
  case $m in
    */*/* | /* | */ | *..* | -*) echo "$me: '$m' is not GROUP/NAME (e.g. Boeing/pwtk)" >&2; exit 2 ;;
    */*) ;;
    *) echo "$me: '$m' is not GROUP/NAME (e.g. Boeing/pwtk)" >&2; exit 2 ;;
  esac
done
if command -v curl >/dev/null; then
  fetch() { curl -fsSL "$1" -o "$2"; }
elif command -v wget >/dev/null && [ "${base#file:}" = "$base" ]; then
  fetch() { wget -q "$1" -O "$2"; }
else
  echo "$me: needs curl$([ "${base#file:}" = "$base" ] && echo " or wget") (Debian: apt-get install curl)" >&2; exit 2
fi
mkdir -p "$dir" || { echo "$me: cannot create the folder $dir" >&2; exit 2; }
check() { # FILE: banner and size line
  local f=$1
  [ -f "$f" ] || { echo "bad: the archive has no $f"; return 1; }
  head -c 14 "$f" | grep -qi '^%%MatrixMarket' || { echo "bad: $f has no %%MatrixMarket banner"; return 1; }
  local size
  size=$(grep -v -m1 -E '^\s*(%|$)' "$f" || true)
  echo "$size" | grep -qE '^\s*[0-9]+\s+[0-9]+(\s+[0-9]+)?\s*$' || { echo "bad: $f size line '$size'"; return 1; }
  echo "ok   $f: $(head -1 "$f" | tr -d '\r'), size line: $size"
}
rc=0
for m in "$@"; do
  name=${m#*/}
  tgz="$dir/$name.tar.gz"
  if ! fetch "$base/$m.tar.gz" "$tgz"; then
    rm -f "$tgz"
    echo "bad: download of $base/$m.tar.gz failed (no internet access? a mirror: SUITESPARSE_URL=BASE, see --help)"
    rc=1; continue
  fi
  if ! tar -xzf "$tgz" -C "$dir"; then echo "bad: $tgz is not a .tar.gz archive"; rm -f "$tgz"; rc=1; continue; fi
  rm -f "$tgz"
  check "$dir/$name/$name.mtx" || rc=1
done
exit $rc
