"""geoattn-compare's figure: B - A against N for P(r_max, N), R(r_min, N), F_rmax and F_rmin,
one line per group (the whole model in black, the layers or depth bins coloured by depth) with
its band, a dot where a cell is marked: by default the family's simultaneous band over N and the
family-wise marks; with --per-cell each cell's own interval and marks, said in the title (no
multiplicity control). The y axis spans the differences and the cells' own intervals: a band that
reaches past them (a large critical value, where few documents differ) is clipped. matplotlib,
imported here only."""
from __future__ import annotations

from ...compare_bootstrap import CURVES, PER_CELL
from ...figures.common import import_plotting

__all__ = ["draw"]


def draw(out: dict, path: str) -> None:
    """Draws the comparison `out` (geoattn.compare's JSON) as a PNG at path."""
    plotting = import_plotting()
    np, plt = plotting["np"], plotting["plt"]
    per_cell = out["marks"]["view"] == PER_CELL
    key = "ci" if per_cell else "band"

    grid = np.array(out["n_grid"], float)
    groups = [e for e in out["groups"] if e["group"] != "head"]
    rest = len(groups) - 1
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True)
    for ax, name in zip(axes.ravel(), CURVES):
        ax.axhline(0, color="grey", lw=0.8)
        # The axis spans the differences and the cells' own intervals: a family's simultaneous band
        # can reach far past them where few documents differ (a large critical value), and is clipped.
        reach = [v for e in groups for c in e[name] if c["diff"] is not None
                 for v in [c["diff"]] + (c["ci"] or [])]
        for k, e in enumerate(groups):
            color = "black" if e["group"] == "global" else plt.cm.viridis((k - 1) / max(1, rest - 1) * 0.9)
            d = np.array([np.nan if c["diff"] is None else c["diff"] for c in e[name]])
            lo = np.array([np.nan if c[key] is None else c[key][0] for c in e[name]])
            hi = np.array([np.nan if c[key] is None else c[key][1] for c in e[name]])
            sig = np.array([c["marked"] for c in e[name]], bool)
            label = "global" if e["group"] == "global" else (
                f"depth {e['depth']}" if e["group"] == "depth" else f"layer {e['layer']}")
            lw = 2.0 if e["group"] == "global" else 1.0
            ax.plot(grid, d, color=color, lw=lw, label=label)
            ax.fill_between(grid, lo, hi, color=color, alpha=0.12, lw=0)
            ax.plot(grid[sig], d[sig], "o", color=color, ms=3)
        if reach:
            lo_, hi_ = min(reach + [0.0]), max(reach + [0.0])
            pad = 0.08 * (hi_ - lo_) or 0.01
            ax.set_ylim(lo_ - pad, hi_ + pad)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{name}: B - A")
    for ax in axes[1]:
        ax.set_xlabel("N")
    axes[0, 0].legend(loc="best", ncol=2 if rest > 6 else 1)
    a, b, m = out["a"], out["b"], out["marks"]
    level = f"{100 * (1 - m['alpha']):g}%"
    marks = (f"bands: each cell's {level} interval, dots: it excludes 0, {PER_CELL}" if per_cell else
             f"bands: simultaneous {level} over N, dots: marked family-wise (max-|t| bands, "
             f"Benjamini-Hochberg at {100 * m['alpha']:g}% over {m['families_tested']} families)")
    fig.suptitle(f"{b['model']} minus {a['model']} ({out['pairing']}: {a['compared']} and {b['compared']} documents)\n"
                 + marks, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)
