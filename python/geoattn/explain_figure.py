"""geoattn-explain's figure: each token's distance to s(N) against its rank by alpha, the selected
tokens I_N marked, r_max and r_min as horizontal lines. matplotlib, imported here only."""
from __future__ import annotations

from .figures.common import import_plotting

__all__ = ["draw"]


def draw(out: dict, path: str) -> None:
    """Draws one explanation (geoattn.explain's dict) as a PNG at path."""
    plotting = import_plotting()
    np, plt = plotting["np"], plotting["plt"]
    tokens = out["tokens"]
    rank = np.arange(1, len(tokens["distance"]) + 1)
    dist = np.array(tokens["distance"], float)
    N = out["N"]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(rank[N:], dist[N:], "o", ms=3, color="0.55", label=f"not selected ({len(rank) - N})")
    ax.plot(rank[:N], dist[:N], "o", ms=5, color="tab:red", label=f"selected, I_N (N = {N})")
    ax.axhline(out["r_max"]["value"], color="tab:red", lw=1.0, label=f"r_max = {out['r_max']['value']:.4g}")
    if out["r_min"] is not None:
        ax.axhline(out["r_min"]["value"], color="tab:blue", lw=1.0, ls="--",
                   label=f"r_min = {out['r_min']['value']:.4g}")
    if len(rank) > 32:
        ax.set_xscale("log")
    ax.set_xlabel("rank by alpha (1 = largest)")
    ax.set_ylabel("distance to s(N)")
    ax.set_title(f"L{out['layer']}H{out['head']}, window {out['window']}, query {out['query']}: "
                 f"P(r_max, {N}) = {out['P_rmax']:.4g}, R(r_min, {N}) = {out['R_rmin']:.4g}")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)
