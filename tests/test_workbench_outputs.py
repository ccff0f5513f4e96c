#!/usr/bin/env python3
"""WorkbenchOutputs (ctest): the Python tools keep the command line's promise that no output
replaces a file the command reads, nor another of its outputs (python/geoattn/staged.py's
output_clash). On a real stories260K run and its taxonomy, each case of a held-out sweep of the
workbench: `geoattn-compare`, `geoattn-summary`, `geoattn-report` and `geoattn-explain` with --out,
--figure or --json onto a result, its state or arrays companion, a taxonomy, a capture, a data
file or a model file, and two outputs onto one path: exit 2, one line naming the flag and the file,
every input byte for byte as it was, and nothing written. Then a result beside a companion of
another run (B's state or arrays file under A's name): every reader, C++ and Python, refuses it in
one line naming both files; a result from before the run id is read with one warning line.

    tests/test_workbench_outputs.py [--source-dir DIR] [--bin-dir DIR] [--keep]
"""
import os
import sys
import tempfile

from script_test_util import check, finish, must, package_env, remove_scratch, run, start  # beside this file


def main():
    t0, args, src, geoattn, early = start(__file__)
    if early is not None:
        return early
    env, tmp = package_env(src), tempfile.mkdtemp(prefix="geoattn-outputs-")
    model = os.path.join(src, "models", "stories260K")
    data = os.path.join(tmp, "docs.jsonl")
    with open(os.path.join(src, "data", "openwebtext", "openwebtext-60docs.jsonl"), "rb") as f, open(data, "wb") as g:
        g.write(f.read())
    for name in ("a", "b"):
        must([geoattn, "measure", "--quiet", "--model", model, "--data", data, "--ctx", "64", "--max-windows",
              "4" if name == "a" else "6", "--bootstrap", "50", "--out", f"{name}.json"], tmp, f"measure {name}")
        must([geoattn, "taxonomy", "--quiet", "--from", f"{name}.json", "--out", f"t{name}.json"], tmp, f"taxonomy {name}")
    must([geoattn, "capture", "--quiet", "--model", model, "--data", data, "--ctx", "64", "--max-windows", "1",
          "--out", "c.safetensors"], tmp, "capture")
    py = [sys.executable, "-m"]
    os.makedirs(os.path.join(tmp, "mdl"))
    for f in os.listdir(model):
        with open(os.path.join(model, f), "rb") as a, open(os.path.join(tmp, "mdl", f), "wb") as b:
            b.write(a.read())
    cases = [
        ("compare --out A", py + ["geoattn.compare", "a.json", "b.json", "--out", "a.json"], "--out a.json"),
        ("compare --out A's state", py + ["geoattn.compare", "a.json", "b.json", "--out", "a.state.safetensors"],
         "--out a.state.safetensors"),
        ("compare --out B's arrays", py + ["geoattn.compare", "a.json", "b.json", "--out", "b.curves.safetensors"],
         "--out b.curves.safetensors"),
        ("compare --figure A", py + ["geoattn.compare", "a.json", "b.json", "--figure", "a.json"], "--figure a.json"),
        ("compare --out its taxonomy", py + ["geoattn.compare", "a.json", "b.json", "--taxonomy-a", "ta.json",
                                             "--taxonomy-b", "tb.json", "--out", "ta.json"], "--out ta.json"),
        ("compare --out and --figure one path", py + ["geoattn.compare", "a.json", "b.json", "--out", "d.json",
                                                      "--figure", "d.json"], "--figure d.json"),
        ("summary --out the result", py + ["geoattn.summary", "a.json", "ta.json", "--csv", "--out", "a.json"],
         "--out a.json"),
        ("summary --out the taxonomy", py + ["geoattn.summary", "a.json", "ta.json", "--csv", "--out", "ta.json"],
         "--out ta.json"),
        ("summary --out the state", py + ["geoattn.summary", "a.json", "--csv", "--out", "a.state.safetensors"],
         "--out a.state.safetensors"),
        ("report --out the result", py + ["geoattn.report", "a.json", "--out", "a.json"], "--out a.json"),
        ("report --out the taxonomy", py + ["geoattn.report", "a.json", "--taxonomy", "ta.json", "--out", "ta.json"],
         "--out ta.json"),
        ("report --out the arrays", py + ["geoattn.report", "a.json", "--out", "a.curves.safetensors"],
         "--out a.curves.safetensors"),
        ("explain --json the capture", py + ["geoattn.explain", "--capture", "c.safetensors", "--head", "0.0",
                                             "--window", "0", "--no-check", "--json", "c.safetensors"],
         "--json c.safetensors"),
        ("explain --figure the capture", py + ["geoattn.explain", "--capture", "c.safetensors", "--head", "0.0",
                                               "--window", "0", "--no-check", "--figure", "c.safetensors"],
         "--figure c.safetensors"),
        ("explain --json the data", py + ["geoattn.explain", "--model", model, "--data", "docs.jsonl", "--ctx", "64",
                                          "--head", "0.0", "--window", "0", "--no-check", "--json", "docs.jsonl"],
         "--json docs.jsonl"),
        ("explain --json the model's config", py + ["geoattn.explain", "--capture", "c.safetensors", "--model", "mdl",
                                                    "--head", "0.0", "--window", "0", "--no-check", "--json",
                                                    "mdl/config.json"], "--json mdl/config.json"),
        ("explain --json and --figure one path", py + ["geoattn.explain", "--capture", "c.safetensors", "--head", "0.0",
                                                       "--window", "0", "--no-check", "--json", "x.out", "--figure",
                                                       "x.out"], "x.out"),
    ]
    watched = ["a.json", "a.state.safetensors", "a.curves.safetensors", "b.json", "b.curves.safetensors", "ta.json",
               "tb.json", "c.safetensors", "docs.jsonl"] + [os.path.join("mdl", f) for f in os.listdir(model)]
    before = {f: open(os.path.join(tmp, f), "rb").read() for f in watched}
    for what, cmd, names in cases:
        p, _ = run(cmd, tmp, env=env)
        lines = p.stderr.strip().splitlines()
        same = all(open(os.path.join(tmp, f), "rb").read() == before[f] for f in watched)
        extra = sorted(set(os.listdir(tmp)) - set(watched) - {"b.state.safetensors", "mdl"})
        check(p.returncode == 2 and len(lines) == 1 and names in lines[0] and same and not extra,
              f"{what}: exit {p.returncode}, one line ({lines[-1] if lines else ''}); inputs unchanged: {same}; "
              f"nothing written: {extra or 'yes'}")
    # A taxonomy of another run over the same model (the same heads, other numbers) is refused by
    # name where it was read beside B's numbers: the labels swapped without a word, before.
    for what, cmd, names in (
            ("summary with B's taxonomy", py + ["geoattn.summary", "a.json", "tb.json", "--per", "head"],
             "a taxonomy of another run"),
            ("compare with the taxonomies swapped", py + ["geoattn.compare", "a.json", "b.json", "--taxonomy-a",
                                                          "tb.json", "--taxonomy-b", "ta.json"], "--taxonomy-a tb.json"),
            ("report with B's taxonomy", py + ["geoattn.report", "a.json", "--taxonomy", "tb.json", "--out", "r.html"],
             "tb.json")):
        p, _ = run(cmd, tmp, env=env)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and names in lines[0] and not os.path.exists(os.path.join(tmp, "r.html")),
              f"{what}: exit {p.returncode}, one line ({lines[-1] if lines else ''})")
    # A result whose heads are not in their canonical order (a head twice, a layer past the model):
    # the Python readers refuse it as the C++ reader does; geoattn.taxonomy labelled it before.
    import json
    a = json.load(open(os.path.join(tmp, "a.json")))
    for name, field, value in (("dup.json", "head", 0), ("l99.json", "layer", 99)):
        bad = json.loads(json.dumps(a))
        bad["heads"][1][field] = value
        with open(os.path.join(tmp, name), "w") as f:
            json.dump(bad, f)
        p, _ = run(py + ["geoattn.summary", name, "--per", "head"], tmp, env=env)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and "heads[1] is not (layer 0, head 1)" in lines[0],
              f"a result with heads[1] {field} {value}: refused in one line ({lines[-1] if lines else ''})")
    companion_checks(src, tmp, geoattn, env, py)
    remove_scratch(tmp, args.keep)
    return finish(t0)


def companion_checks(src, tmp, geoattn, env, py):
    """A's result beside B's state or arrays file (its run_id another): refused by every reader,
    naming both files; A without its run_id (an older geoattn's): read, with one warning line."""
    import json
    import shutil
    for kind, theirs in (("state", "b.state.safetensors"), ("curves", "b.curves.safetensors")):
        folder = os.path.join(tmp, f"swapped-{kind}")
        os.makedirs(folder)
        for f in ("a.json", "a.state.safetensors", "a.curves.safetensors", "ta.json"):
            shutil.copy(os.path.join(tmp, f), folder)
        shutil.copy(os.path.join(tmp, theirs), os.path.join(folder, f"a.{kind}.safetensors"))
        readers = {"state": [("compare", py + ["geoattn.compare", "a.json", "../b.json"]),
                             ("verdicts", py + ["geoattn.verdicts", "a.json"]),
                             ("merge (C++)", [geoattn, "merge", "a.json", "--out", "m.json"])],
                   "curves": [("summary", py + ["geoattn.summary", "a.json", "--per", "head"]),
                              ("report", py + ["geoattn.report", "a.json", "--out", "r.html"]),
                              ("the figures", [sys.executable, os.path.join(src, "scripts", "plot_figures.py"), "--measure",
                                               "a.json", "--out", "figs"]),
                              ("geoattn.load", [sys.executable, "-c", "import geoattn, sys\ntry:\n geoattn.load('a.json')\n"
                                                "except ValueError as e:\n sys.exit(str(e))"]),
                              ("taxonomy (C++)", [geoattn, "taxonomy", "--from", "a.json", "--out", "t.json"])]}[kind]
        for what, cmd in readers:
            p, _ = run(cmd, folder, env=env)
            lines = p.stderr.strip().splitlines()
            line = lines[-1] if lines else ""
            check(p.returncode != 0 and len(lines) == 1 and "a.json" in line and f"a.{kind}.safetensors is not of this run"
                  in line and not {"m.json", "r.html", "figs", "t.json"} & set(os.listdir(folder)),
                  f"{what} with B's {kind} file as A's: exit {p.returncode}, one line naming both ({line})")
    # A taxonomy of A relabelled by its run id as B's: refused by its run id alone.
    tax = json.load(open(os.path.join(tmp, "ta.json")))
    tax["run_id"] = json.load(open(os.path.join(tmp, "b.json")))["run_id"]
    with open(os.path.join(tmp, "ta-other.json"), "w") as f:
        json.dump(tax, f)
    p, _ = run(py + ["geoattn.summary", "a.json", "ta-other.json", "--per", "head"], tmp, env=env)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and f"a taxonomy of another run (run_id {tax['run_id']}" in lines[0],
          f"a taxonomy carrying another run's id: refused ({lines[-1] if lines else ''})")
    # An older result (no run_id): read, one warning line, its companions unchecked.
    old = json.load(open(os.path.join(tmp, "a.json")))
    del old["run_id"]
    folder = os.path.join(tmp, "older")
    os.makedirs(folder)
    with open(os.path.join(folder, "a.json"), "w") as f:
        json.dump(old, f)
    for f in ("a.state.safetensors", "a.curves.safetensors"):
        shutil.copy(os.path.join(tmp, f), folder)
    for what, cmd in (("summary", py + ["geoattn.summary", "a.json", "--per", "head"]),
                      ("taxonomy (C++)", [geoattn, "taxonomy", "--quiet", "--from", "a.json", "--out", "t.json"])):
        p, _ = run(cmd, folder, env=env)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 0 and len(lines) == 1 and "a.json: no run_id (an older geoattn wrote it)" in lines[0],
              f"{what} of a result without a run id: read, one warning line ({lines[-1] if lines else ''})")


if __name__ == "__main__":
    sys.exit(main())
