#!/usr/bin/python3
"""bench/peers_summary.py LOG.txt: the tables of bench/peers-compare.sh's log, medians over repeats.

Per matrix and thread count: spmv's best SELL-C-sigma (highest median among configurations measured in every
repeat), spmv CRS, the plain loop (ref-csr), every peer, the best peer (ref-csr is the baseline, not a peer) and the
ratios spmv best / best peer and spmv CRS / plain loop, plus the read roofline: STREAM sum bandwidth (median over the
repeats at that thread count; the same STREAM on huge pages, "pages=huge", is printed apart) / the CRS code balance
(12 + 8/N_nzr + 20/N_nzr) / 2 B/flop (alpha = 1/N_nzr), as a percentage for spmv's best, spmv's CRS (plain 32-bit
indices: the roofline of its own format) and the best peer (meaningful only for matrices far larger than the caches)."""
import collections
import statistics
import sys


def main(path):
    runs = collections.defaultdict(list)   # (matrix, treq, peer) -> [gflops]
    meta = {}
    stream = collections.defaultdict(list)
    stream_huge = collections.defaultdict(list)  # the same STREAM on huge pages (not the roofline's)
    reps = set()
    treq = None
    for line in open(path):
        f = dict(x.split("=", 1) for x in line.split() if "=" in x)
        if "kernel" in f and f.get("kernel") == "sum":
            (stream_huge if f.get("pages") == "huge" else stream)[int(f["threads"])].append(float(f["best_GBs"]))
            continue
        if "peer" not in f or "gflops" not in f:
            continue
        rep = f.get("rep", "1")
        reps.add(rep)
        m = f["matrix"]
        t = int(f["threads"])
        peer = f["peer"]
        if peer.endswith("-mpi"):
            peer = peer[:-4]
        runs[(m, t, peer)].append(float(f["gflops"]))
        meta[m] = (int(f["n"]), int(f["nnz"]))
    nrep = len(reps)
    bw = {t: statistics.median(v) for t, v in stream.items()}
    print(f"Repeats: {nrep}. Read-only STREAM (GB/s, median): " +
          ", ".join(f"{t} thread(s) {bw[t]:.1f}" for t in sorted(bw)) +
          ("; its arrays on huge pages (as spmv's, not used below): " +
           ", ".join(f"{t} thread(s) {statistics.median(v):.1f}" for t, v in sorted(stream_huge.items()))
           if stream_huge else ""))
    print()
    print("| matrix (N_nzr) | t | spmv best SELL | spmv CRS | plain loop | best peer | spmv best / best peer | "
          "spmv CRS / plain | % read roofline spmv best / spmv CRS / peer | all peers |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    mats = sorted({k[0] for k in runs}, key=lambda m: list(k[0] for k in runs).index(m))
    for m in mats:
        n, nnz = meta[m]
        nzr = nnz / n if n else 0
        for t in sorted({k[1] for k in runs if k[0] == m}):
            med = {p: statistics.median(v) for (mm, tt, p), v in runs.items() if mm == m and tt == t}
            full = {p for (mm, tt, p), v in runs.items() if mm == m and tt == t and len(v) >= nrep}
            sells = {p: g for p, g in med.items() if p.startswith("spmv-sell") and p in full}
            best_sell = max(sells.items(), key=lambda kv: kv[1]) if sells else ("-", 0.0)
            crs = med.get("spmv-crs", 0.0)
            plain = med.get("ref-csr", 0.0)
            peers = {p: g for p, g in med.items()
                     if not p.startswith("spmv") and not p.startswith("arch-") and p != "ref-csr"}
            best_peer = max(peers.items(), key=lambda kv: kv[1]) if peers else ("-", 0.0)
            spmv_best = max(best_sell[1], crs)
            roof = ""
            if nzr > 0 and t in bw:
                bc = (12 + 8 / nzr + 20 / nzr) / 2
                lim = bw[t] / bc
                roof = (f"{100 * spmv_best / lim:.0f} % / {100 * crs / lim:.0f} % / {100 * best_peer[1] / lim:.0f} % "
                        f"of {lim:.2f}")
            allp = ", ".join(f"{p} {g:.2f}" for p, g in sorted(peers.items(), key=lambda kv: -kv[1]))
            cfg = best_sell[0].replace("spmv-sell-", "")
            print(f"| {m} ({nzr:.1f}) | {t} | {best_sell[1]:.2f} ({cfg}) | {crs:.2f} | {plain:.2f} | "
                  f"{best_peer[1]:.2f} ({best_peer[0]}) | **{spmv_best / best_peer[1] if best_peer[1] else 0:.2f}** | "
                  f"{crs / plain if plain else 0:.2f} | {roof} | {allp} |")


    # forced kernel families (SPMV_ARCHS): best SELL and CRS per family against the plain loop and the reference
    archs = sorted({p.split(":")[0][5:] for (_, _, p) in runs if p.startswith("arch-")})
    if archs:
        print()
        print("Forced kernel families (SPMV_ARCH): best of SELL-C-sigma and CRS, median Gflop/s, and its ratio to the "
              "plain loop and to the reference family.")
        print()
        print("| matrix | t | " + " | ".join(archs) + " | plain loop | " +
              " | ".join(f"{a} / plain" for a in archs if a != "ref") + " | " +
              " | ".join(f"{a} / ref" for a in archs if a != "ref") + " |")
        print("|---|---|" + "---|" * (len(archs) + 1 + 2 * len([a for a in archs if a != "ref"])))
        for m in mats:
            for t in sorted({k[1] for k in runs if k[0] == m}):
                best = {}
                for a in archs:
                    v = [statistics.median(g) for (mm, tt, p), g in runs.items()
                         if mm == m and tt == t and p.startswith(f"arch-{a}:") and len(g) >= nrep]
                    best[a] = max(v) if v else 0.0
                plain = statistics.median(runs.get((m, t, "ref-csr"), [0.0]))
                row = [f"{best[a]:.2f}" for a in archs] + [f"{plain:.2f}"]
                row += [f"{best[a] / plain:.2f}" if plain else "-" for a in archs if a != "ref"]
                row += [f"{best[a] / best['ref']:.2f}" if best.get("ref") else "-" for a in archs if a != "ref"]
                print(f"| {m} | {t} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
