#!/usr/bin/env python3
"""PlotFigures (ctest): scripts/plot_figures.py on real geoattn output.

Runs `geoattn measure`, `bounds` and `taxonomy` on the embedded stories260K over a few short
windows, then the plotter: every figure is written as a real PNG and PDF (one model, two models
side by side with the bootstrap/control keys, no taxonomy), and bad input (broken JSON, an old
or other schema, a missing key, a missing file) gives exit code 2, one stderr line and no
output. Standard library only; the plotter itself needs numpy + matplotlib.

    tests/test_plot_figures.py [--source-dir DIR] [--bin-dir DIR] [--keep]

Paths default to GEOATTN_SOURCE_DIR / GEOATTN_BIN_DIR, else this checkout and build/bin.
"""
import copy
import json
import os
import shutil
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

from script_test_util import (block_after, check, failures, must, parse_args, run,  # beside this file
                              synthetic_sinks)


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
    sys.path.insert(0, os.path.join(src, "scripts"))
    import geoattn_schema
    folder = os.path.join(tmp, "sinks-synthetic")
    os.makedirs(folder)
    doc = synthetic_sinks(layers=3, heads=4, P=8, taus=(0.05, 0.1))
    other = synthetic_sinks(layers=6, heads=8, P=16, taus=(0.02, 0.05, 0.1), residual=True,
                            text=False)
    for what, d in (("L=3 H=4 P=8, two taus", doc), ("no texts, --residual", other)):
        why = geoattn_schema.problem(d, SINKS_SCHEMA_FILE, os.path.join(src, "docs", "schema"))
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


def plotter_python():
    """An interpreter with numpy + matplotlib, for the direct check of the profile model."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe):
            p = subprocess.run([exe, "-c", "import numpy, matplotlib"], capture_output=True)
            if p.returncode == 0:
                return exe
    return None


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

    # One model, with bounds and taxonomy: every figure.
    out = os.path.join(tmp, "one", "figs")
    os.makedirs(os.path.dirname(out))
    p = must([py, plot, "--measure", A, "--bounds", BA, "--taxonomy", TA, "--out", out],
             src, "plot: one model with bounds and taxonomy")
    check_outputs(out, ALL_FIGURES, p.stdout, "one model")

    # Two models side by side (different T and N grids), the control/bootstrap keys, a
    # bounds file that fits only one of them, labels, another heat-map N; into the same
    # folder (the figures are replaced).
    p = must([py, plot, "--measure", A, B2, "--bounds", BA, "--taxonomy", TA, TB,
              "--labels", "tinystories,openwebtext", "--n", "5", "--out", out],
             src, "plot: two models side by side, into the same folder")
    check_outputs(out, ALL_FIGURES, p.stdout, "two models")

    # No taxonomy: the figures that need it are skipped with a note.
    out = os.path.join(tmp, "notax", "figs")
    os.makedirs(os.path.dirname(out))
    p = must([py, plot, "--measure", B2, "--out", out], src, "plot: no taxonomy, no bounds")
    check_outputs(out, [n for n in ALL_FIGURES if n not in NEEDS_TAXONOMY], p.stdout,
                  "no taxonomy")
    check(all(n in p.stderr for n in NEEDS_TAXONOMY), "no taxonomy: the skips are named")

    # Bad input: exit 2, one stderr line naming the file, nothing written.
    sys.path.insert(0, os.path.join(src, "scripts"))
    from geoattn_results import load_measure
    a_doc = load_measure(A)  # every array inline: the edits below reach the heads' curves
    with open(A) as f:
        a_raw = json.load(f)

    # The numpy lines of docs/results.md read the arrays file as geoattn wrote it (run by an
    # interpreter with numpy: this one may lack it).
    block = block_after(os.path.join(src, "docs", "results.md"), "arrays-example", "python")
    arrays_path = os.path.join(os.path.dirname(A), a_raw["arrays"]["file"])
    example = os.path.join(tmp, "readme_example.py")
    with open(example, "w") as f:
        f.write(block.replace("out/measure.curves.safetensors", arrays_path) + """
import sys
sys.path.insert(0, sys.argv[2])
from geoattn_results import load_measure
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
    p, _ = run([plotter_python() or py, example, A, os.path.join(src, "scripts"), arrays_path], src)
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
    sinks_with_measure(src, geoattn, py, plot, tmp, run_a, (A, BA, TA))


def sinks_with_measure(src, geoattn, py, plot, tmp, run_a, measured):
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
    check_outputs(out, ALL_FIGURES + SINK_FIGURES, p.stdout, "measure and sinks")


def main():
    args, src, _, geoattn = parse_args(__file__)
    plot = os.path.join(src, "scripts", "plot_figures.py")
    py = sys.executable or "python3"
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="geoattn-plot-test-")
    try:
        synthetic_sinks_checks(src, py, plot, tmp)
        if check(os.access(geoattn, os.X_OK), f"geoattn is built ({geoattn})"):
            real_output_checks(src, geoattn, py, plot, tmp)
    finally:
        if args.keep:
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'FAILED: ' + str(len(failures)) + ' check(s)' if failures else 'all checks passed'}"
          f" in {time.time() - t0:.1f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
