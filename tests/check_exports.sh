#!/usr/bin/env bash
# The shared library exports exactly the functions the public header declares (SPMV_API), nothing else.
# usage: check_exports.sh LIBSPMV.so HEADER[:HEADER...] [EXPORT_MACRO]   (the macro defaults to SPMV_API)
set -euo pipefail
lib=$1 header=$2 macro=${3:-SPMV_API}
declared=$(IFS=:; cat $header | tr '\n' ' ' | grep -oE "$macro "'[^;{]*\(' | grep -oE 'spmv_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u)
# not ours: the linker's symbols, and the locks of OpenMP's unnamed critical sections that clang's libomp gives every
# object a program-wide name (.gomp_critical_user_.var, .gomp_critical_user_.reduction.var: all unnamed critical
# regions of a program exclude each other, so the shared library must share them)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDRBW]$/ {print $3}' |
           grep -v -E '^(_init|_fini|_edata|_end|__bss_start|\.gomp_critical_user_\..*)$' | sort -u)
if [ "$declared" != "$exported" ]; then
  echo "declared in $header but not exported:"; comm -23 <(echo "$declared") <(echo "$exported") | sed 's/^/  /'
  echo "exported but not declared:"; comm -13 <(echo "$declared") <(echo "$exported") | sed 's/^/  /'
  exit 1
fi
echo "$(echo "$declared" | wc -l) functions declared and exported, no others: ok"
