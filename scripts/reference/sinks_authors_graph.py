#!/usr/bin/env python3
"""The authors' attention graph (laplacian.ipynb) at thresholds where its early return happens,
on the windows of a geoattn capture, for checking `geoattn sinks --convention authors`.

    sinks_authors_graph.py --capture C.safetensors --taus 0.5,0.7,0.9 --out OUT.json \\
        [--capture-command "geoattn capture ..."] [--mirrors /work/.mirror]

C holds every query of each window (geoattn capture --queries all). Abar, the mean over heads of
a window's attention in float64 (as geoattn takes it), goes to the notebook's unchanged
compute_laplacian_eigenvalues at every tau, and its results through the notebook's own
aggregation (_init_aggregated_data, _update_aggregated_metrics, _compute_aggregated_stats), for
every window and layer: the one difference geoattn declares, its loop's skipping of windows whose
density is not effective outside every 4th layer, is left out (SPEC §9). Below 2 edges the
notebook returns early without "gini_coefficient" and "connection_density", so those two means
skip the window while the others count its zeros; each mean's count says so.
The code is read from the fetched mirror at run time (authors_code.py) and never copied.
Needs numpy, scipy, networkx, safetensors.
"""
import argparse, datetime, json, os, platform, sys, traceback
import networkx as nx, numpy as np, scipy, scipy.sparse as sp, scipy.sparse.linalg as spla
from safetensors.numpy import load_file
from authors_code import load_authors

REPO, FILE, CLASS = "ValeRuscio/What-are-you-sinking-", "Notebooks/laplacian.ipynb", "OptimizedAttentionLaplacianAnalysis"
FUNCTIONS = ["compute_laplacian_eigenvalues", "_init_aggregated_data", "_update_aggregated_metrics",
             "_compute_aggregated_stats"]
# The notebook's collectors, named as geoattn's authors convention names them.
STATS = {"connection_densities": "density", "gini_coefficients": "gini", "star_likeness": "star",
         "degree_centralizations": "degree_centralization", "fiedler_values": "fiedler", "spectral_gaps": "gap"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--capture", required=True)
    ap.add_argument("--taus", required=True, help="comma-separated thresholds")
    ap.add_argument("--out", required=True)
    ap.add_argument("--capture-command", default="", help="the command that made the capture, recorded")
    ap.add_argument("--mirrors", default="/work/.mirror")
    a = ap.parse_args()
    taus = [float(t) for t in a.taus.split(",")]
    fn, prov = load_authors(a.mirrors, REPO, FILE, CLASS, FUNCTIONS,
                            {"np": np, "nx": nx, "sp": sp, "spla": spla, "traceback": traceback})
    nb = type("AuthorsStub", (), fn)()
    nb.model_name = "geoattn capture"

    t = load_file(a.capture)
    alpha = t["alpha"].astype(np.float64)          # [W, L, H, T, T]
    W, L, H, Q, T = alpha.shape
    if Q != T:
        sys.exit(f"{a.capture}: {Q} queries of {T}: capture every query (--queries all)")
    abar = alpha.mean(axis=2)                      # [W, L, T, T]
    aggregated, collectors = nb._init_aggregated_data(list(range(L)), taus)
    early = 0
    for w in range(W):
        for l in range(L):
            for tau in taus:
                res = nb.compute_laplacian_eigenvalues(abar[w, l], threshold=tau, verbose=False)
                early += res.get("error") == "Too few connections after thresholding"
                nb._update_aggregated_metrics(collectors, l, tau, res)
    aggregated = nb._compute_aggregated_stats(collectors, aggregated)
    layers = []
    for l in range(L):
        rows = []
        for tau in taus:
            stats = aggregated["layer_stats"][l][str(tau)]
            row = {"tau": tau}
            for collector, name in STATS.items():
                s = stats.get(collector)
                row[name] = s["mean"] if s else None
                row[name + "_count"] = s["count"] if s else 0
            rows.append(row)
        layers.append({"layer": l, "graph": rows})
    out = {
        "provenance": {
            "source": prov,
            "versions": {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
                         "networkx": nx.__version__},
            "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
            "date": datetime.date.today().isoformat(),
        },
        "capture": {"command": a.capture_command, "windows": W, "layers": L, "heads": H, "T": T,
                    "tokens": t["tokens"].astype(np.int64).tolist()},
        "taus": taus,
        "early_returns": int(early),
        # How far Abar is from every tau: float noise between machines cannot move an edge.
        "margin": float(min(np.abs(abar - tau).min() for tau in taus)),
        "layers": layers,
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
