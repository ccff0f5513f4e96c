"""Compares two measure runs: B - A per N with bootstrap bands over documents, marked family-wise,
paired when the runs share documents (docs/compare.md).

Per layer (and per head where the shapes match; or the whole model, or by relative depth):
P(r_max, N), R(r_min, N), F_rmax, F_rmin at each N both grids hold and rho0, bootstrapped from
each run's per-document sums (its state sidecar, SPEC §2b): paired when the runs share
documents, unpaired otherwise. A cell is marked where it leaves its curve's simultaneous band
over N (max-|t| bootstrap) and its family (group, curve) passes Benjamini-Hochberg across all
families (SPEC §2b, many comparisons at once); --per-cell marks by each cell's own 95% interval
instead (no multiplicity control). With taxonomies, the label counts and shares of each run per
layer and their difference, labels read by the slopes' signs kept apart from those read by
their intervals (SPEC §6).

    geoattn-compare A.json B.json [--taxonomy-a TA.json --taxonomy-b TB.json] [--replicates 2000]
                    [--seed 0] [--alpha 0.05] [--per-cell] [--n GRID-SUBSET] [--global | --depth K]
                    [--out diff.json] [--figure diff.png]

numpy only (matplotlib for --figure). Bad input or runs that cannot be compared: one line on
stderr naming the file, flag or setting, exit code 2, nothing written.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from ...compare_bootstrap import PER_CELL
from ...console import stops_quietly
from ...staged import Staged, output_clash, output_problem, result_files
from .lib import CompareError, comparison, table

__all__ = ["PROG", "parse_args", "compare", "main"]

PROG = "geoattn-compare"


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
    ap.add_argument("--alpha", type=float, metavar="A", default=0.05,
                    help="the level: (1 - A) simultaneous bands over N and Benjamini-Hochberg at A across the "
                         "families (default 0.05)")
    ap.add_argument("--per-cell", action="store_true",
                    help=f"mark each cell by its own (1 - A) percentile interval instead: {PER_CELL}")
    ap.add_argument("--n", metavar="GRID", help="the N to compare, a subset of both grids: a list like 1,2,4:16 (default: all shared)")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--global", dest="whole", action="store_true", help="the whole model only (any layer counts)")
    how.add_argument("--depth", type=int, metavar="K", help="K bins of relative depth (layer l of L in bin floor(K l / L))")
    ap.add_argument("--out", metavar="DIFF.json", help="the comparison as JSON (written whole or not at all)")
    ap.add_argument("--figure", metavar="DIFF.png",
                    help="the differences against N per group with their simultaneous bands (--per-cell: each cell's "
                         "interval) and marks, as PNG")
    args = ap.parse_args(list(argv))
    if args.replicates < 1:
        raise CompareError(f"--replicates {args.replicates}: needs at least 1")
    if args.seed < 0:
        raise CompareError(f"--seed {args.seed}: needs a number >= 0")
    if not 0 < args.alpha < 1:
        raise CompareError(f"--alpha {args.alpha}: needs a level between 0 and 1")
    if (args.taxonomy_a is None) != (args.taxonomy_b is None):
        raise CompareError("--taxonomy-a and --taxonomy-b go together")
    return args


def compare(argv: Sequence[str]) -> dict:
    """The comparison of the command line argv as the --out JSON holds it (CompareError when it
    cannot be made)."""
    return comparison(parse_args(argv))


@stops_quietly
def main(argv: Sequence[str] | None = None) -> int:
    """The command line (argv: its arguments, sys.argv[1:] by default): prints the table, writes
    --out and --figure; exit code 2 with one line on stderr when the runs cannot be compared."""
    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in argv):
        parse_args(["-h"])
    try:
        with Staged(".geoattn-compare.") as staged:
            args = parse_args(argv)
            for path in (args.out, args.figure):
                if path and (why := output_problem(path)):
                    raise CompareError(f"{path}: {why}")
            clash = output_clash([("--out", args.out), ("--figure", args.figure)],
                                 result_files(args.a) + result_files(args.b) + [args.taxonomy_a, args.taxonomy_b])
            if clash:
                raise CompareError(clash)
            out = compare(argv)
            if args.figure:
                from .figure import draw
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

