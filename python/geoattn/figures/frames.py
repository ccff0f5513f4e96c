"""The figures of geoattn sinks (SPEC section 9) about the layers as reference frames: the
attention graph's statistics per layer and tau, the frame type per layer (and per entry of
the rule's sweep), and the tokens the heads anchor on. Each takes the --sinks models.
"""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Sequence

from ..results import FRAME_TYPES
from .common import finite, new_figure, np, outside_legend, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .runs import SinkModel

FRAME_COLORS = {"centralized": "#1f77b4", "bidirectional": "#ff7f0e", "distributed": "#2ca02c",
                "none": "#d9d9d9"}
FRAME_RULE_CAVEAT = "frame-type rule: geoattn's own (configs/sinks.json)"
ANCHOR_TOKENS_SHOWN = 24  # bars of the anchor-token histogram; the rest in one bar
GRAPH_PANELS = (("fiedler", "Fiedler value"), ("gini", "Gini coefficient"),
                (None, "density"))  # None: the density of the run's convention (its first graph statistic)


def graph_panel(ax, m, key):
    """One statistic by layer, one line per tau; hollow markers where tau is not effective."""
    density = m.a["names"]["graph"][0]
    key = key or density
    x = np.array(m.layer_ids)
    for j, tau in enumerate(m.a["taus"]):
        y, eff = m.a["graph"][key][:, j], m.a["effective"][:, j]
        color = plt.get_cmap("tab10")(j % 10)
        ax.plot(x, y, color=color, lw=1.3, label=rf"$\tau$ = {tau:g}")
        ax.plot(x[eff], y[eff], "o", color=color, ms=4)
        ax.plot(x[~eff], y[~eff], "o", mfc="none", mec=color, ms=5, mew=1)
    if key == density:
        for bound in ("density_min", "density_max"):
            if finite(m.config.get(bound)):
                ax.axhline(m.config[bound], color="0.4", ls=":", lw=0.9)
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("layer")


def fig_sinks_graph(sinks: Sequence[SinkModel]) -> Figure | str:
    """Per --sinks model: the attention graph's Fiedler value, Gini coefficient and density by
    layer, one line per tau (graph_panel)."""
    fig, axes = new_figure(len(sinks), len(GRAPH_PANELS), w=4.0, h=3.1)
    for r, m in enumerate(sinks):
        for c, (key, name) in enumerate(GRAPH_PANELS):
            ax = axes[r][c]
            graph_panel(ax, m, key)
            ax.set_ylabel(name)
            ax.set_title(f"{m.label}: {name}", fontsize=9)
        ax = axes[r][-1]
        ax.plot([], [], "o", mfc="none", mec="0.3", label="not effective\n(density outside "
                "[min, max], dotted)")
        outside_legend(ax)
    fig.suptitle(r"Attention graph per layer (edges $A_{ij} > \tau$; means over windows)",
                 fontsize=11)
    return fig


def frame_rows(m):
    """(name, [type per layer]) of the rule and of each entry of its sweep."""
    rows = [("rule", [ly["frame"]["type"] for ly in m.doc["layers"]])]
    rows += [(f"{e['key']} = {e['value']:g}", e["types"]) for e in m.doc["summary"]["sweep"]]
    return rows


def fig_sinks_frames(sinks: Sequence[SinkModel]) -> Figure | str:
    """Per --sinks model: the frame type of each layer as a coloured strip (the anchor position
    written in), a row per entry of the rule's sweep below it."""
    from matplotlib.colors import ListedColormap, BoundaryNorm
    from matplotlib.patches import Patch
    tallest = max(len(frame_rows(m)) for m in sinks)
    widest = max(m.layers for m in sinks)
    fig, axes = new_figure(len(sinks), 1, w=min(max(3 + 0.3 * widest, 6.5), 13),
                           h=1.6 + 0.32 * tallest)
    cmap = ListedColormap([FRAME_COLORS[t] for t in FRAME_TYPES])
    norm = BoundaryNorm(np.arange(len(FRAME_TYPES) + 1) - 0.5, len(FRAME_TYPES))
    for r, m in enumerate(sinks):
        ax = axes[r][0]
        rows = frame_rows(m)
        mat = np.array([[FRAME_TYPES.index(t) for t in types] for _, types in rows])
        ax.imshow(mat, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
        if len(rows) > 1:
            ax.axhline(0.5, color="k", lw=1.2)
        if m.layers <= 48:
            for i, ly in enumerate(m.doc["layers"]):
                if ly["frame"]["anchor"] >= 0:
                    ax.text(i, 0, str(ly["frame"]["anchor"]), ha="center", va="center",
                            fontsize=6)
        ax.grid(False)
        step = max(1, int(math.ceil(m.layers / 32)))
        ax.set_xticks(range(0, m.layers, step))
        ax.set_xticklabels([str(m.layer_ids[i]) for i in range(0, m.layers, step)])
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([name for name, _ in rows], fontsize=7)
        ax.set_xlabel("layer (numbers: the anchor position)")
        counts = {t: rows[0][1].count(t) for t in FRAME_TYPES}
        ax.legend(handles=[Patch(color=FRAME_COLORS[t], label=f"{t} ({counts[t]})")
                           for t in FRAME_TYPES],
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.set_title(f"{m.label}: frame type per layer (rule: {m.doc['rule']['source']}; "
                     "rows below: its sweep)", fontsize=9)
    fig.suptitle("Attention sinks as reference frames: the frame type of each layer", fontsize=11)
    fig.supxlabel(FRAME_RULE_CAVEAT, fontsize=8, color="0.3")
    return fig


def token_label(token, text):
    """A token as a tick label: its text quoted and escaped (no mathtext), else its id."""
    if text is None:
        return f"#{token}"
    shown = json.dumps(text, ensure_ascii=False)[1:-1].replace("$", r"\$")
    return "'" + (shown if len(shown) <= 14 else shown[:13] + "...") + "'"


def anchor_token_counts(m):
    """[(label, heads)] of the heads' commonest top-anchor tokens, the most frequent first."""
    counts, texts = {}, {}
    for _, _, hd in m.heads_of():
        first = hd["anchor_tokens"][0] if hd["anchor_tokens"] else None
        token = first["token"] if first else None
        counts[token] = counts.get(token, 0) + 1
        if first and first["text"] is not None:
            texts[token] = first["text"]
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] is None, kv[0] or 0))
    bars = [("(none)" if t is None else token_label(t, texts.get(t)), n) for t, n in items]
    if len(bars) > ANCHOR_TOKENS_SHOWN:
        rest = bars[ANCHOR_TOKENS_SHOWN - 1:]
        bars = bars[:ANCHOR_TOKENS_SHOWN - 1] + [(f"({len(rest)} others)", sum(n for _, n in rest))]
    return bars


def fig_sinks_anchor_tokens(sinks: Sequence[SinkModel]) -> Figure | str:
    """Per --sinks model: a bar per token, the number of heads whose commonest top anchor it
    is (anchor_token_counts)."""
    widest = max(len(anchor_token_counts(m)) for m in sinks)
    fig, axes = new_figure(len(sinks), 1, w=min(max(3 + 0.42 * widest, 6.5), 13), h=3.4)
    for r, m in enumerate(sinks):
        ax = axes[r][0]
        bars = anchor_token_counts(m)
        x = np.arange(len(bars))
        drawn = ax.bar(x, [n for _, n in bars], color="tab:purple", alpha=0.85, width=0.75)
        ax.bar_label(drawn, fontsize=7)
        from matplotlib.ticker import MaxNLocator
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.margins(y=0.12)
        ax.set_xticks(x)
        ax.set_xticklabels([name for name, _ in bars], rotation=45, ha="right", fontsize=7)
        ax.set_xlim(-0.6, max(len(bars), 4) - 0.4)
        ax.grid(axis="x", visible=False)
        ax.set_ylabel("heads")
        ax.set_title(f"{m.label}: each head's commonest top-anchor token "
                     f"({sum(n for _, n in bars)} heads)", fontsize=9)
    fig.suptitle("Which tokens the heads anchor on", fontsize=11)
    return fig
