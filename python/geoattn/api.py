"""The metric functions: geoattn.metrics, sinks, taxonomy, fits, read_capture and load. Each
checks its arguments (ValueError naming the argument, before any work), hands the tensors to
the C++ pipeline the CLI runs (geoattn._native, without a copy where the dtype allows) and wraps
what comes back. No number is computed in Python."""
from __future__ import annotations

import json
import numbers
import os
from typing import TYPE_CHECKING, Any, Sequence, Union

from . import _checks
from ._loader import native

if TYPE_CHECKING:
    import numpy
    import torch

    Tensor = Union[torch.Tensor, numpy.ndarray]  # what the metric functions take

# The limits of controls, bootstrap and decay_k (what the run can hold) are the C++ run's own
# (metrics::MetricParams::validate, the CLI's too): its ValueError names the argument.
CAPTURE_DIMS = {"alpha": ("windows", "layers", "heads", "queries", "T"),
                "values": ("windows", "layers", "kv_heads", "T", "d")}


def _dense(row):
    """A JSON array of numbers, or of [lo, hi] pairs, with null as NaN (a null pair: two)."""
    width = next((len(x) for x in row if isinstance(x, list)), None)
    if width is None:
        return [float("nan") if x is None else x for x in row]
    return [[float("nan")] * width if x is None else [float("nan") if y is None else y for y in x] for x in row]


class Measure:
    """A measure result (SPEC §2-4): what `geoattn metrics` writes, in memory.

    heads["P_rmax"]   numpy [layers, heads, N] (every per-head array of the arrays file)
    layers["R_rmin"]  numpy [layers, N]
    heads["envelopes.R_lo"], ...  SPEC §5's bounds of the same samples, means per N (with
                      envelopes; heads["envelopes.samples"]: the samples reaching each N)
    n_grid            numpy [N] int64
    doc               the result JSON with every array inline (a dict; parsed on first use:
                      seconds at 128 heads x --n all, where heads/layers take a tenth)
    timing            the run's stages in seconds
    fits              SPEC §4's fits of every head (geoattn.fits); geoattn.taxonomy(result) and
                      fits read a result in memory from its structs, without its JSON
    to_json()         that JSON's text;  save(path): the CLI's three files (JSON, arrays, state)
    """

    def __init__(self, doc: dict | None = None, native: Any = None, arrays: dict | None = None,
                 inputs: Sequence[str] = ()):
        self._doc, self._native, self._arrays = doc, native, arrays
        self._inputs = list(inputs)  # the files the run read (save never writes over one)

    @property
    def doc(self) -> dict:
        """The result JSON with every array inline, as a dict (parsed on first use)."""
        if self._doc is None:
            self._doc = json.loads(self._native.json())
        return self._doc

    def _group(self, group):
        import numpy as np

        if self._arrays is None:
            if self._native is not None:
                self._arrays = {k: v.numpy() for k, v in self._native.arrays().items()}
            else:
                self._arrays = _arrays_of_doc(self.doc)
        prefix = group + "."
        return {k[len(prefix):]: np.asarray(v) for k, v in self._arrays.items() if k.startswith(prefix)}

    @property
    def heads(self) -> dict[str, numpy.ndarray]:
        """The per-head arrays: {name: numpy [layers, heads, ...]}, e.g. "P_rmax",
        "envelopes.R_lo"."""
        return self._group("heads")

    @property
    def layers(self) -> dict[str, numpy.ndarray]:
        """The per-layer arrays: {name: numpy [layers, ...]} ("R_rmin", ...)."""
        return self._group("layers")

    @property
    def fits(self) -> list[dict]:
        """SPEC §4's fits of every head, as geoattn.fits(self)."""
        return fits(self)

    @property
    def timing(self) -> dict:
        """The run's stages in seconds (the result's "timing"), without parsing the rest."""
        return json.loads(self._native.timing()) if self._native is not None else self.doc.get("timing", {})

    @property
    def n_grid(self) -> numpy.ndarray:
        """The N grid: numpy [N] int64."""
        import numpy as np

        return np.asarray(self.doc["n_grid"], dtype=np.int64)

    def to_json(self) -> str:
        """The result JSON with every array inline (doc), as text."""
        return self._native.json() if self._native is not None else json.dumps(self.doc, indent=1)

    def save(self, path: str | os.PathLike) -> None:
        """Writes what `geoattn metrics --out path` writes: path, its arrays file
        (X.curves.safetensors) and its state sidecar (X.state.safetensors, which geoattn merge
        reads), each whole or not at all; a ValueError naming the file where one of them is a
        file the run read (predict_from's result or a companion of it), as the CLI refuses it."""
        _save(self._native, path, self._inputs)

    def __repr__(self):
        d = self.doc
        return f"<geoattn.Measure: {len(d['layers'])} layers, {len(d['heads'])} heads, N grid of {len(d['n_grid'])}>"


def _save(native, path, inputs=()):
    from .staged import output_clash, result_files

    if native is None:
        raise ValueError("save: this result was loaded from files; they are its saved form")
    path = _checks.path(path, "path")
    written = result_files(os.fspath(path))
    if why := output_clash([("the result", written[0]), ("its state", written[1]), ("its arrays", written[2])],
                           [f for i in inputs for f in result_files(os.fspath(i))]):
        raise ValueError(f"path: {why}")
    try:
        native.save(path)
    except ValueError as e:  # the C++ names the file it could not write
        raise _checks.named("path", e) from None


def _arrays_of_doc(doc):
    """The per-layer and per-head arrays of an inline result (geoattn.measure/1), named as in
    the arrays file: its curves and intervals (the fits stay in doc)."""
    import numpy as np

    out = {}
    for group in ("layers", "heads"):
        entries = doc.get(group, [])
        if not entries:
            continue
        keys = [k for k, v in entries[0].items() if isinstance(v, list)]
        for k in keys:
            values = np.array([_dense(e[k]) for e in entries], dtype=np.float64)
            if group == "heads":
                L = 1 + max(e["layer"] for e in entries)
                values = values.reshape((L, len(entries) // L) + values.shape[1:])
            out[f"{group}.{k}"] = values
    return out


def metrics(alpha: Tensor, values: Tensor, *, queries: str | Sequence[int] | None = None, n: str | Sequence[int] = "default",
            controls: int = 16, bootstrap: int = 2000, seed: int = 0, distance: str = "euclidean", decay_k: int = 64,
            bootstrap_level: str = "auto", bootstrap_unit: str = "document", ci: float = 95.0,
            kv_map: Sequence[int] | None = None,
            docs: Sequence[int] | None = None, threads: int = 0, metrics_memory_mb: int = 256, envelopes: str = "auto",
            kappa: float = 1.0, kappa_scan: str = "off", window_tokens: str = "visible",
            layer_windows: Sequence[int] | None = None, source: str = "python", metadata: dict | None = None,
            predict_from: str | os.PathLike = "none") -> Measure:
    """SPEC §2-4 for captured attention: `geoattn metrics` on tensors.

    alpha   [windows, layers, heads, queries, T]: attention rows, zero after each query
    values  [windows, layers, kv_heads, T, d]: the value vectors the rows weigh
    torch tensors (CPU or CUDA) or numpy arrays, float16/bfloat16/float32/float64.
    queries "last", "all", positions, or None (all when queries == T, else the last)
    n       "default", "all", "1:16,32" or a list of N;  kv_map: each head's KV head (default
            head // (heads / kv_heads)); docs: each window's document (the bootstrap's unit;
            default each window its own). envelopes "auto", "on" or "off": SPEC §5's bounds of the
            measured samples (auto: on; with CUDA tensors computed on the GPU), at `kappa`.
            kappa_scan "off" (default), "auto" or kappas like "0.25,0.5,1": an opt-in diagnostic,
            the envelopes at those kappas for the kappa range each head allows (auto: 2^-4..2^4
            in half octaves where the envelopes are on; the result's "kappa_range"). A smaller
            kappa never tightens a bound: a head that brackets at some kappa brackets at every
            smaller one, so a range's low end says where the grid stops.
            ci: the bootstrap intervals' coverage in percent (SPEC §2b: 95), above 0 and below 100.
            predict_from: a measure result (its JSON) whose fits give the predicted envelopes (SPEC
            §5: each sample's measured a_i, rho_jk = exp(-beta |j-k|), rho_0j = rho0 of the same
            head there; heads whose decay fit is not ok have none), or "none" (the default): none.
            layer_windows: each layer's sliding window (0: none; a model's config says it:
            Mistral's sliding_window, Gemma-2/3's sliding layers), None: none, or the metadata's
            "layer_attention" as geoattn capture writes it; rows with weight on the keys a layer's
            window hides are refused. window_tokens "visible" (SPEC §1: a windowed layer's tokens
            are the keys its query sees) or "causal" (every key 0..q). The rest as the CLI's flags
            of the same names, with their defaults (python/tests/test_defaults.py checks them); a
            setting the run leaves unread is refused, as its flag is (kappa other than its default
            with envelopes="off"; bootstrap_level, bootstrap_unit or ci with bootstrap=0).
    """
    given = dict(locals())  # every keyword as given: the table's settings among them, by their Python names
    alpha, values = _checks.tensor(alpha, "alpha"), _checks.tensor(values, "values")
    _checks.rank(alpha, "alpha", CAPTURE_DIMS["alpha"])
    _checks.rank(values, "values", CAPTURE_DIMS["values"])
    W, L, H, Q, T = alpha.shape
    if tuple(values.shape[:2]) != (W, L) or values.shape[3] != T:
        raise ValueError(f"values: shape {list(values.shape)} does not fit alpha {list(alpha.shape)} "
                         "(windows, layers and T must agree)")
    _same_device(values, "values", alpha)
    values = _kv_values(values, H, kv_map)
    positions = _checks.query_positions(queries, Q, T)
    native().check_capture(alpha, values, positions, "alpha", "values")  # the CLI's checks of a capture file
    table = native().settings()["metrics"]  # each setting's choices, range and rules, from the C++ table of settings
    given.update(n=_grid_spec(n), kappa_scan=_kappa_scan(kappa_scan),  # the three a text stands for
                 predict_from=(os.fspath(predict_from) if isinstance(predict_from, os.PathLike)
                               else _checks.string(predict_from, "predict_from")))
    settings = {name: _checked(given[name], name, entry) for name, entry in table.items()}  # as the table reads them
    _refuse_unused(table, settings)
    windows = _layer_windows(layer_windows, L)
    try:  # SPEC §1: no weight on the keys a windowed layer hides (the CLI's check of a capture's windows)
        native().check_layer_windows(alpha, positions, windows, "alpha", "layer_windows")
    except ValueError as e:
        raise _checks.named("layer_windows", e) from None
    run = native().metrics(
        alpha, values, positions, _docs(docs, W), settings, windows, _checks.string(source, "source"),
        _metadata(metadata), _checks.integer(threads, "threads", 0, native().MAX_THREADS))
    return Measure(native=run, inputs=[] if settings["predict_from"] == "none" else [settings["predict_from"]])


def _checked(value, name, entry):
    """A setting checked as its table entry says: one of its choices, an integer within its
    range, a number above or within its range; a text as it is (the core reads it)."""
    if "choices" in entry:
        return _checks.choice(value, name, tuple(entry["choices"]))
    if "min" not in entry:
        return value
    if isinstance(entry["default"], int) and not isinstance(entry["default"], bool):
        return _checks.integer(value, name, entry["min"], entry["max"])
    if entry.get("min_exclusive"):
        return _checks.positive(value, name) if entry["min"] == 0 else _checks.between(value, name, entry["min"], entry["max"])
    return _checks.between(value, name, entry["min"], entry["max"])


def _refuse_unused(table, settings):
    """Settings a run leaves unread, refused by name as the CLI refuses their flags (given a value
    other than their default, which is all Python can tell): the rules of the C++ table's entries
    (each entry's "unread_with": the setting and value that leave it unread, and why)."""
    for name, entry in table.items():
        rule = entry.get("unread_with")
        if not rule or settings[name] == entry["default"]:
            continue
        when = rule["setting"]
        if str(settings[when]) == rule["value"]:
            shown = repr(rule["value"]) if "choices" in table[when] else rule["value"]
            raise ValueError(f"{name}: {_checks.short(settings[name])} is not used with {when}={shown} "
                             f"({rule['why']}): leave it out")


def _kappa_scan(kappa_scan):
    """"auto", "off", or kappas (a list or "0.25,0.5,1") as the core reads them."""
    if isinstance(kappa_scan, str):
        return kappa_scan
    if isinstance(kappa_scan, bytes) or not hasattr(kappa_scan, "__iter__"):
        raise ValueError(f"kappa_scan: {_checks.short(kappa_scan)}, expected 'auto', 'off' or a list of kappas > 0")
    return ",".join(repr(float(_checks.positive(k, "kappa_scan"))) for k in kappa_scan)


def _layer_windows(layer_windows, L):
    """Each layer's sliding window (0: none), or [] (the metadata's, else none)."""
    if layer_windows is None:
        return []
    windows = _checks.integers(layer_windows, "layer_windows", f"a list of {L} windows (0: none), one per layer")
    if len(windows) != L or any(not 0 <= w <= _checks.INT64_MAX for w in windows):  # int64 in C++
        raise ValueError(f"layer_windows: {_checks.short(layer_windows)}, expected {L} windows from 0 (none) to "
                         f"{_checks.INT64_MAX}, one per layer")
    return windows


def _same_device(x, name, alpha):
    if x.device != alpha.device:
        raise ValueError(f"{name}: on {x.device}, the attention on {alpha.device}")


def _docs(docs, W):
    """Each window's document name ([]: each window its own)."""
    if docs is None:
        return []
    if isinstance(docs, (str, bytes)) or not hasattr(docs, "__iter__"):
        raise ValueError(f"docs: {_checks.short(docs)}, expected a list of {W} document names, one per window")
    docs = list(docs)
    if len(docs) != W or not all(isinstance(d, (str, numbers.Integral)) and not isinstance(d, bool) for d in docs):
        raise ValueError(f"docs: {_checks.short(docs)}, expected {W} document names (strings or integers), one per window")
    return [str(d) for d in docs]


def _kv_values(values, H, kv_map):
    """values [W, L, KV, T, d] with heads reading KV heads as kv_map says: the standard grouped
    map (head h reads h // (H / KV)) as is, any other map by gathering one KV head per head."""
    KV = values.shape[2]
    if kv_map is None:
        if KV < 1 or H % KV:
            raise ValueError(f"values: {KV} kv heads do not divide alpha's {H} heads (give kv_map)")
        return values
    kv_map = _checks.integers(kv_map, "kv_map", "a list of integers, one per head")
    if len(kv_map) != H or any(not 0 <= k < KV for k in kv_map):
        raise ValueError(f"kv_map: expected {H} KV head indices in 0..{KV - 1}")
    if H % KV == 0 and kv_map == [h // (H // KV) for h in range(H)]:
        return values
    import torch

    return values.index_select(2, torch.tensor(kv_map, device=values.device))


def _grid_spec(n):
    if not isinstance(n, str):
        n = _checks.integers(n, "n", "'default', 'all', a grid like '1:16,32' or a list of N")
        if not n:
            raise ValueError("n: [], expected at least one N")
        n = ",".join(str(_checks.integer(x, "n", 1)) for x in n)
    return n  # read once, by the core (_native.metrics), which names n in its errors


def _metadata(metadata):
    """{str: str}: strings as they are, other values as JSON text."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
        raise ValueError(f"metadata: {_checks.short(metadata)}, expected a dict with string keys")
    return {k: v if isinstance(v, str) else _checks.json_text(v, f"metadata: {k}") for k, v in metadata.items()}


class Sinks:
    """A sinks result (SPEC §9): doc (the JSON `geoattn sinks` writes, as a dict), arrays()
    (numpy per-head arrays: mass0, rho0, alpha profiles, ...), save(path) (the JSON and its
    state sidecar, which geoattn merge reads)."""

    def __init__(self, doc: dict | None = None, native: Any = None):
        self._doc, self._native = doc, native

    @property
    def doc(self) -> dict:
        """The sinks result JSON, as a dict (parsed on first use)."""
        if self._doc is None:
            self._doc = json.loads(self._native.json())
        return self._doc

    def arrays(self) -> dict[str, numpy.ndarray]:
        """The per-layer and per-head numbers as numpy arrays:
        geoattn.results.sink_arrays(self.doc)."""
        from .results import sink_arrays

        return sink_arrays(self.doc)

    def save(self, path: str | os.PathLike) -> None:
        """Writes what `geoattn sinks --out path` writes: the JSON at path and its state sidecar
        (which geoattn merge reads). A ValueError for a result loaded from files."""
        _save(self._native, path)


def sinks(attn: Tensor, values: Tensor, *, convention: str = "geoattn", eps: float = 0.3,
          taus: Sequence[float] = (0.01, 0.05, 0.1, 0.2), residual: Tensor | None = None,
          tokens: Tensor | None = None, profile_positions: int = 64, config: dict | None = None,
          threads: int = 0, source: str = "python", metadata: dict | None = None) -> Sinks:
    """SPEC §9 for all-query attention: `geoattn sinks` on tensors.

    convention "geoattn" (its own definitions) or "authors" (the authors' released code's), as
             `geoattn sinks --convention`; the result names each quantity by its convention
    attn     [windows, layers, heads, T, T] (every query row), values [windows, layers, kv_heads, T, d]
    residual [windows, layers, T, D] (blocks.*.hook_resid_pre) for the residual reference points
    tokens   [windows, T] ids (the anchors' tokens; default 0); config: a frame rule (dict, as
             configs/sinks.json; default the built-in one)
    """
    attn, values = _checks.tensor(attn, "attn"), _checks.tensor(values, "values")
    _checks.rank(attn, "attn", ("windows", "layers", "heads", "T", "T"))
    _checks.rank(values, "values", CAPTURE_DIMS["values"])
    W, L, H, Q, T = attn.shape
    if Q != T:
        raise ValueError(f"attn: sinks needs every query row, got {Q} rows of {T} positions")
    if tuple(values.shape[:2]) != (W, L) or values.shape[3] != T:
        raise ValueError(f"values: shape {list(values.shape)} does not fit attn {list(attn.shape)}")
    _same_device(values, "values", attn)
    values = _kv_values(values, H, None)
    native().check_capture(attn, values, list(range(T)), "attn", "values")  # the CLI's checks of a capture file
    if residual is not None:
        residual = _checks.tensor(residual, "residual")
        _checks.rank(residual, "residual", ("windows", "layers", "T", "D"))
        if tuple(residual.shape[:3]) != (W, L, T):
            raise ValueError(f"residual: shape {list(residual.shape)} does not fit attn {list(attn.shape)}")
        _same_device(residual, "residual", attn)
        native().check_finite(residual, "residual", "position")
    if tokens is not None:
        tokens = _checks.token_ids(tokens, "tokens")
        if tuple(tokens.shape) != (W, T):
            raise ValueError(f"tokens: shape {list(tokens.shape)}, expected [{W}, {T}] (windows, T)")
        if bool((tokens < 0).any()):  # -1 is "no token" in the result
            raise ValueError("tokens: negative ids, expected ids >= 0")
    if isinstance(taus, (str, bytes)) or not hasattr(taus, "__iter__"):
        raise ValueError(f"taus: {_checks.short(taus)}, expected a list of thresholds in [0, 1)")
    taus = [_checks.fraction(t, "taus") for t in taus]
    if not taus:
        raise ValueError("taus: [], expected at least one threshold in [0, 1)")
    settings = {  # by Python name, as the C++ table of settings reads them (_native.settings()["sinks"])
        "convention": _checks.string(convention, "convention"),
        "eps": _checks.fraction(eps, "eps"),
        "taus": taus,
        "profile_positions": _checks.integer(profile_positions, "profile_positions", 1),
    }
    run = native().sinks(attn, values, residual, tokens, settings,
                         _checks.json_object(config, "config", "a frame rule as configs/sinks.json"), "config",
                         _checks.string(source, "source"), _metadata(metadata),
                         _checks.integer(threads, "threads", 0, native().MAX_THREADS))
    return Sinks(native=run)


def taxonomy(result: Measure | str | os.PathLike, config: dict | None = None) -> dict:
    """SPEC §6: Retriever / Mixer / Reset by their signatures, or Unlabelled (with the rule it
    came closest to), for every head of a measure result (a Measure, or a path to a result
    file), and the sensitivity of the labels to each threshold; config: thresholds as
    configs/taxonomy.json (default built in). Returns the JSON `geoattn taxonomy` writes, as a dict."""
    result = _measure(result, "taxonomy")
    run = result._native
    text = None if run is not None else result.to_json()
    config = _checks.json_object(config, "config", "thresholds as configs/taxonomy.json")
    try:
        # A result in memory: classified from its structs, no JSON text either way.
        return run.taxonomy(config) if run is not None else json.loads(native().taxonomy(text, config))
    except ValueError as e:  # the result was read and checked above: the rest is the config's
        raise _checks.named("config", e) from None


def fits(result: Measure | str | os.PathLike) -> list[dict]:
    """SPEC §4's fits of every head: [{"layer", "head", <the fits of the result's heads>}]."""
    result = _measure(result, "fits")
    if result._native is not None:  # a result in memory: its fits' structs, not its JSON
        return result._native.fits()
    return [{"layer": h["layer"], "head": h["head"], **h.get("fits", {})} for h in result.doc["heads"]]


def _measure(result, function) -> Measure:
    """The measure result `function` takes: result itself (a Measure), or the file at that path
    read as geoattn.load reads it; a ValueError naming "result" for anything else."""
    where = ""
    if isinstance(result, (str, os.PathLike)):
        where, result = f"{os.fsdecode(result)}: ", _read_result(result, "result")
    if isinstance(result, Sinks):
        raise ValueError(f"result: {where}a sinks result, {function} needs a measure result")
    if not isinstance(result, Measure):
        raise ValueError(f"result: {_checks.short(result)}, expected a geoattn.Measure or a path to a measure result")
    return result


def read_capture(path: str | os.PathLike) -> dict[str, Any]:
    """A capture file (`geoattn capture`'s layout) as {"alpha", "values", "tokens" (torch
    tensors), "queries", "docs" (lists), "metadata" (dict)}: what geoattn.metrics takes."""
    path = _checks.path(path, "path")
    try:
        return native().read_capture(path)
    except ValueError as e:  # the C++ names the file
        raise _checks.named("path", e) from None


def load(path: str | os.PathLike) -> Measure | Sinks:
    """A result file: a Measure (geoattn.measure/1 or /2, its arrays file read beside it) or
    Sinks (geoattn.sinks/1), checked against its schema (docs/schema). Needs numpy only, not
    the compiled module."""
    return _read_result(path, "path")


def _read_result(path: Any, name: str) -> Measure | Sinks:
    """The result at path (_load's), or a ValueError "NAME: PATH: not a readable geoattn result
    (why)", one line."""
    from .io.errors import ReadError
    from .schema import SchemaError

    path = _checks.path(path, name)
    try:
        return _load(path)
    except (OSError, ValueError, SchemaError, RecursionError) as e:  # JSON errors are ValueErrors
        why = ("nested too deeply" if isinstance(e, RecursionError)
               else e.problem if isinstance(e, ReadError) and e.path == os.fsdecode(path)  # named once
               else " ".join(str(e).split())[:400])
        raise ValueError(f"{name}: {path}: not a readable geoattn result ({why})") from None


def _load(path: str) -> Measure | Sinks:
    """A measure or sinks result, checked against its schema (a measure's arrays file read too);
    geoattn.io reads the JSON (a ReadError naming the file when it cannot)."""
    from . import results, schema
    from .io.json_doc import read_json_value

    raw = read_json_value(path)
    kind = raw.get("schema") if isinstance(raw, dict) else None
    if kind == results.SINKS_SCHEMA:
        schema.validate(raw, "geoattn.sinks-1.schema.json")
        return Sinks(doc=raw)
    if kind not in results.MEASURE_SCHEMAS:
        raise ValueError(f"schema {_checks.short(kind)} is not a measure or sinks result")
    if kind == "geoattn.measure/2":
        schema.validate(raw, "geoattn.measure-2.schema.json")
    arrays = None
    try:
        if isinstance(raw.get("arrays"), dict):  # /2: the arrays file as written, every name in it
            arrays = results.read_arrays(os.path.join(os.path.dirname(path), raw["arrays"]["file"]))
        doc = results.inline_arrays(raw, path)
    except (KeyError, TypeError, IndexError) as e:  # an arrays file of another layout
        raise ValueError(f"its arrays file is not geoattn's ({e!r})") from None
    schema.validate(doc, "geoattn.measure-inline.schema.json")
    return Measure(doc=doc, arrays=arrays)
