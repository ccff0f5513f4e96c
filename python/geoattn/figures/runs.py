"""The run: which input files go together. A Model is one --measure file with its taxonomy
(pair_taxonomies) and the bounds beside it (pair_bounds); a SinkModel one --sinks file as
arrays; make_labels names them in the figures.
"""
from __future__ import annotations

import math
import os
from typing import Sequence

from ..results import RUN_ID, sink_arrays
from ..results import taxonomy_mismatch as results_taxonomy_mismatch
from .common import fail, finite, head_name, is_number, note
from .inputs import InputError


def model_path_of(doc):
    """The checkpoint a result is of: model.path, or for `metrics` (a capture file) the
    capture's metadata.model, else the capture file."""
    model = doc.get("model") if isinstance(doc.get("model"), dict) else {}
    if isinstance(model.get("path"), str) and model["path"]:
        return model["path"]
    meta = model.get("metadata") if isinstance(model.get("metadata"), dict) else {}
    if isinstance(meta.get("model"), str) and meta["model"]:
        return meta["model"]
    return str(model.get("capture", ""))


class Model:
    """One --measure file with what was paired with it."""

    def __init__(self, path: str, doc: dict):
        self.path = path
        self.doc = doc
        self.grid = [float(x) for x in doc["n_grid"]]
        self.layers = doc["model"]["layers"]
        self.heads = doc["model"]["heads"]
        self.head_list = sorted(doc["heads"], key=lambda h: (h["layer"], h["head"]))
        self.by_lh = {(h["layer"], h["head"]): h for h in doc["heads"]}
        self.layer_list = sorted(doc["layers"], key=lambda g: g["layer"])
        self.layer_ids = list(range(self.layers))
        self.taxonomy: dict | None = None
        self.tax_path: str | None = None
        self.bounds: list[tuple[str, dict, str]] = []  # (path, doc, legend tag)
        self.label: str | None = None
        self.verdicts: dict | None = None  # a geoattn.verdicts record of this result (None: computed where needed)

    @property
    def model_path(self):
        """The checkpoint the result is of (model_path_of)."""
        return model_path_of(self.doc)

    def labels_of_heads(self):
        """{(layer, head): label} of the paired taxonomy; None without one."""
        if self.taxonomy is None:
            return None
        return {(h["layer"], h["head"]): h["label"] for h in self.taxonomy["heads"]}


class SinkModel:
    """One --sinks file: the document and its numbers as arrays (geoattn.results.sink_arrays),
    rows in the order of its layers (their ids in layer_ids)."""

    def __init__(self, path: str, doc: dict):
        self.path = path
        self.doc = doc
        self.a = sink_arrays(doc)
        self.layer_ids = [int(x) for x in self.a["layer"]]
        self.layers = len(self.layer_ids)
        self.heads = doc["heads_n"]
        self.config = doc["rule"]["config"]
        self.label: str | None = None

    @property
    def model_path(self):
        """The checkpoint the result is of (model_path_of)."""
        return model_path_of(self.doc)

    def heads_of(self):
        """(row, head, head dict) of every head, layer by layer."""
        return [(i, hd["head"], hd) for i, ly in enumerate(self.doc["layers"]) for hd in ly["heads"]]

    def name(self, row, head):
        """A head's short name, L<layer id>H<head>, from its row and head index."""
        return f"L{self.layer_ids[row]}H{head}"


def same_file(a, b):
    """Whether the two paths name one file (links resolved); False for what is not a path."""
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (TypeError, ValueError):
        return False


def taxonomy_mismatch(model, tax):
    """Why the taxonomy is not of this measure run, or None (results.taxonomy_mismatch)."""
    return results_taxonomy_mismatch(tax, model.by_lh, model.path, model.doc.get(RUN_ID))


def check_taxonomy_fits(model, tax_path, tax):
    """An InputError naming tax_path when the taxonomy is not of the model's run
    (taxonomy_mismatch)."""
    why = taxonomy_mismatch(model, tax)
    if why is not None:
        raise InputError(tax_path, why)


def pair_taxonomies(models: Sequence[Model], taxonomies: Sequence[tuple[str, dict]]) -> None:
    """Gives each Model its taxonomy from taxonomies [(path, doc)]: in order when there are as
    many as models, else the model each names (its "from", else its model path). An
    InputError for one that matches no model or is of another run."""
    if not taxonomies:
        return
    if len(taxonomies) == len(models):
        for m, (p, t) in zip(models, taxonomies):
            check_taxonomy_fits(m, p, t)
            m.taxonomy, m.tax_path = t, p
        return
    for p, t in taxonomies:
        free = [m for m in models if m.taxonomy is None]
        src = t.get("from")
        tpath = model_path_of(t)
        pick = next((m for m in free if isinstance(src, str) and same_file(src, m.path)), None)
        if pick is None:
            pick = next((m for m in free if tpath and tpath == m.model_path
                         and taxonomy_mismatch(m, t) is None), None)
        if pick is None:
            raise InputError(p, "matches none of the --measure files (give one --taxonomy per "
                                "--measure, in the same order)")
        check_taxonomy_fits(pick, p, t)
        pick.taxonomy, pick.tax_path = t, p


def pair_bounds(models: Sequence[Model], bounds: Sequence[tuple[str, dict]]) -> None:
    """Adds each --bounds file (path, doc, legend tag) to every Model with the same N grid (and
    for a model or capture source the same model path); a note for a bounds file over other
    samples than the measure and for one that matches no model."""
    for p, b in bounds:
        grid = [float(x) for x in b["n_grid"]]
        bpath = model_path_of(b)
        used = False
        for m in models:
            if grid != m.grid:
                continue
            if b["source"] != "params" and bpath and m.model_path and bpath != m.model_path:
                continue
            tag = ""
            if b["source"] != "params":
                bs, ms = b["global"].get("samples"), m.doc["global"].get("samples")
                same = bs == ms and all(
                    x is None and y is None or finite(x) and finite(y) and abs(x - y) <= 1e-9
                    for key in ("P_rmax", "R_rmin") if isinstance(b["global"].get(key), list)
                    for x, y in zip(b["global"][key], m.doc["global"][key]))
                if not same:
                    tag = f"over {bs} other samples" if is_number(bs) else "over other samples"
                    note(f"{p}: measured on other samples than {m.path} (its P/R differ); "
                         f"envelopes drawn, labelled '{tag}'")
            else:
                tag = "from params"
            m.bounds.append((p, b, tag))
            used = True
        if not used:
            note(f"{p}: its N grid (or model) matches no --measure file; envelopes not drawn")


def make_labels(models: Sequence[Model | SinkModel], labels_arg: str | None, flag: str = "--measure") -> None:
    """Names the models in the figures: the comma-separated labels_arg (one name per file of
    `flag`, else exit 2), or by default each model's path, with the file name or a number
    added where two would read alike."""
    if labels_arg is not None:
        names = [s.strip() for s in labels_arg.split(",")]
        if len(names) != len(models) or any(not s for s in names):
            fail(f"--labels: {len(names)} name(s) for {len(models)} {flag} file(s)")
        for m, s in zip(models, names):
            m.label = s
        return
    base = [m.model_path or os.path.basename(m.path) for m in models]
    for m, b in zip(models, base):
        m.label = b if base.count(b) == 1 else f"{b} [{os.path.basename(m.path)}]"
    if len({m.label for m in models}) != len(models):
        for i, m in enumerate(models):
            m.label = f"{m.label} #{i + 1}"
