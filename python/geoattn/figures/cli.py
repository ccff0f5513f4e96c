"""Draws the paper's figures (Figs. 2-8, 11 and per-head heat maps) from geoattn JSON files
alone, as PNG and PDF.

    scripts/plot_figures.py [--measure A.json [B.json ...]] [--bounds BOUNDS.json ...]
                            [--taxonomy TAX.json ...] [--sinks S.json [T.json ...]]
                            [--intervene I.json ...] [--labels name1,name2] [--n N] --out DIR
    geoattn-figures ...       the same, as the command `pip install ./python` installs

At least one of --measure, --sinks and --intervene; --bounds and --taxonomy go with --measure.

Writes into DIR (one line per file on stdout):
  fig2_norms              mean ||v_i|| by position (Assumption 1) and the histogram of per-head CV
  fig3_decay_mae          histogram of the decay-fit MAE; c(k) with exp(-beta k) for a few heads
  fig4_profile            mean attention row by position (log y) with the four-phase fit
  fig5_pr_vs_n            global P(r_max, N), R(r_min, N) against N: bootstrap bands and rings
                          where top-N differs from the random control (only where the run
                          has intervals; the title says why not, or that the units are few),
                          the envelopes of the run's own samples at its kappa and kappa-free
                          (kappa -> 0+) with the share of (sample, N) where the bounds are
                          non-trivial, theoretical envelopes (--bounds with the same N grid)
  fig6_sink_recall_corr   corr(R(r_min, N), rho0) against N, global and per layer
  fig7_s_diagnostics      ||s(N)||, leave-one-out norms, cos(s, v_0), cos(s, v_L) for one
                          head per taxonomy label (or max c_last / median / max c_sink)
  fig8_labels_by_layer    head labels per layer: Retriever, Mixer, Reset, Unlabelled (grey),
                          with their counts and the threshold sensitivity (needs --taxonomy)
  fig11_regimes           P and R against N averaged per label (needs --taxonomy)
  heatmap_P_R_labels      layers x heads maps of P and R at N (and the labels)
  kappa_ranges            per head, by layer, the kappas at which the envelopes of Theorems 1-2
                          bracket every measured mean; heads without one lettered by
                          the assumption named (the result's kappa_range; only from a run
                          with geoattn measure --kappa-scan, which is off by default)
With --sinks (geoattn sinks, SPEC section 9):
  sinks_heatmaps          layers x heads maps of the sink mass alpha_0, rho0 and lambda, with
                          Sink_0^eps per layer beside them
  sinks_mass_lambda       alpha_0 against lambda over all heads, by layer (a sink that carries
                          no value: large mass, small lambda)
  sinks_dormant           row score against column score per head, the dormant thresholds
  sinks_graph             Fiedler value, Gini and density of the attention graph by layer,
                          one line per tau (hollow: not effective)
  sinks_frames            frame type per layer (and per layer of the rule's sweep)
  sinks_anchor_tokens     how many heads have each token as their commonest top anchor
  sinks_profile           Abar's mean alpha_k and Sink_k^eps by position, one line per layer
With --intervene (geoattn intervene, docs/intervene.md):
  sparsification          the loss each policy costs against the fraction of keys it keeps,
                          one line per policy (top-n, sink-recent, random, each budget's curve)
                          and set of heads, the band its joint bootstrap intervals
  head_importance         layers x heads map of the loss each head alone costs (--each runs)

Several --measure files (several models) are drawn side by side: one row (or one line style)
per model, named by --labels or by model.path; so are several --sinks files (--labels names
the files of each kind given, in order: as many names as --measure files and as --sinks
files). The i-th --taxonomy goes with the i-th --measure when the counts agree, otherwise
with the measure it was made from (its "from" or model path). A --bounds file is drawn
beside every measure with the same N grid (and, for a model/capture source, the same model
path).

Every input is checked before anything is drawn: its structure against the JSON Schemas in
docs/schema (geoattn.schema), then what a schema cannot say (curve lengths equal to
the N grid, layer and head indices inside the model, a taxonomy of the same run). Bad input
(missing file, invalid JSON, another schema, a missing, mistyped or unknown key) gives one line
`geoattn-figures: error: <file>: <problem>` (`plot_figures:` from the script) on stderr, exit
code 2, and writes nothing: the figures are drawn into a temporary folder beside DIR and moved
into DIR at the end.

Needs only the standard library, numpy and matplotlib: in a venv `pip install './python[figures]'`,
with Debian's python3 `apt-get install python3-numpy python3-matplotlib`. An interpreter without
them is told so, by name, in one line (no other interpreter is tried).
"""
# The docstring above is the --help text of scripts/plot_figures.py (main: the command line).
from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, Callable, Sequence

from .common import PROG, fail, import_plotting, note, plt
from .curves import fig5_pr_vs_n, fig6_sink_recall_corr
from .fits import fig2_norms, fig3_decay_mae, fig4_profile
from .frames import fig_sinks_anchor_tokens, fig_sinks_frames, fig_sinks_graph
from .heatmaps import fig_heatmap
from .kappa import fig_kappa_ranges
from .inputs import InputError, validate_bounds, validate_intervene, validate_measure, validate_sinks, validate_taxonomy
from .interventions import InterveneRun, fig_head_importance, fig_sparsification, label_runs
from .runs import Model, SinkModel, make_labels, pair_bounds, pair_taxonomies
from .sinks import fig_sinks_dormant, fig_sinks_heatmaps, fig_sinks_mass_lambda, fig_sinks_profile
from .taxonomy import fig7_s_diagnostics, fig8_labels_by_layer, fig11_regimes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURES = ("fig2_norms", "fig3_decay_mae", "fig4_profile", "fig5_pr_vs_n",
           "fig6_sink_recall_corr", "fig7_s_diagnostics", "fig8_labels_by_layer",
           "fig11_regimes", "heatmap_P_R_labels", "kappa_ranges")
SINK_FIGURES = ("sinks_heatmaps", "sinks_mass_lambda", "sinks_dormant", "sinks_graph",
                "sinks_frames", "sinks_anchor_tokens", "sinks_profile")
INTERVENE_FIGURES = ("sparsification", "head_importance")
DEFAULT_HEATMAP_N = 8


def ensure_plot_libraries():
    """numpy + matplotlib importable in this interpreter, or one line that says how to get them."""
    import importlib.util
    missing = [m for m in ("numpy", "matplotlib") if not importlib.util.find_spec(m)]
    if missing:
        fail(f"{' and '.join(missing)} missing in {sys.executable}: pip install './python[figures]' "
             "(in a venv), or apt-get install python3-numpy python3-matplotlib (Debian's python3)")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line's arguments (argv without the program name); a bad one exits with
    `PROG: error: <problem>` (exit code 2; PROG: geoattn-figures, or plot_figures)."""
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            fail(f"{message} (see --help)")

    p = Parser(prog=PROG + (".py" if PROG == "plot_figures" else ""),  # the script's usage names its file
               description=__doc__.split("\n\n", 1)[0], epilog=__doc__.split("\n\n", 2)[2],
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--measure", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn measure results (one per model; drawn side by side)")
    p.add_argument("--bounds", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn.bounds/1 files: envelopes beside measures with the same N grid")
    p.add_argument("--taxonomy", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn.taxonomy/1 files (one per --measure, same order)")
    p.add_argument("--sinks", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn.sinks/1 results (one per model; drawn side by side)")
    p.add_argument("--intervene", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn intervene results (one panel each)")
    p.add_argument("--labels", metavar="NAME,NAME",
                   help="comma-separated model names (default: model.path)")
    p.add_argument("--n", type=float, default=DEFAULT_HEATMAP_N, metavar="N",
                   help="N of the heat maps (the nearest grid value is used; default 8)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the figures")
    args = p.parse_args(argv)
    if not args.measure and not args.sinks and not args.intervene:
        fail("give --measure, --sinks or --intervene (see --help)")
    if not args.measure and (args.bounds or args.taxonomy):
        fail("--bounds and --taxonomy need --measure (see --help)")
    if not (args.n > 0 and math.isfinite(args.n)):
        fail("--n: expected a positive number")
    return args


def measure_drawers(models: Sequence[Model], heatmap_n: float) -> dict[str, Callable[[], Figure | str]]:
    """{figure name: drawer} of the --measure figures, in the order of FIGURES."""
    drawers = {
        "fig2_norms": lambda: fig2_norms(models),
        "fig3_decay_mae": lambda: fig3_decay_mae(models),
        "fig4_profile": lambda: fig4_profile(models),
        "fig5_pr_vs_n": lambda: fig5_pr_vs_n(models),
        "fig6_sink_recall_corr": lambda: fig6_sink_recall_corr(models),
        "fig7_s_diagnostics": lambda: fig7_s_diagnostics(models),
        "fig8_labels_by_layer": lambda: fig8_labels_by_layer(models),
        "fig11_regimes": lambda: fig11_regimes(models),
        "heatmap_P_R_labels": lambda: fig_heatmap(models, heatmap_n),
        "kappa_ranges": lambda: fig_kappa_ranges(models),
    }
    return {name: drawers[name] for name in FIGURES}


def sink_drawers(sinks: Sequence[SinkModel]) -> dict[str, Callable[[], Figure | str]]:
    """{figure name: drawer} of the --sinks figures, in the order of SINK_FIGURES."""
    drawers = {
        "sinks_heatmaps": lambda: fig_sinks_heatmaps(sinks),
        "sinks_mass_lambda": lambda: fig_sinks_mass_lambda(sinks),
        "sinks_dormant": lambda: fig_sinks_dormant(sinks),
        "sinks_graph": lambda: fig_sinks_graph(sinks),
        "sinks_frames": lambda: fig_sinks_frames(sinks),
        "sinks_anchor_tokens": lambda: fig_sinks_anchor_tokens(sinks),
        "sinks_profile": lambda: fig_sinks_profile(sinks),
    }
    return {name: drawers[name] for name in SINK_FIGURES}


def save_figure(name, result, folder):
    """A drawn figure as name.png and name.pdf in folder (the file names), or a note when the
    drawer said why it is skipped."""
    if isinstance(result, str):
        note(f"{name} skipped: {result}")
        return []
    files = []
    for ext in ("png", "pdf"):
        kw = {"metadata": {"CreationDate": None}} if ext == "pdf" else {}
        result.savefig(os.path.join(folder, f"{name}.{ext}"), **kw)
        files.append(f"{name}.{ext}")
    plt.close(result)
    return files


def main(argv: Sequence[str] | None = None) -> int:
    """The command line of geoattn-figures and scripts/plot_figures.py (argv: its arguments,
    sys.argv[1:] by default): checks every input, draws the figures into a temporary folder beside --out and moves them
    in; returns 0, exits 2 on bad input and 1 when drawing fails."""
    args = parse_args(sys.argv[1:] if argv is None else argv)  # --help and bad flags need no numpy
    ensure_plot_libraries()

    out = os.path.abspath(args.out)
    parent = os.path.dirname(out)
    if os.path.exists(out) and not os.path.isdir(out):
        fail(f"{args.out}: exists and is not a folder")
    if not os.path.isdir(parent):
        fail(f"{args.out}: the parent folder {parent} does not exist")

    try:
        models = [Model(p, validate_measure(p)) for p in args.measure]
        taxonomies = [(p, validate_taxonomy(p)) for p in args.taxonomy]
        bounds = [(p, validate_bounds(p)) for p in args.bounds]
        sinks = [SinkModel(p, validate_sinks(p)) for p in args.sinks]
        interventions = [InterveneRun(p, validate_intervene(p)) for p in args.intervene]
        pair_taxonomies(models, taxonomies)
    except InputError as e:
        fail(str(e))
    for group, flag in ((models, "--measure"), (sinks, "--sinks")):
        if group:
            make_labels(group, args.labels, flag)
    pair_bounds(models, bounds)
    label_runs(interventions)
    import_plotting()

    try:
        tmp = tempfile.mkdtemp(prefix=".plot_figures.", dir=parent)
    except OSError as e:
        fail(f"{args.out}: cannot write beside it: {e.strerror or e}")
    written = []
    try:
        drawers = dict(measure_drawers(models, args.n) if models else {},
                       **(sink_drawers(sinks) if sinks else {}))
        if interventions:
            drawers.update({"sparsification": lambda: fig_sparsification(interventions),
                            "head_importance": lambda: fig_head_importance(interventions)})
        for name, draw in drawers.items():
            written += save_figure(name, draw(), tmp)
        os.makedirs(out, exist_ok=True)
        for f in written:
            os.replace(os.path.join(tmp, f), os.path.join(out, f))
    except Exception as e:  # a drawing bug: clean up, say what failed
        shutil.rmtree(tmp, ignore_errors=True)
        if os.environ.get("PLOT_FIGURES_DEBUG"):
            raise
        fail(f"drawing failed: {type(e).__name__}: {e}", code=1)
    shutil.rmtree(tmp, ignore_errors=True)
    for f in written:
        print(f"wrote {os.path.join(args.out, f)}")
    return 0
