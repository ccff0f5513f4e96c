"""Layers x heads maps: head_map (one number per head, its colour bar) and the figure
heatmap_P_R_labels (P and R at one N, and the taxonomy labels).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from .common import empty_panel, label_color, new_figure, np, taxonomy_classes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .runs import Model


def nearest_n(grid, want):
    """The grid value nearest to want (the smaller on a tie)."""
    return min(grid, key=lambda g: (abs(g - want), g))


def fig_heatmap(models: Sequence[Model], want_n: float) -> Figure | str:
    """heatmap_P_R_labels: per model, layers x heads maps of P(r_max, N) and R(r_min, N) at the
    grid's N nearest to want_n, and of the taxonomy labels when any model has a --taxonomy
    (every class of the taxonomy in the legend with its count, Unlabelled in grey)."""
    any_tax = any(m.taxonomy is not None for m in models)
    cols = 3 if any_tax else 2
    widest = max(m.heads for m in models)
    tallest = max(m.layers for m in models)
    w = min(max(2.2 + 0.32 * widest, 3.6), 6.5)
    h = min(max(1.6 + 0.28 * tallest, 2.8), 6.0)
    fig, axes = new_figure(len(models), cols, w=w, h=h)
    from matplotlib.colors import ListedColormap, BoundaryNorm
    from matplotlib.patches import Patch
    extra: dict[str, str] = {}
    for r, m in enumerate(models):
        n_val = nearest_n(m.grid, want_n)
        j = m.grid.index(n_val)
        annotate = m.layers * m.heads <= 96
        n_txt = f"{int(n_val)}" if float(n_val).is_integer() else f"{n_val:g}"
        for c, (key, sym) in enumerate((("P_rmax", r"$P(r_{\max}, N)$"),
                                        ("R_rmin", r"$R(r_{\min}, N)$"))):
            ax = axes[r][c]
            mat = np.full((m.layers, m.heads), np.nan)
            for (l, hh), hd in m.by_lh.items():
                v = hd[key][j]
                mat[l, hh] = np.nan if v is None else float(v)
            head_map(fig, ax, m, mat, sym)
            # SPEC §1: a windowed layer's samples have at most W tokens; past W its row is blank.
            blank = int(np.isnan(mat).all(axis=1).sum())
            note = f"\n(blank: {blank} layers whose window is shorter than $N$)" if blank else ""
            ax.set_title(f"{m.label}: {sym} at $N$ = {n_txt}{note}", fontsize=9)
        if cols == 3:
            ax = axes[r][2]
            labels = m.labels_of_heads()
            if labels is None:
                empty_panel(ax, f"{m.label}: no --taxonomy")
                continue
            names = taxonomy_classes(m.taxonomy)  # every class, with its count (0 too)
            idx = {lab: k for k, lab in enumerate(names)}
            mat = np.full((m.layers, m.heads), np.nan)
            for (l, hh), lab in labels.items():
                if l < m.layers and hh < m.heads:
                    mat[l, hh] = idx[lab]
            cmap = ListedColormap([label_color(lab, extra) for lab in names])
            norm = BoundaryNorm(np.arange(len(names) + 1) - 0.5, len(names))
            ax.imshow(np.ma.masked_invalid(mat), cmap=cmap, norm=norm, aspect="auto",
                      interpolation="nearest")
            if annotate:
                for (l, hh), lab in labels.items():
                    if l < m.layers and hh < m.heads:
                        ax.text(hh, l, lab[:3], ha="center", va="center", fontsize=6,
                                color="w")
            counts = {lab: sum(1 for v in labels.values() if v == lab) for lab in names}
            ax.legend(handles=[Patch(color=label_color(lab, extra), label=f"{lab} ({counts[lab]})")
                               for lab in names],
                      loc="upper center", bbox_to_anchor=(0.5, -0.16 if len(names) <= 3 else -0.24),
                      ncol=len(names) if len(names) <= 3 else 2,
                      frameon=False)
            ax.set_title(f"{m.label}: head regimes", fontsize=9)
            heat_axes(ax, m)
    fig.suptitle("Per-head maps (layers x heads)", fontsize=11)
    return fig


def heat_axes(ax, m):
    """The axes of a layers x heads map: heads across, layer ids down, about 16 ticks each at
    most, no grid."""
    ax.grid(False)
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    step_h = max(1, int(math.ceil(m.heads / 16)))
    step_l = max(1, int(math.ceil(m.layers / 16)))
    ax.set_xticks(range(0, m.heads, step_h))
    rows = range(0, m.layers, step_l)
    ax.set_yticks(rows)
    ax.set_yticklabels([str(m.layer_ids[i]) for i in rows])


def text_color_on(im, v):
    """Black or white, whichever reads on the colour of v in the image's colour map."""
    r, g, b, _ = im.cmap(im.norm(v))
    return "k" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "w"


def head_map(fig, ax, m, mat, label, cmap="viridis", vmin=0.0, vmax=1.0):
    """A layers x heads map of mat (NaN: blank) with its colour bar; the values written in
    when there are few."""
    im = ax.imshow(mat, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest")
    if mat.size <= 96:
        for l, hh in np.ndindex(*mat.shape):
            if np.isfinite(mat[l, hh]):
                ax.text(hh, l, f"{mat[l, hh]:.2f}", ha="center", va="center", fontsize=6,
                        color=text_color_on(im, mat[l, hh]))
    fig.colorbar(im, ax=ax, shrink=0.9, label=label)
    heat_axes(ax, m)
    return im
