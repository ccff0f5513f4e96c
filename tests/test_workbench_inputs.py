#!/usr/bin/env python3
"""WorkbenchInputs (ctest): the matrix of RunInputs.NoOutputReplacesAFileTheRunReads, for the
Python tools. Each tool (`geoattn-compare`, `-summary`, `-report`, `-explain`, `-verdicts`) runs
once on a real stories260K run with fresh outputs, under an audit hook that records every file
the interpreter opens for reading: the files it declares to its output guard
(python/geoattn/staged.py's output_clash, logged with GEOATTN_TEST_INPUTS_LOG as the C++ programs
log theirs) must include every such file of the run's folder. Then every output flag of the tool
onto every declared input, and onto each companion of a declared result (X.state.safetensors,
X.curves.safetensors, read or not): exit 2, one line naming the file, every file of the folder
byte for byte as it was, nothing written.

    tests/test_workbench_inputs.py [--source-dir DIR] [--bin-dir DIR] [--keep]
"""
import os
import shutil
import sys
import tempfile

from script_test_util import check, finish, must, package_env, remove_scratch, run, start  # beside this file

# Runs a module as `python3 -m` would, recording the real path of every file opened for reading
# (the "open" audit event of open(), io.open and os.open) in $GEOATTN_TEST_OPENED_LOG.
HOOKED = """
import atexit, os, runpy, sys
opened = set()
def hook(event, args):
    if event != "open" or not isinstance(args[0], (str, os.PathLike)):
        return
    mode, flags = args[1], args[2]
    if (mode is None and flags & 3 == os.O_RDONLY) or (isinstance(mode, str) and not set(mode) & set("wax+")):
        opened.add(os.path.realpath(args[0]))
def save():
    with open(os.environ["GEOATTN_TEST_OPENED_LOG"], "w") as f:
        f.writelines(p + "\\n" for p in sorted(opened))
atexit.register(save)
sys.addaudithook(hook)
module, sys.argv = sys.argv[1], sys.argv[1:]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def snapshot(folder):
    """Every file under `folder`, by its path relative to it, with its bytes."""
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            path = os.path.join(root, f)
            with open(path, "rb") as g:
                out[os.path.relpath(path, folder)] = g.read()
    return out


def lines_of(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def main():
    t0, args, src, geoattn, early = start(__file__)
    if early is not None:
        return early
    env, tmp = package_env(src), tempfile.mkdtemp(prefix="geoattn-inputs-")
    shutil.copytree(os.path.join(src, "models", "stories260K"), os.path.join(tmp, "mdl"))
    shutil.copy(os.path.join(src, "data", "openwebtext", "openwebtext-60docs.jsonl"), os.path.join(tmp, "docs.jsonl"))
    common = ["--quiet", "--model", "mdl", "--data", "docs.jsonl", "--ctx", "64"]
    for name, windows, extra in (("a", "4", []), ("b", "6", []), ("p", "4", ["--predict-from", "a.json"])):
        must([geoattn, "measure", *common, "--max-windows", windows, "--bootstrap", "50", *extra, "--out",
              f"{name}.json"], tmp, f"measure {name}")
        must([geoattn, "taxonomy", "--quiet", "--from", f"{name}.json", "--out", f"t{name}.json"], tmp, f"taxonomy {name}")
    must([geoattn, "capture", *common, "--max-windows", "1", "--out", "c.safetensors"], tmp, "capture")
    must([geoattn, "sinks", *common, "--max-windows", "2", "--out", "s.json"], tmp, "sinks")
    py = [sys.executable, "-c", HOOKED]
    p, _ = run([sys.executable, "-m", "geoattn.verdicts", "p.json", "--record", "v.json"], tmp, env=env)
    if not check(p.returncode == 0, "verdicts of p"):
        print("  stderr:", p.stderr[-2000:])
        return finish(t0)
    explain = ["--head", "0.0", "--window", "0", "--no-check", "--geoattn", geoattn]  # this build's, as ctest Explain
    tools = [  # (what, module and arguments, its output flags and a fresh file for each)
        ("compare", ["geoattn.compare", "a.json", "b.json", "--taxonomy-a", "ta.json", "--taxonomy-b", "tb.json"],
         [("--out", "fresh.json"), ("--figure", "fresh.png")]),
        ("summary", ["geoattn.summary", "a.json", "ta.json", "--csv"], [("--out", "fresh.csv")]),
        ("report", ["geoattn.report", "p.json", "--taxonomy", "tp.json", "--sinks", "s.json", "--verdicts", "v.json"],
         [("--out", "fresh.html")]),
        ("explain of a capture", ["geoattn.explain", "--capture", "c.safetensors", "--model", "mdl", *explain],
         [("--json", "fresh.json"), ("--figure", "fresh.png")]),
        ("explain of the data", ["geoattn.explain", "--model", "mdl", "--data", "docs.jsonl", "--ctx", "64", *explain],
         [("--json", "fresh.json"), ("--figure", "fresh.png")]),
        ("verdicts", ["geoattn.verdicts", "p.json"], [("--record", "fresh.json")]),
    ]
    logs = tempfile.mkdtemp(prefix="geoattn-inputs-logs-")
    inputs_log, opened_log = os.path.join(logs, "inputs"), os.path.join(logs, "opened")
    hooked_env = dict(env, GEOATTN_TEST_INPUTS_LOG=inputs_log, GEOATTN_TEST_OPENED_LOG=opened_log)
    folder = os.path.realpath(tmp)
    before = snapshot(tmp)
    refused = 0
    for what, argv, outputs in tools:
        for f in (inputs_log, opened_log):
            if os.path.exists(f):
                os.remove(f)
        fresh = [x for flag, path in outputs for x in (flag, path)]
        p, _ = run([*py, *argv, *fresh], tmp, env=hooked_env)
        if not check(p.returncode == 0, f"{what} with fresh outputs: exit {p.returncode}"):
            print("  stderr:", p.stderr[-2000:])
            continue
        declared = {os.path.realpath(os.path.join(tmp, x)) for x in lines_of(inputs_log)}  # the tool and any geoattn it ran
        read = {x for x in lines_of(opened_log) if x.startswith(folder + os.sep)}
        undeclared = sorted(os.path.relpath(x, folder) for x in read - declared)
        check(not undeclared and declared,
              f"{what}: every file of the folder it opened is one its guard knows ({len(read)} opened, "
              f"{len(declared)} declared; undeclared: {undeclared or 'none'})")
        for _, path in outputs:
            os.remove(os.path.join(tmp, path))
        targets = set(declared)
        for x in declared:
            if x.endswith(".json"):
                targets.update(t for t in (x[:-5] + ".state.safetensors", x[:-5] + ".curves.safetensors")
                               if os.path.exists(t))
        for target in sorted(targets):
            name = os.path.relpath(target, folder)
            for flag, _ in outputs:
                p, _ = run([sys.executable, "-m", *argv, flag, name], tmp, env=env)
                lines = p.stderr.strip().splitlines()
                now = snapshot(tmp)
                check(p.returncode == 2 and len(lines) == 1 and f"{flag} {name}" in lines[0] and now == before,
                      f"{what} {flag} {name}: exit {p.returncode}, one line ({lines[-1] if lines else ''}), "
                      f"the folder unchanged: {now == before}")
                refused += 1
    check(refused >= 40, f"{refused} outputs onto a file the tool reads, each refused")
    shutil.rmtree(logs, ignore_errors=True)
    remove_scratch(tmp, args.keep)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
