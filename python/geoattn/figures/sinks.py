"""The figures of geoattn sinks (SPEC section 9) about the sink itself: its mass, rho0 and
lambda per head, mass against lambda, the dormant heads and the mean attention profile by
position. Each takes the --sinks models (runs.SinkModel).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from .common import empty_panel, new_figure, np, plt, positive
from .heatmaps import head_map

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .runs import SinkModel


def finite_values(a):
    """The finite values of a, flattened."""
    a = np.asarray(a, dtype=float)
    return a[np.isfinite(a)]


def layer_norm(m):
    """The colour scale of the model's layer ids, first to last."""
    from matplotlib.colors import Normalize
    return Normalize(vmin=min(m.layer_ids), vmax=max(max(m.layer_ids), min(m.layer_ids) + 1))


def layer_colorbar(fig, ax, m):
    """A colour bar of the layer ids (viridis, integer ticks) beside ax."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.ticker import MaxNLocator
    bar = fig.colorbar(ScalarMappable(norm=layer_norm(m), cmap="viridis"), ax=ax, shrink=0.9,
                       label="layer")
    bar.locator = MaxNLocator(integer=True)
    bar.update_ticks()


def layer_color(m, row):
    """The colour (viridis) of the layer in the model's row `row`."""
    return plt.get_cmap("viridis")(layer_norm(m)(m.layer_ids[row]))


def eps_tex(m):
    """The run's eps (settings.eps) as mathtext for a title."""
    return rf"$\epsilon$ = {m.doc['settings']['eps']:g}"


def sink_rate_bars(ax, m):
    """Sink_0^eps per layer as horizontal bars, rows aligned with the heat maps beside."""
    rate = m.a["sink_rate"][:, 0] if m.a["positions"] else np.full(m.layers, np.nan)
    rows = np.arange(m.layers)
    ax.barh(rows, np.nan_to_num(rate), color="tab:red", alpha=0.8, height=0.8)
    for y, v in zip(rows, rate):
        if np.isfinite(v) and m.layers <= 32:
            ax.text(min(v, 100) + 1.5, y, f"{v:.0f}", va="center", fontsize=6)
    ax.set_ylim(m.layers - 0.5, -0.5)
    ax.set_xlim(0, 112)
    ticks = rows[::max(1, int(math.ceil(m.layers / 16)))]
    ax.set_yticks(ticks)
    ax.set_yticklabels([str(m.layer_ids[i]) for i in ticks])
    ax.set_xlabel(r"Sink$_0^\epsilon$ (% of windows x heads)")
    ax.set_ylabel("layer")
    ax.grid(axis="y", visible=False)
    ax.set_title(f"{m.label}: heads with " + r"$\alpha_0 > \epsilon$" + f" ({eps_tex(m)})",
                 fontsize=9)


def fig_sinks_heatmaps(sinks: Sequence[SinkModel]) -> Figure | str:
    """Per --sinks model: layers x heads maps of the sink mass alpha_0, rho0 and lambda, with
    Sink_0^eps per layer beside them (sink_rate_bars)."""
    widest = max(m.heads for m in sinks)
    tallest = max(m.layers for m in sinks)
    w = min(max(2.2 + 0.32 * widest, 3.6), 6.5)
    h = min(max(1.6 + 0.28 * tallest, 2.8), 6.0)
    fig, axes = new_figure(len(sinks), 4, w=w, h=h)
    for r, m in enumerate(sinks):
        lam = finite_values(m.a["lambda"])
        maps = (("mass0", r"sink mass $\alpha_0$", "viridis", 0.0, 1.0),
                ("rho0", r"$\rho_0$", "RdBu_r", -1.0, 1.0),
                ("lambda", r"$\lambda = \Vert v_0\Vert / C$", "magma", 0.0,
                 lam.max() if lam.size and lam.max() > 0 else 1.0))
        for c, (key, sym, cmap, lo, hi) in enumerate(maps):
            head_map(fig, axes[r][c], m, m.a[key], sym, cmap=cmap, vmin=lo, vmax=hi)
            axes[r][c].set_title(f"{m.label}: {sym}", fontsize=9)
        sink_rate_bars(axes[r][3], m)
    fig.suptitle(r"Attention sinks per head (layers x heads): mass $\alpha_0$, $\rho_0$, "
                 r"$\lambda$; Sink$_0^\epsilon$ per layer", fontsize=11)
    return fig


def name_heads(ax, m, rows, x, y, fontsize=6):
    """Writes each head's name beside its point (x, y)[row, head], for the (row, head) pairs of
    rows."""
    for i, hh in rows:
        ax.annotate(m.name(i, hh), (x[i, hh], y[i, hh]), xytext=(3, 3),
                    textcoords="offset points", fontsize=fontsize)


def fig_sinks_mass_lambda(sinks: Sequence[SinkModel]) -> Figure | str:
    """Per --sinks model: alpha_0 against lambda over all heads, coloured by layer, eps marked
    and the three heads of largest alpha_0 / lambda named (sinks that carry no value)."""
    fig, axes = new_figure(1, len(sinks), w=5.0, h=4.0)
    for c, m in enumerate(sinks):
        ax = axes[0][c]
        x, y = m.a["mass0"], m.a["lambda"]
        ok = np.isfinite(x) & np.isfinite(y)
        if not ok.any():
            empty_panel(ax, f"{m.label}: no head with both " + r"$\alpha_0$ and $\lambda$")
            continue
        rows = np.broadcast_to(np.arange(m.layers)[:, None], x.shape)
        ax.scatter(x[ok], y[ok], c=[m.layer_ids[i] for i in rows[ok]], cmap="viridis",
                   norm=layer_norm(m), s=18, edgecolors="k", linewidths=0.3)
        layer_colorbar(fig, ax, m)
        ax.axvline(m.doc["settings"]["eps"], color="tab:red", ls=":", lw=1,
                   label=rf"{eps_tex(m)}: sink heads to the right")
        if (y[ok] > 0).all():
            ax.set_yscale("log")
        # the sinks that carry least value: the largest alpha_0 / lambda
        with np.errstate(all="ignore"):
            ratio = np.where(ok & (y > 0), x / y, -np.inf)
        best = np.argsort(ratio, axis=None)[::-1][:3]
        name_heads(ax, m, [np.unravel_index(k, x.shape) for k in best if np.isfinite(ratio.flat[k])],
                   x, y)
        ax.set(xlim=(-0.02, 1.02), xlabel=r"sink mass $\alpha_0$ (mean over windows)",
               ylabel=r"$\lambda = \Vert v_0\Vert / C$")
        ax.set_title(f"{m.label}: {int(ok.sum())} heads\n(no-value sinks: right, low)",
                     fontsize=9)
        ax.legend(loc="best")
    fig.suptitle(r"Sink mass $\alpha_0$ against the sink's value norm $\lambda$" "\n"
                 r"(large $\alpha_0$, small $\lambda$: a sink that carries no value)", fontsize=10)
    return fig


def fig_sinks_dormant(sinks: Sequence[SinkModel]) -> Figure | str:
    """Per --sinks model: each head's row score against its column score, the region of the
    rule's dormant thresholds shaded, the dormant heads marked (the four lowest rows named)."""
    fig, axes = new_figure(1, len(sinks), w=5.0, h=4.0)
    for c, m in enumerate(sinks):
        ax = axes[0][c]
        x, y, dormant = m.a[m.a["names"]["row_score"]], m.a["col_score"], m.a["dormant"]
        row_max, col_min = m.config["dormant_row_max"], m.config["dormant_col_min"]
        ok = np.isfinite(x) & np.isfinite(y)
        ax.fill_between([-0.05, row_max], col_min, 1.05, color="tab:red", alpha=0.08, lw=0)
        ax.axvline(row_max, color="tab:red", ls="--", lw=1, label=f"dormant_row_max = {row_max:g}")
        ax.axhline(col_min, color="tab:red", ls=":", lw=1, label=f"dormant_col_min = {col_min:g}")
        awake = ok & ~dormant
        ax.scatter(x[awake], y[awake], s=16, color="tab:blue", alpha=0.7,
                   label=f"{int(awake.sum())} heads")
        ax.scatter(x[ok & dormant], y[ok & dormant], s=40, marker="X", color="tab:red",
                   label=f"{int((ok & dormant).sum())} dormant")
        sleepiest = sorted(zip(*np.nonzero(ok & dormant)), key=lambda lh: x[lh])[:4]  # the lowest row scores
        name_heads(ax, m, sleepiest, x, y)
        ax.set(xlim=(-0.05, 1.05), ylim=(-0.05, 1.05),
               xlabel=r"row score: mean$_{i \geq 1}$ H(A$_i$) / log(i+1)",
               ylabel=r"column score: max$_j$ normalised column entropy")
        ax.set_title(f"{m.label}: dormant heads (shaded: row <= {row_max:g}, col >= {col_min:g})",
                     fontsize=9)
        ax.legend(loc="lower right")
    fig.suptitle("Dormant heads: low row entropy, high column entropy (geoattn's flags)",
                 fontsize=11)
    return fig


def fig_sinks_profile(sinks: Sequence[SinkModel]) -> Figure | str:
    """Per --sinks model, by key position: the mean attention alpha_k (log scale) and
    Sink_k^eps, one line per layer (and all layers together)."""
    fig, axes = new_figure(len(sinks), 2, w=5.0, h=3.4)
    for r, m in enumerate(sinks):
        ax, ax2 = axes[r]
        pos = np.arange(m.a["positions"])
        dots = {"marker": ".", "ms": 3} if pos.size <= 32 else {}
        for i in range(m.layers):
            ax.semilogy(pos, positive(m.a["alpha_bar"][i]), color=layer_color(m, i), lw=1, **dots)
            ax2.plot(pos, m.a["sink_rate"][i], color=layer_color(m, i), lw=1, **dots)
        ax2.plot(pos, m.a["summary_sink_rate"], color="k", lw=1.8, label="all layers")
        for a in (ax, ax2):
            layer_colorbar(fig, a, m)
            a.set_xlabel("key position $k$")
        ax.set_ylabel(r"$\bar\alpha_k$ of $\bar A$ (mean over heads and windows)")
        ax.set_title(f"{m.label}: mean sink profile, first {len(pos)} positions", fontsize=9)
        ax2.set_ylim(-3, 103)
        ax2.set_ylabel(r"Sink$_k^\epsilon$ (% of windows x heads)")
        ax2.set_title(f"{m.label}: " + r"heads with $\alpha_k > \epsilon$" + f" ({eps_tex(m)})",
                      fontsize=9)
        ax2.legend(loc="best")
    fig.suptitle(r"Attention mass by key position: $\alpha_k = \frac{1}{T-k}\sum_{t \geq k} "
                 r"A_{tk}$", fontsize=11)
    return fig
