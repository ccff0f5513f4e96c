"""Reads geoattn's results from Python: a measure JSON and, beside it, its arrays file; a
sinks JSON as numpy arrays.

    from geoattn.results import load_measure, read_arrays, load_sinks
    doc = load_measure("out/m.json")        # every array back inline, as lists (null: None)
    arrays = read_arrays("out/m.curves.safetensors")   # {"heads.P_rmax": ndarray [L, H, G], ...}
    s = load_sinks("out/sinks.json")        # {"mass0": ndarray [L, H], "alpha": [L, H, P], ...}

The arrays file is a plain safetensors file (float64, little-endian, row-major): numpy reads it
(read_arrays, or safetensors.numpy.load_file), PyTorch with safetensors.torch.load_file. Python's json
and nothing else for load_measure (numpy for read_arrays and load_sinks): no PyPI needed.
"""
from __future__ import annotations

import math
import os
import sys
from typing import TYPE_CHECKING, Any

from .io.json_doc import read_json
from .io.safetensors import read_whole, tensors
from .schema import load_schema

if TYPE_CHECKING:
    import numpy

__all__ = ["MEASURE_SCHEMAS", "SINKS_SCHEMA", "FRAME_TYPES", "SINK_CONVENTIONS", "SINK_NAMES", "RUN_ID", "read_arrays",
           "check_companion", "inline_arrays", "load_measure", "sink_arrays", "load_sinks"]

MEASURE_SCHEMAS = ("geoattn.measure/2", "geoattn.measure/1")  # /1: every array inline
SINKS_SCHEMA = "geoattn.sinks/1"
# The frame types, the conventions and each convention's names of the attention-graph statistics,
# the reference measures and the dormant row score, as the sinks schema names them (the C++
# writes the same names: ctest Schema checks it).
_SINKS_DEFS = load_schema("geoattn.sinks-1.schema.json")[0]["$defs"]
FRAME_TYPES = tuple(_SINKS_DEFS["frame_type"]["enum"])
SINK_CONVENTIONS = tuple(_SINKS_DEFS["settings"]["properties"]["convention"]["enum"])
SINK_NAMES = {c: {"graph": tuple(k for k in _SINKS_DEFS[f"graph_entry_{c}"]["required"] if k not in ("tau", "windows", "effective")),
                  "reference": tuple(_SINKS_DEFS[f"head_reference_{c}"]["required"]),
                  "row_score": _SINKS_DEFS[f"dormant_{c}"]["required"][0]}
              for c in SINK_CONVENTIONS}


# A run's identity (docs/results.md, "One run, its files"; include/geoattn/report/run_identity.h):
# the key in a result JSON, in its companions' __metadata__, and in a taxonomy (the run it labels).
RUN_ID = "run_id"
_WARNED: set = set()


def check_companion(json_path: str | os.PathLike, result_id: str | None, companion: str | os.PathLike,
                    companion_id: str | None) -> None:
    """A ValueError naming both files when `companion` (its header's run_id `companion_id`) is
    not of the result at json_path (`result_id`); a result without one (an older geoattn's) gets
    one warning line on stderr per file and its companion is read unchecked. The C++ readers'
    rule (report/run_identity.h), in their words."""
    if result_id is None:
        if os.fspath(json_path) not in _WARNED:
            _WARNED.add(os.fspath(json_path))
            print(f"geoattn: warning: {os.fspath(json_path)}: no run_id (an older geoattn wrote it): "
                  f"{os.fspath(companion)} is read without checking that it is of the same run", file=sys.stderr)
        return
    if companion_id != result_id:
        raise ValueError(f"{os.fspath(json_path)}: {os.fspath(companion)} is not of this run (its run_id "
                         f"{companion_id or 'none'}, the result's {result_id}): a companion of another run beside it")


def _tensors(path):
    """{name: (shape, flat float64 values)} of a safetensors file of F64 tensors, standard
    library only (array.array)."""
    return _decode(path, *read_whole(path))


def _decode(path, header: dict, data: bytes) -> dict:
    """_tensors of a file already read whole (read_whole's header and data)."""
    import array
    import sys

    out = {}
    for name, dtype, shape, begin, end in tensors(header):
        if dtype != "F64":
            raise ValueError(f"{path}: tensor {name!r} is {dtype}, expected F64")
        values = array.array("d", data[begin:end])
        if sys.byteorder != "little":
            values.byteswap()
        out[name] = (shape, values)
    return out


def read_arrays(path: str | os.PathLike) -> dict[str, numpy.ndarray]:
    """{name: numpy array} of geoattn's arrays file (what safetensors.numpy.load_file gives)."""
    import numpy as np

    return {k: np.asarray(v, dtype="<f8").reshape(shape) for k, (shape, v) in _tensors(path).items()}


def _entry(values, inner):
    """One layer's or head's array as the JSON holds it: numbers (None for NaN), or for an
    entry of shape [G, 2] intervals [lo, hi] (None unless both are numbers)."""
    nums = [None if x != x else x for x in values]
    if len(inner) == 1:
        return nums
    return [None if lo is None or hi is None else [lo, hi] for lo, hi in zip(nums[0::2], nums[1::2])]


def inline_arrays(doc: dict, json_path: str | os.PathLike) -> dict:
    """Puts every array of the arrays file named by doc["arrays"] back into doc's layers and
    heads (keys with dots are paths: "fits.decay.c"); a /1 document is left as it is."""
    spec = doc.pop("arrays", None)
    if spec is None:
        return doc
    # The arrays are in the heads' canonical order, as the C++ reader requires (report/measure_arrays.cpp).
    H = doc["model"]["heads"]
    for i, h in enumerate(doc["heads"]):
        if (h.get("layer"), h.get("head")) != (i // H, i % H):
            raise ValueError(f"{json_path}: heads[{i}] is not (layer {i // H}, head {i % H})")
    path = os.path.join(os.path.dirname(json_path), spec["file"])
    header, data = read_whole(path)  # read once: its run id checked, then its tensors
    check_companion(json_path, doc.get(RUN_ID), path, header.get("__metadata__", {}).get(RUN_ID))
    groups = {"layers": (doc["layers"], 1), "heads": (doc["heads"], 2)}
    for name, (shape, values) in _decode(path, header, data).items():
        group, _, key = name.partition(".")
        if group not in groups or not key:
            raise ValueError(f"{path}: tensor {name!r} is not layers.<key> or heads.<key>")
        entries, outer = groups[group]
        inner = shape[outer:]
        per = 1
        for d in inner:
            per *= d
        if len(values) != per * len(entries) or not inner:
            raise ValueError(f"{path}: tensor {name!r} {shape} does not match {len(entries)} {group}")
        *parents, last = key.split(".")
        for e, entry in enumerate(entries):
            for p in parents:
                entry = entry.setdefault(p, {})
            entry[last] = _entry(values[e * per:(e + 1) * per], inner)
    return doc


def load_measure(json_path: str | os.PathLike) -> dict:
    """A measure result with its arrays inline (the layout of geoattn.measure/1); a
    geoattn.io.ReadError (a ValueError) naming the file when it cannot be read or is not one."""
    return inline_arrays(read_json(json_path, MEASURE_SCHEMAS), json_path)


def sink_arrays(doc: dict) -> dict[str, Any]:
    """A geoattn.sinks/1 document as numpy arrays (NaN for null), layers in the document's order
    (their ids in "layer"), heads by their index:
      layer [L] int; taus [n_tau]; positions P
      convention (settings.convention); names: SINK_NAMES of it
      mass0, rho0, lambda, col_score and the row score (its name: names["row_score"]) [L, H];
      dormant [L, H] bool
      alpha, head_sink_rate [L, H, P] (Sink_k^eps in % of windows)
      alpha_bar, sink_rate [L, P] (Abar's mean profile; Sink_k^eps in % of (window, head))
      graph {stat: [L, n_tau]} (names["graph"]); effective [L, n_tau] bool; graph_windows [L, n_tau]
      int (the windows in the density's and the Gini's means)
      anchor_token [L, H] int (the head's commonest top-anchor token, -1 if none)
      frame_types [L] list of str; summary_sink_rate [P]"""
    import numpy as np

    def num(v):
        return np.nan if v is None else float(v)

    layers = doc["layers"]
    L, H, P = len(layers), doc["heads_n"], len(doc["summary"]["sink_rate"])
    taus = [float(t) for t in doc["settings"]["taus"]]
    convention = doc["settings"]["convention"]
    names = SINK_NAMES[convention]
    scores = ("mass0", "rho0", "lambda", names["row_score"], "col_score")
    out: dict[str, Any] = {k: np.full((L, H), np.nan) for k in scores}
    out.update(convention=convention, names=names)
    out.update(dormant=np.zeros((L, H), bool), anchor_token=np.full((L, H), -1, np.int64),
               alpha=np.full((L, H, P), np.nan), head_sink_rate=np.full((L, H, P), np.nan),
               graph={k: np.full((L, len(taus)), np.nan) for k in names["graph"]},
               effective=np.zeros((L, len(taus)), bool), graph_windows=np.zeros((L, len(taus)), np.int64))
    for i, ly in enumerate(layers):
        for hd in ly["heads"]:
            h = hd["head"]
            for k in ("mass0", "rho0", "lambda"):
                out[k][i, h] = num(hd[k])
            for k in (names["row_score"], "col_score"):
                out[k][i, h] = num(hd["dormant"][k])
            out["dormant"][i, h] = hd["dormant"]["dormant"]
            out["alpha"][i, h] = [num(v) for v in hd["alpha"]]
            out["head_sink_rate"][i, h] = [num(v) for v in hd["sink_rate"]]
            tokens = hd["anchor_tokens"]
            if tokens and tokens[0]["token"] is not None:
                out["anchor_token"][i, h] = tokens[0]["token"]
        for j, g in enumerate(ly["graph"][:len(taus)]):
            for k in names["graph"]:
                out["graph"][k][i, j] = num(g[k])
            out["effective"][i, j] = g["effective"]
            out["graph_windows"][i, j] = g["windows"]
    out.update(layer=np.array([ly["layer"] for ly in layers], np.int64), taus=np.array(taus),
               positions=P, frame_types=[ly["frame"]["type"] for ly in layers],
               alpha_bar=np.array([[num(v) for v in ly["alpha"]] for ly in layers]).reshape(L, P),
               sink_rate=np.array([[num(v) for v in ly["sink_rate"]] for ly in layers]).reshape(L, P),
               summary_sink_rate=np.array([num(v) for v in doc["summary"]["sink_rate"]]))
    return out


def load_sinks(json_path: str | os.PathLike) -> dict[str, Any]:
    """A geoattn sinks result: sink_arrays of it, with the document itself under "doc"; a
    geoattn.io.ReadError (a ValueError) naming the file when it cannot be read or is not one."""
    doc = read_json(json_path, SINKS_SCHEMA)
    return dict(sink_arrays(doc), doc=doc)


def taxonomy_mismatch(tax: dict, heads: dict, path: str, run_id: str | None = None) -> str | None:
    """Why the taxonomy `tax` is not of the measure run whose heads are `heads` ({(layer, head):
    the result's head entry}; `path` names the run; `run_id` its identity, RUN_ID), or None: the
    run it labels must be this one where both say which, its heads must be the run's heads, and
    the features it copied from the run (samples, c_sink, c_last, c_rest) the run's numbers (a
    taxonomy of another run over the same model has the same heads, not the same numbers)."""
    if run_id is not None and tax.get(RUN_ID) is not None and tax[RUN_ID] != run_id:
        return f"a taxonomy of another run (run_id {tax[RUN_ID]}; {path}: {run_id})"

    def finite(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    for h in tax.get("heads", []):
        mh = heads.get((h.get("layer"), h.get("head")))
        if mh is None:
            return f"head (layer {h.get('layer')}, head {h.get('head')}) is not in {path}"
        feats = h.get("features")
        if not isinstance(feats, dict):
            continue
        for k in ("samples", "c_sink", "c_last", "c_rest"):
            a: Any = feats.get(k)
            b = mh.get(k)
            if finite(a) and finite(b) and not math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12):
                return (f"head L{h['layer']}H{h['head']} {k} is {a:.6g}, {path} has {b:.6g}: a taxonomy of "
                        "another run")
    return None
