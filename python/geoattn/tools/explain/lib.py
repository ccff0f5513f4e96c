"""geoattn-explain's printed explanation: the table the command prints from the dict of
geoattn.explain (geoattn.tools.explain.explanation), the document around the query with the
selected tokens marked and each token's background shaded by its alpha on a terminal; the
command line is geoattn.tools.explain.cli.

    from geoattn.tools.explain import explain, table
    print(table(explain("c.safetensors", head="2.5", window=0, n=4), color=False))
"""
from __future__ import annotations

import json
import math

from .text import printable

__all__ = ["LISTED", "WIDTH", "MARGIN", "SHADES", "DECADES", "table", "context_block", "shade"]

LISTED = 20  # non-selected tokens listed per ball in the table (the JSON has all)
WIDTH = 96  # the context block's lines, margin included
MARGIN = "  | "  # before each line of the document in the context block
SHADES = (224, 217, 210, 203, 196)  # ANSI 256-colour backgrounds, pale to strong (larger alpha)
DECADES = 3.0  # the shades span alpha from the sample's largest down by this many powers of ten
INK = "\x1b[48;5;{};38;5;16m"  # a shade's background, black text (legible on light and dark terminals)
RESET = "\x1b[0m"


def _rows(rows, ranked):
    head = (" rank" if ranked else "") + "   pos  token                    alpha  ||alpha v||  dist to s(N)"
    lines = [head + ("  in r_min ball" if ranked else "")]
    for r in rows:
        text = json.dumps(r["text"] if r["text"] is not None else r["token"], ensure_ascii=False)
        if len(text) > 20:
            text = text[:19] + "…"
        line = (f" {r['rank']:4d}" if ranked else "") + (f"  {r['position']:4d}  {text:<20} {r['alpha']:10.4e}"
                                                           f"  {r['y_norm']:11.4e}  {r['distance']:12.6e}")
        lines.append(line + (f"  {'yes' if r['in_r_min_ball'] else 'no'}" if ranked else ""))
    return lines


def shade(alpha: float, top: float) -> int | None:
    """The index into SHADES of a token's alpha, None below the palest: alpha / top on a log scale
    from 10^-DECADES to 1 (`top`: the sample's largest alpha), in len(SHADES) equal steps."""
    if not (alpha > 0 and top > 0):
        return None
    level = math.ceil(len(SHADES) * (1 + math.log10(alpha / top) / DECADES))
    return min(level, len(SHADES)) - 1 if level >= 1 else None


def _piece(row, query, top, color):
    """One token of the context block: (its text as a pipe shows it, as printed, whether the
    document breaks the line after it). [piece] in I_N, <<piece>> the query (both: [<<piece>>]);
    a leading space stays outside the marks; without a vocabulary the piece is " <id>"."""
    text = printable(row["text"]) if row["text"] is not None else f" {row['token']}"
    lead = len(text) - len(text.lstrip(" "))
    lead = 0 if lead == len(text) else lead
    core = f"<<{text[lead:]}>>" if row["position"] == query else text[lead:]
    level = shade(row["alpha"], top) if color else None
    painted = core if level is None else INK.format(SHADES[level]) + core + RESET
    left, right = ("[", "]") if row["selected"] else ("", "")
    return (text[:lead] + left + core + right, text[:lead] + left + painted + right,
            row["text"] is not None and row["text"].endswith("\n"))


def _wrap(pieces):
    """The context block's document lines: pieces joined, a line broken before a piece that would
    pass WIDTH and after a line break of the document, never inside a piece."""
    lines, shown, used = [], "", 0
    for plain, printed, breaks in pieces:
        if used and used + len(plain) > WIDTH - len(MARGIN):
            lines.append(shown)
            shown, used = "", 0
        shown, used = shown + printed, used + len(plain)
        if breaks:
            lines.append(shown)
            shown, used = "", 0
    return [MARGIN + line for line in lines + ([shown] if used else [])]


def context_block(out: dict, color: bool = False) -> list[str]:
    """The document around the query (out["context"], geoattn.explain's dict) as the command
    prints it, a list of lines: a heading, the tokens before the query and the query in position
    order ([piece]: in I_N, <<piece>>: the query), the key; with `color`, each piece's background
    shaded by its alpha (SHADES, see shade()) and the shades' key."""
    rows, q, N = out["context"], out["query"], out["N"]
    first, top = rows[0]["position"], out["selected"][0]["alpha"]
    before = [r for r in out["selected"] if r["position"] < first]
    head = f"the document before the query (positions {first}..{q}"
    if first > out["first_key"]:
        head += f"; {out['first_key']}..{first - 1} not shown, {len(before) or 'none'} of I_N there"
    lines = [head + "):"] + _wrap([_piece(r, q, top, color) for r in rows])
    lines.append(f"{' ' * len(MARGIN)}[piece]: in I_N (the top {N} by alpha)   <<piece>>: the query (position {q})"
                 + ("" if rows[0]["text"] is not None else "   pieces as token ids"))
    if color:
        steps = [top * 10 ** (DECADES * (i / len(SHADES) - 1)) for i in range(len(SHADES))]
        chips = " ".join(f"{INK.format(c)} {a:.1e} {RESET}" for c, a in zip(SHADES, steps))
        lines.append(f"{' ' * len(MARGIN)}background, alpha above: {chips}")
    return lines


def table(out: dict, color: bool = False) -> str:
    """The explanation as the command prints it (`color`: the context block's shades in ANSI
    256-colour escapes, for a terminal)."""
    N = out["N"]
    doc = f" ({out['document']})" if out["document"] else ""
    lines = [f"{out['model']}, window {out['window']}{doc}, query {out['query']}, layer {out['layer']}, "
             f"head {out['head']} (KV head {out['kv_head']}): N = {N} of {out['n_tokens']} tokens"
             + (f" (keys {out['first_key']}..{out['query']})" if out["first_key"] else ""),
             f"token text: {out['tokenizer'] or 'token ids (give --model DIR for text)'}", ""]
    lines += context_block(out, color) + ["", f"I_N, the top {N} by alpha (ties: lower position first):"]
    lines += _rows(out["selected"], True)
    rmax, rmin = out["r_max"], out["r_min"]
    lines += ["", f"r_max = {rmax['value']:.6e} (rank {rmax['rank']}, position {rmax['position']})   "
              + (f"r_min = {rmin['value']:.6e} (position {rmin['position']})" if rmin else "r_min: none (N = n)")]
    for key, ball in (("inside_r_max", "r_max"), ("inside_r_min", "r_min")):
        rows = out[key]
        lines += ["", f"non-selected tokens inside the closed {ball} ball: {len(rows)}"
                  + (f" (the nearest {LISTED} below)" if len(rows) > LISTED else "")]
        if rows:
            lines += _rows(rows[:LISTED], False)
    lines += ["", f"P(r_max, {N}) = {N}/({N} + {out['K_out']}) = {out['P_rmax']:.6g}   "
                  f"R(r_min, {N}) = {out['K_in']}/{N} = {out['R_rmin']:.6g}"
                  + ("" if out["r_min"] else " (N = n: no r_min, R = 1)")]
    near = out["near_ties"]
    lines.append(f"near-ties: {len(near)} comparison(s) too close for float64, decided in exact arithmetic "
                 f"(positions {sorted({t['position'] for t in near})})" if near
                 else "near-ties: none (every ball membership decided in float64)")
    c = out["check"]
    if c["status"] == "not run":
        lines.append(f"check: not run ({c['why']})")
    else:
        word = "agrees with the exact core" if c["status"] == "agrees" else "DIFFERS from the exact core"
        lines.append(f"check: {word} (geoattn metrics on this one sample: P_rmax {c['P_rmax']:.6g}, "
                     f"R_rmin {c['R_rmin']:.6g})")
    return "\n".join(lines)
