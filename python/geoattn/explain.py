"""One head's top-N selection token by token (docs/explain.md): for one sample (window, query,
layer, head) the N tokens with the largest alpha in selection order, each with its alpha,
||alpha v|| and distance to s(N); r_max and r_min and the non-selected tokens inside each closed
ball; P(r_max, N) and R(r_min, N) (SPEC §2), checked against `geoattn metrics` on a capture of
that one sample.

    geoattn-explain --capture C.safetensors --head L.H --window W [--query q] [--n N] [--model DIR]
                    [--figure out.png] [--json out.json]
    geoattn-explain --model DIR --data FILE --window W --head L.H [--ctx T] ...   (runs geoattn capture first)

    import geoattn
    out = geoattn.explain("c.safetensors", head="2.5", window=0, n=4)   # a dict, as --json writes it
                                                          # (geoattn.explanation)

numpy only (matplotlib for --figure); the cross-check and --data need the geoattn binary. Bad
input: one line on stderr naming the file or flag, exit code 2, nothing written.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from .console import stops_quietly
from .explanation import ExplainError, explain
from .staged import Staged, output_problem

__all__ = ["table", "parse_args", "main"]

PROG = "geoattn-explain"
LISTED = 20  # non-selected tokens listed per ball in the table (the JSON has all)


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


def table(out: dict) -> str:
    """The explanation as the command prints it."""
    N = out["N"]
    doc = f" ({out['document']})" if out["document"] else ""
    lines = [f"{out['model']}, window {out['window']}{doc}, query {out['query']}, layer {out['layer']}, "
             f"head {out['head']} (KV head {out['kv_head']}): N = {N} of {out['n_tokens']} tokens"
             + (f" (keys {out['first_key']}..{out['query']})" if out["first_key"] else ""),
             f"token text: {out['tokenizer'] or 'token ids (give --model DIR for text)'}", "",
             f"I_N, the top {N} by alpha (ties: lower position first):"]
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
    return ap.parse_args(argv)




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
    print(table(out))
    for path in written:
        print(f"wrote {path}")
    return 1 if out["check"]["status"] == "differs" else 0


if __name__ == "__main__":
    sys.exit(main())
