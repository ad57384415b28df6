/* Reverse Cuthill-McKee (RCM) ordering on the pattern of A + A^T.
 *
 * The symmetric pattern A + A^T is built with CXSparse (cs_di_transpose + cs_di_add, or the cs_dl versions when
 * 2 nnz exceeds the int range); SuiteSparse has no RCM routine, so the ordering is ours:
 *   1. Degrees without self loops; the nodes are ranked by (degree, index) with a stable counting sort, and the
 *      graph is relabelled by rank, each adjacency list sorted. In rank space "increasing degree, ties by index"
 *      is plain increasing label, and the minimum-degree node of a set is its smallest label.
 *   2. Components in the order of their minimum-(degree, index) node: the first node of the ranking not yet numbered
 *      is the minimum-degree node of a new component.
 *   3. Pseudo-peripheral start node (George & Liu, "An implementation of a pseudoperipheral node finder",
 *      ACM TOMS 5(3), 1979; SPARSPAK FNROOT): from the minimum-degree node, build the rooted level structure
 *      by breadth-first search; take the node of minimum degree (ties: lowest index) in the last level and build
 *      its level structure; repeat while the eccentricity (number of levels) grows.
 *   4. Cuthill-McKee breadth-first numbering, neighbours in increasing degree (ties by index), from each of: the
 *      George-Liu node r, the RCM_CANDIDATES (2) nodes of lowest (degree, index) in r's last level (the other
 *      ends of pseudo-diameters), and the component's minimum-degree node (the plain Cuthill-McKee start). The
 *      numbering with the smallest bandwidth wins, ties going to the earliest in that list. (George-Liu alone was
 *      worse than scipy's minimum-degree start on 4 of the 19 shared square matrices; with the candidates it is 1
 *      of 19, see BENCHMARKS.md.) A candidate that cannot win is not numbered in full: a Cuthill-McKee numbering
 *      goes level by level, so the last node of a level is at least the level's width away from its neighbour in
 *      the level before, and bandwidth >= the widest level; candidates whose level structure is already known
 *      (the minimum-degree start, the last node George-Liu tried) are skipped when that width reaches the best
 *      bandwidth, and every try stops as soon as its bandwidth reaches the best.
 *   5. The whole order is reversed at the end: perm[new] = old, iperm[old] = new.
 * Isolated nodes and empty rows (degree 0) form components of their own; they come first in the Cuthill-McKee
 * order and so last after the reversal. The result depends only on the pattern: deterministic.
 *
 * Cost: O(nnz(A + A^T)) for the pattern and the adjacency (plus sorting each list), then per component one
 * breadth-first search per George-Liu iteration (usually 2-3) and at most four numbering passes.
 *
 * Memory: the work arrays come from spmv__malloc and are all allocated before perm and iperm are written (so an
 * SPMV_ERR_NOMEM leaves them untouched). CXSparse allocates its matrices with the C library's malloc; every path
 * frees them.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Largest nnz(A) for the 32-bit CXSparse path (nnz(A + A^T) <= 2 nnz(A) must fit an int). Test hook: the tests lower
 * it to reach the 64-bit path with small matrices (declared there, not in a header; not thread-safe to change). */
int64_t spmv__rcm_narrow_max = INT32_MAX / 2;

#ifdef SPMV_HAVE_SUITESPARSE
#include <cs.h>

/* Cuthill-McKee is tried from the George-Liu node, from this many nodes of its last level and from the
 * minimum-degree node; the numbering with the smallest bandwidth is kept. 2 is where the bandwidths on the shared
 * test matrices stop improving (bench/rcm_vs_scipy.py); each candidate costs one breadth-first pass at most. */
#ifndef RCM_CANDIDATES
#define RCM_CANDIDATES 2
#endif

/* The symmetric pattern A + A^T as CXSparse returned it: compressed columns with 32-bit (cs_di) or 64-bit (cs_dl)
 * pointers and indices, columns unsorted, diagonal included where A has one; or A itself when its pattern is
 * symmetric already (64-bit row pointer, 32-bit columns: no copy). */
typedef struct pattern {
    int wide;      /* 0: int (cs_di), 1: cs_long_t (cs_dl), 2: A's own arrays (int64_t p, int32_t i) */
    const void *p; /* length n+1 */
    const void *i; /* length p[n] */
} pattern;

static inline int64_t pat_p(const pattern *P, int64_t k)
{
    return P->wide == 2 ? ((const int64_t *)P->p)[k]
           : P->wide    ? (int64_t)((const cs_long_t *)P->p)[k]
                        : (int64_t)((const int *)P->p)[k];
}

static inline int32_t pat_i(const pattern *P, int64_t k)
{
    return P->wide == 2 ? ((const int32_t *)P->i)[k]
           : P->wide    ? (int32_t)((const cs_long_t *)P->i)[k]
                        : (int32_t)((const int *)P->i)[k];
}

/* 1 when A's pattern is symmetric (every (i, j) has its (j, i)): binary search in row j, whose columns ascend
 * (spmv_crs invariant). Rows in parallel; O(nnz log N_nzr), no memory. Then A + A^T has A's pattern and CXSparse's
 * transpose and sum (two copies of the pattern, most of RCM's memory traffic) are skipped. */
static int pattern_symmetric(const spmv_crs *A)
{
    const int32_t n = A->rows;
    int asym = 0;
#pragma omp parallel for schedule(static) reduction(| : asym) if (A->nnz > 100000) \
    num_threads(spmv__max_threads())
    for (int32_t i = 0; i < n; i++) {
        if (asym) continue;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int32_t j = A->col[k];
            if (j == i) continue;
            int64_t lo = A->rowptr[j], hi = A->rowptr[j + 1];
            while (lo < hi) {
                const int64_t mid = lo + (hi - lo) / 2;
                if (A->col[mid] < i) lo = mid + 1;
                else hi = mid;
            }
            if (lo == A->rowptr[j + 1] || A->col[lo] != i) {
                asym = 1;
                break;
            }
        }
    }
    return !asym;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void sort_i32(int32_t *a, int64_t len)
{
    if (len > 32) {
        qsort(a, (size_t)len, sizeof *a, cmp_i32);
        return;
    }
    for (int64_t k = 1; k < len; k++) {
        int32_t v = a[k];
        int64_t j = k;
        for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

/* Level structure rooted at root over the nodes reachable from it (all unnumbered: components are numbered whole).
 * ls receives the nodes level by level (ls[0] = root); mark must be all zero on entry and is all zero again on
 * return. Returns the number of levels; *count = nodes reached, *last = offset in ls of the last level's first node,
 * *width = the most nodes in one level. */
static int32_t level_structure(int32_t root, const int64_t *adjp, const int32_t *adj, unsigned char *mark,
                               int32_t *ls, int32_t *count, int32_t *last, int32_t *width)
{
    int32_t head = 0, tail = 1, nlvl = 0, lbegin = 0, wmax = 0;
    ls[0] = root;
    mark[root] = 1;
    while (head < tail) {
        int32_t lend = tail; /* the current level is ls[head .. lend) */
        lbegin = head;
        nlvl++;
        if (lend - head > wmax) wmax = lend - head;
        for (; head < lend; head++) {
            int32_t v = ls[head];
            for (int64_t k = adjp[v]; k < adjp[v + 1]; k++) {
                int32_t u = adj[k];
                if (!mark[u]) {
                    mark[u] = 1;
                    ls[tail++] = u;
                }
            }
        }
    }
    for (int32_t k = 0; k < tail; k++) mark[ls[k]] = 0;
    *count = tail;
    *last = lbegin;
    *width = wmax;
    return nlvl;
}

/* The (up to) kmax smallest labels of list[0 .. len), ascending, into out. Returns how many. */
static int32_t smallest(const int32_t *list, int32_t len, int32_t kmax, int32_t *out)
{
    int32_t k = 0;
    for (int32_t j = 0; j < len; j++) {
        int32_t u = list[j], pos = k;
        while (pos > 0 && u < out[pos - 1]) pos--;
        if (pos >= kmax) continue;
        if (k < kmax) k++;
        for (int32_t q = k - 1; q > pos; q--) out[q] = out[q - 1];
        out[pos] = u;
    }
    return k;
}

/* Cuthill-McKee numbering of root's component from position base: seq[base ..] receives the nodes in breadth-first
 * order, each node's unnumbered neighbours in adjacency order; pos is set for them (pos < 0: unnumbered). Returns
 * the bandwidth of the numbering, max |pos[u] - pos[w]| over the edges, or gives up as soon as it reaches limit
 * (returning a value >= limit). *end = base + nodes numbered. */
static int32_t cuthill_mckee(int32_t root, const int64_t *adjp, const int32_t *adj, int32_t *seq, int32_t *pos,
                             int32_t base, int32_t limit, int32_t *end)
{
    int32_t head = base, tail = base, bw = 0;
    pos[root] = tail;
    seq[tail++] = root;
    while (head < tail) {
        int32_t w = seq[head];
        for (int64_t k = adjp[w]; k < adjp[w + 1]; k++) {
            int32_t u = adj[k];
            if (pos[u] < 0) {
                pos[u] = tail;
                seq[tail++] = u;
            }
            /* every edge is seen from its earlier-numbered end, where the later end is already numbered */
            if (pos[u] - head > bw) bw = pos[u] - head;
        }
        if (bw >= limit) break;
        head++;
    }
    *end = tail;
    return bw;
}

/* The ordering on the symmetric adjacency (no self loops) of C. n >= 1. */
static spmv_status rcm_order(const pattern *C, int32_t n, int32_t *perm, int32_t *iperm)
{
    spmv_status st = SPMV_OK;
    int64_t m = 0;
    int32_t *deg = spmv__malloc((size_t)n * sizeof *deg);       /* degree by node, then rank by node */
    int32_t *order = spmv__malloc((size_t)n * sizeof *order);   /* node by rank */
    int64_t *adjp = spmv__malloc(((size_t)n + 1) * sizeof *adjp);
    int32_t *ls = spmv__malloc((size_t)n * sizeof *ls);
    int32_t *ls2 = spmv__malloc((size_t)n * sizeof *ls2);
    int32_t *best = spmv__malloc((size_t)n * sizeof *best);
    unsigned char *mark = spmv__calloc((size_t)n, 1);
    int32_t *cnt = NULL, *adj = NULL;
    if (!deg || !order || !adjp || !ls || !ls2 || !best || !mark) {
        st = spmv__error(SPMV_ERR_NOMEM, "spmv_rcm: out of memory for the work arrays of %d nodes", (int)n);
        goto done;
    }

    /* degrees without self loops */
    int32_t maxdeg = 0;
    for (int32_t v = 0; v < n; v++) {
        int32_t d = 0;
        for (int64_t k = pat_p(C, v), e = pat_p(C, v + 1); k < e; k++) d += (pat_i(C, k) != v);
        deg[v] = d;
        m += d;
        if (d > maxdeg) maxdeg = d;
    }
    cnt = spmv__calloc((size_t)maxdeg + 1, sizeof *cnt);
    adj = spmv__malloc((size_t)m * sizeof *adj);
    if (!cnt || (m > 0 && !adj)) {
        st = spmv__error(SPMV_ERR_NOMEM, "spmv_rcm: out of memory for an adjacency of %lld entries", (long long)m);
        goto done;
    }

    /* ranking by (degree, index): stable counting sort */
    for (int32_t v = 0; v < n; v++) cnt[deg[v]]++;
    for (int32_t d = 0, s = 0; d <= maxdeg; d++) {
        int32_t c = cnt[d];
        cnt[d] = s;
        s += c;
    }
    for (int32_t v = 0; v < n; v++) order[cnt[deg[v]]++] = v;

    /* the graph relabelled by rank, lists ascending */
    adjp[0] = 0;
    for (int32_t r = 0; r < n; r++) adjp[r + 1] = adjp[r] + deg[order[r]];
    int32_t *rank = deg; /* degrees no longer needed */
    for (int32_t r = 0; r < n; r++) rank[order[r]] = r;
#pragma omp parallel for schedule(dynamic, 1024) if (m > 100000) num_threads(spmv__max_threads())
    for (int32_t r = 0; r < n; r++) {
        int32_t u = order[r];
        int64_t dst = adjp[r];
        for (int64_t k = pat_p(C, u), e = pat_p(C, u + 1); k < e; k++) {
            int32_t v = pat_i(C, k);
            if (v != u) adj[dst++] = rank[v];
        }
        if (dst - adjp[r] > 1) sort_i32(adj + adjp[r], dst - adjp[r]); /* adj is NULL without off-diagonal entries */
    }

    /* Cuthill-McKee order in rank labels: seq (stored in perm) by position, pos (stored in iperm) by label */
    int32_t *seq = perm, *pos = iperm;
    for (int32_t v = 0; v < n; v++) pos[v] = -1;
    int32_t numbered = 0;
    for (int32_t s0 = 0; s0 < n; s0++) {
        if (pos[s0] >= 0) continue;
        if (adjp[s0 + 1] == adjp[s0]) { /* isolated node or empty row */
            pos[s0] = numbered;
            seq[numbered++] = s0;
            continue;
        }
        /* George-Liu from s0, the component's minimum-degree node: ls holds the level structure of root, ls2 that
         * of the candidate (the smallest label = minimum degree of root's last level) */
        int32_t root = s0, count, last, width, nlvl = level_structure(root, adjp, adj, mark, ls, &count, &last, &width);
        int32_t s0_width = width, tried = -1, tried_width = 0;
        while (nlvl < count) { /* a path has nlvl == count: its end is already peripheral */
            int32_t cand = ls[last];
            for (int32_t k = last + 1; k < count; k++)
                if (ls[k] < cand) cand = ls[k];
            int32_t ccount, clast, cwidth;
            int32_t cnlvl = level_structure(cand, adjp, adj, mark, ls2, &ccount, &clast, &cwidth);
            if (cnlvl <= nlvl) {
                tried = cand;
                tried_width = cwidth;
                break;
            }
            int32_t *sw = ls;
            ls = ls2;
            ls2 = sw;
            root = cand;
            nlvl = cnlvl;
            last = clast;
        }

        /* candidates: root, the RCM_CANDIDATES smallest labels of root's last level, s0; with a lower bound on the
         * bandwidth of each (its widest level) where its level structure is known, else 0 */
        int32_t cands[2 + RCM_CANDIDATES], bound[2 + RCM_CANDIDATES], ncand = 1;
        cands[0] = root;
        ncand += smallest(ls + last, count - last, RCM_CANDIDATES, cands + 1);
        int dup = 0;
        for (int32_t c = 0; c < ncand; c++) dup |= cands[c] == s0;
        if (!dup) cands[ncand++] = s0;
        for (int32_t c = 0; c < ncand; c++) {
            bound[c] = 0;
            if (c > 0 && cands[c] == s0) bound[c] = s0_width;
            if (c > 0 && cands[c] == tried) bound[c] = tried_width;
        }

        int32_t base = numbered, end = base, bestbw = INT32_MAX;
        int have = 0; /* seq[base ..) and pos hold the best numbering so far (else it is saved in best) */
        for (int32_t c = 0; c < ncand; c++) {
            if (bound[c] >= bestbw) continue;
            if (have) memcpy(best, seq + base, (size_t)count * sizeof *best);
            for (int32_t k = base; k < end; k++) pos[seq[k]] = -1;
            int32_t bw = cuthill_mckee(cands[c], adjp, adj, seq, pos, base, bestbw, &end);
            have = bw < bestbw; /* completed with a smaller bandwidth */
            if (have) bestbw = bw;
        }
        if (!have) { /* the last try lost or was cut short: restore the best */
            for (int32_t k = base; k < end; k++) pos[seq[k]] = -1;
            memcpy(seq + base, best, (size_t)count * sizeof *best);
            for (int32_t k = base; k < base + count; k++) pos[seq[k]] = k;
        }
        numbered = base + count;
    }

    /* reversed, back to node indices: perm[new] = old, iperm[old] = new */
    for (int32_t i = 0, j = n - 1; i < j; i++, j--) {
        int32_t a = seq[i];
        seq[i] = seq[j];
        seq[j] = a;
    }
    for (int32_t i = 0; i < n; i++) perm[i] = order[seq[i]];
    for (int32_t i = 0; i < n; i++) iperm[perm[i]] = i;

done:
    spmv__free(deg);
    spmv__free(order);
    spmv__free(adjp);
    spmv__free(ls);
    spmv__free(ls2);
    spmv__free(best);
    spmv__free(mark);
    spmv__free(cnt);
    spmv__free(adj);
    return st;
}
#endif /* SPMV_HAVE_SUITESPARSE */

spmv_status spmv_rcm(const spmv_crs *A, int32_t *perm, int32_t *iperm)
{
    if (!A) return spmv__error(SPMV_ERR_ARG, "spmv_rcm: argument A is NULL");
    if (!perm) return spmv__error(SPMV_ERR_ARG, "spmv_rcm: argument perm is NULL");
    if (!iperm) return spmv__error(SPMV_ERR_ARG, "spmv_rcm: argument iperm is NULL");
    if (A->rows != A->cols)
        return spmv__error(SPMV_ERR_ARG, "spmv_rcm: matrix is %d x %d, RCM needs a square matrix", (int)A->rows,
                           (int)A->cols);
#ifndef SPMV_HAVE_SUITESPARSE
    return spmv__error(SPMV_ERR_UNSUPPORTED, "spmv_rcm: library built without SuiteSparse (CXSparse)");
#else
    int32_t n = A->rows;
    if (n < 0) return spmv__error(SPMV_ERR_ARG, "spmv_rcm: matrix is %d x %d (negative size)", (int)n, (int)n);
    if (n == 0) return SPMV_OK;
    if (!A->rowptr || (A->rowptr[n] > 0 && !A->col))
        return spmv__error(SPMV_ERR_ARG, "spmv_rcm: matrix arrays rowptr/col are NULL");

    _Static_assert(sizeof(cs_long_t) == sizeof(int64_t), "CXSparse cs_long_t must be 64 bits");
    _Static_assert(sizeof(int) == sizeof(int32_t), "int must be 32 bits");
    int64_t nnz = A->rowptr[n];
    spmv_status st;

    /* A's pattern seen by CXSparse as a compressed-column matrix: the CRS of A is the CSC of A^T, which is just as
     * good since the pattern wanted is A + A^T. With nnz(A + A^T) <= 2 nnz within int range the 32-bit cs_di
     * borrows the column indices and copies the row pointer; otherwise the 64-bit cs_dl borrows the row pointer
     * and widens the indices. No values: cs_add then builds the pattern only (no cancellation). */
    if (pattern_symmetric(A)) {
        pattern P = {2, A->rowptr, A->col};
        st = rcm_order(&P, n, perm, iperm);
    } else if (nnz <= spmv__rcm_narrow_max) {
        int *Ap = spmv__malloc(((size_t)n + 1) * sizeof *Ap);
        if (!Ap) return spmv__error(SPMV_ERR_NOMEM, "spmv_rcm: out of memory for a row pointer of %d rows", (int)n);
        for (int32_t k = 0; k <= n; k++) Ap[k] = (int)A->rowptr[k];
        int none = 0; /* cs_di needs a valid i pointer even for nnz = 0 */
        cs_di As = {.nzmax = nnz > 0 ? (int)nnz : 1, .m = n, .n = n, .p = Ap,
                    .i = nnz > 0 ? (int *)A->col : &none, .x = NULL, .nz = -1};
        cs_di *AT = cs_di_transpose(&As, 0);
        cs_di *C = AT ? cs_di_add(&As, AT, 1.0, 1.0) : NULL;
        cs_di_spfree(AT);
        spmv__free(Ap);
        if (!C)
            return spmv__error(SPMV_ERR_NOMEM,
                               "spmv_rcm: CXSparse out of memory for the pattern of A + A^T (%d rows)", (int)n);
        pattern P = {0, C->p, C->i};
        st = rcm_order(&P, n, perm, iperm);
        cs_di_spfree(C);
    } else {
        cs_long_t none = 0, *Ai = spmv__malloc((size_t)nnz * sizeof *Ai);
        if (nnz > 0 && !Ai)
            return spmv__error(SPMV_ERR_NOMEM, "spmv_rcm: out of memory for %lld indices", (long long)nnz);
        for (int64_t k = 0; k < nnz; k++) Ai[k] = A->col[k];
        cs_dl As = {.nzmax = nnz > 0 ? nnz : 1, .m = n, .n = n, .p = (cs_long_t *)A->rowptr,
                    .i = nnz > 0 ? Ai : &none, .x = NULL, .nz = -1};
        cs_dl *AT = cs_dl_transpose(&As, 0);
        cs_dl *C = AT ? cs_dl_add(&As, AT, 1.0, 1.0) : NULL;
        cs_dl_spfree(AT);
        spmv__free(Ai);
        if (!C)
            return spmv__error(SPMV_ERR_NOMEM,
                               "spmv_rcm: CXSparse out of memory for the pattern of A + A^T (%d rows)", (int)n);
        pattern P = {1, C->p, C->i};
        st = rcm_order(&P, n, perm, iperm);
        cs_dl_spfree(C);
    }
    return st;
#endif
}
