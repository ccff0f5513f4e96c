"""One head's top-N selection token by token (docs/explain.md): for one sample (window, query,
layer, head) the N tokens with the largest alpha in selection order, each with its alpha,
||alpha v|| and distance to s(N); r_max and r_min and the non-selected tokens inside each closed
ball; P(r_max, N) and R(r_min, N) (SPEC §2), checked against `geoattn metrics` on a capture of
that one sample.

    geoattn-explain --capture C.safetensors --head L.H --window W [--query q] [--n N] [--model DIR]
                    [--figure out.png] [--json out.json] [--color auto|always|never]
    geoattn-explain --model DIR --data FILE --window W --head L.H [--ctx T] ...   (runs geoattn capture first)

    import geoattn
    out = geoattn.explain("c.safetensors", head="2.5", window=0, n=4)   # a dict, as --json writes it
                                                          # (geoattn.explanation)

Before the selection, the document around the query: its last tokens and the query, I_N
[bracketed], the query <<marked>>, each token's background shaded by its alpha on a terminal
(--color). numpy only (matplotlib for --figure); the cross-check and --data need the geoattn
binary. Bad input: one line on stderr naming the file or flag, exit code 2, nothing written.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Sequence, TextIO

from .console import stops_quietly
from .explain_text import printable
from .explanation import ExplainError, explain
from .staged import Staged, output_clash, output_problem

__all__ = ["table", "context_block", "shade", "use_color", "parse_args", "main"]

PROG = "geoattn-explain"
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


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ExplainError(None, message)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line's flags."""
    ap = _Parser(prog=PROG, description="One head's top-N selection, token by token (docs/explain.md).")
    ap.add_argument("--capture", help="capture .safetensors (geoattn capture)")
    ap.add_argument("--model", help="model folder: token text from its tokenizer; with --data, the model to run")
    ap.add_argument("--data", help="a text shard: geoattn capture runs --window first (with --model)")
    ap.add_argument("--ctx", type=int, help="window length with --data (default 1024)")
    ap.add_argument("--head", required=True, help="L.H: layer and query head")
    ap.add_argument("--window", type=int, required=True, help="window index")
    ap.add_argument("--query", type=int, help="query position (default: the last captured)")
    ap.add_argument("--n", type=int, default=8, help="N, the tokens selected (default 8)")
    ap.add_argument("--window-tokens", default="visible", choices=("visible", "causal"),
                    help="a windowed layer's tokens (SPEC §1)")
    ap.add_argument("--geoattn", help="the geoattn executable (default: the package's, build/bin or PATH)")
    ap.add_argument("--no-check", action="store_true", help="skip the cross-check with geoattn metrics")
    ap.add_argument("--figure", help="PNG: distance to s(N) against rank by alpha")
    ap.add_argument("--json", help="the explanation as JSON")
    ap.add_argument("--color", default="auto", choices=("auto", "always", "never"),
                    help="shade the document by alpha: auto (default) on a terminal without NO_COLOR")
    return ap.parse_args(argv)


def use_color(mode: str, stream: TextIO | None = None) -> bool:
    """Whether --color `mode` colours `stream` (default: stdout): always, never, or auto: when the
    stream is a terminal and NO_COLOR is unset or empty (no-color.org)."""
    if mode != "auto":
        return mode == "always"
    stream = sys.stdout if stream is None else stream
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("NO_COLOR")


@stops_quietly
def main(argv: Sequence[str] | None = None) -> int:
    """The command line (argv: its arguments, sys.argv[1:] by default): prints the table, writes
    --figure and --json; exit 2 with one line on stderr on bad input, 1 when the cross-check
    differs."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        with Staged(".geoattn-explain.") as staged:
            args = parse_args(argv)
            for flag, path in (("figure", args.figure), ("json", args.json)):
                if path and (why := output_problem(path)):
                    raise ExplainError(flag, why, path)
            model_files = ([os.path.join(args.model, f) for f in os.listdir(args.model)]
                           if args.model and os.path.isdir(args.model) else [])
            clash = output_clash([("--json", args.json), ("--figure", args.figure)],
                                 [args.capture, args.data, *model_files])
            if clash:
                raise ExplainError(None, clash)
            out = explain(args.capture, args.head, args.window, args.query, args.n, args.model, args.data, args.ctx,
                          args.window_tokens, not args.no_check, args.geoattn)
            if args.figure:
                from .explain_figure import draw
                draw(out, staged.path(args.figure, ".png"))
            if args.json:
                with open(staged.path(args.json, ".json"), "w", encoding="utf-8") as f:
                    json.dump(out, f, indent=1, ensure_ascii=False)
                    f.write("\n")
    except ExplainError as e:
        print(f"{PROG}: error: {e.flag_text()}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:  # numpy (or matplotlib for --figure) missing in this interpreter
        from .console import missing_module
        print(missing_module(PROG, e), file=sys.stderr)
        return 2
    written = staged.commit()
    print(table(out, use_color(args.color)))
    for path in written:
        print(f"wrote {path}")
    return 1 if out["check"]["status"] == "differs" else 0


if __name__ == "__main__":
    sys.exit(main())
