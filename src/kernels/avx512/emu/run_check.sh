#!/bin/sh
# TEST ONLY: build the AVX-512 kernels with the portable intrinsic stand-ins (emu/avx512_emu.h) and compare them
# with the reference kernels, under AddressSanitizer and UBSan. Runs on any CPU. Usage: run_check.sh [CC]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
cc=${1:-${CC:-cc}}
out=${TMPDIR:-/tmp}/spmv_avx512_emu_check.$$
"$cc" -std=c11 -O2 -g -Wall -Wextra -Wshadow -Wno-unused-parameter -fno-omit-frame-pointer \
  -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-sanitize-address-use-after-scope -DSPMV_AVX512_EMU \
  -I"$root/include" -I"$root/src/kernels" -I"$root/src/kernels/avx512" \
  "$here/avx512_check.c" "$root/src/kernels/avx512/sell_avx512.c" "$root/src/kernels/avx512/crs_avx512.c" \
  "$root/src/kernels/avx512/avx512_kernels.c" "$root/src/kernels/ref/sell_ref.c" "$root/src/kernels/ref/crs_ref.c" \
  -lm -o "$out"
status=0
"$out" || status=$?
rm -f "$out"
exit $status
