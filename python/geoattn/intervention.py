"""geoattn.intervene (this module: geoattn.intervention): heads intervened on over a shard (docs/intervene.md), from Python. It runs
`geoattn intervene` (the package's own binary: the same C++ forward, interventions and bootstrap
as the command line) and returns its result. Each keyword is the command's flag of the same name
(heads= is --heads, means_from= is --means-from, a list repeats the flag, True sets a switch);
one left out (None) keeps the command's default, so a default is stated in one place,
`geoattn intervene --help`. A bad argument raises ValueError, one line starting with the keyword:
of the wrong kind before the command runs, else with the command's own reason. Standard library only (numpy for Intervened.means).

    r = geoattn.intervene("models/stories15M", "data/openwebtext/openwebtext-60docs.jsonl",
                          ctx=128, max_windows=4, heads="4.5", intervention=["sink-recent:16"])
    r.readings[0]["loss_diff"], r.readings[0]["loss_diff_ci"]
"""
from __future__ import annotations

import json
import numbers
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, Sequence, Union

from ._cli import find_binary
from .io.safetensors import read_whole, tensors
from .sparsification import lines

PathLike = Union[str, "os.PathLike[str]"]
SCHEMA = "geoattn.intervene/1"


class Intervened:
    """A geoattn intervene result (docs/schema/geoattn.intervene-1.schema.json).

    doc        the result JSON as a dict
    readings   per intervention: name, heads, loss_diff (nats per predicted token) and
               loss_diff_ci, kl, top1_agreement, kept_fraction, ... (doc["interventions"])
    path       the file it was read from
    means      mean ablation's means of a first pass, numpy [layers, heads, head_dim] (None
               where the run computed none), read from X.means.safetensors beside the result
    lines()    the sparsification lines: {policy: (family, points)} (geoattn.sparsification)
    """

    def __init__(self, path: PathLike):
        self.path = os.fspath(path)
        with open(self.path, encoding="utf-8") as f:
            self.doc: dict[str, Any] = json.load(f)
        if self.doc.get("schema") != SCHEMA:
            raise ValueError(f"{self.path}: not a geoattn intervene result (schema {SCHEMA})")
        self._means: Any = None
        means = _means_path(self.path)
        if os.path.exists(means):
            self._means = _read_means(means)

    @property
    def readings(self) -> list[dict[str, Any]]:
        """Each intervention's readings, in the result's order."""
        return self.doc["interventions"]

    @property
    def means(self) -> Any:
        """Mean ablation's means of the run's first pass (numpy [layers, heads, head_dim]), or None."""
        return self._means

    def lines(self) -> dict[str, Any]:
        """The sparsification lines of the result (geoattn.sparsification.lines)."""
        return lines(self.doc)

    def __repr__(self) -> str:
        d = self.doc
        return (f"<geoattn.Intervened: {len(d['interventions'])} interventions over {d['data']['windows']} windows, "
                f"{d['intervals']['documents']} documents>")


def _means_path(json_path: str) -> str:
    """X.means.safetensors beside X.json (util/result_files.h's means_path)."""
    return (json_path[:-5] if json_path.endswith(".json") and len(json_path) > 5 else json_path) + ".means.safetensors"


def _read_means(path: str) -> Any:
    """The F32 tensor "means" of X.means.safetensors, as numpy."""
    import numpy as np

    header, data = read_whole(path)
    for name, dtype, shape, begin, end in tensors(header):
        if name == "means" and dtype == "F32":
            return np.frombuffer(data[begin:end], dtype="<f4").reshape(shape)
    raise ValueError(f"{path}: no F32 tensor 'means'")


def _flags(settings: dict[str, Any]) -> list[str]:
    """The command's flags of the keywords given (None: the command's default)."""
    out: list[str] = []
    for name, value in settings.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for item in value:
                out += [flag, os.fspath(item) if isinstance(item, os.PathLike) else str(item)]
        else:
            out += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return out


def _keywords(message: str) -> str:
    """The command's reason in this function's words: a leading flag becomes its keyword's name
    ("--shard 1/2: ..." -> "shard: 1/2: ..."), every other flag its keyword (--means-from ->
    means_from=)."""
    message = re.sub(r"^--([a-z][a-z0-9-]*):? ?", lambda m: m.group(1).replace("-", "_") + ": ", message)
    return re.sub(r"--([a-z][a-z0-9-]*) ?", lambda m: m.group(1).replace("-", "_") + "=", message)


# The keywords' kinds, checked before the command runs (ValueError naming the keyword).
_BOOLS = ("each", "restart", "quiet")
_INTS = ("random_sets", "ctx", "max_windows", "seed", "checkpoint_every", "per_forward", "bootstrap", "threads")
_STRS = ("heads", "label", "shard", "window", "offset", "device", "dtype")
_PATHS = ("model", "taxonomy", "budget_from", "means_from", "out")


def _check(settings: dict[str, Any]) -> None:
    """ValueError "NAME: what it must be, not VALUE" for a keyword of the wrong kind."""
    def bad(name: str, what: str, value: Any) -> ValueError:
        text = repr(value)
        return ValueError(f"{name}: {what}, not {text if len(text) <= 40 else text[:37] + '...'}")

    for name, v in settings.items():
        if v is None:
            continue
        if name in _BOOLS and not isinstance(v, bool):
            raise bad(name, "True or False", v)
        if name in _INTS and (isinstance(v, bool) or not isinstance(v, numbers.Integral)):
            raise bad(name, "an integer", v)
        if name == "ci" and (isinstance(v, bool) or not isinstance(v, numbers.Real)):
            raise bad(name, "a coverage in percent", v)
        if name in _STRS and not isinstance(v, str):
            raise bad(name, "a string", v)
        if name in _PATHS and not isinstance(v, (str, os.PathLike)):
            raise bad(name, "a path", v)
        if name == "data" and not (v and all(isinstance(x, (str, os.PathLike)) for x in v)):
            raise bad(name, "a path or a list of paths", v)
        if name in ("intervention", "policy") and not all(isinstance(x, str) for x in v):
            raise bad(name, "a string or a list of strings", v)


def _run(cmd: list[str], quiet: bool) -> None:
    """Runs the command, its progress on this process's stderr unless quiet; ValueError with its
    last line where it fails."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tail = b""
    assert p.stderr is not None
    while True:
        chunk = os.read(p.stderr.fileno(), 65536)
        if not chunk:
            break
        tail = (tail + chunk)[-8192:]
        if not quiet:
            sys.stderr.buffer.write(chunk)
            sys.stderr.flush()
    if p.wait():
        last = (tail.decode("utf-8", "replace").strip().splitlines() or ["(no message)"])[-1]
        raise ValueError(_keywords(last.removeprefix("geoattn: error: ")))


def intervene(model: PathLike, data: PathLike | Sequence[PathLike], *, heads: str | None = None,
              taxonomy: PathLike | None = None, label: str | None = None, each: bool = False,
              random_sets: int | None = None, intervention: str | Sequence[str] | None = None,
              policy: str | Sequence[str] | None = None, budget_from: PathLike | None = None,
              means_from: PathLike | None = None, ctx: int | None = None, max_windows: int | None = None,
              window: str | None = None, offset: str | None = None, seed: int | None = None,
              shard: str | None = None, checkpoint_every: int | None = None, restart: bool = False,
              per_forward: int | None = None, bootstrap: int | None = None, ci: float | None = None,
              device: str | None = None, dtype: str | None = None, threads: int | None = None,
              out: PathLike | None = None, quiet: bool = False, geoattn: PathLike | None = None) -> Intervened:
    """`geoattn intervene` over `data` (one shard file or a list) of the checkpoint folder `model`:
    the plain run and one run per intervention, their next-token losses, KL and top-1 agreement
    with paired bootstrap intervals over documents. Keywords: the command's flags (module
    docstring; see `geoattn intervene --help`). `out`: where the result goes (with
    X.means.safetensors beside it after a mean ablation's first pass); None: a temporary folder,
    read back and removed. `geoattn`: the executable (default: $GEOATTN_BIN, the package's, this
    checkout's build/bin or PATH's). Progress on stderr unless quiet. Returns the result (Intervened)."""
    if geoattn is not None and not isinstance(geoattn, (str, os.PathLike)):
        raise ValueError(f"geoattn: a path, not {geoattn!r}")
    files = [data] if isinstance(data, (str, os.PathLike)) else list(data) if isinstance(data, (list, tuple)) else data
    if isinstance(intervention, str):
        intervention = [intervention]
    if isinstance(policy, str):
        policy = [policy]
    settings = dict(model=model, data=files, heads=heads, taxonomy=taxonomy, label=label, each=each,
                    random_sets=random_sets, intervention=intervention, policy=policy, budget_from=budget_from,
                    means_from=means_from, ctx=ctx, max_windows=max_windows, window=window, offset=offset,
                    seed=seed, shard=shard, checkpoint_every=checkpoint_every, restart=restart,
                    per_forward=per_forward, bootstrap=bootstrap, ci=ci, device=device, dtype=dtype,
                    threads=threads, quiet=quiet)
    _check(dict(settings, out=out, intervention=intervention if intervention is None else list(intervention),
                policy=policy if policy is None else list(policy)))
    binary = find_binary(os.fspath(geoattn) if geoattn is not None else None)
    if binary is None:
        raise ValueError("geoattn: no geoattn executable (the package's geoattn/bin, build/bin or PATH): pip install ./python")
    with tempfile.TemporaryDirectory(prefix="geoattn-intervene-") as tmp:
        path = os.fspath(out) if out is not None else os.path.join(tmp, "intervene.json")
        _run([binary, "intervene", *_flags(settings), "--out", path], quiet)
        return Intervened(path)
