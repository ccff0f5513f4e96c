"""Reads geoattn's measure results from Python: the JSON and, beside it, its arrays file.

    from geoattn_results import load_measure, read_arrays
    doc = load_measure("out/m.json")        # every array back inline, as lists (null: None)
    arrays = read_arrays("out/m.curves.safetensors")   # {"heads.P_rmax": ndarray [L, H, G], ...}

The arrays file is a plain safetensors file (float64, little-endian, row-major): numpy reads it
(read_arrays, or safetensors.numpy.load_file), PyTorch with safetensors.torch.load_file. Python's json
and nothing else for load_measure (numpy for read_arrays): no PyPI needed.
"""
import json
import os

MEASURE_SCHEMAS = ("geoattn.measure/2", "geoattn.measure/1")  # /1: every array inline


def _tensors(path):
    """{name: (shape, flat float64 values)} of a safetensors file of F64 tensors, standard
    library only (array.array)."""
    import array
    import sys

    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        if t["dtype"] != "F64":
            raise ValueError(f"{path}: tensor {name!r} is {t['dtype']}, expected F64")
        begin, end = t["data_offsets"]
        values = array.array("d", raw[8 + n + begin:8 + n + end])
        if sys.byteorder != "little":
            values.byteswap()
        out[name] = (t["shape"], values)
    return out


def read_arrays(path):
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


def inline_arrays(doc, json_path):
    """Puts every array of the arrays file named by doc["arrays"] back into doc's layers and
    heads (keys with dots are paths: "fits.decay.c"); a /1 document is left as it is."""
    spec = doc.pop("arrays", None)
    if spec is None:
        return doc
    path = os.path.join(os.path.dirname(json_path), spec["file"])
    groups = {"layers": (doc["layers"], 1), "heads": (doc["heads"], 2)}
    for name, (shape, values) in _tensors(path).items():
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


def load_measure(json_path):
    """A measure result with its arrays inline (the layout of geoattn.measure/1)."""
    with open(json_path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("schema") not in MEASURE_SCHEMAS:
        raise ValueError(f"{json_path}: not a geoattn measure result (schema {doc.get('schema')!r})")
    return inline_arrays(doc, json_path)
