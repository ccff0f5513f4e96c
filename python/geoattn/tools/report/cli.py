"""One page per run: a self-contained HTML report of a geoattn measure result.

    geoattn-report RESULT.json [--taxonomy T.json] [--sinks S.json] [--bounds B.json] [--verdicts V.json] --out report.html
    python3 -m geoattn.report ...     the same, from a checkout (PYTHONPATH=python)

The page opens on its answer (the run in three lines, the label shares, top-N against random,
the verdicts on the theory), then the summary per layer and per head (sortable by clicking a
column header; the layer, head, label and closest columns stay while it scrolls sideways; a
label filter and a column chooser), the verdicts on the theory against the predicted envelopes where the
run has them (geoattn.verdicts), the realized envelopes' reading (where each group's mean leaves
them, the share of non-trivial bounds: a consistency check), the taxonomy with its threshold sensitivity (--taxonomy), the
paper's figures (geoattn.figures), with --sinks the sinks figures, and last the run's settings and
data (model, data files, windows, tokens, ctx, the N grid, controls, bootstrap, envelopes, timing)
as tables; long lists are collapsed. Every image is an inline
PNG (data: URL), the style and the sorting script are inline: the file opens from disk with no
network.

Bad input (a missing file, invalid JSON, another schema, a taxonomy of another run) gives one
line `geoattn-report: error: <file>: <problem>` on stderr, exit code 2, and writes nothing; the
page is written to a temporary file beside --out and renamed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import NoReturn, Sequence

from ...figures.inputs import InputError, validate_bounds, validate_measure, validate_sinks, validate_taxonomy
from ...figures.runs import Model, SinkModel, make_labels, pair_bounds, pair_taxonomies
from ...staged import output_clash, output_problem, result_files
from .lib import build_page, write_whole

__all__ = ["PROG", "fail", "parse_args", "read_verdicts", "main"]

PROG = "geoattn-report"


def fail(message: str, code: int = 2) -> NoReturn:
    """Prints `geoattn-report: error: <message>` on stderr and exits with `code`."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(code)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line's arguments; a bad one exits 2 with one line."""
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            fail(f"{message} (see --help)")

    p = Parser(prog=PROG, description=__doc__.split("\n\n", 1)[0],
               epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("result", metavar="RESULT.json", help="a geoattn measure / metrics / merge result")
    p.add_argument("--taxonomy", metavar="JSON", help="geoattn taxonomy of this run")
    p.add_argument("--sinks", metavar="JSON", help="geoattn sinks result (its figures are added)")
    p.add_argument("--bounds", metavar="JSON", help="geoattn bounds: envelopes drawn in Fig. 5")
    p.add_argument("--verdicts", metavar="JSON", help="the result's verdicts as geoattn.verdicts --record wrote "
                   "them (default: computed from the result's state sidecar)")
    p.add_argument("--out", required=True, metavar="HTML", help="the page to write")
    return p.parse_args(argv)


def read_verdicts(path: str, doc: dict) -> dict:
    """--verdicts: a geoattn.verdicts record of this very result (its prediction's fingerprint,
    N grid and documents), or a one-line error (exit 2)."""
    try:
        with open(path) as f:
            v = json.load(f)
        ours = doc["settings"]["predict_from"]["fingerprint"]
        if v["predict_from"]["fingerprint"] != ours or v["n_grid"] != doc["n_grid"] or v["documents"] != doc["bootstrap"]["units"]:
            fail(f"--verdicts {path}: not the verdicts of {doc['model']['path']}'s result (another prediction, grid or data)")
        return v
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"--verdicts {path}: not a geoattn.verdicts record ({type(e).__name__}: {e})")


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (argv: its arguments, sys.argv[1:] by default); returns 0, exits 2 on
    bad input and 1 when drawing fails."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = os.path.abspath(args.out)
    if why := output_problem(out):
        fail(f"--out {args.out}: {why}")
    read = result_files(args.result) + result_files(args.sinks) + [args.taxonomy, args.bounds, args.verdicts]
    if clash := output_clash([("--out", args.out)], read):
        fail(clash)
    try:
        model = Model(args.result, validate_measure(args.result))
        if args.taxonomy:
            pair_taxonomies([model], [(args.taxonomy, validate_taxonomy(args.taxonomy))])
        bounds = [(args.bounds, validate_bounds(args.bounds))] if args.bounds else []
        sinks = SinkModel(args.sinks, validate_sinks(args.sinks)) if args.sinks else None
    except InputError as e:
        fail(str(e))
    make_labels([model], None)
    pair_bounds([model], bounds)
    if sinks is not None:
        make_labels([sinks], None, "--sinks")
    if args.verdicts:
        model.verdicts = read_verdicts(args.verdicts, model.doc)
    inputs = {"result": args.result, "--taxonomy": args.taxonomy, "--sinks": args.sinks,
              "--bounds": args.bounds, "--verdicts": args.verdicts}
    try:
        text = build_page(model, sinks, inputs)
        write_whole(out, text)
    except Exception as e:  # a drawing bug: nothing written, say what failed
        if os.environ.get("GEOATTN_REPORT_DEBUG"):
            raise
        fail(f"drawing failed: {type(e).__name__}: {e}", code=1)
    print(f"wrote {args.out} ({os.path.getsize(out):,} bytes)")
    return 0

