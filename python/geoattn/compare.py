"""Compares two measure runs: B - A per N with 95% bootstrap intervals over documents, paired
when the runs share documents (docs/compare.md).

Per layer (and per head where the shapes match; or the whole model, or by relative depth):
P(r_max, N), R(r_min, N), F_rmax, F_rmin at each N both grids hold and rho0, with intervals
from each run's per-document sums (its state sidecar, SPEC §2b): paired when the runs share
documents, unpaired otherwise. With taxonomies, the label counts of each run per layer and
their difference.

    geoattn-compare A.json B.json [--taxonomy-a TA.json --taxonomy-b TB.json] [--replicates 2000]
                    [--seed 0] [--n GRID-SUBSET] [--global | --depth K] [--out diff.json] [--figure diff.png]

numpy only (matplotlib for --figure). Bad input or runs that cannot be compared: one line on
stderr naming the file, flag or setting, exit code 2, nothing written.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Sequence

import numpy as np

from .compare_bootstrap import PERCENTILES, difference, draws, pairing
from .compare_settings import allowed_differences, refusal, setting
from .console import stops_quietly
from .results import MEASURE_SCHEMAS
from .staged import Staged, output_problem
from .summary import classes_of
from .unit_sums import LEVELS, StateError, UnitSums, read_unit_sums

__all__ = ["CURVES", "SCALARS", "CompareError", "compare", "main", "marked", "parse_grid", "table"]

PROG = "geoattn-compare"
SCHEMA = "geoattn.compare/1"
CURVES = ("P_rmax", "R_rmin", "F_rmax", "F_rmin")  # the curves compared, per N
SCALARS = ("rho0",)                                # the scalars compared


class CompareError(Exception):
    """A one-line reason the comparison cannot be made (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CompareError(message)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line's arguments (CompareError on a bad one)."""
    ap = _Parser(prog=PROG, description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("a", metavar="A.json", help="the first run (a geoattn measure, metrics or merge JSON)")
    ap.add_argument("b", metavar="B.json", help="the second run: differences are B - A")
    ap.add_argument("--taxonomy-a", metavar="TA.json", help="A's geoattn taxonomy JSON (with --taxonomy-b: label counts)")
    ap.add_argument("--taxonomy-b", metavar="TB.json", help="B's geoattn taxonomy JSON")
    ap.add_argument("--replicates", type=int, metavar="B", default=2000, help="bootstrap replicates (default 2000)")
    ap.add_argument("--seed", type=int, metavar="S", default=0, help="seed of numpy's Generator(PCG64(seed)) (default 0)")
    ap.add_argument("--n", metavar="GRID", help="the N to compare, a subset of both grids: a list like 1,2,4:16 (default: all shared)")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--global", dest="whole", action="store_true", help="the whole model only (any layer counts)")
    how.add_argument("--depth", type=int, metavar="K", help="K bins of relative depth (layer l of L in bin floor(K l / L))")
    ap.add_argument("--out", metavar="DIFF.json", help="the comparison as JSON (written whole or not at all)")
    ap.add_argument("--figure", metavar="DIFF.png", help="the differences against N per group with their intervals, as PNG")
    args = ap.parse_args(list(argv))
    if args.replicates < 1:
        raise CompareError(f"--replicates {args.replicates}: needs at least 1")
    if args.seed < 0:
        raise CompareError(f"--seed {args.seed}: needs a number >= 0")
    if (args.taxonomy_a is None) != (args.taxonomy_b is None):
        raise CompareError("--taxonomy-a and --taxonomy-b go together")
    return args


def parse_grid(text: str, common: list) -> list:
    """The N of --n (`1,2,4:16`: a:b is every shared N from a to b), each one both grids hold."""
    out = []
    for part in text.split(","):
        try:
            lo, _, hi = part.partition(":")
            lo, hi = int(lo), int(hi or lo)
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
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise CompareError(f"{path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("schema") not in MEASURE_SCHEMAS:
        got = doc.get("schema") if isinstance(doc, dict) else None
        raise CompareError(f"{path}: not a geoattn measure result (schema {got!r})")
    model = doc.get("model") if isinstance(doc.get("model"), dict) else {}
    if not all(isinstance(model.get(k), int) for k in ("layers", "heads")) or not isinstance(doc.get("n_grid"), list):
        raise CompareError(f"{path}: no model.layers, model.heads or n_grid")
    try:
        u = read_unit_sums(path)
    except StateError as e:
        raise CompareError(str(e)) from None
    if (u.layers, u.heads, u.n_grid) != (model["layers"], model["heads"], doc["n_grid"]):
        raise CompareError(f"{path}: its state sidecar holds {u.layers} layers x {u.heads} heads over {len(u.n_grid)} N, "
                           f"not the run's {model['layers']} x {model['heads']} over {len(doc['n_grid'])}")
    return doc, u


def load_taxonomy(path: str, flag: str, doc: dict) -> dict:
    """A taxonomy JSON of the run `doc` (CompareError naming the flag)."""
    try:
        with open(path, encoding="utf-8") as f:
            tax = json.load(f)
    except (OSError, ValueError) as e:
        raise CompareError(f"{flag} {path}: {e}") from None
    if not isinstance(tax, dict) or not str(tax.get("schema", "")).startswith("geoattn.taxonomy/"):
        raise CompareError(f"{flag} {path}: not a geoattn taxonomy result")
    heads = doc["model"]["layers"] * doc["model"]["heads"]
    if setting(tax, "model.path") != setting(doc, "model.path") or len(tax.get("heads", [])) != heads:
        raise CompareError(f"{flag} {path}: not a taxonomy of that run (model {setting(tax, 'model.path')!r}, "
                           f"{len(tax.get('heads', []))} heads; the run: {setting(doc, 'model.path')!r}, {heads})")
    return tax


def groups_to_compare(a: UnitSums, b: UnitSums, args) -> list:
    """[(entry, group of A, group of B)]: the whole model, then the layers (or the depth bins),
    then the heads where both runs have them and the shapes match."""
    out = [({"group": "global"}, a.global_group(), b.global_group())]
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
    """A float for JSON: None for NaN."""
    x = float(x)
    return None if math.isnan(x) else x


def _cell(d: dict, i: int) -> dict:
    lo, hi = d["lo"][i], d["hi"][i]
    return {"a": _num(d["a"][i]), "b": _num(d["b"][i]), "diff": _num(d["diff"][i]),
            "ci": None if math.isnan(lo) or math.isnan(hi) else [float(lo), float(hi)],
            "significant": bool(lo > 0 or hi < 0)}


def label_counts(tax_a: dict, tax_b: dict, per_layer: bool) -> dict:
    """Each run's label counts (per layer where the layer counts match, and in total) and
    B - A."""
    classes = [c for c in classes_of(tax_a) + classes_of(tax_b)]
    classes = list(dict.fromkeys(classes))

    def count(rows):
        return {c: sum(int(r.get(c, 0)) for r in rows) for c in classes}

    def entry(ra, rb):
        ca, cb = count(ra), count(rb)
        return {"a": ca, "b": cb, "diff": {c: cb[c] - ca[c] for c in classes}}

    out = {"classes": classes, "totals": entry(tax_a["layers"], tax_b["layers"])}
    if per_layer:
        out["layers"] = [dict(layer=ra["layer"], **entry([ra], [rb])) for ra, rb in zip(tax_a["layers"], tax_b["layers"])]
    return out


def compare(argv: Sequence[str]) -> dict:
    """The comparison of the command line argv as the --out JSON holds it (CompareError when it
    cannot be made)."""
    args = parse_args(argv)
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
    entries = []
    for entry, ga, gb in groups:
        for name in CURVES:
            d = difference(a, ga, b, gb, name, cols_a, cols_b, p, wa, wb)
            entry[name] = [_cell(d, i) for i in range(len(grid))]
        for name in SCALARS:
            entry[name] = _cell(difference(a, ga, b, gb, name, np.array([0]), np.array([0]), p, wa, wb), 0)
        entries.append(entry)
    out = {
        "schema": SCHEMA,
        "a": {"path": args.a, "model": doc_a["model"]["path"], "layers": a.layers, "heads": a.heads,
              "documents": len(a.ids), "compared": len(p.rows_a), "left_out": p.left_out_a},
        "b": {"path": args.b, "model": doc_b["model"]["path"], "layers": b.layers, "heads": b.heads,
              "documents": len(b.ids), "compared": len(p.rows_b), "left_out": p.left_out_b},
        "pairing": "paired" if p.paired else "unpaired",
        "bootstrap": {"replicates": args.replicates, "seed": args.seed, "generator": "numpy PCG64",
                      "percentiles": list(PERCENTILES), "unit": setting(doc_a, "settings.bootstrap.unit")},
        "level": "global" if args.whole else "depth" if args.depth else "layer",
        "differ": allowed_differences(doc_a, doc_b),
        "n_grid": grid,
        "groups": entries,
    }
    if labels is not None:
        out["labels"] = labels
    return out


def _fmt_cell(c: dict) -> str:
    if c["diff"] is None:
        return f"{'-':>8s}{'':22s}"
    ci = "[      -,       -]" if c["ci"] is None else f"[{c['ci'][0]:+.4f},{c['ci'][1]:+.4f}]"
    return f"{c['diff']:+8.4f} {ci}{'*' if c['significant'] else ' '}  "


def _title(e: dict) -> str:
    if e["group"] == "global":
        return "global"
    if e["group"] == "depth":
        return f"depth {e['depth']} (A layers {e['layers_a']}, B layers {e['layers_b']})"
    return f"layer {e['layer']}"


def marked(out: dict, kinds: Sequence[str]) -> tuple[int, int, int]:
    """(cells marked significant, cells, cells left out) over the curve cells of the groups of
    the given kinds ("global", "layer", "depth", "head"): a cell whose interval has zero width
    (every replicate alike, e.g. N = 1 where P = R = 1 in every sample) is left out."""
    cells = [c for e in out["groups"] if e["group"] in kinds for name in CURVES for c in e[name]]
    live = [c for c in cells if c["ci"] is not None and c["ci"][0] != c["ci"][1]]
    return sum(c["significant"] for c in live), len(live), len(cells) - len(live)


def table(out: dict) -> str:
    """The readable table: per group (global, layers or depth bins), B - A per N with its
    interval, * where the interval excludes 0; heads counted; label counts."""
    a, b = out["a"], out["b"]
    lines = [f"B - A: B {b['model']} ({b['path']}) minus A {a['model']} ({a['path']})",
             f"{out['pairing']}: A {a['documents']} documents, B {b['documents']}"
             + (f"; {a['compared']} shared, left out {a['left_out']} of A's and {b['left_out']} of B's"
                if out["pairing"] == "paired" else ""),
             f"95% percentile intervals from {out['bootstrap']['replicates']} replicates (seed {out['bootstrap']['seed']});"
             " * : the interval excludes 0"]
    if out["differ"]:
        lines.append("settings that differ: " + "; ".join(f"{k} {v[0]!r} vs {v[1]!r}" for k, v in out["differ"].items()))
    for e in out["groups"]:
        if e["group"] == "head":
            continue
        lines += ["", _title(e), "     N  " + "".join(f"{n:<29s}" for n in CURVES).rstrip()]
        for i, n in enumerate(out["n_grid"]):
            lines.append(f"{n:6d}  " + "".join(_fmt_cell(e[name][i]) for name in CURVES).rstrip())
        lines.append("  rho0  " + _fmt_cell(e["rho0"]).rstrip())
    lines.append("")
    for kinds, what in ((("layer", "depth"), "layers" if out["level"] == "layer" else "depth bins"),
                        (("global",), "the whole model"), (("head",), "heads")):
        m, n, zero = marked(out, kinds)
        if n + zero:
            lines.append(f"{what}: {m} of {n} (group, curve, N) cells marked * ({100 * m / max(n, 1):.1f}%); "
                         f"{zero} cells with a zero-width interval (alike in every replicate) not counted")
    heads = [e for e in out["groups"] if e["group"] == "head"]
    if heads:
        lines.append(f"heads' rho0 marked * in {sum(e['rho0']['significant'] for e in heads)} of {len(heads)} "
                     "(--out has every head)")
    if "labels" in out:
        lab = out["labels"]
        lines += ["", "labels (A, B, B - A): " + ", ".join(
            f"{c} {lab['totals']['a'][c]}, {lab['totals']['b'][c]}, {lab['totals']['diff'][c]:+d}" for c in lab["classes"])]
        for row in lab.get("layers", []):
            lines.append(f"  layer {row['layer']}: " + ", ".join(
                f"{c} {row['a'][c]}, {row['b'][c]}, {row['diff'][c]:+d}" for c in lab["classes"]))
    return "\n".join(lines)




@stops_quietly
def main(argv: Sequence[str] | None = None) -> int:
    """The command line (argv: its arguments, sys.argv[1:] by default): prints the table, writes
    --out and --figure; exit code 2 with one line on stderr when the runs cannot be compared."""
    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in argv):
        parse_args(["-h"])
    try:
        with Staged(".geoattn-compare.") as staged:
            out = compare(argv)
            args = parse_args(argv)
            for path in (args.out, args.figure):
                if path and (why := output_problem(path)):
                    raise CompareError(f"{path}: {why}")
            if args.figure:
                from .compare_figure import draw
                draw(out, staged.path(args.figure, ".png"))
            if args.out:
                with open(staged.path(args.out, ".json"), "w", encoding="utf-8") as f:
                    json.dump(out, f, indent=1)
                    f.write("\n")
    except CompareError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    written = staged.commit()
    print(table(out))
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
