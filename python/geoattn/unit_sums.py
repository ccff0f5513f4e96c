"""The bootstrap's per-document sums of a measure run, from its state sidecar
(`X.state.safetensors`, docs/results.md), as numpy arrays, and the group means built from them
as the C++ bootstrap builds them (src/metrics/finalize/bootstrap.cpp).

    from geoattn.unit_sums import read_unit_sums
    u = read_unit_sums("out/m.json")          # UnitSums: ids, sums [U, groups, S], counts [U, L, G]
    u.mean(u.global_group(), "P_rmax")        # [G], the run's global mean P(r_max, N)

A group's mean of a statistic per N is the sum over its documents of the statistic's sums,
divided by the samples it holds: per layer, `unit_counts` times the heads of that layer in the
group (SPEC §2b). A slim file (`write_slim`) holds these sums alone, summed to layers: what
compare and the figures need of a run, a tenth of the state, for results shipped to others.
numpy only.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from .io.errors import ReadError
from .io.json_doc import read_json_value
from .io.safetensors import read_whole, tensors, write_file
from .results import RUN_ID, check_companion
from .staged import result_files

__all__ = ["UnitSums", "Group", "LEVELS", "StateError", "state_path", "read_state", "read_unit_sums", "write_slim"]

# unit_shape[3]: the bootstrap level (include/geoattn/metrics/stats/unit_stats.h, BootLevel).
LEVELS = ("global", "layer", "head")
# The sums behind corr(R, rho0) per N, between the curves and the scalars in a group's row.
CORR_SUMS = 4
_DTYPES = {"F64": "<f8", "I64": "<i8", "U8": "u1"}
# The formats of a state sidecar read here: the run's whole state (src/report/state_file.cpp) and
# the slim file of per-document sums alone (write_slim), which merge and resume refuse by name.
STATE_FORMAT, SLIM_FORMAT = "geoattn-state-1", "geoattn-unit-sums-1"


class StateError(ValueError):
    """A state sidecar that is missing, unreadable, or holds no per-document sums."""


def state_path(json_path: str | os.PathLike) -> str:
    """The state sidecar beside a result JSON: X.json -> X.state.safetensors (staged.result_files)."""
    return result_files(os.fspath(json_path))[1]


def read_state(path: str | os.PathLike) -> tuple[dict, dict[str, np.ndarray]]:
    """(__metadata__, {name: array}) of a safetensors file of F64, I64 and U8 tensors."""
    header, data = read_whole(path)
    arrays = {}
    for name, dtype, shape, begin, end in tensors(header):
        if dtype not in _DTYPES:
            continue  # not read here
        arrays[name] = np.frombuffer(data, _DTYPES[dtype], (end - begin) // np.dtype(_DTYPES[dtype]).itemsize,
                                     begin).reshape(shape)
    return header.get("__metadata__", {}), arrays


@dataclass
class Group:
    """A group of heads whose mean is reported: `members`, the sidecar's groups it sums, and
    `heads_of_layer` [L], how many of each layer's heads it holds (the weights of unit_counts)."""
    members: np.ndarray
    heads_of_layer: np.ndarray


@dataclass
class UnitSums:
    """A run's per-document sums: `ids` (the documents, in the sidecar's order), `sums`
    [U, groups, S], `counts` [U, L, G], the model's `layers` and `heads`, `level` (LEVELS),
    `n_grid`, and the sidecar's names of the curves and scalars (their order in a row)."""
    ids: list
    sums: np.ndarray
    counts: np.ndarray
    layers: int
    heads: int
    level: str
    n_grid: list
    curves: list
    scalars: list

    def column(self, name: str) -> np.ndarray:
        """The columns of a group's row holding `name`: one per N for a curve, one for a scalar
        (the layout of unit_stats.h: curves [m][g], the correlation sums, then the scalars)."""
        G = len(self.n_grid)
        if name in self.curves:
            m = self.curves.index(name)
            return np.arange(m * G, (m + 1) * G)
        return np.array([(len(self.curves) + CORR_SUMS) * G + self.scalars.index(name)])

    def global_group(self) -> Group:
        """Every head of the model."""
        return Group(np.arange(self.sums.shape[1]), np.full(self.layers, self.heads))

    def layers_group(self, layers) -> Group:
        """Every head of the given layers (needs level layer or head)."""
        layers = list(layers)
        if self.level == "layer":
            members = np.array(layers)
        else:
            members = np.array([l * self.heads + h for l in layers for h in range(self.heads)])
        weights = np.zeros(self.layers, dtype=np.int64)
        weights[layers] = self.heads
        return Group(members, weights)

    def head_group(self, layer: int, head: int) -> Group:
        """One head (needs level head)."""
        weights = np.zeros(self.layers, dtype=np.int64)
        weights[layer] = 1
        return Group(np.array([layer * self.heads + head]), weights)

    def group_sums(self, group: Group, name: str) -> np.ndarray:
        """[U, columns]: each document's sums of `name` over the group's members."""
        return self.sums[:, group.members][:, :, self.column(name)].sum(axis=1)

    def group_samples(self, group: Group, name: str) -> np.ndarray:
        """[U, columns]: each document's samples behind those sums (a scalar: those reaching the
        first grid value, every sample, as the C++ bootstrap divides it)."""
        per_n = self.counts.astype(np.float64).transpose(0, 2, 1) @ group.heads_of_layer.astype(np.float64)
        return per_n if name in self.curves else per_n[:, :1]

    def mean(self, group: Group, name: str) -> np.ndarray:
        """The group's mean of `name` over every document: [G] for a curve, [1] for a scalar."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.group_sums(group, name).sum(axis=0) / self.group_samples(group, name).sum(axis=0)


def read_unit_sums(json_path: str | os.PathLike, doc: dict | None = None) -> UnitSums:
    """The per-document sums of the measure result at json_path (`doc`: its JSON, where already
    read), from its state sidecar, which must be of its run (results.check_companion); StateError
    (saying which flag writes them) when the sidecar or its sums are missing or of another run."""
    path = state_path(json_path)
    if not os.path.exists(path):
        raise StateError(f"{json_path}: no state sidecar {os.path.basename(path)} beside it "
                         "(geoattn measure, metrics and merge write one)")
    try:
        meta, arrays = read_state(path)
    except (OSError, ValueError, KeyError) as e:
        why = e.problem if isinstance(e, ReadError) else e  # geoattn.io's words, the file named once
        raise StateError(f"{path}: not a readable state sidecar ({why})") from e
    if meta.get("format") not in (STATE_FORMAT, SLIM_FORMAT):
        raise StateError(f"{path}: not a geoattn state sidecar (format {meta.get('format')!r})")
    if doc is None:
        doc = read_json_value(json_path)
    try:
        check_companion(json_path, doc.get(RUN_ID) if isinstance(doc, dict) else None, path, meta.get(RUN_ID))
    except ValueError as e:
        raise StateError(str(e)) from None
    if "unit_sums" not in arrays:
        raise StateError(f"{path}: no per-document sums (the run had --bootstrap 0: rerun geoattn measure "
                         "with --bootstrap 2000, the default)")
    layers, heads, G, level = (int(x) for x in arrays["unit_shape"])
    ids = json.loads(bytes(arrays["unit_ids"]).decode("utf-8"))
    counts = arrays["unit_counts"]
    if counts.ndim == 2:  # a sidecar before SPEC §1's window convention: every layer alike
        counts = np.repeat(counts[:, None, :], layers, axis=1)
    return UnitSums(ids=ids, sums=arrays["unit_sums"], counts=counts, layers=layers, heads=heads,
                    level=LEVELS[level], n_grid=json.loads(meta["n_grid"]), curves=json.loads(meta["curves"]),
                    scalars=json.loads(meta["scalars"]))


def write_slim(state: str | os.PathLike, out: str | os.PathLike) -> None:
    """Writes the slim sums file of the state sidecar `state` to `out`: its per-document sums
    summed over each layer's heads (bootstrap level layer), with its counts, document ids and
    metadata; nothing else (StateError when it holds no per-document sums at level layer or head).
    compare, at its global, depth and layer levels, reads it as it reads the state."""
    meta, arrays = read_state(state)
    if meta.get("format") != STATE_FORMAT or "unit_sums" not in arrays:
        raise StateError(f"{state}: not a state sidecar with per-document sums (format {meta.get('format')!r})")
    layers, heads, G, level = (int(x) for x in arrays["unit_shape"])
    sums = arrays["unit_sums"]  # [U, groups, S]
    if LEVELS[level] == "head":
        sums = sums.reshape(sums.shape[0], layers, heads, sums.shape[2]).sum(axis=2)  # [U, L, S]
    elif LEVELS[level] != "layer":
        raise StateError(f"{state}: its per-document sums are at level {LEVELS[level]}, not layer or head")
    shape = np.array([layers, heads, G, LEVELS.index("layer")], dtype="<i8")
    blobs = [("unit_sums", "F64", sums.shape, np.ascontiguousarray(sums, "<f8").tobytes())]
    blobs += [(name, dtype, arrays[name].shape, np.ascontiguousarray(arrays[name], _DTYPES[dtype]).tobytes())
              for name, dtype in (("unit_counts", "I64"), ("unit_ids", "U8"))]
    blobs.append(("unit_shape", "I64", shape.shape, shape.tobytes()))
    write_file(out, {**meta, "format": SLIM_FORMAT}, blobs)
