"""The per-head table on the command line (geoattn-summary --per/--n/--sort/--top/--filter/--csv/
--json/--out): the table of geoattn.tools.tables as text, CSV or JSON, to stdout or written whole
to a file (a temporary file beside it, then renamed). The table has no command of its own:
geoattn-summary's parser (geoattn.tools.summary.cli) takes its flags (add_flags) and runs it (run)."""
from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Any, Sequence

from ...staged import Staged, output_clash, output_problem, result_files
from . import lib as tables

if TYPE_CHECKING:
    import argparse

FLAGS = ("per", "n", "sort", "desc", "asc", "top", "filter", "columns", "csv", "json", "out")


def add_flags(ap: argparse.ArgumentParser) -> None:
    """The table's flags on an argparse parser."""
    t = ap.add_argument_group("per-head table (any of these prints it instead of the per-layer summary)")
    t.add_argument("--per", choices=("head", "layer"), help="a row per (layer, head) or per layer (default head)")
    t.add_argument("--n", metavar="N,N,...", help="the N of the P@N, R@N, F@N columns, each on the run's grid "
                   "(default 4, 16, 64 and the grid's largest, those on the grid)")
    t.add_argument("--sort", metavar="COLUMN", help="order the rows by any column (null last)")
    order = t.add_mutually_exclusive_group()
    order.add_argument("--desc", action="store_true", help="largest first")
    order.add_argument("--asc", action="store_true", help="smallest first (the default)")
    t.add_argument("--top", type=int, metavar="K", help="the first K rows (after --filter and --sort)")
    t.add_argument("--filter", action="append", default=[], metavar="COLUMN=VALUE",
                   help="keep the rows whose column equals VALUE (also !=, <, <=, >, >= on numbers, "
                        "COLUMN~TEXT: a text column containing TEXT; VALUE null matches an empty cell); "
                        "repeatable, all must hold (a range: two filters); a filter that cannot match is an error")
    t.add_argument("--columns", metavar="COLUMN,...", help="print only these columns, in this order "
                   "(default: all)")
    fmt = t.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="CSV (a header line, empty cells for null)")
    fmt.add_argument("--json", action="store_true", help="JSON: the settings, the columns, the rows")
    t.add_argument("--out", metavar="FILE", help="write the output to FILE (whole or not at all), not stdout")


def wanted(args: argparse.Namespace) -> bool:
    """Whether any table flag was given (else the per-layer summary runs)."""
    return any(getattr(args, f) is not None and getattr(args, f) is not False
               and getattr(args, f) != [] for f in FLAGS)


def _n_list(text: str) -> list[int]:
    items = text.split(",")
    if len(items) > 1 and any(not x.strip() for x in items):  # '4,,16': an empty item, as compare and the C++ flags say
        raise tables.TableError(f"--n {text!r}: an empty item in the list")
    try:
        out = [int(x) for x in items if x.strip()]
    except ValueError:
        raise tables.TableError(f"--n {text!r}: not a list of integers like 4,16,64") from None
    if not out:
        raise tables.TableError(f"--n {text!r}: no N")
    return out


def cell(x: Any, column: str) -> str:
    """A cell as CSV writes it: "" for null, true/false, the shortest float that reads back."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    return repr(x) if isinstance(x, float) else str(x)


def as_csv(table: Sequence[dict], cols: Sequence[str]) -> str:
    """The table as CSV text."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in table:
        w.writerow([cell(r[c], c) for c in cols])
    return buf.getvalue()


def narrow_columns(cols: Sequence[str], labelled: bool) -> list[str]:
    """The per-head text table's default columns among `cols`: layer, head, the label and the
    closest rule (with a taxonomy), P@N and R@N at each N, rho0 (under 100 characters a row)."""
    first = ["layer", "head"] + (["label", "closest"] if labelled else [])
    return first + [c for c in cols if c[:2] in ("P@", "R@") and not c.endswith(("_lo", "_hi"))] + ["rho0"]


def as_text(table: Sequence[dict], cols: Sequence[str], head: Sequence[str]) -> str:
    """The table as aligned text: the `head` lines, then a header and a line per row; numbers
    with three decimals, "-" for null, the rule (long) last."""
    def show(x, c):
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "-"
        if isinstance(x, bool):
            return "yes" if x else "no"
        return f"{x:.3f}" if isinstance(x, float) else str(x)
    order = [c for c in cols if c != "rule"] + (["rule"] if "rule" in cols else [])
    grid = [[show(r[c], c) for c in order] for r in table]
    widths = [max([len(c)] + [len(g[i]) for g in grid]) for i, c in enumerate(order)]
    left = {i for i, c in enumerate(order) if tables.kind(c) == "str"}

    def line(cells):
        return "  ".join(s.ljust(w) if i in left else s.rjust(w)
                         for i, (s, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join(list(head) + [line(order)] + [line(g) for g in grid]) + "\n"


def write(text: str, out: str | None) -> None:
    """text to stdout, or to `out` whole (geoattn.staged)."""
    if out is None:
        print(text, end="")
        return
    if why := output_problem(out):
        raise tables.TableError(f"--out {out}: {why}")
    with Staged(".summary.") as staged:
        with open(staged.path(out, ""), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    staged.commit()


def run(args: argparse.Namespace) -> int:
    """The table for parsed arguments (args.measure, args.taxonomy and the FLAGS); TableError on
    bad input, nothing written then."""
    if (args.desc or args.asc) and not args.sort:
        raise tables.TableError("--desc/--asc: give --sort COLUMN")
    if clash := output_clash([("--out", args.out)], result_files(args.measure) + [args.taxonomy]):
        raise tables.TableError(clash)
    per = args.per or "head"
    ns = _n_list(args.n) if args.n is not None else None
    m, _ = tables.load_doc(args.measure, "result", "geoattn.measure")
    table = tables.rows(m, args.taxonomy, per=per, n=ns)
    cols = list(table[0]) if table else tables.columns(tables.grid_n(m["n_grid"], ns), per)
    for f in args.filter:
        table = tables.keep(table, *tables.parse_filter(f, table))
    if args.sort:
        if args.sort not in cols:
            raise tables.TableError(f"--sort {args.sort}: unknown column (columns: {', '.join(cols)})")
        table = tables.sort_rows(table, args.sort, descending=args.desc)
    if args.top is not None:
        table = tables.top(table, args.top)
    narrow = not (args.csv or args.json) and args.columns is None and per == "head"
    if narrow:  # the text's default: what fits 100 columns of terminal, the label first
        args.columns = ",".join(narrow_columns(cols, args.taxonomy is not None))
    if args.columns is not None:
        chosen = [c.strip() for c in args.columns.split(",") if c.strip()]
        bad = [c for c in chosen if c not in cols] or ([] if chosen else ["(none)"])
        if bad:
            raise tables.TableError(f"--columns: unknown column {bad[0]!r} (columns: {', '.join(cols)})")
        cols = chosen
        table = [{c: r[c] for c in cols} for r in table]
    note = tables.intervals_note(m, per)
    if args.csv:
        text = as_csv(table, cols)
    elif args.json:
        doc = {"result": args.measure, "taxonomy": args.taxonomy, "per": per,
               "n": tables.grid_n(m["n_grid"], ns), "intervals": note,
               "percentiles": (m.get("bootstrap") or {}).get("percentiles"),
               "filter": args.filter, "sort": args.sort, "descending": bool(args.desc), "top": args.top,
               "columns": cols, "rows": table}
        text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
    else:
        data = m["data"]
        head = [f"{m['model']['path']}: {data['windows']} windows, {len(table)} rows"
                + (f" (filter {' and '.join(args.filter)})" if args.filter else ""),
                f"intervals: {note}" if note else
                f"intervals: bootstrap percentiles {m['bootstrap']['percentiles']} over "
                f"{m['bootstrap']['units']} {m['bootstrap']['unit']}s"]
        if narrow:
            head.append("columns: the narrow view; F, the intervals, failed, rule, envelopes and the fits' ok with "
                        "--columns, --csv or --json")
        text = as_text(table, cols, head)
    write(text, args.out)
    return 0
