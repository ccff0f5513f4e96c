"""The per-head (or per-layer) tables of a geoattn run (docs/tables.md): the rows, sorted, cut
and filtered, and as a numpy structured array; the library is lib.py, its command line (the
flags geoattn-summary takes: --per, --n, --sort, --top, --filter, --csv, --json, --out) cli.py.

    from geoattn.tools.tables import rows, sort_rows, structured   # or geoattn.tables, as before
    table = rows("out/m.json", "out/t.json", n=[4, 16])
"""
from .lib import (CURVES, DEFAULT_N, FITS, LABEL_COLUMNS, OPERATORS, TEXT_COLUMNS, TableError, check_column,
                  columns, grid_n, intervals_note, keep, kind, load_doc, parse_filter, rows, sort_rows, structured,
                  top, verdict)

__all__ = ["DEFAULT_N", "CURVES", "FITS", "TEXT_COLUMNS", "LABEL_COLUMNS", "OPERATORS", "TableError", "load_doc",
           "grid_n", "columns", "kind", "intervals_note", "verdict", "rows", "structured", "check_column",
           "sort_rows", "top", "parse_filter", "keep"]
