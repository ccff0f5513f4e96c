"""Per-head (or per-layer) tables of a geoattn run: one row per (layer, head) with P, R and F at a
few N and their bootstrap intervals, rho0, the taxonomy's label and rule, the envelopes' verdict
and whether each fit's assumption was identified; sorted, cut and filtered as the command line
asks (geoattn-summary --per head; docs/tables.md).

    from geoattn.tools.tables import rows, structured, sort_rows
    table = rows("out/m.json", "out/t.json", n=[4, 16])   # list of dicts, None for null
    best = sort_rows(table, "F@16", descending=True)[:5]
    arr = structured(table)                                 # numpy structured array, NaN for null

Python's json for the rows (geoattn.results reads the arrays file); numpy only for structured().
"""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ...io.json_doc import read_json
from ...results import RUN_ID, load_measure, taxonomy_mismatch
from ...vocabulary import CLASSES, LEAVES, classes_of

if TYPE_CHECKING:
    import numpy

DEFAULT_N = (4, 16, 64)  # and the grid's largest N
# The table's curves (SPEC §2): (column prefix, the result's key).
CURVES = (("P", "P_rmax"), ("R", "R_rmin"), ("F", "F_rmax"))
FITS = ("norms", "decay", "profile")  # SPEC §4's assumptions, as heads[].fits names them
TEXT_COLUMNS = ("label", "closest", "failed", "rule", "envelopes")
# The text columns whose values come from a closed set (a filter on another value cannot match).
LABEL_COLUMNS = ("label", "closest")
# Longest first: "a>=1" is (a, >=, 1); "~" keeps the rows whose text contains the value.
OPERATORS = ("!=", ">=", "<=", "=", ">", "<", "~")


class TableError(ValueError):
    """Bad input to a table: an unknown column, an N off the grid, a bad filter, a file that
    cannot be read; its text is the one line the command line prints."""


def load_doc(source: Any, what: str, schema: str) -> tuple[dict, str | None]:
    """(document, path) of a path or an already loaded document; TableError naming the file
    when it cannot be read or is not `schema`."""
    if isinstance(source, dict):
        if "arrays" in source and schema == "geoattn.measure":
            raise TableError(f"{what}: its arrays are in {source['arrays'].get('file')}: pass the "
                             "path, or a document from geoattn.results.load_measure")
        doc, path = source, None
    else:
        path = os.fspath(source)
        try:  # a file that cannot be read: geoattn.io's ReadError, a ValueError, "PATH: problem"
            doc = load_measure(path) if schema == "geoattn.measure" else read_json(path, schema)
        except (OSError, ValueError, KeyError) as e:  # named once: a reader's message may start with the path
            raise TableError(str(e) if str(e).startswith(f"{path}: ") else f"{path}: {e}") from None
    if not str(doc.get("schema", "")).startswith(schema + "/"):
        raise TableError(f"{path or what}: not a {schema} JSON (schema {doc.get('schema')!r})")
    return doc, path


def grid_n(grid: Sequence[int], n: Iterable[int] | None = None) -> list[int]:
    """The N of the table: `n` as given, each on the run's grid (TableError naming it and the
    grid otherwise), or by default DEFAULT_N and the grid's largest N, those the grid has."""
    if n is None:
        return sorted({x for x in (*DEFAULT_N, max(grid)) if x in grid})
    out = []
    for x in n:
        if x not in grid:
            raise TableError(f"N={x} is not on the run's grid {list(grid)}")
        if x not in out:
            out.append(x)
    return out


def columns(ns: Sequence[int], per: str = "head", classes: Sequence[str] = ()) -> list[str]:
    """The columns of a table over `ns`, in order: per head layer, head, per N P@N R@N F@N with
    their _lo/_hi, rho0 (and its interval), label, closest and failed (an Unlabelled head's nearest
    rule and its first failed criterion), rule, envelopes, norms_ok, decay_ok, profile_ok; per layer the same less head, label, rule and the fits, plus a count per label
    class of the taxonomy (`classes`)."""
    cols = ["layer"] + (["head"] if per == "head" else [])
    for x in ns:
        for c, _ in CURVES:
            cols += [f"{c}@{x}", f"{c}@{x}_lo", f"{c}@{x}_hi"]
    cols += ["rho0", "rho0_lo", "rho0_hi"]
    if per == "head":
        cols += ["label", "closest", "failed", "rule", "envelopes"] + [f"{a}_ok" for a in FITS]
    else:
        cols += ["envelopes"] + list(classes)
    return cols


def kind(column: str) -> str:
    """A column's type: "int" (layer, head, a label count), "bool" (a fit's ok), "str" (label,
    closest, failed, rule, envelopes) or "float"."""
    if column in TEXT_COLUMNS:
        return "str"
    if column.endswith("_ok"):
        return "bool"
    if column in ("layer", "head") or column[:1].isupper() and "@" not in column:
        return "int"
    return "float"


def intervals_note(result: dict, per: str = "head") -> str | None:
    """Why the table's _lo/_hi are null or rough, in words (None when every group of `per` has
    intervals from at least 10 units): no bootstrap, one unit, a coarser bootstrap level, or few
    units (the run's own sentence, bootstrap.why)."""
    boot = result.get("bootstrap")
    if not isinstance(boot, dict) or not result["settings"].get("bootstrap", {}).get("replicates"):
        return "no intervals: no bootstrap (--bootstrap 0)"
    if not boot.get("intervals"):
        return boot.get("why") or f"no intervals: {boot.get('units')} bootstrap unit"
    levels = ("global", "layer", "head")
    if levels.index(boot.get("level", "head")) < levels.index(per):
        return f"no intervals per {per}: the run's bootstrap level is {boot.get('level')}"
    return boot.get("why")


def verdict(group: dict) -> str | None:
    """The realized envelopes' reading of a group (SPEC §5; its envelopes.leaves), a consistency
    check and so in no verdict word: "inside", or where its mean leaves each envelope, e.g.
    "mean > R_up at N=2; mean > P_up0 at N=4,8"; None without envelopes."""
    env = group.get("envelopes")
    leaves = env.get("leaves") if isinstance(env, dict) else None
    if not isinstance(leaves, dict):
        return None
    parts = [f"mean {'>' if up else '<'} {name} at N={','.join(str(x) for x in leaves[name])}"
             for _, _, name, up in LEAVES if leaves.get(name)]
    return "; ".join(parts) or "inside"


def _cells(group: dict, grid: Sequence[int], ns: Sequence[int]) -> dict:
    """The numbers of one layer or head: the curves at ns with their intervals, rho0."""
    row = {}
    for x in ns:
        g = grid.index(x)
        for c, key in CURVES:
            row[f"{c}@{x}"] = group[key][g]
            ci = group.get(key + "_ci")
            ci = ci[g] if isinstance(ci, list) else None
            row[f"{c}@{x}_lo"], row[f"{c}@{x}_hi"] = ci if ci else (None, None)
    row["rho0"] = group.get("rho0")
    row["rho0_lo"], row["rho0_hi"] = group.get("rho0_ci") or (None, None)
    return row


def rows(result: Any, taxonomy: Any = None, *, per: str = "head",
         n: Iterable[int] | None = None) -> list[dict]:
    """The table: a dict per (layer, head) (per="head") or per layer (per="layer"), keys
    columns(...), None for null. `result`: a measure JSON's path or a document from
    geoattn.results.load_measure; `taxonomy`: a taxonomy JSON's path or document, or None (then
    label and rule are null); `n`: the N (default: grid_n's). TableError on bad input."""
    if per not in ("head", "layer"):
        raise TableError(f"--per {per}: not head or layer")
    m, _ = load_doc(result, "result", "geoattn.measure")
    tax = load_doc(taxonomy, "taxonomy", "geoattn.taxonomy")[0] if taxonomy is not None else None
    grid = m["n_grid"]
    ns = grid_n(grid, n)
    out = []
    if per == "layer":
        classes = classes_of(tax) if tax else []
        counts = {r["layer"]: r for r in tax["layers"]} if tax else {}
        for ly in m["layers"]:
            row = {"layer": ly["layer"], **_cells(ly, grid, ns), "envelopes": verdict(ly)}
            row.update({c: counts.get(ly["layer"], {}).get(c, 0) for c in classes})
            out.append(row)
        return out
    labels = {(h["layer"], h["head"]): h for h in tax["heads"]} if tax else {}
    if tax and set(labels) != {(h["layer"], h["head"]) for h in m["heads"]}:
        raise TableError(f"taxonomy: its heads are not the run's ({len(labels)} against "
                         f"{len(m['heads'])}; made from {tax.get('from')})")
    if tax and (why := taxonomy_mismatch(tax, {(h["layer"], h["head"]): h for h in m["heads"]},
                                         result if isinstance(result, str) else "the result", m.get(RUN_ID))):
        raise TableError(f"taxonomy: {why} (made from {tax.get('from')})")
    for h in m["heads"]:
        lab = labels.get((h["layer"], h["head"]), {})
        fits = h.get("fits") if isinstance(h.get("fits"), dict) else {}
        row = {"layer": h["layer"], "head": h["head"], **_cells(h, grid, ns),
               "label": lab.get("label"), "closest": lab.get("closest"), "failed": lab.get("failed"),
               "rule": lab.get("rule"), "envelopes": verdict(h)}
        row.update({f"{a}_ok": (fits.get(a) or {}).get("ok") for a in FITS})
        out.append(row)
    return out


def structured(table: Sequence[dict]) -> numpy.ndarray:
    """The table as a numpy structured array, a field per column in order: layer, head and the
    label counts int64; floats float64 (NaN for null); a fit's ok float64 (1, 0, NaN for null);
    label, rule, envelopes unicode ("" for null)."""
    import numpy as np

    if not table:
        return np.zeros(0, dtype=[("layer", "i8")])
    cols = list(table[0])
    fields = []
    for c in cols:
        k = kind(c)
        if k == "str":
            width = max([1] + [len(r[c]) for r in table if r[c] is not None])
            fields.append((c, f"<U{width}"))
        else:
            fields.append((c, "<i8" if k == "int" else "<f8"))
    arr = np.zeros(len(table), dtype=fields)
    for i, r in enumerate(table):
        arr[i] = tuple(("" if r[c] is None else r[c]) if kind(c) == "str"
                       else r[c] if kind(c) == "int"
                       else (np.nan if r[c] is None else float(r[c])) for c in cols)
    return arr


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def check_column(table: Sequence[dict], column: str) -> None:
    """TableError naming `column` and the table's columns when the table has no such column."""
    if table and column not in table[0]:
        raise TableError(f"unknown column {column!r} (columns: {', '.join(table[0])})")


def sort_rows(table: Sequence[dict], column: str, descending: bool = False) -> list[dict]:
    """The rows ordered by `column` (stable: ties keep their order), null last either way."""
    check_column(table, column)
    have = [r for r in table if not _missing(r[column])]
    return (sorted(have, key=lambda r: r[column], reverse=descending)
            + [r for r in table if _missing(r[column])])


def top(table: Sequence[dict], k: int) -> list[dict]:
    """The first k rows (k >= 1)."""
    if k < 1:
        raise TableError(f"--top {k}: not a count >= 1")
    return list(table[:k])


def parse_filter(text: str, table: Sequence[dict]) -> tuple[str, str, Any]:
    """(column, operator, value) of a filter "COLUMN=VALUE" (also !=, <, <=, >, >= on a number
    column, and COLUMN~TEXT: the text column contains TEXT); the value "null" matches a null cell.
    TableError naming the filter when it has no operator, names no column of the table, its value
    is not of the column's type, or it cannot match: a text column with no value in the table (no
    taxonomy given for label), or a value of label or closest that is not a label (naming the
    labels, and the spelling the value has in another case)."""
    found = [(text.index(op), -len(op), op) for op in OPERATORS if op in text]
    if not found:
        raise TableError(f"--filter {text!r}: not COLUMN=VALUE (or !=, <, <=, >, >=, ~)")
    op = min(found)[2]  # the first operator in the text, the longer one where two start there
    column, value = (s.strip() for s in text.split(op, 1))
    if table and column not in table[0]:
        raise TableError(f"--filter {text!r}: unknown column {column!r} (columns: {', '.join(table[0])})")
    k = kind(column)
    if value == "null":
        if op not in ("=", "!="):
            raise TableError(f"--filter {text!r}: null compares with = or != only")
        return column, op, None
    if op == "~" and k != "str":
        raise TableError(f"--filter {text!r}: ~ (contains) is for a text column ({', '.join(TEXT_COLUMNS)})")
    if k in ("str", "bool") and op not in ("=", "!=", "~"):
        raise TableError(f"--filter {text!r}: {column} compares with = or != only")
    if k == "bool":
        if value.lower() not in ("true", "false"):
            raise TableError(f"--filter {text!r}: {column} is true, false or null")
        return column, op, value.lower() == "true"
    if k in ("int", "float"):
        try:
            return column, op, float(value)
        except ValueError:
            raise TableError(f"--filter {text!r}: {value!r} is not a number") from None
    present = sorted({r[column] for r in table if not _missing(r[column])})
    if table and not present:
        why = "give the taxonomy (--taxonomy) for the labels" if column in ("label", "closest", "failed", "rule") \
            else "no row has a value there"
        raise TableError(f"--filter {text!r}: the {column} column is empty: {why}")
    known = sorted(set(CLASSES) | set(present), key=lambda c: (c not in CLASSES, c))
    if column in LABEL_COLUMNS and op in ("=", "!=") and value not in known:
        other = [v for v in known if v.lower() == value.lower()]
        raise TableError(f"--filter {text!r}: {value!r} is not a label"
                         + (f" (labels are written {other[0]!r})" if other else "")
                         + f"; the labels: {', '.join(known)}")
    return column, op, value


def keep(table: Sequence[dict], column: str, op: str, value: Any) -> list[dict]:
    """The rows whose `column` compares `op` with `value` (parse_filter's); a null cell matches
    only "=null" / "!=" a value."""
    def ok(x):
        if value is None or _missing(x):
            same = _missing(x) and value is None
            return same if op == "=" else not same
        if op == "~":
            return value in x
        return {"=": x == value, "!=": x != value, "<": x < value, "<=": x <= value,
                ">": x > value, ">=": x >= value}[op]
    return [r for r in table if ok(r[column])]
