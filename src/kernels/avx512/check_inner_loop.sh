#!/bin/sh
# Holds every AVX-512 kernel's declared shape (tests/kernel_shapes prints the descriptors: C, mve, x access, runs,
# nt) against its machine code (objdump of the built objects). For each SELL kernel, sell_avx512_<x>[_nt]_c<C>:
#  - gather columns: innermost loops (one per alpha/beta path, 3) with e = C/8 * mve zmm FMAs and, for x = gather, e
#    vgatherdpd and e index loads; for x = emul, no gather, e vinsertf64x4 and 8e scalar x loads (vmovsd/vmovhpd);
#  - run columns (runs = 1): 3 innermost loops with e masked zmm loads of x and e FMAs, no index load; and 3 over the
#    full run columns with e unmasked x loads, e value loads and e FMAs, no mask, index or gather;
#  - no stack access in those loops (the accumulators stay in registers), no scalar double arithmetic;
#  - masked stores (last chunk); a scatter (gather variant, original order); streaming stores exactly in nt ones.
# CRS (crs_avx512*): a loop of mve scalar FMAs (vfmadd...sd), no gather; prefetcht1 exactly in the -pf kernels.
# SELL: prefetcht1 present (the software-prefetch path for big matrices).
# Optimized builds only (at -O0 the accumulators live on the stack).
# Usage: check_inner_loop.sh --shapes KERNEL_SHAPES_BINARY [--objdump OBJDUMP] OBJECT...
set -eu
objdump=objdump
shapes=
while [ $# -gt 0 ]; do
  case $1 in
    --objdump) objdump=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] && [ -n "$shapes" ] || { echo "usage: $0 --shapes BIN [--objdump OBJDUMP] OBJECT..." >&2; exit 2; }
dis=$(mktemp)
decl=$(mktemp)
trap 'rm -f "$dis" "$decl"' EXIT
for o in "$@"; do "$objdump" -d --no-show-raw-insn -M intel "$o"; done >"$dis"
"$shapes" | awk '$1 == "avx512"' >"$decl"
[ -s "$decl" ] || { echo "FAIL: no avx512 kernels declared"; exit 1; }

fail=0
# loops FUNC: per innermost loop of FUNC (a backward conditional branch with no other one inside its body):
# "gathers fmas stack scalar idx zmm inserts xloads masked sfma" counted over the loop body: stack = rsp-relative
# operands, idx = unmasked ymm loads (column indices), zmm = 64-byte memory operands, inserts = vinsertf64x4,
# xloads = vmovsd/vmovhpd loads, masked = masked zeroing zmm loads, sfma = scalar FMAs
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
        g = f = s = sc = ix = z = ins = xl = mk = sf = 0
        for (i = 1; i <= n; i++) if (addr[i] >= lt[l] && addr[i] <= la[l]) {
          if (txt[i] ~ /vgatherdpd/) g++
          if (txt[i] ~ /vfmadd[0-9]+pd[ \t]+zmm/) f++
          if (txt[i] ~ /vfmadd[0-9]+sd[ \t]/) sf++
          if (txt[i] ~ /\[rsp/) s++
          if (txt[i] ~ /ZMMWORD PTR/) z++
          if (txt[i] ~ /[ \t]v(add|mul)sd[ \t]/) sc++
          if (txt[i] ~ /vmov(dq[au](32|64)?|[au]p[sd])[ \t]+ymm[0-9]+,YMMWORD PTR/) ix++
          if (txt[i] ~ /vinsertf64x4/) ins++
          if (txt[i] ~ /vmov(sd|hpd)[ \t]+xmm[0-9]+,(xmm[0-9]+,)?QWORD PTR/) xl++
          if (txt[i] ~ /vmovupd[ \t]+zmm[0-9]+\{k[1-7]\}\{z\},ZMMWORD PTR/) mk++
        }
        print g, f, s, sc, ix, z, ins, xl, mk, sf
      }
    }' "$dis"
}
has() { awk -v fn="<$1>:" '$2 == fn { infn = 1; next } infn && NF == 0 { infn = 0 } infn' "$dis" | grep -Eq "$2"; }
need() { # FUNC REGEX WHAT
  if has "$1" "$2"; then echo "ok   $1: $3"; else echo "FAIL $1: no $3"; fail=1; fi
}
count_loops() { # FUNC AWK-CONDITION -> number of innermost loops meeting it
  loops "$1" | awk "$2 { ok++ } END { print ok + 0 }"
}
report() { # FUNC N WHAT
  if [ "$2" -lt 3 ]; then
    echo "FAIL $1: want 3 innermost loops (one per alpha/beta path) with $3; found $2:"
    loops "$1" | sed 's/^/    gathers fmas stack scalar idx zmm inserts xloads masked sfma: /'
    fail=1
  else
    echo "ok   $1: $2 loops with $3"
  fi
}

while read -r fam name format C width mve x runs nt; do
  fn=$(echo "$name" | tr '-' '_' | sed 's/_C\([0-9]*\)$/_c\1/')
  if [ "$format" = crs ]; then
    n=$(count_loops "$fn" "\$10 == $mve && \$1 == 0 && \$3 == 0")
    if [ "$n" -ge 1 ]; then echo "ok   $fn: a row loop with $mve scalar FMAs (mve), no gather"
    else echo "FAIL $fn: no loop with $mve scalar FMAs (declared mve $mve)"; loops "$fn"; fail=1; fi
    case $fn in
      *_pf) need "$fn" 'prefetcht1' "software prefetch (a -pf kernel)" ;;
      *) if has "$fn" 'prefetch'; then echo "FAIL $fn: software prefetch in a kernel without -pf"; fail=1; fi ;;
    esac
    continue
  fi
  e=$((C / 8 * mve))
  if [ "$x" = gather ]; then
    n=$(count_loops "$fn" "\$1 == $e && \$2 == $e && \$5 == $e && \$6 == $e && \$3 == 0 && \$4 == 0")
    report "$fn" "$n" "$e x (index load, vgatherdpd, vfmadd231pd zmm), no stack or scalar arithmetic"
    need "$fn" 'vscatterdpd' "scatter (original order)"
  else
    n=$(count_loops "$fn" "\$1 == 0 && \$2 == $e && \$7 == $e && \$8 == 8 * $e && \$6 == $e && \$3 == 0 && \$4 == 0")
    report "$fn" "$n" "$e x (8 scalar x loads, vinsertf64x4, vfmadd231pd zmm), no gather, stack or scalar arithmetic"
  fi
  if [ "$runs" = 1 ]; then
    n=$(count_loops "$fn" "\$1 == 0 && \$2 == $e && \$9 == $e && \$5 == 0 && \$3 == 0 && \$4 == 0")
    report "$fn" "$n" "$e x (masked x load, vfmadd231pd zmm) over run columns, no index load"
    n=$(count_loops "$fn" "\$1 == 0 && \$2 == $e && \$9 == 0 && \$6 == 2 * $e && \$5 == 0 && \$3 == 0 && \$4 == 0")
    report "$fn" "$n" "$e x (unmasked x load, value load, vfmadd231pd zmm) over full run columns, no mask or index load"
  fi
  need "$fn" 'vmovupd[ \t]+ZMMWORD PTR \[[^]]*\]\{k[1-7]\}' "masked store (last chunk)"
  need "$fn" 'prefetcht1' "software prefetch (the path of big matrices, spmv_sell.prefetch)"
  if [ "$nt" = 1 ]; then need "$fn" 'vmovntpd' "streaming store"
  elif has "$fn" 'vmovntpd'; then echo "FAIL $fn: streaming store in a variant without nt"; fail=1; fi
done <"$decl"
exit $fail
