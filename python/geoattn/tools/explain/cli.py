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
                                                          # (geoattn.tools.explain.explanation)

Before the selection, the document around the query: its last tokens and the query, I_N
[bracketed], the query <<marked>>, each token's background shaded by its alpha on a terminal
(--color). numpy only (matplotlib for --figure); the cross-check and --data need the geoattn
binary. Bad input: one line on stderr naming the file or flag, exit code 2, nothing written.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Sequence, TextIO

from ...console import stops_quietly
from ...staged import Staged, output_clash, output_problem
from .explanation import ExplainError, explain
from .lib import table

__all__ = ["PROG", "parse_args", "use_color", "main"]

PROG = "geoattn-explain"


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
                from .figure import draw
                draw(out, staged.path(args.figure, ".png"))
            if args.json:
                with open(staged.path(args.json, ".json"), "w", encoding="utf-8") as f:
                    json.dump(out, f, indent=1, ensure_ascii=False)
                    f.write("\n")
    except ExplainError as e:
        print(f"{PROG}: error: {e.flag_text()}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:  # numpy (or matplotlib for --figure) missing in this interpreter
        from ...console import missing_module
        print(missing_module(PROG, e), file=sys.stderr)
        return 2
    written = staged.commit()
    print(table(out, use_color(args.color)))
    for path in written:
        print(f"wrote {path}")
    return 1 if out["check"]["status"] == "differs" else 0

