"""geoattn-compare's library (docs/compare.md): B - A per N with bootstrap bands over documents,
marked family-wise, for two measure runs, and its readable table. The command line, which parses
the flags into what comparison() takes, is geoattn.tools.compare.cli.

    from geoattn.compare import compare, table      # compare(argv): the command line's dict
    from geoattn.tools.compare import comparison     # the same from parsed arguments (cli.parse_args)

numpy only (matplotlib for the figure, geoattn.tools.compare.figure).
"""
from __future__ import annotations

import argparse
import math
from typing import Sequence

from ...console import numpy_for

np = numpy_for("geoattn.compare")  # one line, not a traceback, where numpy is missing (python3 -m geoattn.compare)

from ...compare_bootstrap import CURVES, PER_CELL, Family, benjamini_hochberg, difference, draws, max_t, pairing
from ...io.errors import ReadError
from ...io.json_doc import read_json
from ...results import MEASURE_SCHEMAS, RUN_ID, taxonomy_mismatch
from ...vocabulary import classes_of
from ...unit_sums import LEVELS, Group, StateError, UnitSums, read_unit_sums
from .settings import allowed_differences, refusal, setting

__all__ = ["CURVES", "FAMILY_WISE", "SCALARS", "SCHEMA", "CompareError", "comparison", "groups_to_compare",
           "label_counts", "label_lines", "load_run", "load_taxonomy", "marked", "parse_grid", "rule_difference",
           "table"]

SCHEMA = "geoattn.compare/2"
FAMILY_WISE = "family-wise"
SCALARS = ("rho0",)                                # the scalars compared


class CompareError(Exception):
    """A one-line reason the comparison cannot be made (exit code 2)."""


def parse_grid(text: str, common: list) -> list:
    """The N of --n (`1,2,4:16`: a:b is every shared N from a to b), each one both grids hold."""
    out = []
    for part in text.split(","):
        try:
            first, _, last = part.partition(":")
            lo, hi = int(first), int(last or first)
        except ValueError:
            raise CompareError(f"--n {text}: '{part}' is not N or a:b") from None
        picked = [n for n in common if lo <= n <= hi]
        if not picked or (lo == hi and lo not in common):
            raise CompareError(f"--n {text}: {part} is not on both runs' grids (shared: {common})")
        out += [n for n in picked if n not in out]
    return sorted(out)


def load_run(path: str) -> tuple[dict, UnitSums]:
    """A measure JSON and its per-document sums (CompareError naming the file)."""
    try:
        doc = read_json(path, MEASURE_SCHEMAS)
    except ReadError as e:
        raise CompareError(str(e)) from None
    model = doc["model"] if isinstance(doc.get("model"), dict) else {}
    if not all(isinstance(model.get(k), int) for k in ("layers", "heads")) or not isinstance(doc.get("n_grid"), list):
        raise CompareError(f"{path}: no model.layers, model.heads or n_grid")
    try:
        u = read_unit_sums(path, doc)
    except StateError as e:
        raise CompareError(str(e)) from None
    if (u.layers, u.heads, u.n_grid) != (model["layers"], model["heads"], doc["n_grid"]):
        raise CompareError(f"{path}: its state sidecar holds {u.layers} layers x {u.heads} heads over {len(u.n_grid)} N, "
                           f"not the run's {model['layers']} x {model['heads']} over {len(doc['n_grid'])}")
    return doc, u


def load_taxonomy(path: str, flag: str, doc: dict) -> dict:
    """A taxonomy JSON of the run `doc` (CompareError naming the flag)."""
    try:
        tax = read_json(path, "geoattn.taxonomy")
    except ReadError as e:
        raise CompareError(f"{flag} {e}") from None
    heads = doc["model"]["layers"] * doc["model"]["heads"]
    if setting(tax, "model.path") != setting(doc, "model.path") or len(tax.get("heads", [])) != heads:
        raise CompareError(f"{flag} {path}: not a taxonomy of that run (model {setting(tax, 'model.path')!r}, "
                           f"{len(tax.get('heads', []))} heads; the run: {setting(doc, 'model.path')!r}, {heads})")
    if why := taxonomy_mismatch(tax, {(h["layer"], h["head"]): h for h in doc["heads"]}, "run " + flag[-1].upper(),
                                doc.get(RUN_ID)):
        raise CompareError(f"{flag} {path}: {why}")
    return tax


def groups_to_compare(a: UnitSums, b: UnitSums, args: argparse.Namespace) -> list:
    """[(entry, group of A, group of B)]: the whole model, then the layers (or the depth bins),
    then the heads where both runs have them and the shapes match."""
    out: list[tuple[dict, Group, Group]] = [({"group": "global"}, a.global_group(), b.global_group())]
    if args.whole:
        return out
    level = min(LEVELS.index(a.level), LEVELS.index(b.level))
    if level == 0:
        raise CompareError("settings.bootstrap.level is global in a run: only --global can be compared")
    if args.depth is not None:
        if not 1 <= args.depth <= min(a.layers, b.layers):
            raise CompareError(f"--depth {args.depth}: needs 1 to {min(a.layers, b.layers)} (the fewer layers)")
        for k in range(args.depth):
            la = [l for l in range(a.layers) if l * args.depth // a.layers == k]
            lb = [l for l in range(b.layers) if l * args.depth // b.layers == k]
            out.append(({"group": "depth", "depth": k, "layers_a": la, "layers_b": lb},
                        a.layers_group(la), b.layers_group(lb)))
        return out
    if a.layers != b.layers:
        raise CompareError(f"model.layers differ ({a.layers} vs {b.layers}): a per-layer difference needs equal "
                           "layer counts; use --global or --depth K")
    out += [({"group": "layer", "layer": l}, a.layers_group([l]), b.layers_group([l])) for l in range(a.layers)]
    if level == 2 and a.heads == b.heads:
        out += [({"group": "head", "layer": l, "head": h}, a.head_group(l, h), b.head_group(l, h))
                for l in range(a.layers) for h in range(a.heads)]
    return out


def _num(x):
    """A float for JSON: None for NaN (and for an infinite value, which JSON cannot hold)."""
    x = float(x)
    return x if math.isfinite(x) else None


def _cell(d: dict, f: Family, i: int, per_cell: bool) -> dict:
    """One (group, curve, N) cell: the means, B - A, its per-cell percentile interval `ci`, its
    standard error `se` and `t` = |diff| / se (null where every replicate is alike), the family's
    simultaneous `band` (null where the family does not test the cell or has no finite critical
    value), `tested` (family-wise: the family tests it; per cell: not alike in every replicate)
    and `marked` (family-wise, or per cell with --per-cell)."""
    lo, hi = d["lo"][i], d["hi"][i]
    ci = None if math.isnan(lo) or math.isnan(hi) else [float(lo), float(hi)]
    alike, live = bool(f.alike[i]), bool(f.live[i])
    band = None
    if live and math.isfinite(f.critical):
        band = [float(d["diff"][i] - f.critical * f.se[i]), float(d["diff"][i] + f.critical * f.se[i])]
    if per_cell:
        tested = not alike
        mark = bool(tested and ci is not None and (ci[0] > 0 or ci[1] < 0))
    else:
        tested = live
        mark = bool(f.passes and f.outside()[i])
    return {"a": _num(d["a"][i]), "b": _num(d["b"][i]), "diff": _num(d["diff"][i]), "ci": ci,
            "se": None if alike else _num(f.se[i]), "t": None if alike else _num(f.t[i]), "band": band,
            "tested": tested, "marked": mark}


def _family_entry(f: Family, grid: list | None, cells: list) -> dict:
    """What a group's entry says of one family: its observed max |t|, critical value, p-value,
    whether Benjamini-Hochberg lets it mark, the N tested and (a curve's, over `grid`) those left
    out as alike in every replicate and as thin (too few documents differ), the cells marked."""
    out = {"max_t": _num(f.max_t), "critical": _num(f.critical), "p": _num(f.p),
           "replicates": f.replicates, "passes_bh": bool(f.passes), "tested": int(f.live.sum())}
    if grid is not None:
        out["alike_n"] = [n for n, x in zip(grid, f.alike) if x]
        out["thin_n"] = [n for n, x in zip(grid, f.thin) if x]
    out["marked"] = sum(c["marked"] for c in cells)
    return out


def label_counts(tax_a: dict, tax_b: dict, per_layer: bool) -> dict:
    """Each run's label counts and shares of heads (per layer where the layer counts match, and in
    total) and B - A, in parts by how the Mixer's slopes were read (SPEC §6: `features.slopes_by`,
    `interval` or `sign`; never pooled or compared as one). A part is compared only where both
    runs have heads read that way; `compared` false and `why` when the runs' ways differ."""
    classes = list(dict.fromkeys(classes_of(tax_a) + classes_of(tax_b)))

    def mode(h):
        f = h.get("features") if isinstance(h.get("features"), dict) else {}
        return f.get("slopes_by") if isinstance(f.get("slopes_by"), str) else "unstated"

    def tally(heads):
        return {c: sum(1 for h in heads if h.get("label") == c) for c in classes}

    def entry(ha, hb):
        ca, cb = tally(ha), tally(hb)
        row = {"heads_a": len(ha), "heads_b": len(hb), "a": ca, "b": cb,
               "share_a": {c: ca[c] / len(ha) if ha else None for c in classes},
               "share_b": {c: cb[c] / len(hb) if hb else None for c in classes}, "diff": None, "share_diff": None}
        if ha and hb:
            row["diff"] = {c: cb[c] - ca[c] for c in classes}
            row["share_diff"] = {c: cb[c] / len(hb) - ca[c] / len(ha) for c in classes}
        return row

    heads_a, heads_b = tax_a.get("heads", []), tax_b.get("heads", [])
    rules = rule_difference(tax_a, tax_b)
    by_a = {m: sum(1 for h in heads_a if mode(h) == m) for m in dict.fromkeys(map(mode, heads_a))}
    by_b = {m: sum(1 for h in heads_b if mode(h) == m) for m in dict.fromkeys(map(mode, heads_b))}
    parts = []
    for m in sorted(set(by_a) | set(by_b), key=lambda m: ("interval", "sign").index(m) if m in ("interval", "sign") else 2):
        ha = [h for h in heads_a if mode(h) == m]
        hb = [h for h in heads_b if mode(h) == m]
        part = {"slopes_by": m, "compared": bool(ha and hb) and rules is None, "totals": entry(ha, hb)}
        if rules is not None:
            part["totals"]["diff"] = part["totals"]["share_diff"] = None
        if per_layer:
            layers = sorted({h.get("layer") for h in ha + hb if isinstance(h.get("layer"), int)})
            part["layers"] = [dict(layer=l, **entry([h for h in ha if h.get("layer") == l],
                                                    [h for h in hb if h.get("layer") == l])) for l in layers]
            for row in part["layers"] if rules is not None else ():
                row["diff"] = row["share_diff"] = None
        parts.append(part)
    why = None
    if set(by_a) != set(by_b):
        why = (f"the Mixer's slopes were read {_ways(by_a)} in A and {_ways(by_b)} in B: labels by sign and "
               "labels by interval are never pooled or compared as one (SPEC §6); only the heads read the same "
               "way in both are compared" + ("" if any(p["compared"] for p in parts) else ", and there are none")
               + " (measure both with --bootstrap-level head for intervals at every head)")
    if rules is not None:
        why = rules + ("; " + why if why else "")
    return {"classes": classes, "slopes_by": {"a": by_a, "b": by_b},
            "compared": any(p["compared"] for p in parts), "why": why, "parts": parts}


def rule_difference(tax_a: dict, tax_b: dict) -> str | None:
    """Why two taxonomies' labels are not made by one rule (SPEC §6: labels are compared only
    between taxonomies of one rule), or None: thresholds that differ (their `config`), or slope
    tests adjusted across heads in one and not in the other (`slope_tests`, SPEC §2b)."""
    ca, cb = tax_a.get("config") or {}, tax_b.get("config") or {}
    moved = [f"{k} {ca.get(k)} in A, {cb.get(k)} in B" for k in dict.fromkeys([*ca, *cb]) if ca.get(k) != cb.get(k)]
    if ("slope_tests" in tax_a) != ("slope_tests" in tax_b):
        moved.append("the Mixer's slope tests adjusted across heads in " + ("A" if "slope_tests" in tax_a else "B")
                     + " only (a taxonomy of an older geoattn)")
    if not moved:
        return None
    return ("the taxonomies were made by different rules (" + "; ".join(moved) + "): each run's counts, not compared "
            "(run geoattn taxonomy on both with one config)")


def _ways(by: dict) -> str:
    return ", ".join(f"by {m} ({n} heads)" for m, n in by.items()) or "for no head"


def comparison(args: argparse.Namespace) -> dict:
    """The comparison of parsed arguments (geoattn.tools.compare.cli.parse_args's: a, b,
    taxonomy_a, taxonomy_b, replicates, seed, alpha, per_cell, n, whole, depth) as the --out JSON
    holds it (CompareError when it cannot be made)."""
    doc_a, a = load_run(args.a)
    doc_b, b = load_run(args.b)
    why = refusal(doc_a, doc_b)
    if why:
        raise CompareError(f"{args.a} vs {args.b}: {why}")
    common = sorted(set(a.n_grid) & set(b.n_grid))
    grid = parse_grid(args.n, common) if args.n else common
    cols_a = np.array([a.n_grid.index(n) for n in grid])
    cols_b = np.array([b.n_grid.index(n) for n in grid])
    groups = groups_to_compare(a, b, args)
    labels = None
    if args.taxonomy_a:
        labels = label_counts(load_taxonomy(args.taxonomy_a, "--taxonomy-a", doc_a),
                              load_taxonomy(args.taxonomy_b, "--taxonomy-b", doc_b), a.layers == b.layers)
    p = pairing(a.ids, b.ids)
    if len(p.rows_a) < 2 or len(p.rows_b) < 2:
        raise CompareError(f"{args.a} vs {args.b}: fewer than 2 documents "
                           f"({'shared' if p.paired else 'A, B'}: {len(p.rows_a)}, {len(p.rows_b)}): "
                           "no interval (SPEC §2b)")
    wa, wb = draws(p, args.replicates, args.seed)
    alpha = args.alpha
    percentiles = (100 * alpha / 2, 100 - 100 * alpha / 2)  # (2.5, 97.5) exactly at the default
    # Every family (group, curve or scalar) first: Benjamini-Hochberg needs all their p-values.
    computed = []
    for entry, ga, gb in groups:
        for name in CURVES + SCALARS:
            cols = (cols_a, cols_b) if name in CURVES else (np.array([0]), np.array([0]))
            d = difference(a, ga, b, gb, name, *cols, p, wa, wb, percentiles)
            computed.append((entry, name, d, max_t(d["diff"], d["reps"], d["se"], d["se_reps"], alpha)))
    threshold, passes = benjamini_hochberg([f.p for *_, f in computed], alpha)
    for (entry, name, d, f), ok in zip(computed, passes):
        f.passes = bool(ok)
        if name in CURVES:
            entry[name] = [_cell(d, f, i, args.per_cell) for i in range(len(grid))]
            entry.setdefault("families", {})[name] = _family_entry(f, grid, entry[name])
        else:
            entry[name] = _cell(d, f, 0, args.per_cell)
            entry.setdefault("families", {})[name] = _family_entry(f, None, [entry[name]])
    entries = [entry for entry, _, _ in groups]
    tested = [f for *_, f in computed if f.tested]
    crit = sorted(f.critical for f in tested if math.isfinite(f.critical))
    out = {
        "schema": SCHEMA,
        "a": {"path": args.a, "model": doc_a["model"]["path"], "layers": a.layers, "heads": a.heads,
              "documents": len(a.ids), "compared": len(p.rows_a), "left_out": p.left_out_a},
        "b": {"path": args.b, "model": doc_b["model"]["path"], "layers": b.layers, "heads": b.heads,
              "documents": len(b.ids), "compared": len(p.rows_b), "left_out": p.left_out_b},
        "pairing": "paired" if p.paired else "unpaired",
        "bootstrap": {"replicates": args.replicates, "seed": args.seed, "generator": "numpy PCG64",
                      "percentiles": list(percentiles), "unit": setting(doc_a, "settings.bootstrap.unit")},
        "marks": {
            "view": PER_CELL if args.per_cell else FAMILY_WISE,
            "alpha": alpha,
            "procedure": (f"per cell (no multiplicity control): a cell is marked where its own {_pct(1 - alpha)} "
                          "percentile interval excludes 0" if args.per_cell else
                          f"family-wise: each (group, curve) is a family over N (rho0 a family of one); a cell is "
                          f"marked where t = |diff| / se exceeds its family's critical value (outside the simultaneous "
                          f"{_pct(1 - alpha)} band, max-|t| bootstrap) and the family passes Benjamini-Hochberg at "
                          f"{_pct(alpha)} across all {len(tested)} families tested"),
            "band": (f"max-|t| bootstrap, studentized: se = the delta-method standard error of B - A over the "
                     "documents (each replicate's own over its draw); critical value = the "
                     f"{_pct(1 - alpha)} quantile over replicates of max over N of |replicate - diff| / its se; "
                     "band = diff +- critical x se; N alike in every replicate (sd 0) left out, and N where more "
                     f"than {_pct(alpha)} of the replicates drew only alike documents (their own se 0)"),
            "p_value": "(1 + replicates whose max |t| reaches the observed max |diff| / se) / (1 + replicates)",
            "families": len(computed),
            "families_tested": len(tested),
            "bh_threshold": threshold,
            "families_passing": int(sum(f.passes for f in tested)),
            "critical_values": {"min": crit[0], "median": float(np.median(crit)), "max": crit[-1],
                                "infinite": len(tested) - len(crit)} if crit else None,
        },
        "level": "global" if args.whole else "depth" if args.depth else "layer",
        "differ": allowed_differences(doc_a, doc_b),
        "n_grid": grid,
        "groups": entries,
    }
    if labels is not None:
        out["labels"] = labels
    return out


def _pct(x: float) -> str:
    return f"{100 * x:g}%"


def _fmt_cell(c: dict, per_cell: bool) -> str:
    if c["diff"] is None:
        return f"{'-':>8s}{'':22s}"
    lohi = c["ci"] if per_cell else c["band"]
    ci = "[      -,       -]" if lohi is None else f"[{lohi[0]:+.4f},{lohi[1]:+.4f}]"
    return f"{c['diff']:+8.4f} {ci}{'*' if c['marked'] else ' '}  "


def _fmt_family(f: dict) -> str:
    if f["max_t"] is None:
        return f"{'not tested (alike)':29s}"
    crit = "inf" if f["critical"] is None else f"{f['critical']:.2f}"
    text = f"|t| {f['max_t']:.2f}/{crit} p {f['p']:.4f}{' BH' if f['passes_bh'] else ''}"
    return f"{text:29s}"


def _title(e: dict) -> str:
    if e["group"] == "global":
        return "global"
    if e["group"] == "depth":
        return f"depth {e['depth']} (A layers {e['layers_a']}, B layers {e['layers_b']})"
    return f"layer {e['layer']}"


def marked(out: dict, kinds: Sequence[str]) -> tuple[int, int, int]:
    """(cells marked, cells tested, cells left out) over the curve cells of the groups of the
    given kinds ("global", "layer", "depth", "head"), as the comparison's view marks and tests them
    (out["marks"]["view"]): a cell alike in every replicate (e.g. N = 1 where P = R = 1 in every
    sample) is never tested, and family-wise nor is one where too few documents differ."""
    cells = [c for e in out["groups"] if e["group"] in kinds for name in CURVES for c in e[name]]
    live = [c for c in cells if c["tested"]]
    return sum(c["marked"] for c in live), len(live), len(cells) - len(live)


def table(out: dict) -> str:
    """The readable table: per group (global, layers or depth bins), B - A per N with its band
    (the family's simultaneous band; with --per-cell the cell's own interval), * where marked, and
    each family's max |t|, critical value, p-value and whether it passes Benjamini-Hochberg;
    heads counted; label counts and shares."""
    a, b, m = out["a"], out["b"], out["marks"]
    per_cell = m["view"] == PER_CELL
    reps = out["bootstrap"]["replicates"]
    lines = [f"B - A: B {b['model']} ({b['path']}) minus A {a['model']} ({a['path']})",
             f"{out['pairing']}: A {a['documents']} documents, B {b['documents']}"
             + (f"; {a['compared']} shared, left out {a['left_out']} of A's and {b['left_out']} of B's"
                if out["pairing"] == "paired" else "")]
    level = _pct(1 - m["alpha"])
    if per_cell:
        lines += [f"marks: {PER_CELL}: * where the cell's own {level} percentile interval (shown) excludes 0, "
                  f"from {reps} replicates (seed {out['bootstrap']['seed']}); expect about {_pct(m['alpha'])} of "
                  "the cells of a null comparison marked"]
    else:
        cv = m["critical_values"]
        lines += [f"marks: family-wise at {_pct(m['alpha'])}, {reps} replicates (seed {out['bootstrap']['seed']}): "
                  f"per group and curve a simultaneous {level} band over N (shown; studentized max-|t| bootstrap: "
                  f"the {level} quantile of each replicate's largest |B - A - diff| / se over N; N alike in every "
                  "replicate, or where too few documents differ, left out)"
                  + (f", critical values {cv['min']:.2f} to {cv['max']:.2f} (median {cv['median']:.2f})" if cv else ""),
                  f"  and Benjamini-Hochberg at {_pct(m['alpha'])} over the {m['families_tested']} families' p-values: "
                  + (f"threshold p <= {m['bh_threshold']:.4g}, {m['families_passing']} families pass"
                     if m["families_passing"] else "none passes (nothing is marked)"),
                  "  * : outside the band in a family that passes; |t| max/critical, p and BH per family below the N; "
                  "--per-cell for the per-cell view"]
    if out["differ"]:
        lines.append("settings that differ: " + "; ".join(f"{k} {v[0]!r} vs {v[1]!r}" for k, v in out["differ"].items()))
    for e in out["groups"]:
        if e["group"] == "head":
            continue
        lines += ["", _title(e), "     N  " + "".join(f"{n:<29s}" for n in CURVES).rstrip()]
        for i, n in enumerate(out["n_grid"]):
            lines.append(f"{n:6d}  " + "".join(_fmt_cell(e[name][i], per_cell) for name in CURVES).rstrip())
        if not per_cell:
            lines.append("family  " + "".join(_fmt_family(e["families"][name]) for name in CURVES).rstrip())
        lines.append("  rho0  " + _fmt_cell(e["rho0"], per_cell).rstrip()
                     + ("" if per_cell else "  " + _fmt_family(e["families"]["rho0"]).rstrip()))
    lines.append("")
    how = PER_CELL if per_cell else "family-wise"
    for kinds, what in ((("layer", "depth"), "layers" if out["level"] == "layer" else "depth bins"),
                        (("global",), "the whole model"), (("head",), "heads")):
        k, n, zero = marked(out, kinds)
        if n + zero:
            lines.append(f"{what}: {k} of {n} (group, curve, N) cells marked * ({100 * k / max(n, 1):.1f}%, {how}); "
                         f"{zero} cells not tested ("
                         + ("alike in every replicate)" if per_cell else
                            "alike in every replicate, or too few documents differ there)"))
    heads = [e for e in out["groups"] if e["group"] == "head"]
    if heads:
        lines.append(f"heads' rho0 marked * in {sum(e['rho0']['marked'] for e in heads)} of {len(heads)} "
                     "(--out has every head)")
    if "labels" in out:
        lines += [""] + label_lines(out["labels"])
    return "\n".join(lines)


def label_lines(lab: dict) -> list:
    """The table's lines of label counts: per part (how the slopes were read), each run's count
    and share of heads per class and B - A, per layer; why a part is not compared."""
    def row(r, c):
        sa = "-" if r["share_a"][c] is None else f"{100 * r['share_a'][c]:.1f}%"
        sb = "-" if r["share_b"][c] is None else f"{100 * r['share_b'][c]:.1f}%"
        d = "not compared" if r["diff"] is None else f"{r['diff'][c]:+d} ({100 * r['share_diff'][c]:+.1f} points)"
        return f"{c} {r['a'][c]} ({sa}), {r['b'][c]} ({sb}), {d}"
    lines = []
    if lab.get("why"):
        lines.append("labels: " + lab["why"])
    for part in lab["parts"]:
        t = part["totals"]
        lines.append(f"labels read by {part['slopes_by']} (A {t['heads_a']} heads, B {t['heads_b']}; A, B, B - A): "
                     + ("; ".join(row(t, c) for c in lab["classes"]) if part["compared"] else
                        "; ".join(f"{c} {t['a'][c]}, {t['b'][c]}" for c in lab["classes"])
                        + " -- not compared (only one run's heads were read this way)"))
        if part["compared"]:
            for r in part.get("layers", []):
                lines.append(f"  layer {r['layer']}: " + "; ".join(row(r, c) for c in lab["classes"]))
    return lines
