"""Verdicts of the measured curves against the predicted envelopes (SPEC §5, "Which envelope tests
the theory"; §2b, many comparisons at once), from a measure result with predicted envelopes
(`geoattn measure --predict-from`) and its state sidecar's per-document sums.

    python3 -m geoattn.verdicts RESULT.json [--alpha A] [--replicates B] [--seed S] [--json] [--record PATH]

The command line of geoattn.tools.verdicts (SPEC §5's words against the predicted envelopes): the
counts per word for P and R, or every verdict as JSON; bad input: one line, exit code 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Sequence

from ...staged import output_clash, result_files
from .lib import WORDS, envelope_verdicts

__all__ = ["parse_args", "main"]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line's arguments (argv: sys.argv[1:] when None); a bad one exits 2 with argparse's usage."""
    ap = argparse.ArgumentParser(prog="python3 -m geoattn.verdicts", description=__doc__.split("\n\n")[0])
    ap.add_argument("result", help="a measure result with predicted envelopes (geoattn measure --predict-from)")
    ap.add_argument("--alpha", type=float, default=0.05, help="the family-wise level (default 0.05)")
    ap.add_argument("--replicates", type=int, default=None, help="bootstrap replicates (default: the run's)")
    ap.add_argument("--seed", type=int, default=None, help="the draws' seed (default: the run's bootstrap seed)")
    ap.add_argument("--json", action="store_true", help="print every verdict as JSON")
    ap.add_argument("--record", metavar="PATH", help="write every verdict as JSON to PATH (whole or not at all; "
                    "docs/findings/MODEL/verdicts.json, which tests/check_findings.py re-derives its words from)")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: RESULT.json [--alpha A] [--replicates B] [--seed S] [--json]: the counts
    per word for P and R (--json: every verdict); bad input: one line, exit code 2."""
    args = parse_args(argv)
    if clash := output_clash([("--record", args.record)], result_files(args.result)):
        print(f"geoattn.verdicts: {clash}", file=sys.stderr)
        return 2
    try:
        v = envelope_verdicts(args.result, args.alpha, args.replicates, args.seed)
    except (ValueError, OSError) as e:
        print(f"geoattn.verdicts: {e}", file=sys.stderr)
        return 2
    if args.record:
        tmp = f"{args.record}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(v, f, separators=(",", ":"))
            f.write("\n")
        os.replace(tmp, args.record)
    if args.json:
        json.dump(v, sys.stdout, indent=1)
        print()
        return 0
    cells = {k: sum(c.values()) for k, c in v["counts"].items()}
    print(f"{v['file']}: {len(v['heads'])} heads with a predicted envelope, {v['heads_without']} without; "
          f"{v['families']} families, Benjamini-Hochberg at {v['alpha']:g} (threshold {v['bh_threshold']:.3g})")
    for key, c in v["counts"].items():
        print(f"  {key}: " + ", ".join(f"{c[w]} {w}" for w in WORDS) + f" of {cells[key]} (head, N) cells")
    return 0

