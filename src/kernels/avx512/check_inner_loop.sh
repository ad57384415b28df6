#!/bin/sh
# Checks the machine code of the AVX-512 kernels (objdump of the built objects): in each SELL kernel the hottest
# loop (one copy per alpha/beta path) holds U*C/8 gathers (vgatherdpd), as many zmm FMAs and index loads, no stack
# access (the accumulators stay in registers) and no scalar double arithmetic; the kernel writes y with masked stores (last chunk), scatters (original order) and, in
# the -nt variants, streaming stores; the CRS kernel's row loop holds 4 gathers and 4 FMAs (MVE) and a masked
# gather for the remainder. Optimized builds only (at -O0 the accumulators live on the stack).
# Usage: check_inner_loop.sh [--objdump OBJDUMP] OBJECT...
set -eu
objdump=objdump
if [ "${1:-}" = "--objdump" ]; then objdump=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [--objdump OBJDUMP] OBJECT..." >&2; exit 2; }
dis=$(mktemp)
trap 'rm -f "$dis"' EXIT
for o in "$@"; do "$objdump" -d --no-show-raw-insn -M intel "$o"; done >"$dis"

fail=0
# loops FUNC: per innermost loop of FUNC (a backward conditional branch with no other one inside its body),
# "gathers fmas stack scalar idx zmm" counted over the loop body: stack = rsp-relative operands, idx = unmasked
# ymm loads (column indices), zmm = 64-byte memory operands (the values; more would be spilled accumulators)
loops() {
  awk -v fn="<$1>:" '
    function hex(h,  i, v) { v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
    $2 == fn { infn = 1; next }
    infn && NF == 0 { infn = 0 }
    infn && $1 ~ /^[0-9a-f]+:$/ {
      a = hex(substr($1, 1, length($1) - 1)); n++; addr[n] = a; txt[n] = $0
      if ($2 ~ /^j/ && $2 != "jmp" && $3 ~ /^[0-9a-f]+$/ && hex($3) < a) { nl++; lt[nl] = hex($3); la[nl] = a }
    }
    END {
      for (l = 1; l <= nl; l++) {
        inner = 1
        for (m = 1; m <= nl; m++) if (m != l && lt[m] >= lt[l] && la[m] < la[l]) inner = 0
        if (!inner) continue
        g = f = s = sc = ix = z = 0
        for (i = 1; i <= n; i++) if (addr[i] >= lt[l] && addr[i] <= la[l]) {
          if (txt[i] ~ /vgatherdpd/) g++
          if (txt[i] ~ /vfmadd[0-9]+pd[ \t]+zmm/) f++
          if (txt[i] ~ /\[rsp/) s++
          if (txt[i] ~ /ZMMWORD PTR/) z++
          if (txt[i] ~ /[ \t]v(add|mul|fmadd[0-9]+)sd[ \t]/) sc++
          if (txt[i] ~ /vmov(dq[au](32|64)?|[au]p[sd])[ \t]+ymm[0-9]+,YMMWORD PTR/) ix++
        }
        print g, f, s, sc, ix, z
      }
    }' "$dis"
}
has() { awk -v fn="<$1>:" '$2 == fn { infn = 1; next } infn && NF == 0 { infn = 0 } infn' "$dis" | grep -Eq "$2"; }

check_sell() { # FUNC EXPECTED_GATHERS
  # a good loop: k*e gathers, one zmm FMA, one index load and one 64-byte load (the values) per gather, no other
  # zmm memory operand and no rsp-relative one (no spill), no scalar arithmetic; one per alpha/beta path (3)
  good=$(loops "$1" | awk -v e="$2" '$1 >= e && $1 % e == 0 && $2 == $1 && $5 == $1 && $6 == $1 && $3 == 0 && $4 == 0 { ok++ }
                                     END { print ok + 0 }')
  set -- "$1" "$2" "$good"
  if [ "$3" -lt 3 ]; then
    echo "FAIL $1: want 3 innermost loops (one per alpha/beta path) with k*$2 gathers, as many zmm FMAs and"
    echo "     index loads, no stack access and no scalar arithmetic; found $3:"
    loops "$1" | sed 's/^/    gathers fmas stack scalar idx zmm: /'
    fail=1
  else
    echo "ok   $1: $3 loop(s) with $2 x (vgatherdpd + vfmadd231pd zmm), no stack or scalar access"
  fi
}
need() { # FUNC REGEX WHAT
  if has "$1" "$2"; then echo "ok   $1: $3"; else echo "FAIL $1: no $3"; fail=1; fi
}

for c in 8 16 32 64; do
  case $c in 8) u=4 ;; *) u=2 ;; esac # SELL_AVX512_UNROLL_C* in sell_avx512.c
  e=$((c / 8 * u))
  for v in sell_avx512_c$c sell_avx512_nt_c$c; do
    check_sell $v $e
    need $v 'vmovupd[ \t]+ZMMWORD PTR \[[^]]*\]\{k[1-7]\}' "masked store (last chunk)"
    need $v 'vscatterdpd' "scatter (original order)"
  done
  need sell_avx512_nt_c$c 'vmovntpd' "streaming store"
  if has sell_avx512_c$c 'vmovntpd'; then echo "FAIL sell_avx512_c$c: streaming store in the normal variant"; fail=1; fi
done
check_sell crs_avx512 4
need crs_avx512 'vgatherdpd[ \t]+zmm[0-9]+\{k[1-7]\}' "gather"
need crs_avx512 'vmovdqu32[ \t]+ymm[0-9]+\{k[1-7]\}\{z\}' "masked index load (remainder)"
exit $fail
