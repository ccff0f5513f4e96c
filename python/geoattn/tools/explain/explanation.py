"""The explanation of one sample (docs/explain.md) as a dict, what `geoattn-explain --json`
writes: the top-N tokens by alpha with their alpha, ||alpha v|| and distance to s(N), r_max and
r_min and the non-selected tokens inside each closed ball, P(r_max, N) and R(r_min, N) (SPEC §2),
the document around the query (its last CONTEXT tokens and the query, each with its alpha and
whether it is in I_N), and the cross-check against `geoattn metrics` on a capture of that one
sample. geoattn.explain is its function `explain`. numpy only; the cross-check and a run from
--data need the geoattn binary.
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from typing import Any, cast

from ..._cli import find_binary

__all__ = ["SCHEMA", "ExplainError", "explain"]

SCHEMA = "geoattn.explain/1"
CONTEXT = 60  # the tokens before the query in "context" (the document around it)


_GIVEN = object()


class ExplainError(ValueError):
    """A one-line reason there is nothing to explain (exit code 2). `argument` is explain()'s
    argument it is about (None: none), `value` what was given: str() starts with the argument's
    name ("head: '9.9': out of range ..."), flag_text() with its flag ("--head 9.9: out of range ...")."""

    def __init__(self, argument: str | None, why: str, value: Any = _GIVEN):
        self.argument, self.why, self.value = argument, why, value
        super().__init__(self.text(flags=False))

    def text(self, flags: bool) -> str:
        if self.argument is None:
            return self.why
        if flags:
            value = os.fspath(self.value) if isinstance(self.value, os.PathLike) else self.value
            shown = "" if self.value is _GIVEN else f" {value}"
            return f"--{self.argument.replace('_', '-')}{shown}: {self.why}"
        shown = "" if self.value is _GIVEN else f" {self.value!r}:"
        return f"{self.argument}:{shown} {self.why}"

    def flag_text(self) -> str:
        return self.text(flags=True)


def _binary(given):
    """The geoattn executable: given, else the package's, this checkout's build, or PATH's."""
    try:
        return find_binary(given)
    except ValueError:
        raise ExplainError("geoattn", "not an executable", given) from None


def _run(cmd, what):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise ExplainError(None, f"{what}: {cmd[0]}: {e.strerror}") from None
    if p.returncode:
        last = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ExplainError(None, f"{what} failed (exit {p.returncode}): {last}")


def _parse_head(head, layers, heads):
    try:
        L, H = (int(x) for x in (head.split(".") if isinstance(head, str) else head))
    except (TypeError, ValueError):
        raise ExplainError("head", "not L.H (a layer and a head, e.g. 2.5)", head) from None
    if not (0 <= L < layers and 0 <= H < heads):
        raise ExplainError("head", f"out of range (layers 0..{layers - 1}, heads 0..{heads - 1})", head)
    return L, H


def _token_row(sample, sel, k, vocab, rank=None):
    tok = int(sample.tokens[k])
    row = {"position": int(sample.positions[k]), "token": tok, "text": vocab.text(tok) if vocab else None,
           "alpha": float(sample.alpha[k]), "y_norm": float(sel.y_norm[k]), "distance": float(sel.D[k] ** 0.5)}
    if rank is not None:
        row = {"rank": rank, **row, "in_r_min_ball": bool(sel.in_rmin[k])}
    return row


def _context(sample, sel, n, vocab):
    """The document around the query: the sample's last CONTEXT tokens before it and the query
    itself (the last row), in position order, each with its text, alpha and whether it is in I_N."""
    chosen = {int(k) for k in sel.order[:n]}
    first = max(0, len(sample.positions) - 1 - CONTEXT)
    rows = []
    for k in range(first, len(sample.positions)):
        tok = int(sample.tokens[k])
        rows.append({"position": int(sample.positions[k]), "token": tok, "text": vocab.text(tok) if vocab else None,
                     "alpha": float(sample.alpha[k]), "selected": k in chosen})
    return rows


def _cross_check(binary, cap, sample, N, P, R, tmp):
    """P_rmax and R_rmin of `geoattn metrics` on a capture of this one sample, beside ours."""
    from ...capture_io import one_sample, write_capture
    from ...results import read_arrays

    if binary is None:
        return {"status": "not run", "why": "no geoattn binary (give --geoattn)"}
    one = os.path.join(tmp, "one.safetensors")
    write_capture(one, *one_sample(cap, sample.window, sample.query))
    out = os.path.join(tmp, "one.json")
    _run([binary, "metrics", "--capture", one, "--n", str(N), "--controls", "0", "--bootstrap", "0",
          "--envelopes", "off", "--quiet", "--out", out], "geoattn metrics (the cross-check)")
    with open(out, encoding="utf-8") as f:
        g = json.load(f)["n_grid"].index(N)
    arrays = read_arrays(os.path.join(tmp, "one.curves.safetensors"))
    core = {k: float(arrays["heads." + k][sample.layer, sample.head, g]) for k in ("P_rmax", "R_rmin")}
    agrees = core["P_rmax"] == P and core["R_rmin"] == R
    return {"status": "agrees" if agrees else "differs", **core}


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_arguments(capture, window, query, n, model, data, ctx, window_tokens, check, geoattn):
    """The checks that need no file read: ExplainError naming the first bad argument."""
    for name, path in (("capture", capture), ("model", model), ("data", data), ("geoattn", geoattn)):
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise ExplainError(name, "a path (str or os.PathLike)", path)
    if (capture is None) == (data is None):
        raise ExplainError("capture", "give a capture file, or model and data (one of the two)")
    if data is not None and model is None:
        raise ExplainError("data", "needs model, the model to run on it")
    if ctx is not None and data is None:
        raise ExplainError("ctx", "not used without data (a capture has its own window length)", ctx)
    if ctx is not None and not (_is_int(ctx) and ctx >= 1):
        raise ExplainError("ctx", "a window length in tokens (an integer of at least 1)", ctx)
    if window_tokens not in ("visible", "causal"):
        raise ExplainError("window_tokens", "visible or causal", window_tokens)
    for name, path in (("capture", capture), ("model", model), ("data", data)):
        if path is not None and not os.path.exists(path):
            raise ExplainError(name, "no such file or folder", path)
    if not (_is_int(window) and window >= 0):
        raise ExplainError("window", "a window index (an integer, 0 or more)", window)
    if query is not None and not _is_int(query):
        raise ExplainError("query", "a query position (an integer; negative counts from the end)", query)
    if not (_is_int(n) and n >= 1):
        raise ExplainError("n", "the N of I_N (an integer of at least 1)", n)
    if not isinstance(check, bool):
        raise ExplainError("check", "True or False", check)


def explain(capture: str | os.PathLike | None = None, head: str | tuple = "0.0", window: int = 0,
            query: int | None = None, n: int = 8, model: str | os.PathLike | None = None,
            data: str | os.PathLike | None = None, ctx: int | None = None, window_tokens: str = "visible",
            check: bool = True, geoattn: str | None = None) -> dict:
    """The explanation of one sample as a dict (what --json writes): `capture` a capture file, or
    `model` and `data` (geoattn capture runs that window first, into a temporary folder);
    `head` "L.H" or (L, H); `query` a captured position (default: the last); `n` the N of I_N;
    `model` also decodes the tokens. `check`: compare P and R with geoattn metrics on the one
    sample (binary `geoattn`, else the package's, the checkout's or PATH's). ExplainError on
    bad input."""
    from ...capture_io import CaptureError, open_capture
    from .sample import sample_of, select
    from .text import TokenizerError, load_vocabulary

    _check_arguments(capture, window, query, n, model, data, ctx, window_tokens, check, geoattn)
    try:
        vocab = load_vocabulary(model) if model is not None else None
    except TokenizerError as e:
        raise ExplainError("model", str(e)) from None
    binary = _binary(geoattn) if (check or data is not None) else None
    with tempfile.TemporaryDirectory(prefix="geoattn-explain.") as tmp:
        if data is not None:
            if binary is None:
                raise ExplainError("geoattn", "data needs the geoattn binary, and none was found (give its path)")
            model = cast("str | os.PathLike", model)  # _check_arguments: data needs model
            capture = os.path.join(tmp, "capture.safetensors")
            _run([binary, "capture", "--model", os.fspath(model), "--data", os.fspath(data),
                  "--ctx", str(1024 if ctx is None else ctx), "--max-windows", str(window + 1),
                  "--queries", "last" if query is None else str(query), "--quiet", "--out", capture], "geoattn capture")
        capture = cast("str | os.PathLike", capture)  # _check_arguments: a capture, or data (its capture made above)
        try:
            cap = open_capture(capture)
        except CaptureError as e:
            raise ExplainError("capture", str(e).removeprefix(f"{os.fspath(capture)}: "), capture) from None
        W, layers, heads = cap.alpha.shape[:3]
        L, H = _parse_head(head, layers, heads)
        if window >= W:
            raise ExplainError("window", f"out of range ({W} window{'s' * (W != 1)} in "
                               f"{'the data at this ctx' if data is not None else os.fspath(capture)})", window)
        T = cap.tokens.shape[1]
        # a negative query counts from the end, as geoattn capture's --queries does
        q = max(cap.queries) if query is None else (T + query if query < 0 else query)
        if q not in cap.queries:
            raise ExplainError("query", f"not a captured query position ({cap.queries})", query)
        sample = sample_of(cap, L, H, window, q, window_tokens)
        count = len(sample.alpha)
        if not 1 <= n <= count:
            raise ExplainError("n", f"out of range (1..{count}, the tokens of this sample)", n)
        sel = select(sample, n)
        docs = cap.meta_json("doc_ids", None)
        out = {"schema": SCHEMA, "capture": None if data is not None else os.fspath(capture),
               "model": cap.metadata.get("model"), "data": None if data is None else os.fspath(data),
               "tokenizer": vocab.source if vocab else None, "window": window,
               "document": docs[window] if isinstance(docs, list) and len(docs) == W else None,
               "query": q, "layer": L, "head": H, "kv_head": sample.kv, "window_tokens": window_tokens,
               "first_key": int(sample.positions[0]), "n_tokens": count, "N": n,
               "selected": [_token_row(sample, sel, int(k), vocab, r + 1) for r, k in enumerate(sel.order[:n])],
               "r_max": {"value": float(sel.D[sel.i_rmax] ** 0.5), "position": int(sample.positions[sel.i_rmax]),
                         "rank": int(list(sel.order).index(sel.i_rmax)) + 1},
               "r_min": None if sel.j_rmin is None else {"value": float(sel.D[sel.j_rmin] ** 0.5),
                                                         "position": int(sample.positions[sel.j_rmin])},
               "K_out": sel.K_out, "K_in": sel.K_in, "P_rmax": sel.P, "R_rmin": sel.R}
        rest = sorted((int(k) for k in sel.order[n:]), key=lambda k: (sel.D[k], k))
        out["inside_r_max"] = [_token_row(sample, sel, k, vocab) for k in rest if sel.in_rmax[k]]
        out["inside_r_min"] = [_token_row(sample, sel, k, vocab) for k in rest if sel.in_rmin[k]]
        out["near_ties"] = [{"position": int(sample.positions[t["index"]]), "ball": t["ball"], "inside": t["inside"]}
                            for t in sel.near_ties]
        out["context"] = _context(sample, sel, n, vocab)
        out["tokens"] = {"position": [int(sample.positions[k]) for k in sel.order],
                         "distance": [float(sel.D[k] ** 0.5) for k in sel.order]}
        out["check"] = _cross_check(binary, cap, sample, n, sel.P, sel.R, tmp) if check else \
            {"status": "not run", "why": "check=False"}
        del cap
    return out
