"""Prints the per-layer summary of a geoattn run: P and R at small N, rho0, where the run has
envelopes how many N leave them, and (when a taxonomy JSON is given) the head labels
per layer.

    scripts/summary.py out/measure.json [out/taxonomy.json]
"""
import json
import math
import sys

from .results import inline_arrays

SMALL_N = (1, 2, 4, 8, 16)


def load(path, schema):
    """The JSON document at path; exits with one line naming the file when it cannot be read
    or its "schema" is not `schema`/<version>."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"summary: error: {path}: {e}")
    if not str(doc.get("schema", "")).startswith(schema + "/"):
        sys.exit(f"summary: error: {path}: not a {schema} JSON (schema {doc.get('schema')!r})")
    return doc


def outside(group):
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


def fmt(x):
    """A number in a column six wide, three decimals; "-" for None or NaN."""
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
    with_envelopes = outside(m["global"]) is not None
    head = "layer " + "".join(f"  P@{n:<4d}" for n in cols) + "".join(f"  R@{n:<4d}" for n in cols) + "   rho0"
    if with_envelopes:
        head += "  N out"
    if labels:
        head += "   Retr  Mixer  Reset"
    print(head)
    for row in m["layers"] + [dict(m["global"], layer="all")]:
        line = f"{str(row['layer']):>5s} "
        line += "".join(f"  {fmt(row['P_rmax'][grid.index(n)])}" for n in cols)
        line += "".join(f"  {fmt(row['R_rmin'][grid.index(n)])}" for n in cols)
        line += f"  {fmt(row['rho0'])}"
        if with_envelopes:
            line += f"  {outside(row):5d}"
        lab = labels.get(row["layer"])
        if lab:
            line += f"  {lab['Retriever']:5d}  {lab['Mixer']:5d}  {lab['Reset']:5d}"
        print(line)
    if with_envelopes:
        heads = [outside(h) for h in m["heads"]]
        kappa = m["settings"]["envelopes"]["kappa"]
        print(f"N out: grid values (of {len(grid)}) where the mean P or R leaves the envelopes of its own "
              f"samples (kappa = {kappa:g}); heads with any: {sum(1 for x in heads if x)} of {len(heads)}, "
              f"(head, N) pairs: {sum(heads)} of {len(heads) * len(grid)}")
