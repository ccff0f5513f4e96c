#!/usr/bin/env python3
"""PlotFigures (ctest): scripts/plot_figures.py on real geoattn output.

Runs `geoattn measure`, `bounds` and `taxonomy` on the embedded stories260K over a few short
windows, then the plotter: every figure is written as a real PNG and PDF (one model, two models
side by side with the bootstrap/control keys, no taxonomy), and bad input (broken JSON, an old
or other schema, a missing key, a missing file) gives exit code 2, one stderr line and no
output. Without the binary too: the figures and scripts/summary.py on results constructed here
(one bootstrap unit, few units, the kappa-free envelopes, a taxonomy with Unlabelled heads and
its sensitivity rows, and the older layout without these keys), checked through matplotlib's
artists and the summary's columns. And `geoattn intervene` results (geometry budgets beside
uniform top-n and sink-recent over every head, an --each run): the sparsification curve and the
head-importance map, each line and cell the result's numbers. Standard library only; the
plotter itself needs numpy + matplotlib.

    tests/test_plot_figures.py [--source-dir DIR] [--bin-dir DIR] [--keep]

Paths default to GEOATTN_SOURCE_DIR / GEOATTN_BIN_DIR, else this checkout and build/bin.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

ALL_FIGURES = ("fig2_norms", "fig3_decay_mae", "fig4_profile", "fig5_pr_vs_n",
               "fig6_sink_recall_corr", "fig7_s_diagnostics", "fig8_labels_by_layer",
               "fig11_regimes", "heatmap_P_R_labels", "kappa_ranges")
NEEDS_TAXONOMY = ("fig8_labels_by_layer", "fig11_regimes")
SINK_FIGURES = ("sinks_heatmaps", "sinks_mass_lambda", "sinks_dormant", "sinks_graph",
                "sinks_frames", "sinks_anchor_tokens", "sinks_profile")
SINKS_SCHEMA_FILE = "geoattn.sinks-1.schema.json"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

from script_test_util import (block_after, check, failures, finish, must, parse_args,  # beside this file
                              plotter_python, remove_scratch, run, synthetic_sinks)


def check_outputs(out, names, stdout, what):
    expected = {f"{n}.{e}" for n in names for e in ("png", "pdf")}
    present = set(os.listdir(out)) if os.path.isdir(out) else set()
    check(present == expected, f"{what}: exactly the expected files (missing "
                               f"{sorted(expected - present)}, extra {sorted(present - expected)})")
    wrote = [line for line in stdout.splitlines() if line.startswith("wrote ")]
    check(len(wrote) == len(expected), f"{what}: one 'wrote' line per file ({len(wrote)})")
    for f in sorted(expected & present):
        path = os.path.join(out, f)
        with open(path, "rb") as fh:
            head = fh.read(8)
        size = os.path.getsize(path)
        if f.endswith(".png"):
            check(head == PNG_SIGNATURE and size > 10_000,
                  f"{what}: {f} is a PNG > 10 kB ({size} B)")
        else:
            check(head.startswith(b"%PDF") and size > 1_000, f"{what}: {f} is a PDF ({size} B)")
    leftovers = [d for d in os.listdir(os.path.dirname(out)) if d.startswith(".plot_figures.")]
    check(not leftovers, f"{what}: no temporary folder left beside the output ({leftovers})")


def write_file(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def check_rejected(cases, src, py, plot, tmp, tag):
    """Bad input, {what: (argv, name)}: exit 2, one stderr line naming `name`, nothing on
    stdout, nothing written (every other --out folder exists already and must stay empty)."""
    for k, (what, (argv, name)) in enumerate(cases.items()):
        parent = os.path.join(tmp, f"{tag}{k}")
        os.makedirs(parent)
        out = os.path.join(parent, "figs")
        if k % 2:  # an existing empty folder must stay empty
            os.makedirs(out)
        p, _ = run([py, plot] + argv + ["--out", out], src)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2, f"{what}: exit code 2 (got {p.returncode})")
        check(len(lines) == 1 and lines[0].startswith("plot_figures: error: ")
              and name in lines[0], f"{what}: one stderr line naming {name}: {lines}")
        check(p.stdout == "", f"{what}: nothing on stdout")
        check(os.listdir(parent) == (["figs"] if k % 2 else []) and
              (not os.path.isdir(out) or not os.listdir(out)),
              f"{what}: no output ({os.listdir(parent)})")


def synthetic_sinks_checks(src, py, plot, tmp):
    """--sinks on synthetic geoattn.sinks/1 documents (script_test_util.synthetic_sinks): the
    schema accepts them, every sinks figure is written (one model; two side by side, one
    without token texts), and a broken one is a one-line error. Needs no geoattn binary."""
    sys.path.insert(0, os.path.join(src, "python"))
    from geoattn.schema import problem
    folder = os.path.join(tmp, "sinks-synthetic")
    os.makedirs(folder)
    doc = synthetic_sinks(layers=3, heads=4, P=8, taus=(0.05, 0.1))
    other = synthetic_sinks(layers=6, heads=8, P=16, taus=(0.02, 0.05, 0.1), residual=True,
                            text=False)
    for what, d in (("L=3 H=4 P=8, two taus", doc), ("no texts, --residual", other)):
        why = problem(d, SINKS_SCHEMA_FILE, os.path.join(src, "docs", "schema"))
        check(why is None, f"synthetic sinks ({what}): valid {SINKS_SCHEMA_FILE} ({why})")
    S = write_file(folder, "s.json", json.dumps(doc))
    S2 = write_file(folder, "s2.json", json.dumps(other))

    out = os.path.join(folder, "one", "figs")
    os.makedirs(os.path.dirname(out))
    p = must([py, plot, "--sinks", S, "--out", out], src, "plot --sinks: one synthetic model")
    check_outputs(out, SINK_FIGURES, p.stdout, "sinks, one model")
    out = os.path.join(folder, "two", "figs")
    os.makedirs(os.path.dirname(out))
    p = must([py, plot, "--sinks", S, S2, "--labels", "small,large", "--out", out], src,
             "plot --sinks: two synthetic models side by side")
    check_outputs(out, SINK_FIGURES, p.stdout, "sinks, two models")

    def broken(name, edit):
        d = copy.deepcopy(doc)
        edit(d)
        return ["--sinks", write_file(folder, name, json.dumps(d))], name

    bad = {
        "sinks, a missing key": broken("no-lambda.json", lambda d: d["layers"][1]["heads"][2].pop("lambda")),
        "sinks, another schema string": broken("schema.json", lambda d: d.update(schema="geoattn.sinks/0")),
        "sinks, an unknown frame type": broken("frame.json", lambda d: d["layers"][0]["frame"].update(type="star")),
        "sinks, an unknown key": broken("extra.json", lambda d: d["summary"].update(windows=3)),
        "sinks, a profile longer than P": broken(
            "long.json", lambda d: d["layers"][2]["heads"][0]["alpha"].append(0.0)),
        "sinks, a graph entry short of the taus": broken(
            "graph.json", lambda d: d["layers"][1]["graph"].pop()),
        "sinks, a head outside the model": broken(
            "head.json", lambda d: d["layers"][0]["heads"][3].update(head=4)),
        "sinks, a missing file after two good ones": (
            ["--sinks", S, S2, os.path.join(folder, "nope.json")], "nope.json"),
        "neither --measure nor --sinks": ([], "--sinks"),
        "--taxonomy without --measure": (["--sinks", S, "--taxonomy", S], "--measure"),
        "--labels: more names than --sinks": (["--sinks", S, "--labels", "a,b"], "--sinks"),
    }
    check_rejected(bad, src, py, plot, tmp, "bad-sinks")


def with_controls(doc):
    """The measure JSON with the bootstrap/control keys (SPEC §2b) added where the build does
    not write them yet, in the agreed layout, so the plotter's bands are exercised."""
    doc = copy.deepcopy(doc)
    if "P_rmax_random" in doc["global"]:
        return doc

    def pairs(values, half):
        return [None if v is None else [max(0.0, v - half), min(1.0, v + half)] for v in values]

    for g in [doc["global"]] + doc["layers"] + doc["heads"]:
        for x in ("P_rmax", "R_rmin", "F_rmax", "F_rmin"):
            rnd = [None if v is None else 0.6 * v for v in g[x]]
            g[x + "_random"] = rnd
            g[x + "_ci"] = pairs(g[x], 0.04)
            g[x + "_diff_ci"] = [None if v is None else [v - r - 0.02, v - r + 0.02]
                                 for v, r in zip(g[x], rnd)]
        g["rho0_ci"] = [g["rho0"] - 0.01, g["rho0"] + 0.01]
        if "sink_recall_corr" in g:
            g["sink_recall_corr_ci"] = [None if v is None else [v - 0.05, v + 0.05]
                                        for v in g["sink_recall_corr"]]
    doc["bootstrap"] = {"replicates": 200, "seed": 0, "unit": "document", "units": 4}
    doc["controls"] = {"random_permutations": 16, "seed": 0}
    return doc


def real_output_checks(src, geoattn, py, plot, tmp):
    """The plotter on what the built geoattn writes (measure, bounds, taxonomy; sinks where
    `geoattn sinks` exists)."""
    run_a = ["--model", "models/stories260K", "--data",
             "data/tinystories/tinystories-sample.txt", "--window", "stream", "--ctx", "64",
             "--max-windows", "6", "--quiet"]
    run_b = ["--model", "models/stories260K", "--data",
             "data/openwebtext/openwebtext-first100.txt", "--window", "stream", "--ctx", "48",
             "--max-windows", "4", "--quiet"]
    A, BA, TA = (os.path.join(tmp, f) for f in ("a.json", "a-bounds.json", "a-tax.json"))
    B, TB = os.path.join(tmp, "b.json"), os.path.join(tmp, "b-tax.json")
    must([geoattn, "measure"] + run_a + ["--out", A], src, "geoattn measure (A)")
    must([geoattn, "bounds"] + run_a + ["--out", BA], src, "geoattn bounds (A)")
    must([geoattn, "taxonomy", "--from", A, "--out", TA], src, "geoattn taxonomy (A)")
    must([geoattn, "measure"] + run_b + ["--out", B], src, "geoattn measure (B)")
    with open(B) as f:
        b_doc = with_controls(json.load(f))
    B2 = os.path.join(tmp, "b-controls.json")
    with open(B2, "w") as f:
        json.dump(b_doc, f)
    must([geoattn, "taxonomy", "--from", B2, "--out", TB], src, "geoattn taxonomy (B)")

    # The kappa scan is opt-in (--kappa-scan): without it the kappa figure is skipped, saying
    # why; with it every figure is drawn.
    with open(A) as f:
        scanned = "kappa_scan" in (json.load(f).get("settings") or {})
    every = ALL_FIGURES if scanned else tuple(n for n in ALL_FIGURES if n != "kappa_ranges")

    # One model, with bounds and taxonomy: every figure.
    out = os.path.join(tmp, "one", "figs")
    os.makedirs(os.path.dirname(out))
    p = must([py, plot, "--measure", A, "--bounds", BA, "--taxonomy", TA, "--out", out],
             src, "plot: one model with bounds and taxonomy")
    check_outputs(out, every, p.stdout, "one model")
    if not scanned:
        check("kappa_ranges skipped" in p.stderr and "--kappa-scan" in p.stderr,
              f"no kappa scan: the kappa figure's skip says why ({p.stderr.strip()[-300:]})")

    # Two models side by side (different T and N grids), the control/bootstrap keys, a
    # bounds file that fits only one of them, labels, another heat-map N; into the same
    # folder (the figures are replaced).
    p = must([py, plot, "--measure", A, B2, "--bounds", BA, "--taxonomy", TA, TB,
              "--labels", "tinystories,openwebtext", "--n", "5", "--out", out],
             src, "plot: two models side by side, into the same folder")
    check_outputs(out, every, p.stdout, "two models")

    # No taxonomy: the figures that need it are skipped with a note.
    out = os.path.join(tmp, "notax", "figs")
    os.makedirs(os.path.dirname(out))
    p = must([py, plot, "--measure", B2, "--out", out], src, "plot: no taxonomy, no bounds")
    check_outputs(out, [n for n in every if n not in NEEDS_TAXONOMY], p.stdout,
                  "no taxonomy")
    check(all(n in p.stderr for n in NEEDS_TAXONOMY), "no taxonomy: the skips are named")

    # Bad input: exit 2, one stderr line naming the file, nothing written.
    sys.path.insert(0, os.path.join(src, "python"))
    from geoattn.results import load_measure
    a_doc = load_measure(A)  # every array inline: the edits below reach the heads' curves
    with open(A) as f:
        a_raw = json.load(f)

    # The numpy lines of docs/results.md read the arrays file as geoattn wrote it (run by an
    # interpreter with numpy: this one may lack it).
    block = block_after(os.path.join(src, "docs", "results.md"), "arrays-example", "python")
    arrays_path = os.path.join(os.path.dirname(A), a_raw["arrays"]["file"])
    example = os.path.join(tmp, "readme_example.py")
    with open(example, "w") as f:
        f.write(block.replace("out/first.curves.safetensors", arrays_path) + """
import sys
sys.path.insert(0, sys.argv[2])
from geoattn.results import load_measure
raw_doc, doc = json.load(open(sys.argv[1])), load_measure(sys.argv[1])
assert sorted(arrays) == sorted(raw_doc["arrays"]["tensors"]), "every array"
L, H, G = raw_doc["model"]["layers"], raw_doc["model"]["heads"], len(raw_doc["n_grid"])
assert arrays["heads.P_rmax"].shape == (L, H, G), arrays["heads.P_rmax"].shape
for h in doc["heads"]:
    want = [np.nan if x is None else x for x in h["P_rmax"]]
    assert np.array_equal(arrays["heads.P_rmax"][h["layer"], h["head"]], want, equal_nan=True), h
try:
    from safetensors.torch import load_file  # PyTorch, where the safetensors package is
    assert load_file(sys.argv[3])["heads.R_rmin"].numpy().tolist() == arrays["heads.R_rmin"].tolist()
    print("torch")
except ImportError:
    print("no safetensors package: safetensors.torch not tried")
""")
    p, _ = run([plotter_python() or py, example, A, os.path.join(src, "python"), arrays_path], src)
    check(p.returncode == 0, "the numpy example of docs/results.md reads the arrays file: " + p.stderr.strip()[-300:])
    print("      " + p.stdout.strip())
    bad = {}

    def write(name, text):
        return write_file(tmp, name, text)

    bad["broken JSON"] = (["--measure", write("broken.json", json.dumps(a_doc)[:5000])],
                          "broken.json")
    old = dict(a_doc, schema="geoattn.measure/0")
    bad["old schema"] = (["--measure", write("old.json", json.dumps(old))], "old.json")
    bad["other schema (a taxonomy as --measure)"] = (["--measure", TA], os.path.basename(TA))
    missing = copy.deepcopy(a_doc)
    del missing["global"]["P_rmax"]
    bad["missing key"] = (["--measure", write("missing.json", json.dumps(missing))],
                          "missing.json")
    short = copy.deepcopy(a_doc)
    short["heads"][3]["R_rmin"] = short["heads"][3]["R_rmin"][:-1]
    bad["curve shorter than the grid"] = (
        ["--measure", write("short.json", json.dumps(short))], "short.json")
    bad["missing file"] = (["--measure", os.path.join(tmp, "nope.json")], "nope.json")
    os.makedirs(os.path.join(tmp, "elsewhere"))
    bad["arrays file not beside the JSON"] = (
        ["--measure", write(os.path.join("elsewhere", "a.json"), json.dumps(a_raw))], "a.json")
    bad["bounds with a measure schema"] = (["--measure", A, "--bounds", A], "a.json")
    bad["taxonomy broken, valid measure"] = (
        ["--measure", A, "--taxonomy", write("tax-broken.json", "{\"schema\": ")],
        "tax-broken.json")
    bad["taxonomy of another run"] = (["--measure", A, "--taxonomy", TB], os.path.basename(TB))
    check_rejected(bad, src, py, plot, tmp, "bad")

    # The four-phase model of Assumption 3, evaluated directly.
    exe = plotter_python()
    if check(exe is not None, "an interpreter with numpy + matplotlib"):
        code = (
            "import sys; sys.path.insert(0, sys.argv[1]); import plot_figures as pf\n"
            "pf.import_plotting(); np = pf.np\n"
            "p = dict(p_sink=0.5, p_base=0.01, eta=0.1, omega=0.5, T1=3, T2=6)\n"
            "a = pf.profile_model(p, 10)\n"
            "want = [0.5, 0.01, 0.01, 0.01] + [0.01 * (1 + 0.1 * np.cos(0.5 * i)) "
            "for i in (4, 5, 6)] + [0.01 * np.exp(0.1 * (i - 6)) for i in (7, 8, 9)]\n"
            "assert np.allclose(a, want, rtol=1e-12), (a, want)\n"
            "b = pf.profile_model(dict(p, T1=4, T2=4), 6)\n"
            "assert np.allclose(b, [0.5] + [0.01] * 4 + [0.01 * np.exp(0.1)]), b\n")
        p, _ = run([exe, "-c", code, os.path.join(src, "scripts")], src)
        check(p.returncode == 0,
              f"four-phase profile model matches Assumption 3 {p.stderr[-500:]}")
    sinks_with_measure(src, geoattn, py, plot, tmp, run_a, (A, BA, TA), every)


def sinks_with_measure(src, geoattn, py, plot, tmp, run_a, measured, every=ALL_FIGURES):
    """--sinks beside --measure: `geoattn sinks`' real output on the same run (every build has
    the command: a failure of it is a failure here, not a reason to plot something else), every
    figure of both."""
    A, BA, TA = measured
    check_rejected({"a measure result as --sinks": (["--sinks", A], os.path.basename(A))},
                   src, py, plot, tmp, "bad-measure-as-sinks")
    S = os.path.join(tmp, "sinks.json")
    must([geoattn, "sinks"] + run_a + ["--out", S], src, "geoattn sinks (A)")
    out = os.path.join(tmp, "with-sinks", "figs")
    os.makedirs(os.path.dirname(out))
    p = must([py, plot, "--measure", A, "--bounds", BA, "--taxonomy", TA, "--sinks", S, "--out", out], src,
             "plot: a measure and a sinks result")
    check_outputs(out, tuple(every) + SINK_FIGURES, p.stdout, "measure and sinks")


# --- Constructed results (no geoattn binary): the keys of the current measure and taxonomy
# results (bootstrap.intervals / few_units / why, the kappa-free envelopes P_up0 / R_up0, the
# lower bounds' non-trivial share, envelopes.leaves; four label classes, Unlabelled's closest
# rule, the sensitivity rows) and the older layout without them.

SYN_GRID = (1, 2, 4, 8, 16, 32, 64)
SYN_CLASSES = ("Retriever", "Mixer", "Reset", "Unlabelled")


def synthetic_group(layer=0, head=0, shift=0.0):
    """One group's curves over SYN_GRID: P falls and R rises with N, the random control below
    P, the cosines of s(N) and the scalar features."""
    import math
    n = len(SYN_GRID)
    P = [round(max(0.05, 0.95 - 0.11 * math.log2(N) - shift), 6) for N in SYN_GRID]
    R = [round(min(1.0, 0.1 + 0.13 * math.log2(N) + shift / 2), 6) for N in SYN_GRID]
    g = {"samples": 40, "samples_n": [40] * n, "P_rmax": P, "R_rmin": R,
         "F_rmax": [round(2 * p * r / (p + r), 6) for p, r in zip(P, R)],
         "F_rmin": [round(0.9 * p * r / (p + r), 6) for p, r in zip(P, R)],
         "s_norm": [round(1 + 0.1 * k, 6) for k in range(n)],
         "s_loo_sink": [round(0.8 + 0.1 * k, 6) for k in range(n)],
         "s_loo_last": [round(0.9 + 0.1 * k, 6) for k in range(n)],
         "cos_s_v0": [round(0.9 - 0.1 * k, 6) for k in range(n)],
         "cos_s_vL": [round(0.1 + 0.1 * k, 6) for k in range(n)],
         "rho0": 0.3 + 0.01 * layer, "c_sink": 0.1 * (head + 1), "c_last": 0.05 * (layer + 1),
         "c_rest": 0.2}
    for x in ("P_rmax", "R_rmin", "F_rmax", "F_rmin"):
        g[x + "_random"] = [round(0.5 * v, 6) for v in g[x]]
    return g


def synthetic_envelopes(g, new_keys=True):
    """The "envelopes" of a group: kappa = 1 bounds around its means except at the last two N
    (P above P_up there); with new_keys the kappa-free P_up0 / R_up0, the per-N non-trivial
    shares (11% over all) and "leaves" counted from these arrays."""
    P, R = g["P_rmax"], g["R_rmin"]
    n = len(P)
    e = {"P_up": [min(1.0, p + 0.1) if k < n - 2 else p - 0.02 for k, p in enumerate(P)],
         "P_lo": [max(0.0, p - 0.2) for p in P],
         "R_up": [min(1.0, r + 0.1) for r in R], "R_lo": [max(0.0, r - 0.2) for r in R]}
    if new_keys:
        e["P_up0"] = [u + 0.05 if k < n - 1 else P[k] - 0.01 for k, u in enumerate(e["P_up"])]
        e["R_up0"] = [min(1.0, u + 0.05) for u in e["R_up"]]
        e["nontrivial"] = [None] + [0.11] * (n - 2) + [None]
        e["nontrivial_share"] = 0.11
        grid = list(SYN_GRID)
        e["leaves"] = {
            name: [N for N, y, b in zip(grid, g[curve], e[name]) if (y > b if up else y < b)]
            for name, curve, up in (("P_up", "P_rmax", True), ("P_lo", "P_rmax", False),
                                    ("R_up", "R_rmin", True), ("R_lo", "R_rmin", False),
                                    ("P_up0", "P_rmax", True), ("R_up0", "R_rmin", True))}
    return e


def add_intervals(g, significant):
    """Bootstrap intervals on a group's curves; the difference to the random control excludes
    0 at the grid indices of `significant` (per curve key) only."""
    for x in ("P_rmax", "R_rmin", "F_rmax", "F_rmin"):
        g[x + "_ci"] = [[max(0.0, v - 0.03), min(1.0, v + 0.03)] for v in g[x]]
        sig = significant.get(x, ())
        g[x + "_diff_ci"] = [[0.01, 0.2] if k in sig else [-0.05, 0.05] for k in range(len(g[x]))]
    g["rho0_ci"] = [g["rho0"] - 0.01, g["rho0"] + 0.01]


SYN_SIGNIFICANT = {"P_rmax": (2, 3, 4, 5), "R_rmin": (0, 6)}  # global: 4 rings on P, 2 on R


def synthetic_measure(units=8, new_keys=True, why=None, layers=3, heads=4, envelopes=True):
    """A measure result with every array inline (the layout load_measure returns), built here.
    units: bootstrap units (None: no bootstrap); new_keys: the current keys (bootstrap.intervals,
    few_units, why; kappa-free envelopes, non-trivial shares, leaves; the heads' slope
    intervals), else the older layout. With fewer than 2 units and new_keys there is no *_ci
    key anywhere, as geoattn writes it; the older layout kept its (zero-width) intervals."""
    grid = list(SYN_GRID)
    glob = synthetic_group(shift=0.0)
    glob["sink_recall_corr"] = [None] + [round(0.1 * k, 6) for k in range(1, len(grid))]
    layer_rows, head_rows = [], []
    for l in range(layers):
        ly = synthetic_group(l, 0, 0.02 * l)
        ly.update(layer=l, sink_recall_corr=[round(0.05 * k, 6) for k in range(len(grid))])
        layer_rows.append(ly)
        for h in range(heads):
            hd = synthetic_group(l, h, 0.02 * l + 0.01 * h)
            hd.update(layer=l, head=h)
            head_rows.append(hd)
    intervals = units is not None and units >= 2
    for g in [glob] + layer_rows + head_rows:
        if envelopes:
            g["envelopes"] = synthetic_envelopes(g, new_keys)
        if units is not None and (intervals or not new_keys):
            add_intervals(g, SYN_SIGNIFICANT if g is glob else {"P_rmax": (1,)})
    if new_keys and intervals:
        for hd in head_rows:
            hd["cos_s_v0_slope_ci"] = [-0.2, -0.05]
            hd["cos_s_vL_slope_ci"] = [0.03, 0.1]
    doc = {"schema": "geoattn.measure/2",
           "model": {"path": "synthetic/model", "layers": layers, "heads": heads},
           "data": {"windows": 10, "tokens": 640},
           "settings": {"envelopes": {"kappa": 1.0}},
           "n_grid": grid, "global": glob, "layers": layer_rows, "heads": head_rows}
    if units is not None:
        b = {"replicates": 200, "seed": 0, "level": "head", "unit": "document", "units": units,
             "percentiles": [2.5, 97.5]}
        if new_keys:
            b["intervals"] = intervals
            b["few_units"] = intervals and units < 10
            if not intervals or units < 10:
                b["why"] = why or (f"The run has {units} document(s): a bootstrap over fewer than "
                                   "2 units gives no interval. Measure more documents.")
        doc["bootstrap"] = b
        doc["controls"] = {"random_permutations": 16, "seed": 0}
    return doc


SYN_LABELS = {(0, 0): "Reset", (0, 1): "Reset", (0, 2): "Mixer", (0, 3): "Unlabelled",
              (1, 0): "Retriever", (1, 1): "Mixer", (1, 2): "Unlabelled", (1, 3): "Retriever",
              (2, 0): "Retriever", (2, 1): "Retriever", (2, 2): "Retriever", (2, 3): "Unlabelled"}
SYN_SENSITIVITY = [
    {"threshold": "c_last_min", "factor": 0.75, "value": 0.15, "changed": 2,
     "heads": [{"layer": 0, "head": 3, "from": "Unlabelled", "to": "Retriever"},
               {"layer": 1, "head": 2, "from": "Unlabelled", "to": "Retriever"}]},
    {"threshold": "c_last_min", "factor": 1.25, "value": 0.25, "changed": 1,
     "heads": [{"layer": 1, "head": 0, "from": "Retriever", "to": "Unlabelled"}]},
    {"threshold": "c_sink_min", "factor": 0.9, "value": 0.27, "changed": 0, "heads": []},
    {"threshold": "c_sink_min", "factor": 1.1, "value": 0.33, "changed": 3,
     "heads": [{"layer": 0, "head": h, "from": "Reset", "to": "Unlabelled"} for h in (0, 1)]
     + [{"layer": 2, "head": 3, "from": "Unlabelled", "to": "Mixer"}]},
]


def synthetic_taxonomy(measure, new_keys=True):
    """A taxonomy of `measure` (SYN_LABELS; with new_keys the four classes, the Unlabelled heads'
    closest rule and failed criterion, the slope intervals and the sensitivity rows; else the
    older three classes, the Unlabelled heads counted as Mixers)."""
    classes = SYN_CLASSES if new_keys else SYN_CLASSES[:3]
    heads = []
    for hd in measure["heads"]:
        lab = SYN_LABELS[(hd["layer"], hd["head"])]
        if not new_keys and lab == "Unlabelled":
            lab = "Mixer"
        feats = {k: hd[k] for k in ("samples", "c_sink", "c_last", "c_rest")}
        h = {"layer": hd["layer"], "head": hd["head"], "label": lab, "rule": f"{lab} rule",
             "features": feats}
        if new_keys:
            feats.update(slope_cos_v0_ci=[-0.2, -0.05], slope_cos_vL_ci=None, slopes_by="interval")
            if lab == "Unlabelled":
                h.update(rule="none", closest="Mixer" if hd["layer"] < 2 else "Reset",
                         failed="the slope of cos(s, v_L) over ln N has an interval containing 0")
        heads.append(h)
    layers = [dict({"layer": l}, **{c: sum(1 for h in heads if h["layer"] == l and h["label"] == c)
                                    for c in classes})
              for l in range(measure["model"]["layers"])]
    totals = dict({"heads": len(heads)}, **{c: sum(r[c] for r in layers) for c in classes})
    doc = {"schema": "geoattn.taxonomy/1", "from": "m.json",
           "model": {"path": measure["model"]["path"]}, "heads": heads, "layers": layers,
           "totals": totals}
    if new_keys:
        doc["sensitivity"] = SYN_SENSITIVITY
    return doc


def figure_texts(fig):
    """Every title, suptitle and legend entry of a figure."""
    out = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    for ax in fig.axes:
        out.append(ax.get_title())
        leg = ax.get_legend()
        if leg is not None:
            out += [t.get_text() for t in leg.get_texts()]
    return out


def lines_with_gid(ax, gid):
    return [ln for ln in ax.get_lines() if ln.get_gid() == gid]


def draw_synthetic(src):
    """The figures on the constructed results, checked through matplotlib's artists; run by an
    interpreter with numpy + matplotlib (synthetic_figure_checks)."""
    sys.path.insert(0, os.path.join(src, "python"))
    from geoattn import figures
    from geoattn.figures.runs import Model
    from geoattn.figures.kappa import fig_kappa_ranges
    figures.import_plotting()
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    from matplotlib.container import BarContainer

    def model(doc, tax=None, label="synthetic"):
        m = Model("m.json", doc)
        m.label, m.taxonomy = label, tax
        return m

    def rings(fig):
        """Rings per panel of Fig. 5's first row: (P, R)."""
        return tuple(sum(len(ln.get_xdata()) for ln in lines_with_gid(ax, "significance-rings"))
                     for ax in fig.axes[:2])

    def bands(ax):
        return sum(1 for c in ax.collections if isinstance(c, PolyCollection))

    # What a schema cannot say, on the current keys: the heads' slope intervals are [lo, hi],
    # not curves over N.
    from geoattn.figures.inputs import InputError, check_curve_lengths
    few = synthetic_measure(units=4)
    try:
        check_curve_lengths("m.json", [(f"heads[{i}]", h) for i, h in enumerate(few["heads"])],
                            len(SYN_GRID))
        why = None
    except InputError as e:
        why = str(e)
    check(why is None and "cos_s_v0_slope_ci" in few["heads"][0],
          f"curve lengths: the heads' slope intervals are not taken for curves ({why})")

    # One bootstrap unit: no interval anywhere, so no band and no ring, and the title says why.
    one = synthetic_measure(units=1)
    check(not any(k.endswith("_ci") for k in one["global"]), "one unit: no *_ci key in the result")
    fig = figures.fig5_pr_vs_n([model(one)])
    texts = figure_texts(fig)
    check(rings(fig) == (0, 0), f"one unit: Fig. 5 draws no significance rings ({rings(fig)})")
    check(all(bands(ax) == 0 for ax in fig.axes[:2]), "one unit: Fig. 5 draws no bootstrap band")
    titles = [ax.get_title() for ax in fig.axes[:2]]
    check(all("no intervals: The run has 1 document(s)" in t for t in titles),
          f"one unit: both panel titles say why there are no intervals ({titles})")
    check(all(len(t.splitlines()[-1]) <= 90 for t in titles), "one unit: the reason is shortened")
    plt.close(fig)

    # An older one-unit result (no "intervals": read from units < 2; its zero-width intervals
    # are present but not drawn).
    old_one = synthetic_measure(units=1, new_keys=False)
    fig = figures.fig5_pr_vs_n([model(old_one)])
    titles = [ax.get_title() for ax in fig.axes[:2]]
    check(rings(fig) == (0, 0) and all("no intervals: the bootstrap resampled 1 document" in t
                                       for t in titles),
          f"older one-unit result: no rings, the titles say why ({rings(fig)}, {titles})")
    plt.close(fig)

    # Few units: rings where the difference's interval excludes 0; the title says few.
    few = synthetic_measure(units=4)
    fig = figures.fig5_pr_vs_n([model(few)])
    want = tuple(len(SYN_SIGNIFICANT[k]) for k in ("P_rmax", "R_rmin"))
    check(rings(fig) == want, f"four units: {want} significance rings on P and R ({rings(fig)})")
    ring_x = [list(ln.get_xdata()) for ln in lines_with_gid(fig.axes[0], "significance-rings")]
    check(ring_x == [[float(SYN_GRID[k]) for k in SYN_SIGNIFICANT["P_rmax"]]],
          f"four units: the rings are at the N whose interval excludes 0 ({ring_x})")
    titles = [ax.get_title() for ax in fig.axes[:2]]
    check(all(t.endswith("intervals from 4 documents (few)") for t in titles),
          f"four units: the titles say the intervals are from few units ({titles})")
    check(all(bands(ax) >= 1 for ax in fig.axes[:2]), "four units: bootstrap bands drawn")
    plt.close(fig)
    # The legend names the coverage the result's percentiles give (a run with --ci 80: 80%).
    at80 = synthetic_measure(units=4)
    at80["bootstrap"]["percentiles"] = [10.0, 90.0]
    fig = figures.fig5_pr_vs_n([model(at80)])
    labels = figure_texts(fig)
    check(any("80% CI of the difference" in t for t in labels) and any("bootstrap 80% CI" in t for t in labels)
          and not any("95%" in t for t in labels), f"--ci 80: the legends say 80% ({labels})")
    plt.close(fig)
    fig = figures.fig5_pr_vs_n([model(synthetic_measure(units=4, new_keys=False))])
    check(rings(fig) == want and fig.axes[0].get_title().endswith("(few)"),
          "older four-unit result (no few_units key): rings drawn, the title says few")
    plt.close(fig)

    # Many units: rings, no caption about the intervals.
    fig = figures.fig5_pr_vs_n([model(synthetic_measure(units=40))])
    titles = [ax.get_title() for ax in fig.axes[:2]]
    check(rings(fig) == want and not any("intervals" in t for t in titles),
          f"40 units: rings drawn, no note on the intervals ({rings(fig)}, {titles})")
    plt.close(fig)

    # The envelopes: the kappa-free upper ones beside the kappa = 1 ones, the means above them,
    # the non-trivial share in the legend.
    fig = figures.fig5_pr_vs_n([model(few)])
    env = few["global"]["envelopes"]
    for ax, key, curve in ((fig.axes[0], "P_up0", "P_rmax"), (fig.axes[1], "R_up0", "R_rmin")):
        free = lines_with_gid(ax, "kappa-free-upper")
        check(len(free) == 1 and list(free[0].get_ydata()) == env[key] and
              free[0].get_linestyle() == "-.",
              f"envelopes: {key} drawn, dash-dotted, with its values")
        above = lines_with_gid(ax, "above-kappa-free")
        n_above = len(above[0].get_xdata()) if above else 0
        check(n_above == len(env["leaves"][key]),
              f"envelopes: {n_above} N marked above {key}, as its leaves say ({env['leaves'][key]})")
        out = lines_with_gid(ax, "outside-envelopes")
        n_out = len(out[0].get_xdata()) if out else 0
        want_out = len(set(env["leaves"][key[0] + "_up"]) | set(env["leaves"][key[0] + "_lo"]))
        check(n_out == want_out, f"envelopes: {n_out} N crossed outside the kappa envelopes of "
                                 f"{curve} (want {want_out})")
    texts = figure_texts(fig)
    check(any("$\\kappa$-free" in t and "realized" in t and "not a test of the theory" in t for t in texts),
          "envelopes: the legend names the kappa-free upper envelope, realized: a consistency check")
    check(any("bounds non-trivial in 11% of (sample, $N$)" in t for t in texts),
          "envelopes: the legend gives the non-trivial share (11%)")
    plt.close(fig)
    fig = figures.fig5_pr_vs_n([model(synthetic_measure(units=4, new_keys=False))])
    check(not any(lines_with_gid(ax, "kappa-free-upper") for ax in fig.axes)
          and not any("non-trivial" in t for t in figure_texts(fig)),
          "older envelopes (no P_up0, no share): drawn without the kappa-free curve")
    plt.close(fig)
    fig = figures.fig5_pr_vs_n([model(synthetic_measure(units=None, envelopes=False))])
    check(rings(fig) == (0, 0), "no bootstrap, no envelopes: Fig. 5 draws the means")
    plt.close(fig)

    # Two models side by side, one without intervals, one with few.
    fig = figures.fig5_pr_vs_n([model(one, label="a"), model(few, label="b")])
    titles = [ax.get_title() for ax in fig.axes[:4]]
    check("no intervals" in titles[0] and titles[2].endswith("(few)"),
          f"two models: each row's title speaks of its own intervals ({titles})")
    plt.close(fig)

    # The taxonomy: four classes, Unlabelled grey, counts in the legends.
    tax = synthetic_taxonomy(few)
    counts = {c: sum(1 for v in SYN_LABELS.values() if v == c) for c in SYN_CLASSES}
    fig = figures.fig8_labels_by_layer([model(few, tax)])
    ax = fig.axes[0]
    stacks = [c for c in ax.containers if isinstance(c, BarContainer)]
    check(len(stacks) == 4, f"Fig. 8: four stacked classes ({len(stacks)})")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    check(legend[:3] == [f"{c} ({counts[c]})" for c in SYN_CLASSES[:3]]
          and legend[3] == f"Unlabelled ({counts['Unlabelled']}; closest: Mixer 2, Reset 1)",
          f"Fig. 8: the legend counts each class ({legend})")
    grey = stacks[3].patches[0].get_facecolor()
    check(abs(grey[0] - grey[1]) < 1e-6 and abs(grey[1] - grey[2]) < 1e-6,
          f"Fig. 8: Unlabelled is grey ({grey})")
    heights = [sum(p.get_height() for p in s.patches) for s in stacks]
    check(heights == [counts[c] for c in SYN_CLASSES], f"Fig. 8: bar heights sum to the counts ({heights})")
    check("threshold moved (\u00b110%: 3, \u00b125%: 2): the most of 12 heads" in ax.get_title(),
          f"Fig. 8: the title gives the threshold sensitivity ({ax.get_title()!r})")
    plt.close(fig)
    zero = copy.deepcopy(tax)
    for h in zero["heads"]:
        if h["label"] == "Unlabelled":
            h.update(label="Mixer")
            h.pop("closest")
    for row in zero["layers"]:
        row["Mixer"] += row["Unlabelled"]
        row["Unlabelled"] = 0
    fig = figures.fig8_labels_by_layer([model(few, zero)])
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    check(len(legend) == 4 and legend[3] == "Unlabelled (0)",
          f"Fig. 8: a class no head has is still in the legend, counted 0 ({legend})")
    plt.close(fig)
    old_tax = synthetic_taxonomy(few, new_keys=False)
    fig = figures.fig8_labels_by_layer([model(few, old_tax)])
    stacks = [c for c in fig.axes[0].containers if isinstance(c, BarContainer)]
    check(len(stacks) == 3, f"Fig. 8, an older taxonomy: three classes ({len(stacks)})")
    plt.close(fig)

    fig = figures.fig_heatmap([model(few, tax)], 8)
    legends = [a.get_legend() for a in fig.axes if a.get_legend() is not None]
    got = [t.get_text() for t in legends[-1].get_texts()] if legends else []
    check(got == [f"{c} ({counts[c]})" for c in SYN_CLASSES],
          f"heat map: the labels' legend has the four classes and their counts ({got})")
    plt.close(fig)

    fig = figures.fig7_s_diagnostics([model(few, tax)])
    titles = [a.get_title() for a in fig.axes]
    check(len(fig.axes) == 8 and any(t.startswith("synthetic: Unlabelled") and "closest: " in t
                                     for t in titles),
          f"Fig. 7: a column for the Unlabelled heads, naming the closest rule ({len(fig.axes)} axes)")
    plt.close(fig)
    fig = figures.fig11_regimes([model(few, tax)])
    legend = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    check(f"Unlabelled ({counts['Unlabelled']} heads)" in legend,
          f"Fig. 11: a curve for the Unlabelled heads ({legend})")
    plt.close(fig)

    why = fig_kappa_ranges([model(few)])
    check(isinstance(why, str) and "off by default" in why and "--kappa-scan" in why,
          f"kappa figure: without a kappa scan it says why ({why!r})")
    # With a scan: every mark of the figure named in its legend.
    scanned = copy.deepcopy(few)
    scanned.setdefault("settings", {})["kappa_scan"] = {"kappas": [0.25, 0.5, 1, 2, 4]}
    for i, h in enumerate(scanned["heads"]):
        h["kappa_range"] = ({"lo": 0.25, "hi": 2, "lo_at_edge": True, "contiguous": False} if i % 2 == 0 else
                            {"lo": None, "hi": None, "fails": {"assumption": "decay"}})
    fig = fig_kappa_ranges([model(scanned)])
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    check(len(legend) == 4 and any("gaps" in t for t in legend) and any("scan's end" in t for t in legend),
          f"kappa figure: the white dot, the edge marks, the bar and kappa = 1 in its legend ({legend})")
    plt.close(fig)


def synthetic_figure_checks(src, tmp):
    """draw_synthetic under an interpreter with numpy + matplotlib (ok/FAIL lines passed on)."""
    under_plotter(src, "draw_synthetic", [src], "figures on constructed results")


def under_plotter(src, function, args, what):
    """This file's `function`(*args) under an interpreter with numpy + matplotlib, its ok/FAIL
    lines passed on."""
    exe = plotter_python()
    if not check(exe is not None, "an interpreter with numpy + matplotlib"):
        return
    here = os.path.dirname(os.path.abspath(__file__))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import test_plot_figures as t\n"
            f"t.{function}(*sys.argv[2:])\n"
            "sys.exit(1 if t.failures else 0)\n")
    p, _ = run([exe, "-c", code, here, *args], src)
    for line in p.stdout.splitlines():
        print("  " + line)
        if line.startswith("FAIL"):
            failures.append(line[6:])
    check(p.returncode == 0, what + ("" if p.returncode == 0 else f": {p.stderr.strip()[-1500:]}"))


def synthetic_summary_checks(src, tmp):
    """scripts/summary.py on constructed results: the four label counts, the envelope columns
    (non-trivial share, N leaving each envelope, the kappa-free ones), the sensitivity rows;
    an older result and taxonomy too; --help."""
    folder = os.path.join(tmp, "summary")
    os.makedirs(folder)
    summary = os.path.join(src, "scripts", "summary.py")
    few = synthetic_measure(units=4)
    M = write_file(folder, "m.json", json.dumps(few))
    T = write_file(folder, "t.json", json.dumps(synthetic_taxonomy(few)))
    p = must([sys.executable, summary, M, T], src, "summary.py: a measure and its taxonomy")
    lines = p.stdout.splitlines()
    head = next((ln for ln in lines if ln.startswith("layer ")), "")
    cols = head.split()
    check(cols[-10:] == ["ntriv", "P>up", "P<lo", "R>up", "R<lo", "P>up0", "R>up0",
                         "Retri", "Mixer", "Reset", "Unlab"][-10:] and cols[-4:] == [
              "Retri", "Mixer", "Reset", "Unlab"], f"summary: the header's columns ({head})")
    rows = {ln.split()[0]: ln.split() for ln in lines[lines.index(head) + 1:]
            if ln.split() and ln.split()[0] in ("0", "1", "2", "all")}
    check(sorted(rows) == ["0", "1", "2", "all"], f"summary: a row per layer and one for all ({sorted(rows)})")
    for layer in ("0", "1", "2"):
        want = [str(sum(1 for (l, _), v in SYN_LABELS.items() if l == int(layer) and v == c))
                for c in SYN_CLASSES]
        check(rows.get(layer, [])[-4:] == want,
              f"summary: layer {layer}'s four label counts ({rows.get(layer, [])[-4:]}, want {want})")
    env = few["global"]["envelopes"]
    got = dict(zip(cols[-11:-4], rows.get("all", [])[-7:]))
    want = dict(ntriv="11%", **{k: str(len(env["leaves"][n])) for k, n in (
        ("P>up", "P_up"), ("P<lo", "P_lo"), ("R>up", "R_up"), ("R<lo", "R_lo"),
        ("P>up0", "P_up0"), ("R>up0", "R_up0"))})
    check(got == want, f"summary: the envelope columns of 'all' ({got}, want {want})")
    counts = {c: sum(1 for v in SYN_LABELS.values() if v == c) for c in SYN_CLASSES}
    check(f"labels: Retriever {counts['Retriever']}, Mixer {counts['Mixer']}, Reset {counts['Reset']}, "
          f"Unlabelled {counts['Unlabelled']} (of 12 heads)" in lines,
          "summary: the four label totals")
    table = [ln.split() for ln in lines if ln.startswith("  c_")]
    check([r[:4] for r in table] == [[r["threshold"], f"{r['factor']:.2f}", f"{r['value']:g}",
                                      str(r["changed"])] for r in SYN_SENSITIVITY],
          f"summary: the sensitivity rows (threshold, factor, value, changed) ({table})")
    check(any("L0H3 Unlabelled->Retriever" in ln for ln in lines), "summary: the heads a row moves")

    old = synthetic_measure(units=4, new_keys=False)
    M = write_file(folder, "old.json", json.dumps(old))
    T = write_file(folder, "old-t.json", json.dumps(synthetic_taxonomy(old, new_keys=False)))
    p = must([sys.executable, summary, M, T], src, "summary.py: an older measure and taxonomy")
    lines = p.stdout.splitlines()
    head = next((ln for ln in lines if ln.startswith("layer ")), "")
    allrow = next((ln.split() for ln in lines if ln.startswith("  all")), [])
    check(head.split()[-3:] == ["Retri", "Mixer", "Reset"] and allrow[-2:] == ["-", "-"]
          and not any("sensitivity" in ln for ln in lines),
          f"summary, older files: three classes, no kappa-free counts, no sensitivity ({allrow})")
    p = must([sys.executable, summary, "--help"], src, "summary.py --help: exit 0")
    check(p.stdout.startswith("usage: scripts/summary.py") and p.stderr == "",
          "summary.py --help: the usage on stdout")


def intervene_checks(src, geoattn, py, plot, tmp):
    """The --intervene figures on real geoattn intervene results: the files written, every line
    of the sparsification curve the result's readings of one policy in order of the fraction
    kept (zero ablation, which keeps no fraction, none), and the head-importance map's cells
    the --each run's losses (the heads not run blank)."""
    run = ["--model", "models/stories260K", "--data", "data/openwebtext/openwebtext-60docs.jsonl", "--ctx", "32",
           "--max-windows", "6", "--quiet"]
    M, I, E = (os.path.join(tmp, f) for f in ("im.json", "i.json", "e.json"))
    must([geoattn, "measure"] + run + ["--bootstrap", "0", "--out", M], src, "geoattn measure (for budgets)")
    policies = ["budget:R_rmin:0.8", "budget:R_rmin:0.6", "top-n:4", "top-n:8", "sink-recent:4", "sink-recent:8", "zero"]
    must([geoattn, "intervene"] + run + ["--heads", "all", "--budget-from", M, "--bootstrap", "50", "--out", I] +
         [x for p in policies for x in ("--intervention", p)], src, "geoattn intervene: budgets beside top-n, sink-recent")
    must([geoattn, "intervene"] + run + ["--heads", "1.1,3.6", "--each", "--bootstrap", "0", "--out", E], src,
         "geoattn intervene --each")
    out = os.path.join(tmp, "intervene-figs")
    p = must([py, plot, "--intervene", I, E, "--out", out], src, "plot --intervene")
    check_outputs(out, ("sparsification", "head_importance"), p.stdout, "--intervene")
    under_plotter(src, "intervene_artists", [src, I, E], "the --intervene figures' artists")


def intervene_artists(src, I, E):
    """The sparsification lines and the importance map's cells against the results I and E."""
    sys.path.insert(0, os.path.join(src, "python"))
    from geoattn.figures.interventions import InterveneRun, fig_head_importance, fig_sparsification, label_runs
    docs = [json.load(open(f)) for f in (I, E)]
    runs = [InterveneRun(f, d) for f, d in zip((I, E), docs)]
    label_runs(runs)
    ax = fig_sparsification(runs[:1]).axes[0]
    drawn = {line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")}
    want = {}
    for r in docs[0]["interventions"]:
        kind = r["intervention"].split(":")
        name = ("budget " + kind[1] if kind[0] == "budget" else kind[0]) + " on all 40 heads"
        if r["kept_fraction"] is not None:
            want.setdefault(name, []).append((r["kept_fraction"], r["loss_diff"]))
    check(sorted(drawn) == sorted(want) == ["budget R_rmin on all 40 heads", "sink-recent on all 40 heads",
                                           "top-n on all 40 heads"],
          f"sparsification: one line per policy, zero ablation none ({sorted(drawn)})")
    for name, points in want.items():
        xy = sorted(points)
        line = drawn.get(name)
        check(line is not None and list(line.get_xdata()) == [x for x, _ in xy] and
              list(line.get_ydata()) == [y for _, y in xy], f"sparsification: {name} is the result's readings")
    check(len(ax.collections) == 3, f"sparsification: a band per line ({len(ax.collections)})")
    fig = fig_head_importance(runs)
    grid = fig.axes[0].images[0].get_array()
    losses = {tuple(r["heads"][0]): r["loss_diff"] for r in docs[1]["interventions"]}
    cells = {(l, h): float(grid[l][h]) for l in range(5) for h in range(8) if not grid.mask[l][h]}
    check(cells == losses, f"head_importance: the --each run's losses at their heads, the rest blank ({cells})")
    check(fig_head_importance(runs[:1]) == "no --each run among the --intervene files",
          "head_importance without an --each run: skipped, saying why")


def main():
    args, src, _, geoattn = parse_args(__file__)
    plot = os.path.join(src, "scripts", "plot_figures.py")
    py = plotter_python() or sys.executable or "python3"  # the plotter says so where none has them
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="geoattn-plot-test-")
    try:
        synthetic_sinks_checks(src, py, plot, tmp)
        synthetic_figure_checks(src, tmp)
        synthetic_summary_checks(src, tmp)
        if check(os.access(geoattn, os.X_OK), f"geoattn is built ({geoattn})"):
            real_output_checks(src, geoattn, py, plot, tmp)
            intervene_checks(src, geoattn, py, plot, tmp)
    finally:
        remove_scratch(tmp, args.keep)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
