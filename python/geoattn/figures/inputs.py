"""The input files, checked before anything is drawn: each --measure, --bounds, --taxonomy,
--sinks and --intervene file is read, checked against its JSON Schema (docs/schema, by geoattn.schema), then
for what a schema cannot say (curve lengths, indices inside the model). A problem is an
InputError naming the file.
"""
from __future__ import annotations

import os
from typing import Any

from .. import schema as schemas
from ..io.errors import ReadError
from ..io.json_doc import Schema, read_json
from ..results import MEASURE_SCHEMAS, SINKS_SCHEMA, inline_arrays
from ..vocabulary import MEASURE_SCHEMA_FILE

BOUNDS_SCHEMA = "geoattn.bounds/1"
TAXONOMY_SCHEMA = "geoattn.taxonomy/1"
MEASURE_INLINE_SCHEMA_FILE = "geoattn.measure-inline.schema.json"  # arrays inline (also /1)
BOUNDS_SCHEMA_FILE = "geoattn.bounds-1.schema.json"
TAXONOMY_SCHEMA_FILE = "geoattn.taxonomy-1.schema.json"
SINKS_SCHEMA_FILE = "geoattn.sinks-1.schema.json"
INTERVENE_SCHEMA = "geoattn.intervene/1"
INTERVENE_SCHEMA_FILE = "geoattn.intervene-1.schema.json"
# [lo, hi], not per N: the scalars' intervals and the heads' slopes over ln N of cos(s, v_0), cos(s, v_L)
SCALAR_INTERVALS = ("rho0_ci", "c_sink_ci", "c_last_ci", "c_rest_ci", "cos_s_v0_slope_ci",
                    "cos_s_vL_slope_ci")


class InputError(Exception):
    """A problem with one input file: reported as `PROG: error: <file>: <problem>`."""

    def __init__(self, path: str | os.PathLike, problem: str):
        super().__init__(f"{path}: {problem}")


def load_json(path: str | os.PathLike, schema: Schema) -> dict[str, Any]:
    """The JSON object at path whose "schema" is `schema` (or one of a tuple of them); an
    InputError naming the file otherwise (geoattn.io.read_json's words)."""
    try:
        return read_json(path, schema)
    except ReadError as e:
        raise InputError(e.path, e.problem) from None


def check_schema(path, doc, schema_file):
    """The structure: docs/schema/<schema_file>, the first problem named by its JSON path."""
    try:
        why = schemas.problem(doc, schema_file, schemas.SCHEMA_DIR)
    except OSError as e:
        raise InputError(path, f"cannot read its schema {schema_file}: {e.strerror or e}")
    if why is not None:
        raise InputError(path, why)


def check_curve_lengths(path, groups, n):
    """What a schema cannot say: every per-N array of (where, group) has the N grid's length
    (the scalars' [lo, hi] intervals Y_ci excepted)."""
    for where, g in groups:
        for key, v in g.items():
            if isinstance(v, list) and key not in SCALAR_INTERVALS and len(v) != n:
                raise InputError(path, f"{where}.{key}: has {len(v)} values, the N grid has {n}")


def validate_measure(path: str | os.PathLike) -> dict:
    """A --measure file, checked: its schema (as written, then with its arrays file read
    inline), its curve lengths and its layer and head indices; returns the document with its
    arrays inline."""
    doc = load_json(path, MEASURE_SCHEMAS)
    if "arrays" in doc:  # the layout geoattn writes, checked before its arrays file is read
        check_schema(path, doc, MEASURE_SCHEMA_FILE)
    try:
        inline_arrays(doc, path)  # the per-layer and per-head arrays, from X.curves.safetensors
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(path, f"its arrays file: {e}")
    check_schema(path, doc, MEASURE_INLINE_SCHEMA_FILE)
    model = doc["model"]
    check_curve_lengths(path, [("global", doc["global"])]
                        + [(f"layers[{i}]", g) for i, g in enumerate(doc["layers"])]
                        + [(f"heads[{i}]", g) for i, g in enumerate(doc["heads"])], len(doc["n_grid"]))
    for i, g in enumerate(doc["layers"]):
        if g["layer"] >= model["layers"]:
            raise InputError(path, f"layers[{i}]: layer {g['layer']} outside the model's "
                                   f"{model['layers']} layers")
    for i, g in enumerate(doc["heads"]):
        if g["layer"] >= model["layers"] or g["head"] >= model["heads"]:
            raise InputError(path, f"heads[{i}]: layer {g['layer']} head {g['head']} outside the "
                                   f"model's {model['layers']} x {model['heads']}")
    return doc


def validate_bounds(path: str | os.PathLike) -> dict:
    """A --bounds file, checked against its schema and its curves against the N grid; returns
    the document."""
    doc = load_json(path, BOUNDS_SCHEMA)
    check_schema(path, doc, BOUNDS_SCHEMA_FILE)
    if doc["source"] == "params":
        groups = [("bounds", doc["bounds"])]
    else:
        groups = ([("global", doc["global"])]
                  + [(f"layers[{i}]", g) for i, g in enumerate(doc["layers"])]
                  + [(f"heads[{i}]", g) for i, g in enumerate(doc["heads"])])
    check_curve_lengths(path, groups, len(doc["n_grid"]))
    return doc


def check_lengths(path, arrays, n, what):
    """Every (where, list) of `arrays` has n values."""
    for where, values in arrays:
        if len(values) != n:
            raise InputError(path, f"{where}: has {len(values)} values, {what} is {n}")


def check_sinks_layout(path, doc):
    """What the sinks schema cannot say: every profile has P = min(T, profile_positions)
    values, a graph entry per tau and a sweep type per layer; layers ascending and heads
    unique, inside the model."""
    P = min(doc["T"], doc["settings"]["profile_positions"])
    layers = doc["layers"]
    check_lengths(path, [("summary.sink_rate", doc["summary"]["sink_rate"])]
                  + [(f"layers[{i}].{k}", ly[k]) for i, ly in enumerate(layers)
                     for k in ("alpha", "sink_rate")]
                  + [(f"layers[{i}].heads[{j}].{k}", hd[k]) for i, ly in enumerate(layers)
                     for j, hd in enumerate(ly["heads"]) for k in ("alpha", "sink_rate")],
                  P, "P = min(T, settings.profile_positions)")
    check_lengths(path, [(f"layers[{i}].graph", ly["graph"]) for i, ly in enumerate(layers)],
                  len(doc["settings"]["taus"]), "the number of settings.taus")
    check_lengths(path, [(f"summary.sweep[{i}].types", e["types"])
                         for i, e in enumerate(doc["summary"]["sweep"])], len(layers), "the number of layers")
    previous = -1
    for i, ly in enumerate(layers):
        if not previous < ly["layer"] < doc["layers_n"]:
            raise InputError(path, f"layers[{i}]: layer {ly['layer']} is not ascending inside the "
                                   f"model's {doc['layers_n']} layers")
        previous = ly["layer"]
        seen = set()
        for j, hd in enumerate(ly["heads"]):
            if hd["head"] >= doc["heads_n"] or hd["head"] in seen:
                raise InputError(path, f"layers[{i}].heads[{j}]: head {hd['head']} is repeated or "
                                       f"outside the model's {doc['heads_n']} heads")
            seen.add(hd["head"])


def validate_sinks(path: str | os.PathLike) -> dict:
    """A --sinks file, checked against its schema, then by check_sinks_layout; returns the
    document."""
    doc = load_json(path, SINKS_SCHEMA)
    check_schema(path, doc, SINKS_SCHEMA_FILE)
    check_sinks_layout(path, doc)
    return doc


def validate_intervene(path: str | os.PathLike) -> dict:
    """An --intervene file (geoattn intervene), checked against its schema; returns the document."""
    doc = load_json(path, INTERVENE_SCHEMA)
    check_schema(path, doc, INTERVENE_SCHEMA_FILE)
    return doc


def validate_taxonomy(path: str | os.PathLike) -> dict:
    """The structure; whether its heads are those of a --measure run is pair_taxonomies'."""
    doc = load_json(path, TAXONOMY_SCHEMA)
    check_schema(path, doc, TAXONOMY_SCHEMA_FILE)
    return doc
