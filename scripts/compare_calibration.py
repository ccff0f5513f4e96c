#!/usr/bin/env python3
"""geoattn-compare's calibration (SPEC §2b, docs/compare.md): null comparisons (one model,
stories260K, on disjoint parts of one shard, measured with default flags) compared at default
flags, family-wise and per cell, and the power check (stories15M against stories260K on the same
documents).

    scripts/compare_calibration.py [--bin-dir build/bin] [--out out/compare-calibration]
                                   [--replicates 2000] [--extended] [--json summary.json]

The nine nulls: OpenWebText (data/openwebtext/openwebtext-60docs.jsonl) halves 0/2 vs 1/2 and its
quarters 0v1, 2v3, 0v2, 1v3, 0v3, 1v2 (--shard i/4); WikiText-2 (data/wikitext2/wikitext2-raw-valid.jsonl)
halves 0/2 vs 1/2 and quarters 0v1. --extended adds WikiText-2's other quarter pairs and the same
splits measured at --ctx 256 (more documents qualify). The power check is at --ctx 256 (stories15M
holds 256 positions), paired on the same documents, --global (6 layers against 5).

Prints one row per comparison (documents a side, cells marked family-wise and per cell, families
passing Benjamini-Hochberg, the smallest family p-value, the cells marked when the same null is
read at --global and at --depth 2) and the tallies docs/compare.md states.
Runs the built geoattn (about 5-15 s a measure run on 2 cores) and the checkout's package with
this interpreter (numpy needed). Exit code 1 when the bar is missed: more than 2 of the 9 nulls
marking any cell, or stories15M against stories260K marking under 80% of its global cells.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "python"))

OWT = "data/openwebtext/openwebtext-60docs.jsonl"
WT = "data/wikitext2/wikitext2-raw-valid.jsonl"
MODEL = "models/stories260K"
NINE = [("OWT halves 0v1", OWT, 2, 0, 1), ("OWT quarters 0v1", OWT, 4, 0, 1), ("OWT quarters 2v3", OWT, 4, 2, 3),
        ("OWT quarters 0v2", OWT, 4, 0, 2), ("OWT quarters 1v3", OWT, 4, 1, 3), ("OWT quarters 0v3", OWT, 4, 0, 3),
        ("OWT quarters 1v2", OWT, 4, 1, 2), ("WT2 halves 0v1", WT, 2, 0, 1), ("WT2 quarters 0v1", WT, 4, 0, 1)]
EXTENDED = [("WT2 quarters 2v3", WT, 4, 2, 3), ("WT2 quarters 0v2", WT, 4, 0, 2), ("WT2 quarters 1v3", WT, 4, 1, 3),
            ("WT2 quarters 0v3", WT, 4, 0, 3), ("WT2 quarters 1v2", WT, 4, 1, 2)]


def measure(geoattn, out, data, *flags, model=MODEL):
    """A measure run (skipped when its JSON is there from this invocation's folder)."""
    if not os.path.exists(out):
        t = time.time()
        subprocess.run([geoattn, "measure", "--model", model, "--data", data, *flags, "--quiet", "--out", out],
                       cwd=SRC, check=True)
        print(f"  measured {os.path.basename(out)} ({time.time() - t:.1f}s)", file=sys.stderr, flush=True)
    return out


def part(geoattn, folder, data, k, i, ctx):
    tag = ("owt" if data == OWT else "wt2") + f"-{i}of{k}" + ("" if ctx is None else f"-ctx{ctx}")
    flags = ["--shard", f"{i}/{k}"] + ([] if ctx is None else ["--ctx", str(ctx)])
    return measure(geoattn, os.path.join(folder, tag + ".json"), data, *flags)


def tally(a, b, replicates, *flags):
    """One comparison at default flags and per cell: the row the summary prints."""
    from geoattn.compare import compare, marked
    every = ("global", "layer", "head")
    fw = compare([a, b, "--replicates", str(replicates), *flags])
    pc = compare([a, b, "--replicates", str(replicates), "--per-cell", *flags])
    (mf, nf, _), mc = marked(fw, every), marked(pc, every)[0]
    ps = [f["p"] for e in fw["groups"] for f in e["families"].values() if f["p"] is not None]
    infinite = sum(f["critical"] is None for e in fw["groups"] for f in e["families"].values() if f["p"] is not None)
    coarser = {}
    if not flags:  # the same null read coarser: fewer families, so Benjamini-Hochberg asks less of each
        for how in (["--global"], ["--depth", "2"]):
            c = compare([a, b, "--replicates", str(replicates), *how])
            coarser[" ".join(how)] = marked(c, ("global", "depth"))[0] + sum(e["rho0"]["marked"] for e in c["groups"])
    return {"documents": [fw["a"]["documents"], fw["b"]["documents"]], "pairing": fw["pairing"], "coarser": coarser,
            "family_wise": mf + sum(e["rho0"]["marked"] for e in fw["groups"]), "cells": nf,
            "per_cell": mc, "per_cell_rho0": sum(e["rho0"]["marked"] for e in pc["groups"]),
            "per_cell_layer": list(marked(pc, ["layer"])[:2]), "per_cell_head": list(marked(pc, ["head"])[:2]),
            "global": list(marked(fw, ["global"])[:2]),
            "families": fw["marks"]["families_tested"], "passing": fw["marks"]["families_passing"],
            "min_p": min(ps) if ps else None, "bh_first": 0.05 / len(ps) if ps else None,
            "p_below_5pc": sum(p < 0.05 for p in ps), "infinite_critical": infinite}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", default=os.path.join(SRC, "build", "bin"))
    ap.add_argument("--out", default=os.path.join(SRC, "out", "compare-calibration"))
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--extended", action="store_true", help="more nulls: WikiText-2's other quarters, and --ctx 256")
    ap.add_argument("--json", help="the rows as JSON")
    args = ap.parse_args()
    geoattn = os.path.join(args.bin_dir, "geoattn")
    os.makedirs(args.out, exist_ok=True)
    nulls = [(name, data, k, i, j, None) for name, data, k, i, j in NINE]
    if args.extended:
        nulls += [(name, data, k, i, j, None) for name, data, k, i, j in EXTENDED]
        nulls += [(name + " (ctx 256)", data, k, i, j, 256) for name, data, k, i, j in NINE[:5] + NINE[7:8]]
    rows = []
    print("| null comparison | documents | marked family-wise | families passing BH | smallest family p "
          "(BH's first threshold) | --global, --depth 2: marked | per cell: layer cells | per cell: head cells |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, data, k, i, j, ctx in nulls:
        r = tally(part(geoattn, args.out, data, k, i, ctx), part(geoattn, args.out, data, k, j, ctx), args.replicates)
        r["name"] = name
        rows.append(r)
        print(f"| {name} | {r['documents'][0]}, {r['documents'][1]} | {r['family_wise']} of {r['cells']} | "
              f"{r['passing']} of {r['families']} | {r['min_p']:.4f} ({r['bh_first']:.5f}) | "
              f"{r['coarser']['--global']}, {r['coarser']['--depth 2']} | "
              f"{r['per_cell_layer'][0]} of {r['per_cell_layer'][1]} | {r['per_cell_head'][0]} of {r['per_cell_head'][1]} |",
              flush=True)
    power = []
    for name, data in (("OpenWebText", OWT), ("WikiText-2", WT)):
        a = measure(geoattn, os.path.join(args.out, f"s260K-{name}.json"), data, "--ctx", "256")
        b = measure(geoattn, os.path.join(args.out, f"s15M-{name}.json"), data, "--ctx", "256", model="models/stories15M")
        r = tally(a, b, args.replicates, "--global")
        r["name"] = f"stories15M vs stories260K, {name}"
        power.append(r)
        m, n = r["global"]
        print(f"{r['name']} ({r['pairing']}, {r['documents'][0]} and {r['documents'][1]} documents, --global, --ctx 256): "
              f"{m} of {n} global cells marked family-wise ({100 * m / n:.1f}%); per cell {r['per_cell']} of {n}")
    nine = rows[:len(NINE)]
    marking = sum(r["family_wise"] > 0 for r in nine)
    cells_fw = sum(r["family_wise"] for r in nine)
    per_cell_any = sum(r["per_cell"] + r["per_cell_rho0"] > 0 for r in nine)
    print(f"nulls marking any cell family-wise: {marking} of {len(nine)} ({cells_fw} cells in all); per cell: "
          f"{per_cell_any} of {len(nine)}")
    fams = sum(r["families"] for r in nine)
    print(f"their families with p < 0.05: {sum(r['p_below_5pc'] for r in nine)} of {fams} "
          f"({100 * sum(r['p_below_5pc'] for r in nine) / fams:.1f}%); with an infinite critical value: "
          f"{sum(r['infinite_critical'] for r in nine)}")
    coarse = sum(v > 0 for r in nine for v in r["coarser"].values())
    print(f"the nine at --global and at --depth 2: {coarse} of {2 * len(nine)} readings mark any cell")
    if len(rows) > len(nine):
        print(f"all {len(rows)} nulls: {sum(r['family_wise'] > 0 for r in rows)} mark any cell family-wise, "
              f"{sum(v > 0 for r in rows for v in r['coarser'].values())} of {2 * len(rows)} readings at --global "
              "and --depth 2")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"nulls": rows, "power": power}, f, indent=1)
    ok = marking <= 2 and all(r["global"][0] >= 0.8 * r["global"][1] for r in power)
    print("the bar (at most 2 of 9 nulls mark; stories15M vs stories260K marks >= 80% of global cells): "
          + ("met" if ok else "MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
