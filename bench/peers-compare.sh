#!/usr/bin/env bash
# spmv against the peers (../shared/peers) in one interleaved run, medians over repeats:
#
#   bench/peers-compare.sh GROUP... > LOG.txt      then      bench/peers_summary.py LOG.txt
#
# GROUPs: incache (HPCG 16^3 and 32^3, every shared matrix with >= 10 000 nonzeros), memory (HPCG 128^3, lap2d
# 2000^2), irregular (powerlaw 2M, longrows 2M, arrow, rajat01, pow, karate, hangGlider_2), or matrix files.
# For each repeat (REPEATS, default 3): a read-only STREAM (`stream 1024 6`, kernel=sum) at each thread count (and the
# same with its arrays on huge pages, "pages=huge", reported apart), then
# for each matrix and each thread count (THREADS, default "1 2"): spmv (bench_spmv: CRS and the SELL-C-sigma
# configurations SPMV_CONFIGS, default "-C 8,16,32 -s 1,256,rows") and the peers (PEERS, default "ref-csr
# petsc-aij petsc-sell eigen scipy mkl mkl-intelpath"; scipy at 1 thread only). Every line is printed with
# "rep=R" in front. SPMV_ARCHS (e.g. "avx2 ref") also times spmv with those kernel families forced (SPMV_ARCH);
# their lines are named "arch-FAMILY:spmv-..." (peers_summary.py reports them apart). Generated matrices go to MATDIR (default ../shared/peers/matrices, git-ignored there); the
# binary CSR cache (PEERS_BINCACHE=1) saves re-parsing large files. The spmv checkout is this one (build/, Release,
# built beforehand; make -C ../shared/peers SPMV_DIR=$PWD bench_spmv links it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
peers=${PEERS_DIR:-$here/../shared/peers}
shared=${SHARED_MATRICES:-$here/../shared/matrices}
matdir=${MATDIR:-$peers/matrices}
REPEATS=${REPEATS:-3}
THREADS=${THREADS:-"1 2"}
PEER_LIST=${PEERS:-"ref-csr petsc-aij petsc-sell eigen scipy mkl mkl-intelpath"}
SPMV_CONFIGS=${SPMV_CONFIGS:-"-C 8,16,32 -s 1,256,rows"}
export PEERS_BINCACHE=${PEERS_BINCACHE:-1} PEERS_MIN_TIME=${PEERS_MIN_TIME:-0.5}
mkdir -p "$matdir"

gen() { # name -> path (generated on demand)
    local f="$matdir/$1.mtx"
    if [ ! -s "$f" ]; then
        case $1 in
            hpcg_*) "$peers/gen_hpcg.py" hpcg "${1#hpcg_}" "${1#hpcg_}" "${1#hpcg_}" "$f" >&2 ;;
            lap2d_*) "$peers/gen_hpcg.py" lap2d "${1#lap2d_}" "${1#lap2d_}" "$f" >&2 ;;
            powerlaw_2M) "$peers/gen_irregular" powerlaw 2097152 16 2.3 12345 "$f" >&2 ;;
            longrows_2M) "$peers/gen_irregular" longrows 2097152 12 8 1000000 777 "$f" >&2 ;;
        esac
    fi
    echo "$f"
}

mats=()
for g in "$@"; do
    case $g in
        incache)
            mats+=("$(gen hpcg_16)" "$(gen hpcg_32)")
            for m in bcsstk13 Groebner_id2003_aug sparse-images-1024_subset bayer10 rajat01 cryg2500 arrow zenios \
                     bcspwr10 G51 mbeacxc hangGlider_2 pow; do mats+=("$shared/$m.mtx"); done ;;
        memory) mats+=("$(gen hpcg_128)" "$(gen lap2d_2000)") ;;
        irregular)
            mats+=("$(gen powerlaw_2M)" "$(gen longrows_2M)")
            for m in arrow rajat01 pow karate hangGlider_2; do mats+=("$shared/$m.mtx"); done ;;
        *) mats+=("$g") ;;
    esac
done
[ ${#mats[@]} -gt 0 ] || { echo "usage: $0 incache|memory|irregular|FILE.mtx ..." >&2; exit 2; }

echo "# $(date -u +%FT%TZ) spmv $(git -C "$here" rev-parse --short HEAD) on $(lscpu | sed -n 's/^Model name: *//p')"
echo "# repeats $REPEATS, threads $THREADS, peers $PEER_LIST, spmv configurations $SPMV_CONFIGS"
for rep in $(seq 1 "$REPEATS"); do
    for t in $THREADS; do
        OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores "$peers/stream" 1024 6 2>/dev/null |
            grep 'kernel=sum' | sed "s/^/rep=$rep /"
        # the same on huge pages (glibc >= 2.35 advises MADV_HUGEPAGE for malloc's mmap chunks), as spmv's own big
        # arrays are (src/util/alloc.c): a second figure, not the roofline's (bench/read-bw-vs-stream.sh)
        GLIBC_TUNABLES=glibc.malloc.hugetlb=1 OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores \
            "$peers/stream" 1024 6 2>/dev/null | grep 'kernel=sum' | sed "s/^/rep=$rep pages=huge /"
    done
    for m in "${mats[@]}"; do
        for t in $THREADS; do
            # shellcheck disable=SC2086
            OMP_PROC_BIND=close OMP_PLACES=cores "$peers/bench_spmv" "$m" -t "$t" $SPMV_CONFIGS 2>/dev/null |
                sed "s/^/rep=$rep /" || true
            pl=$PEER_LIST
            [ "$t" = 1 ] || pl=${pl//scipy/}
            for a in ${SPMV_ARCHS:-}; do
                # shellcheck disable=SC2086
                SPMV_ARCH=$a OMP_PROC_BIND=close OMP_PLACES=cores "$peers/bench_spmv" "$m" -t "$t" $SPMV_CONFIGS \
                    2>/dev/null | sed "s/^/rep=$rep /; s/peer=spmv-/peer=arch-$a:spmv-/" || true
            done
            PEERS="$pl" "$peers/run_peers.sh" "$m" "$t" 2>/dev/null | sed "s/^/rep=$rep /" || true
        done
    done
done
