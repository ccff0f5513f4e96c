"""What the figure modules share: the messages on stderr (fail, note), the number checks, numpy
and pyplot (imported on first use, with the figures' style), the regime labels' colours and
the small drawing helpers (axes, legends, empty panels, a new figure).

numpy and matplotlib are imported only when a figure is drawn (import_plotting): importing
geoattn.figures and checking the inputs need neither.
"""
from __future__ import annotations

import math
import os
import sys
from typing import Any


def program_name(argv0: str) -> str:
    """The name the figures' command was started as, for its usage and messages: geoattn-figures
    (the installed command, or python -m), plot_figures (scripts/plot_figures.py)."""
    name = os.path.splitext(os.path.basename(argv0))[0]
    return name if name and name not in ("__main__", "-c") else "geoattn-figures"


PROG = program_name(sys.argv[0] if sys.argv else "")
# SPEC §6's classes in the order of a taxonomy's layers[] rows and totals: the three regimes,
# then the heads that meet no rule (older taxonomies have the first three only).
REGIMES = ("Retriever", "Mixer", "Reset")
UNLABELLED = "Unlabelled"
LABEL_ORDER = REGIMES + (UNLABELLED,)
LABEL_COLORS = {"Retriever": "#1f77b4", "Mixer": "#2ca02c", "Reset": "#d62728",
                UNLABELLED: "#9a9a9a"}
EXTRA_LABEL_COLORS = ("#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#393b79")


def fail(message, code=2):
    """Prints `PROG: error: <message>` on stderr and exits with `code`."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(code)


def note(message):
    """Prints `plot_figures: note: <message>` on stderr."""
    print(f"{PROG}: note: {message}", file=sys.stderr)


def is_number(v):
    """Whether v is an int or a float (a bool is not)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def finite(x):
    """Whether x is a finite number (False for None)."""
    return x is not None and is_number(x) and math.isfinite(x)


_plotting: dict[str, Any] = {}  # "np": numpy, "plt": matplotlib.pyplot, once import_plotting has run


def import_plotting() -> dict[str, Any]:
    """Imports numpy and matplotlib.pyplot (the Agg backend, the figures' style) once; returns
    {"np": numpy, "plt": pyplot}."""
    if not _plotting:
        import numpy
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
        pyplot.rcParams.update({
            "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 7.5,
            "xtick.labelsize": 8, "ytick.labelsize": 8, "axes.grid": True, "grid.alpha": 0.3,
            "grid.linewidth": 0.5, "savefig.dpi": 150, "figure.dpi": 100,
            "pdf.fonttype": 42,
        })
        _plotting.update(np=numpy, plt=pyplot)
    return _plotting


class _Plotting:
    """`np` or `plt` of the figure modules: numpy or matplotlib.pyplot, imported by
    import_plotting at the first attribute used."""

    def __init__(self, key):
        self._key = key

    def __getattr__(self, attr):
        return getattr(import_plotting()[self._key], attr)

    def __repr__(self):
        return f"<{self._key}: {'imported' if _plotting else 'imported on first use'}>"


np = _Plotting("np")
plt = _Plotting("plt")


def arr(values):
    """A list of numbers as a float numpy array, None as NaN."""
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def optional_curve(g, key):
    """g[key] as arr() when g is a dict holding it with a finite value, else None."""
    v = g.get(key) if isinstance(g, dict) else None
    if v is None:
        return None
    a = arr(v)
    return a if np.isfinite(a).any() else None


def positive(a):
    """A float copy of a with every value not > 0 set to NaN (for a log axis)."""
    a = np.array(a, dtype=float)
    a[~(a > 0)] = np.nan
    return a


def log_n_axis(ax, grid):
    """The x axis as N on a log2 scale: ticks at the powers of two inside the grid (about
    eight at most), labelled "N (selected tokens)"."""
    ax.set_xscale("log", base=2)
    lo, hi = min(grid), max(grid)
    ticks = [2 ** k for k in range(0, 31) if lo <= 2 ** k <= hi]
    if len(ticks) > 8:
        ticks = ticks[::2] if ticks[-1] == ticks[::2][-1] else ticks[::2] + [ticks[-1]]
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(int(t)) for t in ticks])
    ax.minorticks_off()
    ax.set_xlim(lo * 0.9, hi * 1.1)
    ax.set_xlabel("$N$ (selected tokens)")


def outside_legend(ax, **kw):
    """The legend to the right of the axes, outside them (kw: more legend arguments)."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kw)


def empty_panel(ax, message):
    """A panel without data: the message in its centre, no ticks, no grid."""
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes,
            fontsize=8, color="0.4", wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)


def head_name(h):
    """A head's short name, L<layer>H<head>, from its dict."""
    return f"L{h['layer']}H{h['head']}"


def label_color(label, extra):
    """The colour of a taxonomy label: fixed for Retriever, Mixer, Reset and Unlabelled (grey);
    any other label gets the next spare colour, kept in `extra` (one dict per figure)."""
    if label in LABEL_COLORS:
        return LABEL_COLORS[label]
    if label not in extra:
        extra[label] = EXTRA_LABEL_COLORS[len(extra) % len(EXTRA_LABEL_COLORS)]
    return extra[label]


def ordered_labels(found):
    """The distinct labels of `found`: Retriever, Mixer, Reset, Unlabelled (those present)
    first, then the others sorted."""
    found = list(dict.fromkeys(found))
    return [x for x in LABEL_ORDER if x in found] + sorted(x for x in found if x not in LABEL_ORDER)


def taxonomy_classes(tax):
    """The classes of a taxonomy document, in order: those its totals and layers[] rows count
    (every class of the rules, a class no head has included: four in a current taxonomy,
    three in an older one), then any other label its heads carry."""
    found = [k for k in (tax.get("totals") or {}) if k != "heads"]
    found += [k for row in tax.get("layers") or [] for k in row if k != "layer"]
    found += [h["label"] for h in tax.get("heads") or [] if isinstance(h.get("label"), str)]
    return ordered_labels(found)


def new_figure(rows, cols, w=4.3, h=3.3):
    """A constrained-layout figure of rows x cols panels of w x h inches (6.5 wide at least);
    returns (figure, axes as a rows x cols array)."""
    fig, axes = plt.subplots(rows, cols, figsize=(max(w * cols, 6.5), h * rows),
                             squeeze=False, layout="constrained")
    return fig, axes
