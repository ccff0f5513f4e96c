#!/usr/bin/env python3
"""Draws the paper's figures (Figs. 2-8, 11 and per-head heat maps) from geoattn JSON files
alone, as PNG and PDF.

    scripts/plot_figures.py [--measure A.json [B.json ...]] [--bounds BOUNDS.json ...]
                            [--taxonomy TAX.json ...] [--sinks S.json [T.json ...]]
                            [--labels name1,name2] [--n N] --out DIR

At least one of --measure and --sinks; --bounds and --taxonomy go with --measure.

Writes into DIR (one line per file on stdout):
  fig2_norms              mean ||v_i|| by position (Assumption 1) and the histogram of per-head CV
  fig3_decay_mae          histogram of the decay-fit MAE; c(k) with exp(-beta k) for a few heads
  fig4_profile            mean attention row by position (log y) with the four-phase fit
  fig5_pr_vs_n            global P(r_max, N), R(r_min, N) against N: bootstrap bands, random
                          control, theoretical envelopes (--bounds with the same N grid)
  fig6_sink_recall_corr   corr(R(r_min, N), rho0) against N, global and per layer
  fig7_s_diagnostics      ||s(N)||, leave-one-out norms, cos(s, v_0), cos(s, v_L) for one
                          head per taxonomy label (or max c_last / median / max c_sink)
  fig8_labels_by_layer    head labels per layer (needs --taxonomy)
  fig11_regimes           P and R against N averaged per label (needs --taxonomy)
  heatmap_P_R_labels      layers x heads maps of P and R at N (and the labels)
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

Several --measure files (several models) are drawn side by side: one row (or one line style)
per model, named by --labels or by model.path; so are several --sinks files (--labels names
the files of each kind given, in order: as many names as --measure files and as --sinks
files). The i-th --taxonomy goes with the i-th --measure when the counts agree, otherwise
with the measure it was made from (its "from" or model path). A --bounds file is drawn
beside every measure with the same N grid (and, for a model/capture source, the same model
path).

Every input is checked before anything is drawn: its structure against the JSON Schemas in
docs/schema (scripts/geoattn_schema.py), then what a schema cannot say (curve lengths equal to
the N grid, layer and head indices inside the model, a taxonomy of the same run). Bad input
(missing file, invalid JSON, another schema, a missing, mistyped or unknown key) gives one line
`plot_figures: error: <file>: <problem>` on stderr, exit code 2, and writes nothing: the
figures are drawn into a temporary folder beside DIR and moved into DIR at the end.

Needs only the standard library, numpy and matplotlib (Debian: python3-numpy,
python3-matplotlib). When the `python3` on PATH lacks them (a pyenv or venv interpreter), the
script re-runs itself under /usr/bin/python3.
"""
import argparse
import json
import math
import os
import shutil
import sys
import tempfile

import geoattn_schema  # beside this script
from geoattn_results import FRAME_TYPES, MEASURE_SCHEMAS, SINKS_SCHEMA, inline_arrays, sink_arrays

PROG = "plot_figures"
BOUNDS_SCHEMA = "geoattn.bounds/1"
TAXONOMY_SCHEMA = "geoattn.taxonomy/1"
# JSON Schemas of the inputs (docs/schema, beside scripts/): the structure is checked there.
SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs", "schema")
MEASURE_SCHEMA_FILE = "geoattn.measure-2.schema.json"  # the file as geoattn writes it
MEASURE_INLINE_SCHEMA_FILE = "geoattn.measure-inline.schema.json"  # arrays inline (also /1)
BOUNDS_SCHEMA_FILE = "geoattn.bounds-1.schema.json"
TAXONOMY_SCHEMA_FILE = "geoattn.taxonomy-1.schema.json"
SINKS_SCHEMA_FILE = "geoattn.sinks-1.schema.json"
SCALAR_INTERVALS = ("rho0_ci", "c_sink_ci", "c_last_ci", "c_rest_ci")  # [lo, hi], not per N
LABEL_ORDER = ("Retriever", "Mixer", "Reset")
LABEL_COLORS = {"Retriever": "#1f77b4", "Mixer": "#2ca02c", "Reset": "#d62728"}
EXTRA_LABEL_COLORS = ("#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
FIGURES = ("fig2_norms", "fig3_decay_mae", "fig4_profile", "fig5_pr_vs_n",
           "fig6_sink_recall_corr", "fig7_s_diagnostics", "fig8_labels_by_layer",
           "fig11_regimes", "heatmap_P_R_labels")
SINK_FIGURES = ("sinks_heatmaps", "sinks_mass_lambda", "sinks_dormant", "sinks_graph",
                "sinks_frames", "sinks_anchor_tokens", "sinks_profile")
FRAME_COLORS = {"centralized": "#1f77b4", "bidirectional": "#ff7f0e", "distributed": "#2ca02c",
                "none": "#d9d9d9"}
FRAME_RULE_CAVEAT = "frame-type rule: geoattn's own (configs/sinks.json)"
ANCHOR_TOKENS_SHOWN = 24  # bars of the anchor-token histogram; the rest in one bar
DEFAULT_HEATMAP_N = 8
# (upper, lower) envelope colours of the 1st, 2nd, ... bounds file beside one measure
BOUND_COLORS = (("tab:orange", "tab:green"), ("tab:brown", "tab:olive"), ("tab:pink", "tab:cyan"))


class InputError(Exception):
    """A problem with one input file: reported as `plot_figures: error: <file>: <problem>`."""

    def __init__(self, path, problem):
        super().__init__(f"{path}: {problem}")


def fail(message, code=2):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(code)


def note(message):
    print(f"{PROG}: note: {message}", file=sys.stderr)


def ensure_plot_libraries():
    """numpy + matplotlib importable, or re-run under Debian's python3 that has them."""
    import importlib.util
    if importlib.util.find_spec("numpy") and importlib.util.find_spec("matplotlib"):
        return
    system_python = "/usr/bin/python3"
    here = os.path.realpath(sys.executable or "")
    if (not os.environ.get("PLOT_FIGURES_REEXEC") and os.path.exists(system_python)
            and os.path.realpath(system_python) != here):
        env = dict(os.environ, PLOT_FIGURES_REEXEC="1")
        os.execve(system_python, [system_python, os.path.abspath(__file__)] + sys.argv[1:], env)
    fail("numpy and matplotlib are needed (Debian: apt-get install python3-numpy "
         "python3-matplotlib)")


# ---------------------------------------------------------------------------------------
# Loading and validation (everything is checked before anything is drawn)

def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def load_json(path, schema):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise InputError(path, "no such file")
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a JSON file")
    except PermissionError:
        raise InputError(path, "permission denied")
    except UnicodeDecodeError:
        raise InputError(path, "not UTF-8 text")
    except json.JSONDecodeError as e:
        raise InputError(path, f"invalid JSON: {e.msg} at line {e.lineno} column {e.colno}")
    except OSError as e:
        raise InputError(path, e.strerror or str(e))
    if not isinstance(doc, dict):
        raise InputError(path, f"not a JSON object (expected schema {schema})")
    got = doc.get("schema")
    if got is None:
        raise InputError(path, f'no "schema" key (expected {schema})')
    expected = schema if isinstance(schema, tuple) else (schema,)
    if got not in expected:
        raise InputError(path, f'schema is "{got}", expected "{expected[0]}"')
    return doc


def check_schema(path, doc, schema_file):
    """The structure: docs/schema/<schema_file>, the first problem named by its JSON path."""
    try:
        why = geoattn_schema.problem(doc, schema_file, SCHEMA_DIR)
    except OSError as e:
        raise InputError(path, f"cannot read its schema {schema_file}: {e.strerror or e}")
    if why is not None:
        raise InputError(path, why)


def check_curve_lengths(path, groups, n):
    """What a schema cannot say: every per-N array of (where, group) has the N grid's length
    (the scalars' [lo, hi] intervals Y_ci excepted)."""
    for where, g in groups:
        for key, v in g.items():
            if isinstance(v, list) and key not in SCALAR_INTERVALS and len(v) != n:
                raise InputError(path, f"{where}.{key}: has {len(v)} values, the N grid has {n}")


def validate_measure(path):
    doc = load_json(path, MEASURE_SCHEMAS)
    if "arrays" in doc:  # the layout geoattn writes, checked before its arrays file is read
        check_schema(path, doc, MEASURE_SCHEMA_FILE)
    try:
        inline_arrays(doc, path)  # the per-layer and per-head arrays, from X.curves.safetensors
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(path, f"its arrays file: {e}")
    check_schema(path, doc, MEASURE_INLINE_SCHEMA_FILE)
    model = doc["model"]
    check_curve_lengths(path, [("global", doc["global"])]
                        + [(f"layers[{i}]", g) for i, g in enumerate(doc["layers"])]
                        + [(f"heads[{i}]", g) for i, g in enumerate(doc["heads"])], len(doc["n_grid"]))
    for i, g in enumerate(doc["layers"]):
        if g["layer"] >= model["layers"]:
            raise InputError(path, f"layers[{i}]: layer {g['layer']} outside the model's "
                                   f"{model['layers']} layers")
    for i, g in enumerate(doc["heads"]):
        if g["layer"] >= model["layers"] or g["head"] >= model["heads"]:
            raise InputError(path, f"heads[{i}]: layer {g['layer']} head {g['head']} outside the "
                                   f"model's {model['layers']} x {model['heads']}")
    return doc


def validate_bounds(path):
    doc = load_json(path, BOUNDS_SCHEMA)
    check_schema(path, doc, BOUNDS_SCHEMA_FILE)
    if doc["source"] == "params":
        groups = [("bounds", doc["bounds"])]
    else:
        groups = ([("global", doc["global"])]
                  + [(f"layers[{i}]", g) for i, g in enumerate(doc["layers"])]
                  + [(f"heads[{i}]", g) for i, g in enumerate(doc["heads"])])
    check_curve_lengths(path, groups, len(doc["n_grid"]))
    return doc


def check_lengths(path, arrays, n, what):
    """Every (where, list) of `arrays` has n values."""
    for where, values in arrays:
        if len(values) != n:
            raise InputError(path, f"{where}: has {len(values)} values, {what} is {n}")


def check_sinks_layout(path, doc):
    """What the sinks schema cannot say: every profile has P = min(T, profile_positions)
    values, a graph entry per tau and a sweep type per layer; layers ascending and heads
    unique, inside the model."""
    P = min(doc["T"], doc["settings"]["profile_positions"])
    layers = doc["layers"]
    check_lengths(path, [("summary.sink_rate", doc["summary"]["sink_rate"])]
                  + [(f"layers[{i}].{k}", ly[k]) for i, ly in enumerate(layers)
                     for k in ("alpha", "sink_rate")]
                  + [(f"layers[{i}].heads[{j}].{k}", hd[k]) for i, ly in enumerate(layers)
                     for j, hd in enumerate(ly["heads"]) for k in ("alpha", "sink_rate")],
                  P, "P = min(T, settings.profile_positions)")
    check_lengths(path, [(f"layers[{i}].graph", ly["graph"]) for i, ly in enumerate(layers)],
                  len(doc["settings"]["taus"]), "the number of settings.taus")
    check_lengths(path, [(f"summary.sweep[{i}].types", e["types"])
                         for i, e in enumerate(doc["summary"]["sweep"])], len(layers), "the number of layers")
    previous = -1
    for i, ly in enumerate(layers):
        if not previous < ly["layer"] < doc["layers_n"]:
            raise InputError(path, f"layers[{i}]: layer {ly['layer']} is not ascending inside the "
                                   f"model's {doc['layers_n']} layers")
        previous = ly["layer"]
        seen = set()
        for j, hd in enumerate(ly["heads"]):
            if hd["head"] >= doc["heads_n"] or hd["head"] in seen:
                raise InputError(path, f"layers[{i}].heads[{j}]: head {hd['head']} is repeated or "
                                       f"outside the model's {doc['heads_n']} heads")
            seen.add(hd["head"])


def validate_sinks(path):
    doc = load_json(path, SINKS_SCHEMA)
    check_schema(path, doc, SINKS_SCHEMA_FILE)
    check_sinks_layout(path, doc)
    return doc


def validate_taxonomy(path):
    """The structure; whether its heads are those of a --measure run is pair_taxonomies'."""
    doc = load_json(path, TAXONOMY_SCHEMA)
    check_schema(path, doc, TAXONOMY_SCHEMA_FILE)
    return doc


# ---------------------------------------------------------------------------------------
# The run: which files go together

def model_path_of(doc):
    """The checkpoint a result is of: model.path, or for `metrics` (a capture file) the
    capture's metadata.model, else the capture file."""
    model = doc.get("model") if isinstance(doc.get("model"), dict) else {}
    if isinstance(model.get("path"), str) and model["path"]:
        return model["path"]
    meta = model.get("metadata") if isinstance(model.get("metadata"), dict) else {}
    if isinstance(meta.get("model"), str) and meta["model"]:
        return meta["model"]
    return str(model.get("capture", ""))


class Model:
    """One --measure file with what was paired with it."""

    def __init__(self, path, doc):
        self.path = path
        self.doc = doc
        self.grid = [float(x) for x in doc["n_grid"]]
        self.layers = doc["model"]["layers"]
        self.heads = doc["model"]["heads"]
        self.head_list = sorted(doc["heads"], key=lambda h: (h["layer"], h["head"]))
        self.by_lh = {(h["layer"], h["head"]): h for h in doc["heads"]}
        self.layer_list = sorted(doc["layers"], key=lambda g: g["layer"])
        self.layer_ids = list(range(self.layers))
        self.taxonomy = None
        self.tax_path = None
        self.bounds = []  # (path, doc)
        self.label = None

    @property
    def model_path(self):
        return model_path_of(self.doc)

    def labels_of_heads(self):
        if self.taxonomy is None:
            return None
        return {(h["layer"], h["head"]): h["label"] for h in self.taxonomy["heads"]}


class SinkModel:
    """One --sinks file: the document and its numbers as arrays (geoattn_results.sink_arrays),
    rows in the order of its layers (their ids in layer_ids)."""

    def __init__(self, path, doc):
        self.path = path
        self.doc = doc
        self.a = sink_arrays(doc)
        self.layer_ids = [int(x) for x in self.a["layer"]]
        self.layers = len(self.layer_ids)
        self.heads = doc["heads_n"]
        self.config = doc["rule"]["config"]
        self.label = None

    @property
    def model_path(self):
        return model_path_of(self.doc)

    def heads_of(self):
        """(row, head, head dict) of every head, layer by layer."""
        return [(i, hd["head"], hd) for i, ly in enumerate(self.doc["layers"]) for hd in ly["heads"]]

    def name(self, row, head):
        return f"L{self.layer_ids[row]}H{head}"


def same_file(a, b):
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (TypeError, ValueError):
        return False


def taxonomy_mismatch(model, tax):
    """Why the taxonomy is not of this measure run, or None. Its heads must be the run's heads
    and the features it reports (c_sink, c_last, c_rest, samples) the run's numbers."""
    for h in tax["heads"]:
        mh = model.by_lh.get((h["layer"], h["head"]))
        if mh is None:
            return f"head (layer {h['layer']}, head {h['head']}) is not in {model.path}"
        feats = h.get("features")
        if not isinstance(feats, dict):
            continue
        for k in ("samples", "c_sink", "c_last", "c_rest"):
            a, b = feats.get(k), mh.get(k)
            if finite(a) and finite(b) and not math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12):
                return (f"head {head_name(h)} {k} is {a:.6g}, {model.path} has {b:.6g}: "
                        "a taxonomy of another run")
    return None


def check_taxonomy_fits(model, tax_path, tax):
    why = taxonomy_mismatch(model, tax)
    if why is not None:
        raise InputError(tax_path, why)


def pair_taxonomies(models, taxonomies):
    if not taxonomies:
        return
    if len(taxonomies) == len(models):
        for m, (p, t) in zip(models, taxonomies):
            check_taxonomy_fits(m, p, t)
            m.taxonomy, m.tax_path = t, p
        return
    for p, t in taxonomies:
        free = [m for m in models if m.taxonomy is None]
        src = t.get("from")
        tpath = model_path_of(t)
        pick = next((m for m in free if isinstance(src, str) and same_file(src, m.path)), None)
        if pick is None:
            pick = next((m for m in free if tpath and tpath == m.model_path
                         and taxonomy_mismatch(m, t) is None), None)
        if pick is None:
            raise InputError(p, "matches none of the --measure files (give one --taxonomy per "
                                "--measure, in the same order)")
        check_taxonomy_fits(pick, p, t)
        pick.taxonomy, pick.tax_path = t, p


def pair_bounds(models, bounds):
    for p, b in bounds:
        grid = [float(x) for x in b["n_grid"]]
        bpath = model_path_of(b)
        used = False
        for m in models:
            if grid != m.grid:
                continue
            if b["source"] != "params" and bpath and m.model_path and bpath != m.model_path:
                continue
            tag = ""
            if b["source"] != "params":
                bs, ms = b["global"].get("samples"), m.doc["global"].get("samples")
                same = bs == ms and all(
                    x is None and y is None or finite(x) and finite(y) and abs(x - y) <= 1e-9
                    for key in ("P_rmax", "R_rmin") if isinstance(b["global"].get(key), list)
                    for x, y in zip(b["global"][key], m.doc["global"][key]))
                if not same:
                    tag = f"over {bs} other samples" if is_number(bs) else "over other samples"
                    note(f"{p}: measured on other samples than {m.path} (its P/R differ); "
                         f"envelopes drawn, labelled '{tag}'")
            else:
                tag = "from params"
            m.bounds.append((p, b, tag))
            used = True
        if not used:
            note(f"{p}: its N grid (or model) matches no --measure file; envelopes not drawn")


def make_labels(models, labels_arg, flag="--measure"):
    if labels_arg is not None:
        names = [s.strip() for s in labels_arg.split(",")]
        if len(names) != len(models) or any(not s for s in names):
            fail(f"--labels: {len(names)} name(s) for {len(models)} {flag} file(s)")
        for m, s in zip(models, names):
            m.label = s
        return
    base = [m.model_path or os.path.basename(m.path) for m in models]
    for m, b in zip(models, base):
        m.label = b if base.count(b) == 1 else f"{b} [{os.path.basename(m.path)}]"
    if len({m.label for m in models}) != len(models):
        for i, m in enumerate(models):
            m.label = f"{m.label} #{i + 1}"


# ---------------------------------------------------------------------------------------
# Drawing helpers

np = None
plt = None


def import_plotting():
    global np, plt
    import numpy
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot
    np = numpy
    plt = matplotlib.pyplot
    plt.rcParams.update({
        "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 7.5,
        "xtick.labelsize": 8, "ytick.labelsize": 8, "axes.grid": True, "grid.alpha": 0.3,
        "grid.linewidth": 0.5, "savefig.dpi": 150, "figure.dpi": 100,
        "pdf.fonttype": 42,
    })


def arr(values):
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def ci_arrays(g, key, n):
    """(lo, hi) arrays of an optional interval key, or None when absent or all null."""
    v = g.get(key) if isinstance(g, dict) else None
    if v is None:
        return None
    if isinstance(v, dict):
        lo, hi = arr(v["lo"]), arr(v["hi"])
    else:
        lo = np.full(n, np.nan)
        hi = np.full(n, np.nan)
        for i, p in enumerate(v):
            if p is not None:
                lo[i] = np.nan if p[0] is None else float(p[0])
                hi[i] = np.nan if p[1] is None else float(p[1])
    if not (np.isfinite(lo) & np.isfinite(hi)).any():
        return None
    return lo, hi


def optional_curve(g, key):
    v = g.get(key) if isinstance(g, dict) else None
    if v is None:
        return None
    a = arr(v)
    return a if np.isfinite(a).any() else None


def log_n_axis(ax, grid):
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
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kw)


def empty_panel(ax, message):
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes,
            fontsize=8, color="0.4", wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)


def head_name(h):
    return f"L{h['layer']}H{h['head']}"


def fit_part(h, part):
    """fits[part] when present and ok, else None."""
    fits = h.get("fits")
    if not isinstance(fits, dict):
        return None
    p = fits.get(part)
    if not isinstance(p, dict) or p.get("ok") is False:
        return None
    return p


def finite(x):
    return x is not None and is_number(x) and math.isfinite(x)


def pick_quantile_heads(items, count=3):
    """items: [(value, head)] -> heads at the minimum, the median and the maximum value."""
    items = sorted((v, i, h) for i, (v, h) in enumerate(items) if finite(v))
    if not items:
        return []
    idx = sorted({0, (len(items) - 1) // 2, len(items) - 1})[:count]
    return [(items[i][0], items[i][2]) for i in idx]


def model_color(i):
    return plt.get_cmap("tab10")(i % 10)


def label_color(label, extra):
    if label in LABEL_COLORS:
        return LABEL_COLORS[label]
    if label not in extra:
        extra[label] = EXTRA_LABEL_COLORS[len(extra) % len(EXTRA_LABEL_COLORS)]
    return extra[label]


def ordered_labels(found):
    found = list(dict.fromkeys(found))
    return [x for x in LABEL_ORDER if x in found] + sorted(x for x in found if x not in LABEL_ORDER)


def new_figure(rows, cols, w=4.3, h=3.3):
    fig, axes = plt.subplots(rows, cols, figsize=(max(w * cols, 6.5), h * rows),
                             squeeze=False, layout="constrained")
    return fig, axes


# ---------------------------------------------------------------------------------------
# Figures. Each returns a Figure, or a string saying why it is skipped.

def fig2_norms(models):
    if not any(fit_part(h, "norms") for m in models for h in m.head_list):
        return "no heads[].fits.norms in the measure JSON(s)"
    fig, axes = new_figure(len(models), 2, w=5.0)
    for r, m in enumerate(models):
        ax, ax2 = axes[r]
        rows = [(fit_part(h, "norms"), h) for h in m.head_list]
        rows = [(p, h) for p, h in rows if p and p.get("mean_norm")]
        if not rows:
            empty_panel(ax, f"{m.label}: no norm fits")
            empty_panel(ax2, "")
            continue
        T = max(len(p["mean_norm"]) for p, _ in rows)
        mat = np.full((len(rows), T), np.nan)
        for k, (p, _) in enumerate(rows):
            a = arr(p["mean_norm"])
            mat[k, :len(a)] = a
        with np.errstate(all="ignore"):
            mean = np.nanmean(mat, axis=0)
            q25, q75 = np.nanpercentile(mat, 25, axis=0), np.nanpercentile(mat, 75, axis=0)
        pos = np.arange(T)
        ax.fill_between(pos, q25, q75, color="0.6", alpha=0.3, lw=0,
                        label="25-75% of heads")
        examples = pick_quantile_heads([(p.get("cv"), h) for p, h in rows])
        for k, (cv, h) in enumerate(examples):
            p = fit_part(h, "norms")
            ax.plot(pos[:len(p["mean_norm"])], arr(p["mean_norm"]), lw=0.7, alpha=0.8,
                    color=plt.get_cmap("Set2")(k), label=f"{head_name(h)} (CV {cv:.3f})")
        ax.plot(pos, mean, color="k", lw=1.6, label=f"mean over {len(rows)} heads")
        if np.isfinite(mean[0]):
            ax.plot([0], [mean[0]], "o", color="tab:red", ms=6, zorder=5,
                    label=f"sink $i=0$: {mean[0]:.3g}")
        med = np.nanmedian(mean[1:]) if T > 1 else np.nan
        if np.isfinite(med):
            ax.axhline(med, color="tab:red", ls=":", lw=0.9, label=f"median $i>0$: {med:.3g}")
        ax.set_xlabel("position $i$")
        ax.set_ylabel(r"mean $\Vert v_i\Vert_2$")
        ax.set_title(f"{m.label}: value-state norms by position")
        ax.set_xlim(-T * 0.01, T - 1 + T * 0.01)
        ax.legend(loc="best")

        cvs = np.array([p["cv"] for p, _ in rows if finite(p.get("cv"))])
        if cvs.size:
            ax2.hist(cvs, bins=min(40, max(8, int(np.sqrt(cvs.size) * 2))), color="tab:blue",
                     alpha=0.8, edgecolor="white", lw=0.5)
            ax2.axvline(np.median(cvs), color="k", ls="--", lw=1,
                        label=f"median {np.median(cvs):.3f}")
            ax2.legend(loc="best")
        else:
            empty_panel(ax2, "no CV values")
        ax2.set_xlabel(r"CV of $\Vert v_i\Vert_2$, $i > 0$")
        ax2.set_ylabel("heads (layer, head)")
        ax2.set_title(f"{m.label}: coefficient of variation ({cvs.size} heads)")
    fig.suptitle("Fig. 2: value-state norms are stable except the sink (Assumption 1)",
                 fontsize=11)
    return fig


def fig3_decay_mae(models):
    if not any(fit_part(h, "decay") for m in models for h in m.head_list):
        return "no heads[].fits.decay in the measure JSON(s)"
    fig, axes = new_figure(len(models), 2, w=5.0)
    for r, m in enumerate(models):
        ax, ax2 = axes[r]
        rows = [(fit_part(h, "decay"), h) for h in m.head_list]
        rows = [(p, h) for p, h in rows if p]
        maes = np.array([p["mae"] for p, _ in rows if finite(p.get("mae"))])
        if maes.size:
            ax.hist(maes, bins=min(40, max(8, int(np.sqrt(maes.size) * 2))),
                    color="tab:purple", alpha=0.8, edgecolor="white", lw=0.5)
            ax.axvline(maes.mean(), color="k", ls="--", lw=1, label=f"mean {maes.mean():.3f}")
            ax.axvline(np.median(maes), color="0.4", ls=":", lw=1,
                       label=f"median {np.median(maes):.3f}")
            ax.legend(loc="best")
        else:
            empty_panel(ax, "no MAE values")
        ax.set_xlabel(r"MAE of $c(k) \approx e^{-\beta k}$")
        ax.set_ylabel("heads (layer, head)")
        ax.set_title(f"{m.label}: exponential-decay fit error ({maes.size} heads)")

        examples = pick_quantile_heads([(p.get("mae"), h) for p, h in rows])
        for k, (mae, h) in enumerate(examples):
            p = fit_part(h, "decay")
            c = arr(p.get("c") or [])
            if not c.size:
                continue
            ks = np.arange(1, c.size + 1)
            color = plt.get_cmap("tab10")(k)
            ax2.plot(ks, c, "o", ms=2.5, color=color,
                     label=f"{head_name(h)}: $c(k)$, MAE {mae:.3f}")
            if finite(p.get("beta")):
                ax2.plot(ks, np.exp(-p["beta"] * ks), "-", lw=1.2, color=color,
                         label=rf"$e^{{-\beta k}}$, $\beta$ = {p['beta']:.3g}")
        if not examples:
            empty_panel(ax2, "no decay fits")
        else:
            ax2.axhline(0, color="0.5", lw=0.6)
            ax2.legend(loc="best", ncol=1)
        ax2.set_xlabel(r"distance $k = |i - j|$")
        ax2.set_ylabel(r"$c(k)$ = mean $\cos(v_i, v_j)$, $i, j > 0$")
        ax2.set_title(f"{m.label}: $c(k)$ of the min / median / max MAE heads")
    fig.suptitle("Fig. 3: cross-token similarity decays exponentially (Assumption 2)",
                 fontsize=11)
    return fig


def profile_model(p, T):
    """Assumption 3: alpha_0 = p_sink; p_base for 1 <= i <= T1;
    p_base (1 + eta cos(omega i)) for T1 < i <= T2; p_base exp(eta (i - T2)) for i > T2."""
    i = np.arange(T, dtype=float)
    ps, pb, eta, om = (float(p[k]) for k in ("p_sink", "p_base", "eta", "omega"))
    T1, T2 = float(p["T1"]), float(p["T2"])
    out = np.where(i <= T1, pb,
                   np.where(i <= T2, pb * (1.0 + eta * np.cos(om * i)),
                            pb * np.exp(np.clip(eta * (i - T2), -700, 700))))
    out[0] = ps
    return out


def positive(a):
    a = np.array(a, dtype=float)
    a[~(a > 0)] = np.nan
    return a


def fig4_profile(models):
    if not any(fit_part(h, "profile") for m in models for h in m.head_list):
        return "no heads[].fits.profile in the measure JSON(s)"
    fig, axes = new_figure(len(models), 4, w=3.8, h=3.1)
    needed = ("p_sink", "p_base", "eta", "omega", "T1", "T2")
    for r, m in enumerate(models):
        rows = [(fit_part(h, "profile"), h) for h in m.head_list]
        rows = [(p, h) for p, h in rows if p and p.get("mean_row")]
        if not rows:
            for ax in axes[r]:
                empty_panel(ax, f"{m.label}: no profile fits")
            continue
        T = max(len(p["mean_row"]) for p, _ in rows)
        mat = np.full((len(rows), T), np.nan)
        for k, (p, _) in enumerate(rows):
            a = arr(p["mean_row"])
            mat[k, :len(a)] = a
        with np.errstate(all="ignore"):
            mean = np.nanmean(mat, axis=0)
        ax = axes[r][0]
        ax.semilogy(np.arange(T), positive(mean), color="k", lw=1)
        ax.plot([0], positive(mean[:1]), "o", color="tab:red", ms=5, label="sink $i=0$")
        ax.set_title(f"{m.label}: mean over {len(rows)} heads")
        ax.set_xlabel("position $i$")
        ax.set_ylabel(r"mean attention $\bar\alpha_i$ (last query)")
        ax.legend(loc="best")

        fitted = [(p.get("error"), h) for p, h in rows
                  if all(finite(p.get(k)) for k in needed)]
        examples = pick_quantile_heads(fitted)
        names = ("best fit", "median fit", "worst fit")
        if len(examples) < 3:
            names = names[:len(examples)]
        for k in range(3):
            ax = axes[r][k + 1]
            if k >= len(examples):
                empty_panel(ax, "no further fitted head")
                continue
            err, h = examples[k]
            p = fit_part(h, "profile")
            row = arr(p["mean_row"])
            pos = np.arange(row.size)
            ax.semilogy(pos, positive(row), color="0.35", lw=0.8, label="measured")
            ax.semilogy(pos, positive(profile_model(p, row.size)), color="tab:orange", lw=1.4,
                        label="four-phase fit")
            marks = ([(p["T1"], "$T_1$=$T_2$")] if p["T1"] == p["T2"]
                     else [(p["T1"], "$T_1$"), (p["T2"], "$T_2$")])
            for t, name in marks:
                ax.axvline(t, color="tab:blue", ls=":", lw=0.9)
                ax.text(t, 0.98 if name.startswith("$T_1") else 0.9, f" {name}={int(t)}",
                        transform=ax.get_xaxis_transform(),
                        va="top", ha="left", fontsize=7, color="tab:blue")
            ax.set_title(f"{head_name(h)} ({names[k]}, RMSE$_{{\\log}}$ {err:.2f})")
            ax.set_xlabel("position $i$")
            ax.set_ylabel(r"$\bar\alpha_i$")
            ax.legend(loc="lower right" if row.size > 2 else "best",
                      title=(rf"$p_{{\mathrm{{sink}}}}$={p['p_sink']:.2g}, "
                             rf"$p_{{\mathrm{{base}}}}$={p['p_base']:.2g}"
                             "\n" rf"$\eta$={p['eta']:.3g}, $\omega$={p['omega']:.3g}"),
                      title_fontsize=7)
    fig.suptitle("Fig. 4: attention mass by position: sink, plateau, oscillation, recency "
                 "(Assumption 3)", fontsize=11)
    return fig


def bootstrap_note(m):
    b = m.doc.get("bootstrap")
    level = "95%"
    parts = []
    if isinstance(b, dict):
        pc = b.get("percentiles")
        if isinstance(pc, list) and len(pc) == 2 and all(finite(x) for x in pc):
            level = f"{pc[1] - pc[0]:g}%"
        if is_number(b.get("replicates")):
            parts.append(f"B={int(b['replicates'])}")
        unit = b.get("unit") if isinstance(b.get("unit"), str) and b.get("unit") else "document"
        if is_number(b.get("units")):
            n = int(b["units"])
            parts.append(f"{n} {unit}{'' if n == 1 else 's'}")
    return f"bootstrap {level} CI" + (" (" + ", ".join(parts) + ")" if parts else "")


def random_note(m):
    c = m.doc.get("controls") or (m.doc.get("settings") or {}).get("controls")
    if isinstance(c, dict) and is_number(c.get("random_permutations")):
        return f"random selection ({int(c['random_permutations'])} perm.)"
    return "random selection"


def bootstrap_usable(m):
    """Intervals from fewer than two resampled units are zero-width: not drawn."""
    b = m.doc.get("bootstrap")
    return not (isinstance(b, dict) and is_number(b.get("units")) and b["units"] < 2)


def draw_pr_panel(ax, m, g, key, grid, color="tab:blue", label=None, bands=True):
    n = len(grid)
    boot = bootstrap_usable(m)
    y = arr(g[key])
    ci = ci_arrays(g, key + "_ci", n) if bands and boot else None
    if bands and not boot and ci_arrays(g, key + "_ci", n) is not None:
        b = m.doc["bootstrap"]
        unit = b.get("unit") if isinstance(b.get("unit"), str) and b.get("unit") else "document"
        ax.plot([], [], " ", label=f"bootstrap over {int(b['units'])} {unit}: no CI drawn")
    if ci is not None:
        ax.fill_between(grid, ci[0], ci[1], color=color, alpha=0.22, lw=0,
                        label=bootstrap_note(m))
    rnd = optional_curve(g, key + "_random") if bands else None
    rci = ci_arrays(g, key + "_random_ci", n) if bands and boot and rnd is not None else None
    if rci is not None:
        ax.fill_between(grid, rci[0], rci[1], color="0.5", alpha=0.18, lw=0)
    if rnd is not None:
        ax.plot(grid, rnd, color="0.45", ls=(0, (4, 2)), lw=1.2, marker=".", ms=3,
                label=random_note(m))
    ax.plot(grid, y, color=color, lw=1.8, marker="o", ms=2.5, label=label or "measured mean")
    diff = ci_arrays(g, key + "_diff_ci", n) if bands and boot else None
    if diff is not None:
        with np.errstate(invalid="ignore"):
            sig = (diff[0] > 0) | (diff[1] < 0)
        if sig.any():
            ax.plot(np.asarray(grid)[sig], y[sig], "o", ms=5, mfc="none", mec=color, mew=0.9,
                    label="top-$N$ $\\neq$ random\n(95% CI of the difference)")


def fig5_pr_vs_n(models):
    fig, axes = new_figure(len(models), 2, w=6.2, h=3.5)
    for r, m in enumerate(models):
        g = m.doc["global"]
        for c, (key, lo, up, sym, name) in enumerate((
                ("P_rmax", "P_lo", "P_up", r"$P(r_{\max}, N)$", "Precision"),
                ("R_rmin", "R_lo", "R_up", r"$R(r_{\min}, N)$", "Recall"))):
            ax = axes[r][c]
            draw_pr_panel(ax, m, g, key, m.grid)
            for k, (bp, b, why) in enumerate(m.bounds):
                bg = b["bounds"] if b["source"] == "params" else b["global"]
                parts = ([os.path.basename(bp)] if len(m.bounds) > 1 else []) + (
                    [why] if why else [])
                tag = f" ({', '.join(parts)})" if parts else ""
                c_up, c_lo = BOUND_COLORS[k % len(BOUND_COLORS)]
                ax.plot(m.grid, arr(bg[up]), color=c_up, ls=":", lw=1.6,
                        label=f"upper bound{tag}")
                ax.plot(m.grid, np.maximum(arr(bg[lo]), 0.0), color=c_lo, ls="--", lw=1.4,
                        label=f"lower bound{tag}")
            log_n_axis(ax, m.grid)
            ax.set_ylim(-0.03, 1.03)
            ax.set_ylabel(sym)
            ax.set_title(f"{m.label}: {name} (global mean, {g.get('samples', '?')} samples)")
            if c == 1:
                outside_legend(ax)
    fig.suptitle("Fig. 5: separability against the number of selected tokens, with "
                 "the envelopes of Theorems 1-2", fontsize=11)
    return fig


def fig6_sink_recall_corr(models):
    fig, axes = new_figure(1, 1, w=9.5, h=4.4)
    ax = axes[0][0]
    anything = False
    for i, m in enumerate(models):
        color = model_color(i)
        first_layer = True
        for lg in m.layer_list:
            y = arr(lg["sink_recall_corr"])
            if np.isfinite(y).any():
                anything = True
                ax.plot(m.grid, y, color=color, lw=0.6, alpha=0.4,
                        label=(f"{m.label}: layers (thin)" if first_layer else None))
                first_layer = False
        g = m.doc["global"]
        y = arr(g["sink_recall_corr"])
        ci = ci_arrays(g, "sink_recall_corr_ci", len(m.grid)) if bootstrap_usable(m) else None
        if ci is not None:
            ax.fill_between(m.grid, ci[0], ci[1], color=color, alpha=0.2, lw=0,
                            label=f"{m.label}: {bootstrap_note(m)}")
        rho = g.get("rho0")
        label = f"{m.label}: global"
        if finite(rho):
            label += rf", $\rho_0$ = {rho:.3f}"
            rci = g.get("rho0_ci") if bootstrap_usable(m) else None
            if isinstance(rci, list) and len(rci) == 2 and all(finite(x) for x in rci):
                label += f" [{rci[0]:.3f}, {rci[1]:.3f}]"
        if np.isfinite(y).any():
            anything = True
        ax.plot(m.grid, y, color=color, lw=2.0, marker="o", ms=3, label=label)
    ax.axhline(0, color="0.3", lw=0.8)
    grid_all = [x for m in models for x in m.grid]
    log_n_axis(ax, grid_all)
    ax.set_ylabel(r"corr$(R(r_{\min}, N), \rho_0)$ over samples")
    ax.set_title(r"Fig. 6: sink similarity $\rho_0$ against Recall (Pearson, per $N$)")
    if not anything:
        ax.text(0.5, 0.7, "undefined at every N (no variance)", transform=ax.transAxes,
                ha="center", va="center", color="0.4")
    outside_legend(ax)
    return fig


PROXY_TEX = {"max c_last": r"max $c_{\mathrm{last}}$",
             "median c_last": r"median $c_{\mathrm{last}}$",
             "max c_sink": r"max $c_{\mathrm{sink}}$"}


def fig7_columns(models):
    """Column keys and, per model, the head shown in each column."""
    tax_labels = []
    for m in models:
        if m.taxonomy is not None:
            tax_labels += [h["label"] for h in m.taxonomy["heads"]]
    proxies = ("max c_last", "median c_last", "max c_sink")
    proxy_of = dict(zip(LABEL_ORDER, proxies))
    # With a taxonomy: the paper's three regimes always (a regime no head has shows the head
    # closest to it), then any other label; without: the c_last / c_sink extremes.
    columns = (list(LABEL_ORDER) + [x for x in ordered_labels(tax_labels) if x not in LABEL_ORDER]
               if tax_labels else list(proxies))

    def val(h, k):
        v = h.get(k)
        return v if finite(v) else -math.inf

    def choose(heads, how):
        if not heads:
            return None
        if how in ("Retriever", "max c_last"):
            return max(heads, key=lambda h: val(h, "c_last"))
        if how in ("Reset", "max c_sink"):
            return max(heads, key=lambda h: val(h, "c_sink"))
        s = sorted(heads, key=lambda h: val(h, "c_last"))
        return s[(len(s) - 1) // 2]

    picks = []
    for m in models:
        row = []
        labels = m.labels_of_heads()
        for col in columns:
            color = LABEL_COLORS.get(col, "tab:blue")
            if labels is not None:
                heads = [h for h in m.head_list if labels.get((h["layer"], h["head"])) == col]
                h = choose(heads, col)
                if h is not None:
                    why = f"{col}\n{head_name(h)} (1 of {len(heads)} {col} heads)"
                elif col in proxy_of:
                    proxy = proxy_of[col]
                    h = choose(m.head_list, proxy)
                    actual = labels.get((h["layer"], h["head"]), "?")
                    why = (f"no {col} head\nclosest: {head_name(h)} "
                           f"({PROXY_TEX[proxy]}, a {actual})")
                    color = LABEL_COLORS.get(actual, "0.3")
                else:
                    why = f"no {col} head"
            elif tax_labels:
                proxy = proxy_of.get(col, "median c_last")
                h = choose(m.head_list, proxy)
                why = f"{col} (no taxonomy)\n{head_name(h)} ({PROXY_TEX[proxy]})"
                color = "0.3"
            else:
                h = choose(m.head_list, col)
                why = f"{PROXY_TEX[col]}\n{head_name(h)}"
                color = ("tab:blue", "tab:green", "tab:red")[columns.index(col)]
            row.append((h, why, color))
        picks.append(row)
    return columns, picks


def fig7_s_diagnostics(models):
    columns, picks = fig7_columns(models)
    fig, axes = new_figure(2 * len(models), len(columns), w=4.2, h=2.9)
    for r, m in enumerate(models):
        for c, col in enumerate(columns):
            top, bot = axes[2 * r][c], axes[2 * r + 1][c]
            h, why, color = picks[r][c]
            if h is None:
                empty_panel(top, f"{m.label}\n{why}")
                empty_panel(bot, "")
                continue
            top.plot(m.grid, arr(h["s_norm"]), color=color, lw=1.8, label=r"$\Vert s(N)\Vert$")
            top.plot(m.grid, arr(h["s_loo_sink"]), color="k", ls="-.", lw=1.1,
                     label=r"$\Vert s(N \backslash \{0\})\Vert$")
            top.plot(m.grid, arr(h["s_loo_last"]), color="0.45", ls="--", lw=1.1,
                     label=r"$\Vert s(N \backslash \{L\})\Vert$")
            log_n_axis(top, m.grid)
            top.set_xlabel("")
            top.set_ylabel("norm")
            feats = []
            for k in ("c_sink", "c_last", "c_rest"):
                sym = r"c_{\mathrm{%s}}" % k[2:]
                if finite(h.get(k)):
                    feats.append(f"${sym}$={h[k]:.2g}")
            top.set_title(f"{m.label}: {why}\n" + ", ".join(feats), fontsize=8)
            top.legend(loc="best")
            bot.plot(m.grid, arr(h["cos_s_v0"]), color=color, lw=1.8, label=r"$\cos(s, v_0)$")
            bot.plot(m.grid, arr(h["cos_s_vL"]), color=color, ls="--", lw=1.8,
                     label=r"$\cos(s, v_L)$")
            bot.axhline(0, color="0.5", lw=0.6)
            both = np.concatenate([arr(h["cos_s_v0"]), arr(h["cos_s_vL"])])
            both = both[np.isfinite(both)]
            if both.size:
                bot.set_ylim(max(-1.05, min(-0.05, both.min() - 0.1)),
                             min(1.05, max(0.05, both.max() + 0.1)))
            log_n_axis(bot, m.grid)
            bot.set_ylabel("cosine")
            bot.legend(loc="best")
    fig.suptitle(r"Fig. 7: diagnostics of $s(N)$ by head regime (means over samples)",
                 fontsize=11)
    return fig


def fig8_labels_by_layer(models):
    with_tax = [m for m in models if m.taxonomy is not None]
    if not with_tax:
        return "no --taxonomy given"
    fig, axes = new_figure(1, len(with_tax), w=5.0, h=3.6)
    extra = {}
    for c, m in enumerate(with_tax):
        ax = axes[0][c]
        layers = sorted(m.taxonomy["layers"], key=lambda g: g["layer"])
        found = [k for g in layers for k in g if k != "layer"]
        labels = ordered_labels(found)
        x = np.array([g["layer"] for g in layers])
        bottom = np.zeros(len(layers))
        for lab in labels:
            counts = np.array([g.get(lab, 0) for g in layers], dtype=float)
            ax.bar(x, counts, bottom=bottom, color=label_color(lab, extra), width=0.8,
                   edgecolor="white", lw=0.4, label=f"{lab} ({int(counts.sum())})")
            bottom += counts
        ax.set_xlabel("layer")
        ax.set_ylabel("heads")
        if len(x) <= 40:
            ax.set_xticks(x)
            if len(x) > 16:
                ax.tick_params(axis="x", labelsize=6)
        ax.set_ylim(0, max(bottom.max() * 1.18, 1))
        ax.grid(axis="x", visible=False)
        ax.set_title(f"{m.label}: head regimes by layer")
        ax.legend(loc="upper center", ncol=len(labels), frameon=False)
    fig.suptitle("Fig. 8: distribution of the regimes across layers", fontsize=11)
    return fig


def fig11_regimes(models):
    with_tax = [m for m in models if m.taxonomy is not None]
    if not with_tax:
        return "no --taxonomy given"
    fig, axes = new_figure(len(with_tax), 2, w=6.0, h=3.5)
    extra = {}
    for r, m in enumerate(with_tax):
        labels = m.labels_of_heads()
        groups = {}
        for h in m.head_list:
            lab = labels.get((h["layer"], h["head"]))
            if lab is not None:
                groups.setdefault(lab, []).append(h)
        for c, (key, sym, name) in enumerate((("P_rmax", r"$P(r_{\max}, N)$", "Precision"),
                                               ("R_rmin", r"$R(r_{\min}, N)$", "Recall"))):
            ax = axes[r][c]
            rnd = optional_curve(m.doc["global"], key + "_random")
            if rnd is not None:
                ax.plot(m.grid, rnd, color="0.45", ls=(0, (4, 2)), lw=1.0,
                        label=random_note(m) + ", all heads")
            ax.plot(m.grid, arr(m.doc["global"][key]), color="k", lw=0.9, alpha=0.6,
                    label="all heads (global)")
            for lab in ordered_labels(groups):
                hs = groups[lab]
                mat = np.vstack([arr(h[key]) for h in hs])
                with np.errstate(all="ignore"):
                    mean = np.nanmean(mat, axis=0)
                color = label_color(lab, extra)
                if len(hs) > 1:
                    with np.errstate(all="ignore"):
                        q25 = np.nanpercentile(mat, 25, axis=0)
                        q75 = np.nanpercentile(mat, 75, axis=0)
                    ax.fill_between(m.grid, q25, q75, color=color, alpha=0.15, lw=0)
                ax.plot(m.grid, mean, color=color, lw=1.8, marker="o", ms=2.5,
                        label=f"{lab} ({len(hs)} heads)")
            log_n_axis(ax, m.grid)
            ax.set_ylim(-0.03, 1.03)
            ax.set_ylabel(sym)
            ax.set_title(f"{m.label}: {name} by regime", fontsize=9.5)
            if c == 1:
                outside_legend(ax, title="mean over heads\n(band: 25-75% of heads)",
                               title_fontsize=7.5)
    fig.suptitle("Fig. 11: precision-recall trade-offs of the head regimes", fontsize=11)
    return fig


def nearest_n(grid, want):
    return min(grid, key=lambda g: (abs(g - want), g))


def fig_heatmap(models, want_n):
    any_tax = any(m.taxonomy is not None for m in models)
    cols = 3 if any_tax else 2
    widest = max(m.heads for m in models)
    tallest = max(m.layers for m in models)
    w = min(max(2.2 + 0.32 * widest, 3.6), 6.5)
    h = min(max(1.6 + 0.28 * tallest, 2.8), 6.0)
    fig, axes = new_figure(len(models), cols, w=w, h=h)
    from matplotlib.colors import ListedColormap, BoundaryNorm
    from matplotlib.patches import Patch
    extra = {}
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
            ax.set_title(f"{m.label}: {sym} at $N$ = {n_txt}", fontsize=9)
        if cols == 3:
            ax = axes[r][2]
            labels = m.labels_of_heads()
            if labels is None:
                empty_panel(ax, f"{m.label}: no --taxonomy")
                continue
            names = ordered_labels(labels.values())
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
                      loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=len(names),
                      frameon=False)
            ax.set_title(f"{m.label}: head regimes", fontsize=9)
            heat_axes(ax, m)
    fig.suptitle("Per-head maps (layers x heads)", fontsize=11)
    return fig


def heat_axes(ax, m):
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


# ---------------------------------------------------------------------------------------
# Figures of geoattn sinks (SPEC section 9): each takes the --sinks models.

def finite_values(a):
    a = np.asarray(a, dtype=float)
    return a[np.isfinite(a)]


def layer_norm(m):
    from matplotlib.colors import Normalize
    return Normalize(vmin=min(m.layer_ids), vmax=max(max(m.layer_ids), min(m.layer_ids) + 1))


def layer_colorbar(fig, ax, m):
    from matplotlib.cm import ScalarMappable
    from matplotlib.ticker import MaxNLocator
    bar = fig.colorbar(ScalarMappable(norm=layer_norm(m), cmap="viridis"), ax=ax, shrink=0.9,
                       label="layer")
    bar.locator = MaxNLocator(integer=True)
    bar.update_ticks()


def layer_color(m, row):
    return plt.get_cmap("viridis")(layer_norm(m)(m.layer_ids[row]))


def eps_tex(m):
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


def fig_sinks_heatmaps(sinks):
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
    for i, hh in rows:
        ax.annotate(m.name(i, hh), (x[i, hh], y[i, hh]), xytext=(3, 3),
                    textcoords="offset points", fontsize=fontsize)


def fig_sinks_mass_lambda(sinks):
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
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel(r"sink mass $\alpha_0$ (mean over windows)")
        ax.set_ylabel(r"$\lambda = \Vert v_0\Vert / C$")
        ax.set_title(f"{m.label}: {int(ok.sum())} heads\n(no-value sinks: right, low)",
                     fontsize=9)
        ax.legend(loc="best")
    fig.suptitle(r"Sink mass $\alpha_0$ against the sink's value norm $\lambda$" "\n"
                 r"(large $\alpha_0$, small $\lambda$: a sink that carries no value)", fontsize=10)
    return fig


def fig_sinks_dormant(sinks):
    fig, axes = new_figure(1, len(sinks), w=5.0, h=4.0)
    for c, m in enumerate(sinks):
        ax = axes[0][c]
        x, y, dormant = m.a["row_score"], m.a["col_score"], m.a["dormant"]
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
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.05, 1.05)
        ax.set_xlabel(r"row score: mean$_{i \geq 1}$ H(A$_i$) / log(i+1)")
        ax.set_ylabel(r"column score: max$_j$ normalised column entropy")
        ax.set_title(f"{m.label}: dormant heads (shaded: row <= {row_max:g}, col >= {col_min:g})",
                     fontsize=9)
        ax.legend(loc="lower right")
    fig.suptitle("Dormant heads: low row entropy, high column entropy (geoattn's flags)",
                 fontsize=11)
    return fig


GRAPH_PANELS = (("fiedler", "Fiedler value"), ("gini", "Gini coefficient"),
                ("density", "density"))


def graph_panel(ax, m, key):
    """One statistic by layer, one line per tau; hollow markers where tau is not effective."""
    x = np.array(m.layer_ids)
    for j, tau in enumerate(m.a["taus"]):
        y, eff = m.a["graph"][key][:, j], m.a["effective"][:, j]
        color = plt.get_cmap("tab10")(j % 10)
        ax.plot(x, y, color=color, lw=1.3, label=rf"$\tau$ = {tau:g}")
        ax.plot(x[eff], y[eff], "o", color=color, ms=4)
        ax.plot(x[~eff], y[~eff], "o", mfc="none", mec=color, ms=5, mew=1)
    if key == "density":
        for bound in ("density_min", "density_max"):
            if finite(m.config.get(bound)):
                ax.axhline(m.config[bound], color="0.4", ls=":", lw=0.9)
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("layer")


def fig_sinks_graph(sinks):
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


def fig_sinks_frames(sinks):
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


def fig_sinks_anchor_tokens(sinks):
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


def fig_sinks_profile(sinks):
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


# ---------------------------------------------------------------------------------------

def parse_args(argv):
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            fail(f"{message} (see --help)")

    p = Parser(prog="plot_figures.py", description=__doc__.split("\n\n", 1)[0],
               epilog=__doc__.split("\n\n", 2)[2],
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--measure", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn measure results (one per model; drawn side by side)")
    p.add_argument("--bounds", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn.bounds/1 files: envelopes beside measures with the same N grid")
    p.add_argument("--taxonomy", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn.taxonomy/1 files (one per --measure, same order)")
    p.add_argument("--sinks", nargs="+", action="extend", default=[], metavar="JSON",
                   help="geoattn.sinks/1 results (one per model; drawn side by side)")
    p.add_argument("--labels", metavar="NAME,NAME",
                   help="comma-separated model names (default: model.path)")
    p.add_argument("--n", type=float, default=DEFAULT_HEATMAP_N, metavar="N",
                   help="N of the heat maps (the nearest grid value is used; default 8)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the figures")
    args = p.parse_args(argv)
    if not args.measure and not args.sinks:
        fail("give --measure or --sinks (or both) (see --help)")
    if not args.measure and (args.bounds or args.taxonomy):
        fail("--bounds and --taxonomy need --measure (see --help)")
    if not (args.n > 0 and math.isfinite(args.n)):
        fail("--n: expected a positive number")
    return args


def measure_drawers(models, heatmap_n):
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
    }
    return {name: drawers[name] for name in FIGURES}


def sink_drawers(sinks):
    """{figure name: drawer} of the --sinks figures, in the order of SINK_FIGURES."""
    drawers = {
        "sinks_heatmaps": fig_sinks_heatmaps,
        "sinks_mass_lambda": fig_sinks_mass_lambda,
        "sinks_dormant": fig_sinks_dormant,
        "sinks_graph": fig_sinks_graph,
        "sinks_frames": fig_sinks_frames,
        "sinks_anchor_tokens": fig_sinks_anchor_tokens,
        "sinks_profile": fig_sinks_profile,
    }
    return {name: (lambda f=drawers[name]: f(sinks)) for name in SINK_FIGURES}


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


def main(argv=None):
    ensure_plot_libraries()
    args = parse_args(sys.argv[1:] if argv is None else argv)

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
        pair_taxonomies(models, taxonomies)
    except InputError as e:
        fail(str(e))
    for group, flag in ((models, "--measure"), (sinks, "--sinks")):
        if group:
            make_labels(group, args.labels, flag)
    pair_bounds(models, bounds)
    import_plotting()

    try:
        tmp = tempfile.mkdtemp(prefix=".plot_figures.", dir=parent)
    except OSError as e:
        fail(f"{args.out}: cannot write beside it: {e.strerror or e}")
    written = []
    try:
        drawers = dict(measure_drawers(models, args.n) if models else {},
                       **(sink_drawers(sinks) if sinks else {}))
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


if __name__ == "__main__":
    sys.exit(main())
