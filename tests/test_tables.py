#!/usr/bin/env python3
"""Tables (ctest): the per-head table of geoattn-summary (python/geoattn/tools/tables/)
on real runs.

Runs docs/tables.md's CLI block (a stories260K measure with the bootstrap per head, its taxonomy,
three tables) with the built geoattn, then checks every cell of the per-head table over the whole
grid against a second read of the run (the arrays file parsed here with numpy, the JSON, the
taxonomy): P, R, F and their intervals against the arrays, rho0 and the fits' ok against the
JSON, the label and the rule against the taxonomy, the envelopes' verdict against the arrays'
means and envelopes. Then the sort (null last), --top, the filters, the CSV round trip (csv
module), the JSON, the structured array's dtype and values, the per-layer rows, the intervals'
note on runs without intervals (no bootstrap, one unit, bootstrap per layer), the bad inputs
(exit 2, one stderr line naming the flag or file, no output file) and --help. On the committed
runs of docs/findings (stories15M, SmolLM2-135M): every cell of stories15M's table, and the
page's two example outputs, run again and compared line for line, their rows against the arrays.

    tests/test_tables.py [--source-dir DIR] [--bin-dir DIR] [--keep]
"""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

from script_test_util import (block_after, check, finish, package_env, parse_args,  # beside this file
                              plotter_python, python_first_on_path, remove_scratch, run, run_doc_block)

DATA = "data/openwebtext/openwebtext-60docs.jsonl"
CURVES = {"P": "P_rmax", "R": "R_rmin", "F": "F_rmax"}
# The envelopes a mean can leave, in the verdict's order: (name, curve, above it?).
ENVELOPES = (("P_up", "P_rmax", True), ("P_lo", "P_rmax", False), ("R_up", "R_rmin", True),
             ("R_lo", "R_rmin", False), ("P_up0", "P_rmax", True), ("R_up0", "R_rmin", True))
FLAGS = ("--per", "--n", "--sort", "--desc", "--asc", "--top", "--filter", "--columns", "--csv",
         "--json", "--out")


def raw_arrays(path):
    """{name: ndarray} of a safetensors file, read here with numpy alone (results.md's lines)."""
    import numpy as np
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    return {k: np.frombuffer(raw, "<f8", int(np.prod(t["shape"])), 8 + n + t["data_offsets"][0]).reshape(t["shape"])
            for k, t in json.loads(raw[8:8 + n]).items() if k != "__metadata__"}


class Run:
    """A measure result read a second way: its JSON, its arrays, its taxonomy's JSON."""

    def __init__(self, m_path, t_path=None):
        self.m_path, self.t_path = m_path, t_path
        self.m = json.load(open(m_path))
        self.a = raw_arrays(os.path.join(os.path.dirname(m_path), self.m["arrays"]["file"]))
        self.t = json.load(open(t_path)) if t_path else None
        self.grid = self.m["n_grid"]

    def head_json(self, l, h):
        return next(x for x in self.m["heads"] if (x["layer"], x["head"]) == (l, h))

    def tax(self, l, h):
        return next(x for x in self.t["heads"] if (x["layer"], x["head"]) == (l, h))

    def value(self, group, l, h, key, g):
        """The arrays' number (None for NaN) of heads.key[l, h, g] or layers.key[l, g]."""
        x = self.a[f"{group}.{key}"][(l, h, g) if group == "heads" else (l, g)]
        return None if math.isnan(x) else float(x)

    def interval(self, group, l, h, key, g):
        k = f"{group}.{key}_ci"
        if k not in self.a:
            return None, None
        lo, hi = self.a[k][(l, h, g) if group == "heads" else (l, g)]
        return (None, None) if math.isnan(lo) or math.isnan(hi) else (float(lo), float(hi))

    def leaves(self, group, l, h):
        """The envelopes' verdict from the arrays: the N where the mean lies above (below) each
        envelope; None without envelopes."""
        if f"{group}.envelopes.P_up" not in self.a:
            return None
        idx = (l, h) if group == "heads" else (l,)
        parts = []
        for name, curve, up in ENVELOPES:
            y, e = self.a[f"{group}.{curve}"][idx], self.a.get(f"{group}.envelopes.{name}")
            if e is None:
                continue
            ns = [str(n) for n, yy, ee in zip(self.grid, y, e[idx])
                  if not math.isnan(yy) and not math.isnan(ee) and (yy > ee if up else yy < ee)]
            if ns:
                parts.append(f"mean {'>' if up else '<'} {name} at N={','.join(ns)}")
        return "; ".join(parts) or "inside"


def same(x, y):
    return (x is None and y is None) or (x is not None and y is not None and x == y)


def check_cells(run_, table, ns, what):
    """Every cell of a per-head table (rows(...) over ns) against the second read."""
    bad = []
    heads = [(x["layer"], x["head"]) for x in run_.m["heads"]]
    if not check([(r["layer"], r["head"]) for r in table] == heads, f"{what}: a row per head, in order"):
        return
    for r in table:
        l, h = r["layer"], r["head"]
        hj = run_.head_json(l, h)
        want = {"layer": l, "head": h}
        for x in ns:
            g = run_.grid.index(x)
            for c, key in CURVES.items():
                want[f"{c}@{x}"] = run_.value("heads", l, h, key, g)
                want[f"{c}@{x}_lo"], want[f"{c}@{x}_hi"] = run_.interval("heads", l, h, key, g)
        want["rho0"] = hj["rho0"]
        want["rho0_lo"], want["rho0_hi"] = hj.get("rho0_ci") or (None, None)
        t = run_.tax(l, h) if run_.t else {}
        want["label"], want["rule"] = t.get("label"), t.get("rule")
        want["closest"], want["failed"] = t.get("closest"), t.get("failed")
        want["envelopes"] = run_.leaves("heads", l, h)
        for a in ("norms", "decay", "profile"):
            want[f"{a}_ok"] = hj["fits"][a]["ok"] if "fits" in hj else None
        if set(want) != set(r):
            bad.append(f"L{l}H{h} columns {sorted(set(want) ^ set(r))}")
        bad += [f"L{l}H{h} {k}: {r.get(k)!r} != {v!r}" for k, v in want.items() if not same(r.get(k), v)]
    check(not bad, f"{what}: every cell of {len(table)} heads x {len(table[0]) if table else 0} columns "
                   f"equals the arrays, the JSON and the taxonomy ({bad[:4]})")


def rejected(cmd, src, name, env, out=None, what=""):
    p, _ = run(cmd, src, env=env)
    lines = p.stderr.strip().splitlines()
    folder = os.path.dirname(out) if out else None
    leftover = [f for f in os.listdir(folder) if f.startswith(".summary.")] if folder else []
    ok = (p.returncode == 2 and len(lines) == 1 and lines[0].startswith("summary: error: ")
          and name in lines[0] and p.stdout == "" and not (out and os.path.exists(out)) and not leftover)
    check(ok, f"bad input, {what}: exit 2, one stderr line naming {name!r}, no output"
              + ("" if ok else f" (exit {p.returncode}: {lines[-2:]}, {leftover})"))


def sort_key_check(tables, table):
    """sort_rows: null last both ways, ties in the given order; top; keep."""
    import copy
    t = copy.deepcopy(table)
    for r in t[::3]:
        r["F@16"] = None
    for desc in (False, True):
        got = tables.sort_rows(t, "F@16", descending=desc)
        have = [r for r in got if r["F@16"] is not None]
        vals = [r["F@16"] for r in have]
        check(vals == sorted(vals, reverse=desc) and all(r["F@16"] is None for r in got[len(have):])
              and len(got) == len(t), f"sort_rows F@16 {'desc' if desc else 'asc'}: ordered, the "
                                      f"{len(t) - len(have)} null cells last")
        ties = tables.sort_rows(t, "layer", descending=desc)
        check(all((a["layer"], a["head"]) < (b["layer"], b["head"]) for a, b in zip(ties, ties[1:])
                  if a["layer"] == b["layer"]), "sort_rows: ties keep (layer, head) order")
    check(tables.keep(t, *tables.parse_filter("F@16=null", t)) == [r for r in t if r["F@16"] is None],
          "filter F@16=null: exactly the null cells")


def doc_block_checks(src, bin_dir, tmp):
    """Runs docs/tables.md's CLI block in a workspace (moved under tmp, so removed with it);
    returns (workspace, first table's stdout)."""
    t = time.time()
    ws, p = run_doc_block(src, bin_dir, "tables.md", "test: tables-cli")
    ws = shutil.move(ws, os.path.join(tmp, "ws"))
    ok = check(p.returncode == 0, f"docs/tables.md's CLI block runs ({time.time() - t:.1f}s)")
    if not ok:
        print("  stderr:", p.stderr[-2000:])
        raise SystemExit(finish(T0))
    return ws, p.stdout


def text_rows(stdout):
    """(header columns, rows as lists of cells) of the text table."""
    lines = stdout.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("layer "))
    return lines[i].split(), [ln.split(None, len(lines[i].split()) - 1) for ln in lines[i + 1:] if ln.strip()]


def fmt3(x):
    return "-" if x is None else f"{x:.3f}"


def top_by(run_, key, n, k):
    """The k (layer, head) with the largest arrays heads.key at N, ties by (layer, head)."""
    g = run_.grid.index(n)
    vals = [((l, h), run_.a[f"heads.{key}"][l, h, g]) for l, h in
            ((x["layer"], x["head"]) for x in run_.m["heads"])]
    vals = [v for v in vals if not math.isnan(v[1])]
    return [lh for lh, _ in sorted(vals, key=lambda v: -v[1])[:k]]


def stories260k_checks(src, bin_dir, env, tmp, tables):
    import numpy as np
    ws, first = doc_block_checks(src, bin_dir, tmp)
    out = os.path.join(ws, "out", "tables")
    r = Run(os.path.join(out, "m.json"), os.path.join(out, "t.json"))
    check(r.m["bootstrap"]["intervals"] and r.m["bootstrap"]["level"] == "head",
          f"the run has intervals per head ({r.m['bootstrap'].get('units')} units)")
    grid = r.grid
    full = tables.rows(r.m_path, r.t_path, n=grid)
    check_cells(r, full, grid, f"stories260K, every N of the grid ({len(grid)})")
    default = tables.rows(r.m_path, r.t_path)
    want_n = [x for x in (4, 16, 64, max(grid)) if x in grid]
    check([c for c in default[0] if c.startswith("P@") and "_" not in c] == [f"P@{x}" for x in want_n],
          f"default N: 4, 16, 64 and the grid's largest on the grid ({want_n})")
    check_cells(r, default, want_n, "stories260K, the default N")
    row13 = next(x for x in default if (x["layer"], x["head"]) == (1, 3))
    g16 = grid.index(16)
    check(row13["P@16"] == r.a["heads.P_rmax"][1, 3, g16]
          and [row13["P@16_lo"], row13["P@16_hi"]] == list(r.a["heads.P_rmax_ci"][1, 3, g16])
          and row13["label"] == r.tax(1, 3)["label"],
          f"head (1,3): P@16 {row13['P@16']:.6f} the curves array at N=16's index, its interval, label {row13['label']}")

    # The block's first table: --n 4,16 --sort F@16 --desc --top 5.
    cols, lines = text_rows(first)
    want = top_by(r, "F_rmax", 16, 5)
    check([(int(x[0]), int(x[1])) for x in lines] == want, f"--sort F@16 --desc --top 5: the five largest "
                                                          f"F(r_max, 16) of the arrays, in order ({want})")
    bad = []
    for x in lines:
        l, h = int(x[0]), int(x[1])
        for c, cellv in zip(cols, x):
            if "@" in c:
                n = int(c.split("@")[1].split("_")[0])
                key = CURVES[c[0]]
                v = (r.value("heads", l, h, key, grid.index(n)) if "_" not in c else
                     r.interval("heads", l, h, key, grid.index(n))[0 if c.endswith("_lo") else 1])
                if cellv != fmt3(v):
                    bad.append((l, h, c, cellv, fmt3(v)))
    narrow = ["layer", "head", "label", "closest", "P@4", "R@4", "P@16", "R@16", "rho0"]
    width = max(len(ln) for ln in first.splitlines() if ln.startswith(("layer ", " ")) or ln[:1].isdigit())
    check(cols == narrow and not bad and width < 100,
          f"the text table, narrow by default ({cols}; rows of at most {width} characters): its numbers are the "
          f"arrays' to 3 decimals ({bad[:3]})")
    b = r.m["bootstrap"]
    line = f"intervals: {b['why']}" if b.get("why") else \
        f"intervals: bootstrap percentiles {b['percentiles']} over {b['units']} {b['unit']}s"
    check(line in first.splitlines(), f"the text's intervals line: {line!r}")

    # CSV: the Unlabelled heads closest to Mixer, read back with the csv module.
    rows_csv = list(csv.DictReader(open(os.path.join(out, "mixers.csv"), newline="")))
    mixers = [(x["layer"], x["head"]) for x in r.t["heads"] if x["label"] == "Unlabelled" and x["closest"] == "Mixer"]
    table = {(x["layer"], x["head"]): x for x in default}
    check([(int(x["layer"]), int(x["head"])) for x in rows_csv] == mixers,
          f"--filter label=Unlabelled --filter closest=Mixer --csv: the taxonomy's {len(mixers)} heads")

    def back(text, c):
        if text == "":
            return None
        if tables.kind(c) == "bool":
            return text == "true"
        if tables.kind(c) == "int":
            return int(text)
        return float(text) if tables.kind(c) == "float" else text
    trip = [k for x in rows_csv for k, v in x.items() if not same(back(v, k), table[(int(x["layer"]), int(x["head"]))][k])]
    check(rows_csv and not trip and list(rows_csv[0]) == list(default[0]),
          f"CSV round trip: every cell reads back exactly, the columns in order ({trip[:3]})")

    # JSON per layer.
    lj = json.load(open(os.path.join(out, "layers.json")))
    bad = []
    for x in lj["rows"]:
        l = x["layer"]
        for c, key in CURVES.items():
            if x[f"{c}@16"] != r.value("layers", l, None, key, g16) or \
                    [x[f"{c}@16_lo"], x[f"{c}@16_hi"]] != list(r.interval("layers", l, None, key, g16)):
                bad.append((l, c))
        if x["envelopes"] != r.leaves("layers", l, None) or x["rho0"] != r.m["layers"][l]["rho0"]:
            bad.append((l, "envelopes/rho0"))
    check(lj["per"] == "layer" and lj["n"] == [16] and [x["layer"] for x in lj["rows"]] == list(range(r.m["model"]["layers"]))
          and not bad and lj["columns"] == list(lj["rows"][0]),
          f"--per layer --json: a row per layer, P/R/F@16, intervals, rho0, envelopes from the arrays ({bad[:3]})")

    # The CLI's JSON to stdout equals rows().
    p, _ = run([sys.executable, os.path.join(src, "scripts", "summary.py"), r.m_path, r.t_path, "--json"], src, env=env)
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    check(doc.get("rows") == json.loads(json.dumps(default)) and doc.get("intervals") == r.m["bootstrap"].get("why")
          and doc.get("percentiles") == [2.5, 97.5], "--json to stdout: the rows of rows(), the intervals' note, the percentiles")

    # Filters and --top through the command line.
    summary = [sys.executable, os.path.join(src, "scripts", "summary.py"), r.m_path, r.t_path]
    p, _ = run(summary + ["--filter", "layer=3", "--csv"], src, env=env)
    got = list(csv.DictReader(io.StringIO(p.stdout)))
    check(p.returncode == 0 and [int(x["head"]) for x in got] == list(range(r.m["model"]["heads"]))
          and all(x["layer"] == "3" for x in got), "--filter layer=3: the heads of layer 3")
    p, _ = run(summary + ["--filter", "label=Unlabelled", "--filter", "F@16>0.2", "--filter", "decay_ok=true",
                          "--sort", "rho0", "--asc", "--top", "4", "--csv"], src, env=env)
    got = [(int(x["layer"]), int(x["head"])) for x in csv.DictReader(io.StringIO(p.stdout))]
    want = [(x["layer"], x["head"]) for x in r.m["heads"]
            if r.tax(x["layer"], x["head"])["label"] == "Unlabelled" and r.a["heads.F_rmax"][x["layer"], x["head"], g16] > 0.2
            and x["fits"]["decay"]["ok"]]
    want = sorted(want, key=lambda lh: r.head_json(*lh)["rho0"])[:4]
    check(p.returncode == 0 and got == want, f"three filters, --sort rho0 --asc --top 4 ({got} == {want})")
    p, _ = run(summary + ["--filter", "label!=Unlabelled", "--columns", "layer,head,label", "--csv"], src, env=env)
    got = list(csv.DictReader(io.StringIO(p.stdout)))
    check(p.returncode == 0 and [list(x) for x in got[:1]] in ([["layer", "head", "label"]], [])
          and len(got) == sum(1 for x in r.t["heads"] if x["label"] != "Unlabelled"),
          f"--filter label!=Unlabelled --columns: the {len(got)} labelled heads, three columns")

    # closest and failed as columns, and a text filter by substring: the Unlabelled heads whose
    # closest rule failed on a slope, as the taxonomy says.
    p, _ = run(summary + ["--filter", "label=Unlabelled", "--filter", "failed~slope of", "--columns",
                          "layer,head,closest,failed", "--csv"], src, env=env)
    got = [(int(x["layer"]), int(x["head"]), x["closest"], x["failed"]) for x in csv.DictReader(io.StringIO(p.stdout))]
    want = [(x["layer"], x["head"], x["closest"], x["failed"]) for x in r.t["heads"]
            if x["label"] == "Unlabelled" and "slope of" in x["failed"]]
    check(p.returncode == 0 and got == want, f"--filter 'failed~slope of': the taxonomy's {len(want)} heads, "
                                             "with their closest rule and failed criterion")

    # A reader that has gone (| head -1 once it has its line): a pipe whose read end is closed
    # before the table is written, so that the first write fails. No traceback, SIGPIPE's code.
    read_end, write_end = os.pipe()
    os.close(read_end)
    p = subprocess.run(summary + ["--per", "head"], cwd=src, env=env, stdout=write_end, stderr=subprocess.PIPE, text=True)
    os.close(write_end)
    check(p.returncode == 141 and not p.stderr,
          f"--per head into a pipe nobody reads: nothing on stderr, exit 141 ({p.returncode}, {p.stderr[-200:]!r})")

    sort_key_check(tables, default)

    # The structured array.
    arr = tables.structured(default)
    names = list(default[0])
    kinds_ok = all((arr.dtype[c].kind == "U") == (tables.kind(c) == "str") and
                   (arr.dtype[c] == np.float64) == (tables.kind(c) in ("float", "bool")) for c in names)
    vals_ok = all((np.isnan(arr[c][i]) if default[i][c] is None else arr[c][i] == default[i][c])
                  if tables.kind(c) in ("float", "bool") else
                  arr[c][i] == ("" if default[i][c] is None else default[i][c])
                  for i in range(len(default)) for c in names)
    check(list(arr.dtype.names) == names and len(arr) == len(default) and kinds_ok and vals_ok
          and arr.dtype["layer"] == np.int64,
          f"structured(): a field per column, float64 (NaN for null), int64 layer/head, unicode strings; "
          f"every value ({arr.dtype['label']}, {len(arr)} rows)")

    # Bad input.
    other_t = os.path.join(src, "docs", "findings", "stories15M", "taxonomy.json")
    o = os.path.join(out, "bad.csv")
    for what, argv, name in (
            ("an unknown --sort column", ["--sort", "F@17"], "F@17"),
            ("an N off the grid", ["--n", "4,20"], "N=20"),
            ("an empty item in --n", ["--n", "4,,16"], "empty item"),
            ("a filter without operator", ["--filter", "label"], "label"),
            ("a filter's value of the wrong type", ["--filter", "layer=three"], "three"),
            ("a filter on an unknown column", ["--filter", "kind=Mixer"], "kind"),
            ("a label in another case (a filter that cannot match)", ["--filter", "label=retriever"], "'Retriever'"),
            ("a value that is no label", ["--filter", "closest=Mixers"], "Mixers"),
            ("~ on a number column", ["--filter", "rho0~0.5"], "~"),
            ("an unknown --columns entry", ["--columns", "layer,nope"], "nope"),
            ("--top 0", ["--top", "0"], "--top"),
            ("--desc without --sort", ["--desc"], "--sort")):
        rejected(summary + argv + ["--csv", "--out", o], src, name, env, o, what)
    # A label filter without the taxonomy: the label column is empty, said so (it printed 0 rows).
    rejected([sys.executable, os.path.join(src, "scripts", "summary.py"), r.m_path, "--filter", "label=Retriever",
              "--csv", "--out", o], src, "--taxonomy", env, o, "a label filter without the taxonomy")
    for what, target in (("--out a folder", out), ("--out in a missing folder", os.path.join(out, "no", "t.csv"))):
        rejected(summary + ["--csv", "--out", target], src, "--out", env, None, what)
    rejected([sys.executable, os.path.join(src, "scripts", "summary.py"), os.path.join(out, "missing.json"),
              "--per", "head", "--out", o], src, "missing.json", env, o, "a missing result")
    rejected([sys.executable, os.path.join(src, "scripts", "summary.py"), r.m_path, other_t, "--json", "--out", o],
             src, "taxonomy", env, o, "another run's taxonomy")
    rejected([sys.executable, os.path.join(src, "scripts", "summary.py"), r.m_path, os.path.join(out, "mixers.csv"),
              "--per", "head"], src, "mixers.csv", env, None, "a taxonomy that is not JSON")

    # --help lists the flags (the script said "No such file" before).
    p, _ = run([sys.executable, os.path.join(src, "scripts", "summary.py"), "--help"], src, env=env)
    check(p.returncode == 0 and p.stdout.startswith("usage: scripts/summary.py") and all(f in p.stdout for f in FLAGS),
          "scripts/summary.py --help: exit 0, the usage and every table flag")
    return r


def note_checks(src, geoattn, env, tmp, tables):
    """The intervals' note and the null intervals on runs without per-head intervals."""
    folder = os.path.join(tmp, "notes")
    os.makedirs(folder)
    for what, flags, want in (("no bootstrap", ["--max-windows", "3", "--bootstrap", "0", "--envelopes", "off"], "no bootstrap"),
                              ("one unit", ["--max-windows", "1"], "1 bootstrap unit"),
                              ("bootstrap per layer", ["--max-windows", "3", "--bootstrap", "50", "--bootstrap-level", "layer"],
                               "bootstrap level is layer")):
        path = os.path.join(folder, what.replace(" ", "-") + ".json")
        p, _ = run([geoattn, "measure", "--model", "models/stories260K", "--data", DATA, "--ctx", "64", "--quiet",
                    "--out", path] + flags, src)
        if not check(p.returncode == 0, f"a stories260K run, {what}"):
            print(p.stderr[-1000:])
            continue
        r = Run(path)
        table = tables.rows(path, n=[16])
        check_cells(r, table, [16], f"{what}: the cells")
        note = tables.intervals_note(r.m, "head")
        check(want in (note or "") and all(x["P@16_lo"] is None and x["rho0_hi"] is None for x in table),
              f"{what}: every interval null, the note says why ({note})")
        p, _ = run([sys.executable, os.path.join(src, "scripts", "summary.py"), path, "--n", "16"], src, env=env)
        check(p.returncode == 0 and f"intervals: {note}" in p.stdout, f"{what}: the text table's intervals line")
        if what == "no bootstrap":
            check(all(x["envelopes"] is None for x in table), "no envelopes: the verdict is null")


def committed_checks(src, env, tables, tmp):
    """docs/findings' committed runs: every cell of stories15M's per-head table; the page's two
    examples run again, line for line, their rows against the arrays."""
    base = os.path.join(src, "docs", "findings")
    s15 = Run(os.path.join(base, "stories15M", "measure.json"), os.path.join(base, "stories15M", "taxonomy.json"))
    check_cells(s15, tables.rows(s15.m_path, s15.t_path, n=s15.grid), s15.grid, "committed stories15M, every N")
    page = os.path.join(src, "docs", "tables.md")
    for name, model in (("tables-stories15M", "stories15M"), ("tables-smollm2", "smollm2")):
        cmd = block_after(page, "test: " + name, "sh")
        shown = block_after(page, "test: " + name, "text")
        p, _ = run(["bash", "-euo", "pipefail", "-c", cmd], src,
                   env=python_first_on_path(env, os.path.join(tmp, "py")))
        check(p.returncode == 0 and p.stdout == shown,
              f"docs/tables.md's {model} example: the command prints the lines shown"
              + ("" if p.stdout == shown else f" (got {p.stdout[:400]!r}; {p.stderr[-300:]})"))
        r = Run(os.path.join(base, model, "measure.json"), os.path.join(base, model, "taxonomy.json"))
        cols, lines = text_rows(shown)
        want_order = top_by(r, "F_rmax", 16, 5)
        bad = []
        g = r.grid.index(16)
        for x in lines:
            l, h = int(x[0]), int(x[1])
            cell = dict(zip(cols, x))
            lo, hi = r.interval("heads", l, h, "F_rmax", g)
            want = {"P@16": fmt3(r.value("heads", l, h, "P_rmax", g)), "R@16": fmt3(r.value("heads", l, h, "R_rmin", g)),
                    "F@16": fmt3(r.value("heads", l, h, "F_rmax", g)), "F@16_lo": fmt3(lo), "F@16_hi": fmt3(hi),
                    "rho0": fmt3(r.head_json(l, h)["rho0"]), "label": r.tax(l, h)["label"],
                    "envelopes": r.leaves("heads", l, h)}
            bad += [(l, h, k) for k, v in want.items() if cell.get(k) != v]
        check([(int(x[0]), int(x[1])) for x in lines] == want_order and not bad,
              f"{model}'s top 5 by F@16 on the page: the arrays' order {want_order}, every cell ({bad[:3]})")


T0 = time.time()


def main():
    args, src, bin_dir, geoattn = parse_args(__file__)
    try:
        import numpy  # noqa: F401
    except ImportError:
        exe = plotter_python()
        if exe and os.path.realpath(exe) != os.path.realpath(sys.executable):
            os.execv(exe, [exe] + sys.argv)
        check(False, "numpy: the table's structured array and this test need it (Debian: python3-numpy)")
        return finish(T0)
    sys.path.insert(0, os.path.join(src, "python"))
    import geoattn.tables as tables
    env = package_env(src)
    tmp = tempfile.mkdtemp(prefix="geoattn-tables-test-")
    try:
        if check(os.access(geoattn, os.X_OK), f"geoattn is built ({geoattn})"):
            stories260k_checks(src, bin_dir, env, tmp, tables)
            note_checks(src, geoattn, env, tmp, tables)
        committed_checks(src, env, tables, tmp)
    finally:
        remove_scratch(tmp, args.keep)
    return finish(T0)


if __name__ == "__main__":
    sys.exit(main())
