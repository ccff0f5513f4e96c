"""geoattn-compare's figure: B - A against N for P(r_max, N), R(r_min, N), F_rmax and F_rmin,
one line per group (the whole model in black, the layers or depth bins coloured by depth) with
its 95% bootstrap band, a dot where the interval excludes 0. matplotlib, imported here only."""
from __future__ import annotations

from .figures.common import import_plotting

__all__ = ["draw"]


def draw(out: dict, path: str) -> None:
    """Draws the comparison `out` (geoattn.compare's JSON) as a PNG at path."""
    plotting = import_plotting()
    np, plt = plotting["np"], plotting["plt"]
    from .compare import CURVES

    grid = np.array(out["n_grid"], float)
    groups = [e for e in out["groups"] if e["group"] != "head"]
    rest = len(groups) - 1
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True)
    for ax, name in zip(axes.ravel(), CURVES):
        ax.axhline(0, color="grey", lw=0.8)
        for k, e in enumerate(groups):
            color = "black" if e["group"] == "global" else plt.cm.viridis((k - 1) / max(1, rest - 1) * 0.9)
            d = np.array([np.nan if c["diff"] is None else c["diff"] for c in e[name]])
            lo = np.array([np.nan if c["ci"] is None else c["ci"][0] for c in e[name]])
            hi = np.array([np.nan if c["ci"] is None else c["ci"][1] for c in e[name]])
            sig = np.array([c["significant"] for c in e[name]])
            label = "global" if e["group"] == "global" else (
                f"depth {e['depth']}" if e["group"] == "depth" else f"layer {e['layer']}")
            lw = 2.0 if e["group"] == "global" else 1.0
            ax.plot(grid, d, color=color, lw=lw, label=label)
            ax.fill_between(grid, lo, hi, color=color, alpha=0.12, lw=0)
            ax.plot(grid[sig], d[sig], "o", color=color, ms=3)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{name}: B - A")
    for ax in axes[1]:
        ax.set_xlabel("N")
    axes[0, 0].legend(loc="best", ncol=2 if rest > 6 else 1)
    a, b = out["a"], out["b"]
    fig.suptitle(f"{b['model']} minus {a['model']} ({out['pairing']}: {a['compared']} and {b['compared']} documents;"
                 " bands: 95% bootstrap, dots: excludes 0)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)
