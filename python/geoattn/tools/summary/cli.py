"""Prints the per-layer summary of a geoattn run: P and R at small N, rho0; where the run has
envelopes, how often its lower bounds are non-trivial and how many N leave each envelope (the
kappa-free upper one included); and when a taxonomy JSON is given, the head labels per layer
(Retriever, Mixer, Reset, Unlabelled), their totals and the taxonomy's threshold sensitivity.

    scripts/summary.py out/measure.json [out/taxonomy.json]
    geoattn-summary out/measure.json [out/taxonomy.json]   # the command pip install ./python installs
    geoattn-summary out/measure.json out/taxonomy.json --sort F@16 --desc --top 5   # per head

With --per, --n, --sort, --top, --filter, --csv, --json or --out it prints the per-head (or
per-layer) table of geoattn.tables instead (docs/tables.md).
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Sequence

from ...console import stops_quietly
from ..tables import TableError
from ..tables.cli import add_flags, run, wanted
from .lib import fail, per_layer

if TYPE_CHECKING:
    import argparse

USAGE = "usage: scripts/summary.py MEASURE.json [TAXONOMY.json]"


def parser(prog: str) -> argparse.ArgumentParser:
    """The command line's argparse parser: MEASURE.json [TAXONOMY.json] and the table's flags
    (geoattn.tools.tables.cli); an error is one line "summary: error: ..." and exit code 2."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            fail(message)

    ap = Parser(prog=prog, description=__doc__.split("\n\n")[0].replace("\n", " "),
                epilog="Without a table flag: the per-layer summary. With one: the per-head (or "
                       "per-layer) table, docs/tables.md.")
    ap.add_argument("measure", metavar="MEASURE.json", help="a geoattn measure (metrics, merge) result")
    ap.add_argument("taxonomy", metavar="TAXONOMY.json", nargs="?", help="its geoattn taxonomy result")
    add_flags(ap)
    return ap


@stops_quietly
def main(argv: Sequence[str] | None = None) -> int:
    """The command line (argv: its arguments, sys.argv[1:] by default): MEASURE.json
    [TAXONOMY.json], the per-layer summary; with a table flag (--per, --n, --sort, --top,
    --filter, --csv, --json, --out) the per-head table of geoattn.tables instead; --help lists
    them; without arguments, exits with the usage. Bad input: one line, exit code 2."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        sys.exit(__doc__ + "\n" + USAGE)
    prog = "scripts/summary.py" if os.path.basename(sys.argv[0]) == "summary.py" else "geoattn-summary"
    args = parser(prog).parse_args(argv)
    if wanted(args):
        try:
            return run(args)
        except TableError as e:
            fail(str(e))
    return per_layer(args.measure, args.taxonomy)
