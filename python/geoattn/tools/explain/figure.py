"""geoattn-explain's figure: each token's distance to s(N) against its rank by alpha, the selected
tokens I_N marked and labelled with their text, the query ringed and labelled, r_max and r_min as
horizontal lines. matplotlib, imported here only."""
from __future__ import annotations

from .text import printable
from ...figures.common import import_plotting

__all__ = ["draw", "label_text"]

LABEL_CHARS = 12  # a label's characters at most, … included
LABEL_SIZE = 7  # the labels' font size (points)
LABELLED = 20  # the selected tokens labelled at most (the first by rank)
MIN_GAP = 0.03  # two labels' least horizontal distance, in axes widths (a line of LABEL_SIZE text)


def label_text(row: dict) -> str:
    """A point's label from a row of the explanation (its `text` and `token`): the piece on one
    line without its outer spaces (␣ for a piece of spaces alone), at most LABEL_CHARS characters;
    #id without a vocabulary."""
    if row["text"] is None:
        return f"#{row['token']}"
    text = printable(row["text"]).strip() or "␣"
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def _labels(out):
    """(rank, label, is the query) of the points labelled: the query first, then I_N by rank (the
    first LABELLED)."""
    rank = {p: r + 1 for r, p in enumerate(out["tokens"]["position"])}
    q = out["query"]
    query = [r for r in out["context"] if r["position"] == q]
    items = [(rank[q], "q: " + label_text(query[0]), True)] if query else []
    return items + [(r["rank"], label_text(r), False) for r in out["selected"][:LABELLED] if r["position"] != q]


def _place_labels(ax, rank, dist, labels):
    """Each label vertical beside its point (up from a point in the lower half, down from one in
    the upper half, so it stays inside the axes), one per column: a label nearer than MIN_GAP to
    one already placed is left out. Returns how many were placed."""
    ax.get_xlim(), ax.get_ylim()  # settles the autoscaled limits that the transform below reads
    to_axes = ax.transScale + ax.transLimits
    placed = []
    for r, text, is_query in labels:
        x, y = to_axes.transform((rank[r - 1], dist[r - 1]))
        if any(abs(x - p) < MIN_GAP for p in placed):
            continue
        placed.append(x)
        up = y < 0.5
        offset = (8 if is_query else 6) * (1 if up else -1)  # points: clear of the marker (the query's ring)
        ax.annotate(text, (rank[r - 1], dist[r - 1]), xytext=(0, offset), textcoords="offset points", rotation=90,
                    ha="center", va="bottom" if up else "top", fontsize=LABEL_SIZE,
                    color="black" if is_query else "tab:red", parse_math=False,
                    bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.75})
    return len(placed)


def draw(out: dict, path: str) -> None:
    """Draws one explanation (geoattn.explain's dict) as a PNG at path."""
    plotting = import_plotting()
    np, plt = plotting["np"], plotting["plt"]
    tokens = out["tokens"]
    rank = np.arange(1, len(tokens["distance"]) + 1)
    dist = np.array(tokens["distance"], float)
    N = out["N"]
    fig, ax = plt.subplots(figsize=(8.0, 4.0))
    ax.plot(rank[N:], dist[N:], "o", ms=3, color="0.55", label=f"not selected ({len(rank) - N})")
    ax.plot(rank[:N], dist[:N], "o", ms=5, color="tab:red", label=f"selected, I_N (N = {N})")
    q = tokens["position"].index(out["query"])
    ax.plot([rank[q]], [dist[q]], "o", ms=9, mfc="none", mec="black", mew=1.0,
            label=f"the query (position {out['query']})")
    ax.axhline(out["r_max"]["value"], color="tab:red", lw=1.0, label=f"r_max = {out['r_max']['value']:.4g}")
    if out["r_min"] is not None:
        ax.axhline(out["r_min"]["value"], color="tab:blue", lw=1.0, ls="--",
                   label=f"r_min = {out['r_min']['value']:.4g}")
    if len(rank) > 32:
        ax.set_xscale("log")
    ax.set_xlabel("rank by alpha (1 = largest)")
    ax.set_ylabel("distance to s(N)")
    ax.set_title(f"L{out['layer']}H{out['head']}, window {out['window']}, query {out['query']}: "
                 f"P(r_max, {N}) = {out['P_rmax']:.4g}, R(r_min, {N}) = {out['R_rmin']:.4g}", fontsize=10)
    labels = _labels(out)
    shown = _place_labels(ax, rank, dist, labels)
    if shown < len(labels) or N > LABELLED:
        ax.plot([], [], " ", label=f"{shown} points labelled")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, borderaxespad=0.0)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)
