"""geoattn.metrics against the loop a researcher would write in numpy from SPEC §2's
definitions (float64, one sample and one N at a time), on one capture:

    python python/benchmarks/vs_numpy.py --capture CAPTURE.safetensors [--n all]

Prints both times (best of --repeats) and where the two disagree: the loop compares D_k in
float64 (SPEC §2: not enough on real rows, whose tails span 1e-45..1), geoattn exactly; an
entry that differs is the loop's rounding, which tests/test_exact.cpp's extended-precision
brute force decides. Only the top-N curves are compared (controls, bootstrap and envelopes off).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import geoattn  # noqa: E402


def naive_curves(alpha, values, queries, grid):
    """Per-head means of P(r_max, N) and R(r_min, N) over windows and queries (SPEC §2), NaN
    where no sample has N tokens: [L, H, G] each."""
    W, L, H, Q, T = alpha.shape
    KV = values.shape[2]
    p_sum, r_sum, count = (np.zeros((L, H, len(grid))) for _ in range(3))
    for w in range(W):
        for l in range(L):
            for h in range(H):
                v = values[w, l, h // (H // KV)].astype(np.float64)          # [T, d]
                for qi, q in enumerate(queries):
                    a = alpha[w, l, h, qi, :q + 1].astype(np.float64)      # [n]
                    y = a[:, None] * v[:q + 1]                             # y_i = alpha_i v_i
                    order = np.argsort(-a, kind="stable")                  # ties: lower position first
                    for g, N in enumerate(grid):
                        if N > q + 1:
                            continue
                        inside = order[:N]
                        outside = order[N:]
                        s = y[inside].sum(0)                               # s(N)
                        D = ((s - y) ** 2).sum(1)                          # D_i = ||s - y_i||^2
                        r_max2 = D[inside].max()
                        k_out = int((D[outside] <= r_max2).sum()) if len(outside) else 0
                        r_min2 = D[outside].min() if len(outside) else np.inf
                        k_in = int((D[inside] <= r_min2).sum()) if len(outside) else N
                        p_sum[l, h, g] += N / (N + k_out)
                        r_sum[l, h, g] += k_in / N
                        count[l, h, g] += 1
    with np.errstate(invalid="ignore"):
        return p_sum / count, r_sum / count


def exact_pr(a, v, N):
    """P(r_max, N) and R(r_min, N) of one sample in exact rational arithmetic (SPEC §2's
    definitions, no rounding anywhere): the referee where the float64 loop and geoattn differ."""
    from fractions import Fraction

    n = len(a)
    order = sorted(range(n), key=lambda i: (-a[i], i))
    y = [[Fraction(float(a[i])) * Fraction(float(x)) for x in v[i]] for i in range(n)]
    inside, outside = order[:N], order[N:]
    s = [sum(y[i][k] for i in inside) for k in range(len(v[0]))]
    D = [sum((s[k] - y[i][k]) ** 2 for k in range(len(s))) for i in range(n)]
    r_max2 = max(D[i] for i in inside)
    k_out = sum(D[j] <= r_max2 for j in outside)
    k_in = sum(D[i] <= min(D[j] for j in outside) for i in inside) if outside else N
    return N / (N + k_out), k_in / N


def best_of(repeats, f):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capture", required=True, help="a capture file (geoattn capture)")
    ap.add_argument("--n", default="all", help="N grid (default all)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="geoattn's threads (0: all cores)")
    ap.add_argument("--referee", type=int, default=3, help="entries where the two differ to decide exactly (slow)")
    a = ap.parse_args(argv)

    c = geoattn.read_capture(a.capture)
    alpha, values, queries = c["alpha"], c["values"], c["queries"]
    kw = dict(queries=queries, n=a.n, controls=0, bootstrap=0, envelopes="off", threads=a.threads)  # the loop's work
    t_geo, r = best_of(a.repeats, lambda: geoattn.metrics(alpha, values, **kw))
    grid = r.n_grid.tolist()
    al, va = alpha.numpy(), values.numpy()
    t_np, (P, R) = best_of(1, lambda: naive_curves(al, va, queries, grid))
    W, L, H, Q, T = alpha.shape
    print(f"capture {a.capture}: {W} windows x {L} layers x {H} heads x {Q} queries, T = {T}, "
          f"d = {values.shape[-1]}, N grid of {len(grid)}")
    print(f"  geoattn.metrics   {t_geo:8.3f} s  (best of {a.repeats}; {r.doc['timing']['seconds_total']:.3f} s inside C++)")
    print(f"  numpy loop        {t_np:8.3f} s")
    print(f"  speed-up          {t_np / t_geo:8.1f}x")
    for name, mine in (("P_rmax", P), ("R_rmin", R)):
        theirs = r.heads[name]
        differ = ~np.isclose(mine, theirs, rtol=1e-12, atol=0, equal_nan=True)  # a count apart is >= 1e-4
        print(f"  {name}: {int(differ.sum())} of {differ.size} (layer, head, N) means differ "
              f"(max |diff| {float(np.nanmax(np.abs(mine - theirs))) if differ.any() else 0:.3g})")
        for l, h, g in list(zip(*np.nonzero(differ)))[:a.referee]:
            N, kv = grid[g], h // (H // values.shape[2])
            samples = [exact_pr(al[w, l, h, qi, :q + 1], va[w, l, kv, :q + 1], N)
                       for w in range(W) for qi, q in enumerate(queries) if N <= q + 1]
            exact = np.mean([p if name == "P_rmax" else r for p, r in samples])
            winner = "geoattn" if exact == theirs[l, h, g] else "numpy" if exact == mine[l, h, g] else "neither"
            print(f"    layer {l} head {h} N {N}: exact {exact:.6f}, geoattn {theirs[l, h, g]:.6f}, "
                  f"numpy {mine[l, h, g]:.6f}: {winner} is exact")


if __name__ == "__main__":
    main()
