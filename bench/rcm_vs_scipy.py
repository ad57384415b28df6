#!/usr/bin/python3
"""Bandwidth after our reverse Cuthill-McKee (spmv_rcm, through spmv-rcm-bench) against scipy's
scipy.sparse.csgraph.reverse_cuthill_mckee on every square real matrix of the shared matrices folder, both on the
pattern of A + A^T (scipy: symmetric_mode=True), plus the run time of RCM on a randomly permuted HPCG 64^3 matrix.

Quality bar (issue 3): ours no worse than scipy on at least 80% of the matrices and never more than 1.5x worse;
RCM of the randomly permuted HPCG 64^3 under 2 s. Prints a Markdown table for BENCHMARKS.md; exit status 1 when the
bar fails.

Run with Debian's python3-scipy:  /usr/bin/python3 bench/rcm_vs_scipy.py [--bench build/bench/spmv-rcm-bench]
        [--matrices ../shared/matrices] [--hpcg 64] [--repeat 3]
Our permutation is written by spmv-rcm-bench (--perm-dir) and its bandwidth recomputed here from scipy's reading of
the file, so the two columns are measured the same way.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_bench():
    hits = sorted(glob.glob(os.path.join(ROOT, "build*", "bench", "spmv-rcm-bench")), key=os.path.getmtime)
    return hits[-1] if hits else None


def pattern_sym(A):
    """Pattern of A + A^T (explicit zeros kept, no cancellation), CSR with unit values."""
    A = sp.coo_matrix(A)
    P = sp.csr_matrix((np.ones(A.nnz), (A.row, A.col)), shape=A.shape)
    S = (P + P.T).tocsr()
    S.data[:] = 1.0
    return S


def bandwidth(S, iperm):
    C = S.tocoo()
    if C.nnz == 0:
        return 0
    return int(np.abs(iperm[C.row] - iperm[C.col]).max())


def inverse(perm):
    ip = np.empty(len(perm), dtype=np.int64)
    ip[perm] = np.arange(len(perm))
    return ip


def hpcg_pattern(n):
    """HPCG 27-point pattern on n^3, index ix + n*(iy + n*iz)."""
    T = sp.diags([1, 1, 1], [-1, 0, 1], shape=(n, n), format="csr")
    return sp.kron(T, sp.kron(T, T, format="csr"), format="csr")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=find_bench(), help="spmv-rcm-bench executable")
    ap.add_argument("--matrices", default=os.path.join(ROOT, "..", "shared", "matrices"))
    ap.add_argument("--hpcg", type=int, default=64, help="grid size of the timed HPCG matrix (0: none)")
    ap.add_argument("--repeat", type=int, default=3, help="timing runs (best is reported)")
    args = ap.parse_args()
    if not args.bench or not os.access(args.bench, os.X_OK):
        sys.exit("spmv-rcm-bench not found: build it (bench/CMakeLists.txt) or pass --bench")

    files = sorted(glob.glob(os.path.join(args.matrices, "*.mtx")))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([args.bench, "--perm-dir", tmp] + files, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("spmv-rcm-bench failed:\n" + out.stderr)
        ours = {}
        for line in out.stdout.splitlines():
            if line.startswith("#"):
                continue
            f = line.split()
            ours[f[0]] = dict(n=int(f[1]), nnz=int(f[2]), bw0=int(f[3]), bw=int(f[4]))
        for path in files:
            name = os.path.basename(path)[:-4]
            if name not in ours:
                continue  # not square, complex or unreadable: spmv-rcm-bench said why
            A = scipy.io.mmread(path)
            S = pattern_sym(A)
            n = S.shape[0]
            perm = np.loadtxt(os.path.join(tmp, name + ".perm"), dtype=np.int64, ndmin=1)
            assert len(perm) == n and np.array_equal(np.sort(perm), np.arange(n)), name + ": not a permutation"
            bw_ours = bandwidth(S, inverse(perm))
            assert bw_ours == ours[name]["bw"], f"{name}: bandwidth {bw_ours} here, {ours[name]['bw']} in C"
            assert bandwidth(S, np.arange(n)) == ours[name]["bw0"], name + ": bandwidth before differs"
            p = reverse_cuthill_mckee(S, symmetric_mode=True)
            bw_scipy = bandwidth(S, inverse(np.asarray(p, dtype=np.int64)))
            rows.append((name, n, ours[name]["nnz"], ours[name]["bw0"], bw_scipy, bw_ours))

    print(f"RCM bandwidth, ours (spmv_rcm) vs scipy {scipy.__version__} reverse_cuthill_mckee, pattern of A + A^T\n")
    print("| matrix | n | nnz | bandwidth before | scipy RCM | ours | ours / scipy |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    no_worse, worst = 0, 0.0
    for name, n, nnz, bw0, bs, bo in rows:
        ratio = bo / bs if bs > 0 else (1.0 if bo == 0 else float("inf"))
        no_worse += bo <= bs
        worst = max(worst, ratio)
        mark = "" if bo <= bs else " (worse)"
        print(f"| {name} | {n} | {nnz} | {bw0} | {bs} | {bo} | {ratio:.3f}{mark} |")
    share = no_worse / len(rows) if rows else 0.0
    ok_quality = share >= 0.8 and worst <= 1.5
    print(f"\nno worse on {no_worse} of {len(rows)} ({100 * share:.1f}%, bar >= 80%); "
          f"largest ratio ours/scipy {worst:.3f} (bar <= 1.5): {'PASS' if ok_quality else 'FAIL'}")

    ok_time = True
    if args.hpcg > 0:
        out = subprocess.run([args.bench, "--hpcg", str(args.hpcg), "--repeat", str(args.repeat)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("spmv-rcm-bench --hpcg failed:\n" + out.stderr)
        f = [l for l in out.stdout.splitlines() if not l.startswith("#")][0].split()
        t, cpu = float(f[7]), float(f[8])
        ok_time = t < 2.0
        H = hpcg_pattern(args.hpcg)
        q = np.random.default_rng(42).permutation(H.shape[0])
        Hp = H[q][:, q].tocsr()
        ts = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            p = reverse_cuthill_mckee(Hp, symmetric_mode=True)
            ts.append(time.perf_counter() - t0)
        bw_s = bandwidth(Hp, inverse(np.asarray(p, dtype=np.int64)))
        try:
            load = open("/proc/loadavg").read().split()[0]
        except OSError:
            load = "?"
        print(f"\nHPCG {args.hpcg}^3 randomly permuted ({f[1]} rows, {f[2]} nnz): spmv_rcm {t:.3f} s wall "
              f"({cpu:.3f} s CPU), best of {args.repeat}, bandwidth {f[3]} -> {f[4]} (bar < 2 s: "
              f"{'PASS' if ok_time else 'FAIL'}); scipy {min(ts):.3f} s, bandwidth {bw_s}; load average {load}, "
              f"{os.cpu_count()} CPUs")
    return 0 if ok_quality and ok_time else 1


if __name__ == "__main__":
    sys.exit(main())
