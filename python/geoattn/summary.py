"""Prints the per-layer summary of a geoattn run: P and R at small N, rho0, and (when a
taxonomy JSON is given) the head labels per layer.

    scripts/summary.py out/measure.json [out/taxonomy.json]
"""
import json
import math
import sys

from .results import inline_arrays

SMALL_N = (1, 2, 4, 8, 16)


def load(path, schema):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"summary: error: {path}: {e}")
    if not str(doc.get("schema", "")).startswith(schema + "/"):
        sys.exit(f"summary: error: {path}: not a {schema} JSON (schema {doc.get('schema')!r})")
    return doc


def fmt(x):
    return "   -  " if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:6.3f}"


def main(argv=None):
    """The command line (argv: its arguments, sys.argv[1:] by default): MEASURE.json
    [TAXONOMY.json]; without them, exits with the usage above."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 1:
        sys.exit(__doc__)
    m = load(argv[0], "geoattn.measure")
    try:
        inline_arrays(m, argv[0])  # the per-layer arrays, from X.curves.safetensors
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"summary: error: {argv[0]}: its arrays file: {e}")
    labels = {}
    if len(argv) > 1:
        t = load(argv[1], "geoattn.taxonomy")
        labels = {row["layer"]: row for row in t["layers"]}
    grid = m["n_grid"]
    cols = [n for n in SMALL_N if n in grid]
    data = m["data"]
    print(f"{m['model']['path']}: {data['windows']} windows, {data['tokens']} tokens, "
          f"{m['global']['samples']} samples")
    head = "layer " + "".join(f"  P@{n:<4d}" for n in cols) + "".join(f"  R@{n:<4d}" for n in cols) + "   rho0"
    if labels:
        head += "   Retr  Mixer  Reset"
    print(head)
    for row in m["layers"] + [dict(m["global"], layer="all")]:
        line = f"{str(row['layer']):>5s} "
        line += "".join(f"  {fmt(row['P_rmax'][grid.index(n)])}" for n in cols)
        line += "".join(f"  {fmt(row['R_rmin'][grid.index(n)])}" for n in cols)
        line += f"  {fmt(row['rho0'])}"
        lab = labels.get(row["layer"])
        if lab:
            line += f"  {lab['Retriever']:5d}  {lab['Mixer']:5d}  {lab['Reset']:5d}"
        print(line)

