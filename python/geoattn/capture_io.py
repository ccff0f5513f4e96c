"""Capture files (`geoattn capture`'s layout, docs/results.md) with numpy alone: one window of a
capture read through a memory map (the rest of the file is not read), and a capture of one
window and one query written in the same layout, for `geoattn metrics` to measure that sample.

    cap = open_capture("out/c.safetensors")   # cap.alpha [W, L, H, Q, T], cap.values [W, L, KV, T, d]
    write_capture("one.safetensors", *one_sample(cap, window=3, query=63))
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from .io.errors import ReadError
from .io.safetensors import read_header, write_file

__all__ = ["CAPTURE_TENSORS", "CaptureError", "Capture", "open_capture", "one_sample", "write_capture"]

# The tensors of a capture file, their dtypes and ranks (docs/results.md, "geoattn capture").
CAPTURE_TENSORS = {"alpha": ("F32", 5), "values": ("F32", 5), "tokens": ("I64", 2), "queries": ("I64", 1)}
_NUMPY = {"F32": "<f4", "I64": "<i8"}


class CaptureError(ValueError):
    """A file that is not a readable capture, or a window or query it does not hold (one line)."""


@dataclass
class Capture:
    """A capture file opened lazily: `metadata` (its __metadata__, text values), `alpha`,
    `values`, `tokens` (memory maps) and `queries` (a list of positions)."""
    path: str
    metadata: dict
    alpha: np.ndarray
    values: np.ndarray
    tokens: np.ndarray
    queries: list

    def meta_json(self, key: str, default):
        """A metadata value written as JSON text (layer_attention, doc_ids), or default."""
        try:
            return json.loads(self.metadata[key])
        except (KeyError, ValueError):
            return default


def open_capture(path: str | os.PathLike) -> Capture:
    """The capture file at path (CaptureError naming it when it is not one)."""
    path = os.fspath(path)
    try:
        header, start = read_header(path)
        size = os.path.getsize(path)
    except ReadError as e:  # geoattn.io's words, the file named once
        raise CaptureError(f"{path}: not a readable capture file ({e.problem})") from None
    except (OSError, ValueError) as e:
        raise CaptureError(f"{path}: not a readable capture file ({type(e).__name__}: {e})") from None
    if (header.get("__metadata__") or {}).get("format") != "geoattn-capture-1":
        raise CaptureError(f"{path}: not a geoattn capture file (no format geoattn-capture-1 in its header)")
    arrays: dict[str, np.ndarray] = {}
    for name, (dtype, rank) in CAPTURE_TENSORS.items():
        t = header.get(name)
        if not isinstance(t, dict) or t.get("dtype") != dtype or len(t.get("shape", ())) != rank:
            raise CaptureError(f"{path}: tensor {name!r} missing or not {dtype} of rank {rank}")
        begin, end = t["data_offsets"]
        count = int(np.prod(t["shape"]))
        if end - begin != count * np.dtype(_NUMPY[dtype]).itemsize or start + end > size:
            raise CaptureError(f"{path}: tensor {name!r} does not fit its shape {t['shape']}")
        arrays[name] = np.memmap(path, _NUMPY[dtype], "r", start + begin, tuple(t["shape"])) if count else \
            np.zeros(t["shape"], _NUMPY[dtype])
    W, L, H, Q, T = arrays["alpha"].shape
    if arrays["values"].shape[:2] != (W, L) or arrays["values"].shape[3] != T or H % arrays["values"].shape[2] \
            or arrays["tokens"].shape != (W, T) or arrays["queries"].shape != (Q,):
        raise CaptureError(f"{path}: the shapes of alpha, values, tokens and queries do not agree")
    return Capture(path, dict(header["__metadata__"]), arrays["alpha"], arrays["values"], arrays["tokens"],
                   [int(q) for q in arrays["queries"]])


def one_sample(cap: Capture, window: int, query: int) -> tuple[dict, dict]:
    """(metadata, arrays) of a capture holding window `window` and query position `query` of cap
    alone, in the same layout (doc_ids cut to that window's document)."""
    qi = cap.queries.index(query)
    meta = dict(cap.metadata)
    docs = cap.meta_json("doc_ids", None)
    if isinstance(docs, list) and len(docs) == cap.tokens.shape[0]:
        meta["doc_ids"] = json.dumps([docs[window]])
    arrays = {"alpha": np.array(cap.alpha[window:window + 1, :, :, qi:qi + 1, :]),
              "values": np.array(cap.values[window:window + 1]),
              "tokens": np.array(cap.tokens[window:window + 1]),
              "queries": np.array([query], "<i8")}
    return meta, arrays


def write_capture(path: str | os.PathLike, metadata: dict, arrays: dict) -> None:
    """Writes a capture file (a temporary file in path's folder, then renamed)."""
    blobs = [(name, dtype, arrays[name].shape, np.ascontiguousarray(arrays[name], _NUMPY[dtype]).tobytes())
             for name, (dtype, _) in CAPTURE_TENSORS.items()]
    write_file(path, metadata, blobs)
