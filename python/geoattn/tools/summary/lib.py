"""geoattn-summary's library: the per-layer summary of a geoattn run as the command prints it
(P and R at small N, rho0; the envelopes' readings; the verdicts on the theory; with a taxonomy,
the labels per layer, their totals and the threshold sensitivity). The command line (the
arguments, and the per-head table's flags of geoattn.tools.tables.cli) is
geoattn.tools.summary.cli.

    from geoattn.tools.summary import per_layer
    per_layer("out/measure.json", "out/taxonomy.json")   # prints the summary, returns 0
"""
from __future__ import annotations

import math
import os
import sys
from typing import Any, NoReturn, Sequence

from ...io.errors import ReadError
from ...io.json_doc import read_json
from ...results import inline_arrays
from ...vocabulary import LEAVES, classes_of

SMALL_N = (1, 2, 4, 8, 16)


def fail(message: str) -> NoReturn:
    """Exits with "summary: error: message" on stderr, one line, exit code 2 (bad input)."""
    sys.stderr.write(f"summary: error: {message}\n")
    sys.exit(2)


def load(path: str | os.PathLike, schema: str) -> dict:
    """The JSON document at path; exits (fail) with one line naming the file when it cannot be
    read or its "schema" is not `schema`/<version> (geoattn.io.read_json's words)."""
    try:
        return read_json(path, schema)
    except ReadError as e:
        fail(str(e))


def outside(group: dict) -> int | None:
    """The N at which the group's mean P(r_max, N) or R(r_min, N) lies outside the envelopes of
    its own samples (SPEC §5; the result's "envelopes"), or None without them."""
    env = group.get("envelopes")
    if not isinstance(env, dict):
        return None
    out = 0
    for g in range(len(group["P_rmax"])):
        for key, lo, up in (("P_rmax", "P_lo", "P_up"), ("R_rmin", "R_lo", "R_up")):
            y, a, b = group[key][g], env[lo][g], env[up][g]
            if None not in (y, a, b) and not (a <= y <= b):
                out += 1
                break
    return out


def leaving(group: dict, curve: str, name: str, above: bool) -> int | None:
    """How many grid N the group's mean `curve` lies above (above) or below the envelope
    `name`: the length of the result's envelopes.leaves[name] where it has one, else counted
    from the arrays; None when the group has no such envelope (an older result: no P_up0)."""
    env = group.get("envelopes")
    if not isinstance(env, dict):
        return None
    leaves = env.get("leaves")
    if isinstance(leaves, dict) and isinstance(leaves.get(name), list):
        return len(leaves[name])
    e = env.get(name)
    if not isinstance(e, list):
        return None
    n = 0
    for y, b in zip(group[curve], e):
        if y is not None and b is not None and (y > b if above else y < b):
            n += 1
    return n


def fmt(x: float | None) -> str:
    """A number in a column six wide, three decimals; "-" for None or NaN."""
    return "   -  " if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:6.3f}"


def share(x: Any) -> str:
    """A share in [0, 1] as a percentage six wide ("  11%"); "-" for None or NaN."""
    if not isinstance(x, (int, float)) or isinstance(x, bool) or math.isnan(x):
        return "     -"
    pct = 100.0 * x
    return f"{pct:5.0f}%" if pct == 0 or pct >= 1 else f"{pct:5.1f}%"


def count(x: int | None, width: int) -> str:
    """A count right-aligned in width; "-" for None."""
    return f"{'-' if x is None else x:>{width}}"


def print_labels(tax: dict, classes: Sequence[str]) -> None:
    """The taxonomy's totals per class, where its Unlabelled heads came closest, and its
    sensitivity table (threshold, factor, the moved value, how many heads change label)."""
    heads = tax.get("heads", [])
    totals = tax.get("totals") or {}
    counts = {c: totals.get(c, sum(1 for h in heads if h.get("label") == c)) for c in classes}
    print("labels: " + ", ".join(f"{c} {counts[c]}" for c in classes)
          + f" (of {totals.get('heads', len(heads))} heads)")
    mixers = tax.get("mixers")
    tests = tax.get("slope_tests")
    if isinstance(tests, dict) and tests.get("tests"):  # SPEC §2b: the Mixer's slope tests are one family
        print(f"Mixer slope tests: {tests['tests']} slopes, adjusted by Benjamini-Hochberg across heads at "
              f"{tests.get('fdr'):g}")
    if isinstance(mixers, dict) and mixers.get("by_sign"):  # SPEC §6: never pooled with those by interval
        print(f"Mixers by their slopes' intervals {mixers.get('by_interval')}, by their signs alone {mixers['by_sign']} "
              "(counted apart: the run has no head-level intervals for the latter)")
    closest: dict[str, int] = {}
    for h in heads:
        if h.get("label") == "Unlabelled" and isinstance(h.get("closest"), str):
            closest[h["closest"]] = closest.get(h["closest"], 0) + 1
    if closest:
        print("Unlabelled heads, the rule each came closest to: "
              + ", ".join(f"{k} {v}" for k, v in sorted(closest.items(), key=lambda kv: -kv[1])))
    rows = tax.get("sensitivity")
    if not isinstance(rows, list) or not rows:
        return
    print("threshold sensitivity: heads whose label changes when one threshold is moved "
          "(factor x its value)")
    width = max([len("threshold")] + [len(str(r.get("threshold", ""))) for r in rows])
    print(f"  {'threshold':<{width}s}  factor     value  changed  heads")
    for r in rows:
        moved = [f"L{c['layer']}H{c['head']} {c['from']}->{c['to']}" for c in r.get("heads") or []]
        more = f" (+{len(moved) - 4} more)" if len(moved) > 4 else ""
        value = r.get("value")
        value = f"{value:9.4g}" if isinstance(value, (int, float)) else f"{'-':>9s}"
        factor = r.get("factor")
        factor = f"{factor:6.2f}" if isinstance(factor, (int, float)) else f"{'-':>6s}"  # the by-sign row has none
        print(f"  {str(r.get('threshold')):<{width}s}  {factor}  {value}  "
              f"{r.get('changed', 0):7d}  {', '.join(moved[:4])}{more}")


def per_layer(measure: str, taxonomy: str | None) -> int:
    """Today's per-layer summary of the measure JSON at `measure` (and the taxonomy's labels)."""
    m = load(measure, "geoattn.measure")
    try:
        inline_arrays(m, measure)  # the per-layer arrays, from X.curves.safetensors
    except (OSError, ValueError, KeyError) as e:
        fail(f"{measure}: its arrays file: {e}")
    labels, tax, classes = {}, None, []
    if taxonomy is not None:
        tax = load(taxonomy, "geoattn.taxonomy")
        labels = {row["layer"]: row for row in tax["layers"]}
        classes = classes_of(tax)
    grid = m["n_grid"]
    cols = [n for n in SMALL_N if n in grid]
    data = m["data"]
    print(f"{m['model']['path']}: {data['windows']} windows, {data['tokens']} tokens, "
          f"{m['global']['samples']} samples")
    with_envelopes = outside(m["global"]) is not None
    head = "layer " + "".join(f"  P@{n:<4d}" for n in cols) + "".join(f"  R@{n:<4d}" for n in cols) + "   rho0"
    if with_envelopes:
        head += "  N out  ntriv" + "".join(f"  {c:>5s}" for c, *_ in LEAVES)
    head += "".join(f"  {c[:5]:>5s}" for c in classes)
    print(head)
    for row in m["layers"] + [dict(m["global"], layer="all")]:
        line = f"{str(row['layer']):>5s} "
        line += "".join(f"  {fmt(row['P_rmax'][grid.index(n)])}" for n in cols)
        line += "".join(f"  {fmt(row['R_rmin'][grid.index(n)])}" for n in cols)
        line += f"  {fmt(row['rho0'])}"
        if with_envelopes:
            env = row.get("envelopes") if isinstance(row.get("envelopes"), dict) else {}
            line += f"  {count(outside(row), 5)}  {share(env.get('nontrivial_share'))}"
            line += "".join(f"  {count(leaving(row, curve, name, up), 5)}"
                            for _, curve, name, up in LEAVES)
        lab = labels.get(row["layer"])
        if lab:
            line += "".join(f"  {lab.get(c, 0):5d}" for c in classes)
        print(line)
    if with_envelopes:
        heads = [outside(h) or 0 for h in m["heads"]]
        kappa = m["settings"]["envelopes"]["kappa"]
        print(f"N out: grid values (of {len(grid)}) where the mean P or R leaves the envelopes of its own "
              f"samples (kappa = {kappa:g}); heads with any: {sum(1 for x in heads if x)} of {len(heads)}, "
              f"(head, N) pairs: {sum(heads)} of {len(heads) * len(grid)}")
        print("ntriv: share of (sample, N), 1 < N < n, where the lower bounds say more than N/(q+1) and 0; "
              "P>up .. R<lo: grid N where the mean leaves that envelope; P>up0, R>up0: N above the "
              "kappa-free upper envelope (-: not in this result). These are the realized envelopes "
              "(each sample's own cosines): a consistency check, not a test of the theory (SPEC §5)")
        env = m["global"].get("envelopes") or {}
        if isinstance(env.get("sink_in"), dict):
            open_ = [g for g, x in enumerate(env.get("nontrivial") or []) if x is not None]
            total = sum(env["samples"][g] for g in open_)
            sink_in = sum(env["sink_in"]["samples"][g] for g in open_)
            if total:
                print(f"the sink is selected in {share(sink_in / total).strip()} of the (sample, N) with 1 < N < n; "
                      "where it is not, the kappa-free upper envelope restates P (envelopes.sink_in, sink_out)")
        free = [h for h in m["heads"] if (leaving(h, "P_rmax", "P_up0", True) or 0)
                + (leaving(h, "R_rmin", "R_up0", True) or 0)]
        if any(leaving(h, "P_rmax", "P_up0", True) is not None for h in m["heads"]):
            print(f"heads whose mean P or R lies above the kappa-free upper envelope at some N: "
                  f"{len(free)} of {len(m['heads'])}")
    theory_lines(m, measure)
    if tax is not None:
        print_labels(tax, classes)
    return 0


def theory_lines(m: dict, measure: str) -> None:
    """The verdicts on the theory (SPEC §5: against the predicted envelopes, from intervals with the
    multiplicity controlled; geoattn.verdicts), or that the result has none to give."""
    if "envelopes" not in m["settings"]:
        return
    if "predict_from" not in m["settings"]:
        print("theory: not tested here (no predicted envelopes: geoattn measure --predict-from RESULT.json, "
              "the fits of a run over the same windows; the envelopes above are the realized ones)")
        return
    try:
        from ..verdicts import WORDS, envelope_verdicts  # numpy: only where there are verdicts to give
    except ImportError as e:
        print(f"theory: no verdicts here ({e}: geoattn.verdicts needs numpy)")
        return
    try:
        v = envelope_verdicts(measure)
    except (OSError, ValueError, KeyError) as e:
        print(f"theory: no verdicts ({e})")
        return
    print(f"theory (predicted envelopes, the fits of {v['predict_from']['file']}): {len(v['heads'])} heads with a "
          f"prediction, {v['heads_without']} without (decay fit not ok); (head, N) cells, from intervals with the "
          f"multiplicity over N and heads controlled (alpha {v['alpha']:g}"
          + (f"; from few documents, {v['documents']}" if v.get("few_units") else "") + "):")
    for key, c in v["counts"].items():
        print(f"  {key}: " + ", ".join(f"{c[w]} {w}" for w in WORDS))

