#!/usr/bin/env bash
# Check the inner loops of the built SVE kernels against Alappat et al., PMBS 2020, Sect. IV, reading
# `objdump -d` of the objects, and print the instructions per inner-loop iteration.
#
#   scripts/check-sve-inner-loop.sh [--objdump PROG] [BUILD_DIR | OBJECT...]     (default BUILD_DIR: build-sve)
#
# Loops are the natural loops of each function's control-flow graph (back edge = a branch to a block that
# dominates it); an innermost loop holds no other loop's header.
# SELL-C-sigma (functions sell_sve_*): every innermost loop must be, per VL of rows and per accumulator, exactly
# one index load (ld1sw), one gather (ld1d with z-register offsets), one contiguous value load (ld1d; clang may
# use ld1b) and one FMA (fmla/fmad), with no horizontal add (faddv/fadda/...), no scalar floating-point
# instruction and no vector spill -- or the 16-bit-index form (ld1h instead of ld1sw) or the run-column form
# (a predicated contiguous ld1d of x instead of index load and gather), and each of the three with value indices
# (the value load an ld1b of one-byte indices into .d lanes plus a gather from the value table); sell_sve_c<k> must
# have loops of each of the six forms with k accumulators (versioned copies allowed), sell_sve_cm with 8, 4, 2 and 1
# (its blocks).
# CRS (crs_sve): innermost loops with U accumulators each have U whilelt, ld1sw, gathers, ld1d and FMAs, no
# horizontal add and no scalar FP (the one faddv per row sits outside); the function has a faddv.
# Needs an optimized build (-O1 and up; at -O0 the accumulators live on the stack and the check fails).
# Exit status 0: all checks passed; 1: a check failed; 2: usage or tool error. ctest runs it (test sve_inner_loop,
# registered in cmake/SpmvIsa.cmake), scripts/test-sve.sh prints its counts.
set -euo pipefail

objdump=
args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --objdump) objdump="$2"; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -gt 0 ] || args=(build-sve)
if [ -z "$objdump" ]; then
    for o in aarch64-linux-gnu-objdump objdump; do
        if command -v "$o" >/dev/null 2>&1; then objdump=$o; break; fi
    done
fi
[ -n "$objdump" ] || { echo "check-sve-inner-loop: no objdump found" >&2; exit 2; }

objs=()
for a in "${args[@]}"; do
    if [ -d "$a" ]; then
        while IFS= read -r f; do objs+=("$f"); done < <(find "$a" -path '*spmv_k_sve.dir*' -name '*.o' | sort)
    elif [ -f "$a" ]; then
        objs+=("$a")
    else
        echo "check-sve-inner-loop: $a: no such file or folder" >&2; exit 2
    fi
done
[ ${#objs[@]} -gt 0 ] || { echo "check-sve-inner-loop: no SVE kernel objects (spmv_k_sve) under ${args[*]}" >&2; exit 2; }

"$objdump" -d --no-show-raw-insn "${objs[@]}" | awk '
function hex(s,    i, c, v) {
    v = 0; s = tolower(s)
    for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
    return v
}
function isbranch(m) { return m ~ /^(b|b\..*|cbz|cbnz|tbz|tbnz|ret|br|braa.*|retaa|retab)$/ }
function iscond(m) { return m ~ /^(b\..*|cbz|cbnz|tbz|tbnz)$/ }
# branch target of instruction i as an instruction index, 0 if none or outside the function
function target(i,    t) {
    if (mn[i] !~ /^(b|b\..*|cbz|cbnz|tbz|tbnz)$/ || !match(op[i], /[0-9a-f]+ </)) return 0
    t = hex(substr(op[i], RSTART, RLENGTH - 2))
    return (t in at) ? at[t] : 0
}
function intersect(b1, b2) {
    while (b1 != b2) {
        while (po[b1] < po[b2]) b1 = idom[b1]
        while (po[b2] < po[b1]) b2 = idom[b2]
    }
    return b1
}
function dominates(h, u) {
    while (1) { if (u == h) return 1; if (u == 1) return 0; u = idom[u] }
}
function sortks(s,    a, m, i, j, t, r) {
    m = split(s, a, " ")
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 > a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    r = ""; for (i = 1; i <= m; i++) if (i == 1 || a[i] != a[i - 1]) r = r " " a[i] # distinct (versioned copies)
    return r
}
# analyse the function collected in fn, ad[], mn[], op[], n
function finish(    i, j, k, b, t, nb, lead, blk, bs, be, ns, sp, stk, it, vis, npo, rpo, changed, nw, p, u, h,
                    nloop, hdr, inl, innerok, cnt, ld1sw, gat, ld1d, fma, hadd, sfp, wl, spill, other, note, ok, ks, want,
                    faddv, fam, perv, q, nq, lo, hi, x) {
    if (fn == "" || fn !~ /^(sell_sve_|crs_sve)/) { n = 0; split("", at); return }
    fam = (fn ~ /^sell_sve_/) ? "sell" : "crs"
    seenfam[fam] = 1
    # basic blocks
    split("", lead); lead[1] = 1; faddv = 0
    for (i = 1; i <= n; i++) {
        if (mn[i] == "faddv") faddv++
        t = target(i); if (t) lead[t] = 1
        if (isbranch(mn[i]) && i < n) lead[i + 1] = 1
    }
    nb = 0; split("", blk)
    for (i = 1; i <= n; i++) { if (i in lead) { nb++; bs[nb] = i }; blk[i] = nb; be[nb] = i }
    # edges
    split("", nsucc); split("", npred); split("", succ); split("", pred)
    for (b = 1; b <= nb; b++) {
        i = be[b]; t = target(i)
        if (t) addedge(b, blk[t])
        if (i < n && (!isbranch(mn[i]) || iscond(mn[i]))) addedge(b, b + 1)
    }
    # depth-first postorder from the entry (iterative)
    split("", vis); split("", po); split("", it); npo = 0; sp = 1; stk[1] = 1; vis[1] = 1; it[1] = 0
    while (sp > 0) {
        b = stk[sp]
        if (it[b] < nsucc[b]) {
            it[b]++; u = succ[b, it[b]]
            if (!(u in vis)) { vis[u] = 1; it[u] = 0; stk[++sp] = u }
        } else { po[b] = ++npo; rpo[npo] = b; sp-- }
    }
    # immediate dominators (Cooper, Harvey, Kennedy)
    split("", idom); idom[1] = 1; changed = 1
    while (changed) {
        changed = 0
        for (k = npo; k >= 1; k--) {
            b = rpo[k]; if (b == 1) continue
            nw = 0
            for (j = 1; j <= npred[b]; j++) {
                p = pred[b, j]
                if (!(p in idom)) continue
                nw = nw ? intersect(p, nw) : p
            }
            if (nw && idom[b] != nw) { idom[b] = nw; changed = 1 }
        }
    }
    # natural loops: back edge u -> h with h dominating u; body = h + blocks reaching u without passing h
    nloop = 0; split("", hdr); split("", inl)
    for (u = 1; u <= nb; u++) {
        if (!(u in idom)) continue
        for (j = 1; j <= nsucc[u]; j++) {
            h = succ[u, j]
            if (!(h in idom) || !dominates(h, u)) continue
            x = 0
            for (k = 1; k <= nloop; k++) if (hdr[k] == h) x = k
            if (!x) { x = ++nloop; hdr[x] = h; inl[x, h] = 1 }
            nq = 0
            if (!((x, u) in inl)) { inl[x, u] = 1; q[++nq] = u }
            while (nq > 0) {
                b = q[nq--]
                for (k = 1; k <= npred[b]; k++) { p = pred[b, k]; if ((p in idom) && !((x, p) in inl)) { inl[x, p] = 1; q[++nq] = p } }
            }
        }
    }
    ks = ""
    for (x = 1; x <= nloop; x++) {
        innerok = 1
        for (k = 1; k <= nloop; k++) if (k != x && ((x, hdr[k]) in inl)) innerok = 0
        if (!innerok) continue
        cnt = ld1sw = gat = ld1d = fma = hadd = sfp = wl = spill = vib = 0; lo = -1; hi = -1
        for (i = 1; i <= n; i++) {
            if (!((x, blk[i]) in inl)) continue
            cnt++
            if (lo < 0 || ad[i] < lo) lo = ad[i]
            if (ad[i] > hi) hi = ad[i]
            if (mn[i] == "ld1sw" && op[i] !~ /\[[^]]*z[0-9]+\.d/) ld1sw++
            else if (mn[i] ~ /^ld(ff)?1/ && op[i] ~ /\[[^]]*z[0-9]+\.d/) gat++
            else if (mn[i] ~ /^ld(nt)?1[bhwd]$/) { # contiguous (clang may load doubles with ld1b: into .b lanes)
                ld1d++
                if (mn[i] == "ld1b" && op[i] ~ /^\{ *z[0-9]+\.d/) vib++ # value indices: bytes widened to .d lanes
            }
            else if (mn[i] ~ /^(ldr|str)$/ && op[i] ~ /^[zp][0-9]+/) spill++
            else if (mn[i] ~ /^(fmla|fmad)$/) fma++
            else if (mn[i] ~ /^(faddv|fadda|fmaxv|fminv|fmaxnmv|fminnmv|uaddv|saddv)$/) hadd++
            else if (mn[i] ~ /^whilel[eost]$/) wl++
            if ((mn[i] ~ /^f/ && op[i] ~ /^[hsd][0-9]+/) || (mn[i] ~ /^(ldr|ldur|ldp|str|stur|stp)$/ && op[i] ~ /^[hsdq][0-9]+/)) sfp++
        }
        other = cnt - ld1sw - gat - ld1d - fma - wl - spill
        note = ""; kind = "gather"
        ok = (gat > 0 && ld1sw == gat && ld1d == gat && fma == gat && hadd == 0 && sfp == 0 && spill == 0 && vib == 0)
        if (fam == "crs" && wl != gat) ok = 0
        # SELL with 16-bit indices: ld1h offsets (contiguous) + gather + ld1d values + fmla per accumulator
        if (!ok && fam == "sell" && gat > 0 && ld1sw == 0 && ld1d == 2 * gat && fma == gat && hadd == 0 && sfp == 0 && spill == 0 && vib == 0) { ok = 1; kind = "gather16" }
        # SELL run columns: predicated contiguous ld1d of x + ld1d values + fmla per accumulator, no gather
        if (!ok && fam == "sell" && gat == 0 && ld1sw == 0 && fma > 0 && ld1d == 2 * fma && hadd == 0 && sfp == 0 && spill == 0 && vib == 0) { ok = 1; kind = "runs" }
        # the same three forms with value indices (spmv_sell.val8): the contiguous value load becomes an ld1b of
        # the indices (into .d lanes) plus a gather from the value table, per accumulator
        if (!ok && fam == "sell" && vib > 0 && vib == fma && hadd == 0 && sfp == 0 && spill == 0) {
            if (ld1sw == fma && gat == 2 * fma && ld1d == fma) { ok = 1; kind = "gatherVI" }
            else if (ld1sw == 0 && gat == 2 * fma && ld1d == 2 * fma) { ok = 1; kind = "gat16VI" }
            else if (ld1sw == 0 && gat == fma && ld1d == 2 * fma) { ok = 1; kind = "runsVI" }
        }
        if (gat == 0 && kind != "runs") note = " (no gather: a scalar or unexpected loop)"
        if (hadd) note = note " (horizontal add in the inner loop)"
        if (sfp) note = note " (scalar FP instruction in the inner loop)"
        if (spill) note = note " (" spill " vector register spill/fill)"
        perv = (gat > 0) ? sprintf(" = %.2f per VL of %s", cnt / (kind ~ /VI$/ ? fma : gat), fam == "sell" ? "rows" : "entries") : ""
        printf "%-12s %-8s loop 0x%x-0x%x: %2d instructions per iteration, %d accumulator(s): %d ld1sw, %d gather ld1d, %d ld1d (contiguous), %d fmla/fmad, %d whilelt, %d other%s: %s%s\n", \
            fn, kind, lo, hi, cnt, kind ~ /^(runs|gatherVI|gat16VI|runsVI)$/ ? fma : gat, ld1sw, gat, ld1d, fma, wl, other, perv, ok ? "ok" : "FAIL", note
        if (!ok) bad++
        if (kind == "gather") ks = ks " " gat; else if (kind == "gather16") ks16 = ks16 " " gat; else if (kind == "runs") ksr = ksr " " fma
        else if (kind == "gatherVI") ksv = ksv " " fma; else if (kind == "gat16VI") ks16v = ks16v " " fma; else if (kind == "runsVI") ksrv = ksrv " " fma
        if (fam == "sell") nsell++
    }
    # the expected accumulator counts per SELL function (a compiler may version a loop: copies count once)
    want = ""
    if (fn ~ /^sell_sve_c[0-9]+($|\.)/) { want = fn; sub(/^sell_sve_c/, "", want); sub(/\..*/, "", want); want = " " want }
    else if (fn ~ /^sell_sve_cm($|\.)/) want = " 8 4 2 1"
    if (fam == "sell" && want != "" && sortks(ks) != sortks(want)) {
        printf "%-12s FAIL: inner loops with%s accumulators, expected%s\n", fn, sortks(ks), sortks(want); bad++
    }
    if (fam == "sell" && want != "" && sortks(ks16) != sortks(want)) {
        printf "%-12s FAIL: 16-bit-index loops with%s accumulators, expected%s\n", fn, sortks(ks16), sortks(want); bad++
    }
    if (fam == "sell" && want != "" && sortks(ksr) != sortks(want)) {
        printf "%-12s FAIL: run-column loops with%s accumulators, expected%s\n", fn, sortks(ksr), sortks(want); bad++
    }
    if (fam == "sell" && want != "" && (sortks(ksv) != sortks(want) || sortks(ks16v) != sortks(want) || sortks(ksrv) != sortks(want))) {
        printf "%-12s FAIL: value-index loops with%s /%s /%s accumulators (32-bit, 16-bit, run columns), expected%s\n", fn, sortks(ksv), sortks(ks16v), sortks(ksrv), sortks(want); bad++
    }
    ks16 = ""; ksr = ""; ksv = ""; ks16v = ""; ksrv = ""
    if (fam == "crs") {
        if (faddv == 0) { printf "%-12s FAIL: no faddv (one horizontal add per row expected)\n", fn; bad++ }
        else printf "%-12s %d faddv in the function, none in its inner loops (one per row)\n", fn, faddv
    }
    n = 0; split("", at)
}
function addedge(a, b) { succ[a, ++nsucc[a]] = b; pred[b, ++npred[b]] = a }
/^[0-9a-f]+ <[^>]+>:$/ { finish(); fn = $2; gsub(/[<>:]/, "", fn); next }
/^ *[0-9a-f]+:\t/ {
    line = $0; sub(/^ */, "", line)
    nf = split(line, f, "\t")
    a = f[1]; sub(/:$/, "", a)
    n++; ad[n] = hex(a); at[ad[n]] = n; mn[n] = f[2]; op[n] = (nf >= 3) ? f[3] : ""
    next
}
END {
    finish()
    if (!seenfam["sell"]) { print "FAIL: no sell_sve_* function in the objects"; bad++ }
    if (!seenfam["crs"]) { print "FAIL: no crs_sve function in the objects"; bad++ }
    if (seenfam["sell"] && nsell == 0) { print "FAIL: no inner loop found in the SELL kernels"; bad++ }
    print (bad ? "check-sve-inner-loop: FAILED (" bad " problem(s))" : "check-sve-inner-loop: all inner loops as the paper describes")
    exit bad ? 1 : 0
}'
