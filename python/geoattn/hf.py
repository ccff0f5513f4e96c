"""Captures for geoattn.metrics and geoattn.sinks from models geoattn's C++ forward never saw:
any decoder transformers runs with its eager attention, and TransformerLens / nnsight caches.

    alpha, values = geoattn.hf.capture(model, input_ids)             # queries="last"
    alpha, values = geoattn.hf.from_cache(cache, queries="last")     # TransformerLens names

Both return the capture layout: alpha [windows, layers, heads, queries, T], values [windows,
layers, kv_heads, T, d].

How capture sees inside any model: transformers' decoders call their modeling file's
`eager_attention_forward(module, query, key, value, attention_mask, ...)` when the attention
implementation is "eager". For the length of one forward, capture switches the model to eager
and wraps that function in every modeling file the model uses; the wrapper keeps, per layer,
the `value` states the weights mix ([B, kv_heads, T, d]: after the projection, its bias, any
value norm; before the grouped heads are repeated) and the requested rows of the weights, and
passes everything on unchanged. The full T x T weights are never kept.
"""
from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from . import _checks

if TYPE_CHECKING:
    import torch

_HOOK = re.compile(r"blocks\.(\d+)\.attn\.hook_(?:pattern|v)")


def capture(model: torch.nn.Module, input_ids: torch.Tensor, *, queries: str | Sequence[int] = "last",
            dtype: torch.dtype | None = None, bos: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """(alpha, values) of a transformers decoder on input_ids [windows, T] (or [T]).

    queries: "last", "all" or positions; dtype: of the returned tensors (default float32, as
    `geoattn capture` writes; the rows are the model's own, so a bf16 model gives bf16 rows
    widened: `geoattn capture --pattern-dtype run`). Everything stays on the model's device.
    bos: every window must start with the model's BOS (config.bos_token_id), as geoattn's windows
    do (SPEC §7: the command line puts it first), else ValueError naming it: a tokenizer that adds
    none (transformers 5.x's LLaMA-2 one) would measure another window than the command line, the
    sink moved; bos=False measures the ids as they are.
    """
    import torch

    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"model: expected a transformers model (torch.nn.Module), got {type(model).__name__}")
    ids = _checks.token_ids(input_ids, "input_ids")
    if ids.dim() == 1:
        ids = ids[None]
    if ids.dim() != 2 or ids.numel() == 0:
        raise ValueError(f"input_ids: shape {list(ids.shape)}, expected token ids [windows, T], none empty")
    T = ids.shape[1]
    positions = _checks.query_positions(queries, None, T)
    dtype = torch.float32 if dtype is None else _checks.float_dtype(dtype, "dtype")
    device = _fits_model(model, ids)
    if not isinstance(bos, bool):
        raise ValueError(f"bos: expected True or False, got {bos!r}")
    if bos:
        _starts_with_bos(model, ids)

    rows: list[torch.Tensor] = []
    vals: list[torch.Tensor] = []
    order: dict[int, int] = {}
    select = torch.tensor(positions, device=device)

    def wrap(original):
        def eager_attention_forward(module, query, key, value, attention_mask, *args, **kwargs):
            out, weights = original(module, query, key, value, attention_mask, *args, **kwargs)
            if id(module) in order:
                raise ValueError(f"model: {type(module).__name__} ran twice in one forward")
            order[id(module)] = len(rows)
            if weights is None or weights.dim() != 4 or weights.shape[-1] != T or weights.shape[-2] != T:
                raise ValueError(f"model: {type(module).__name__}'s eager attention returned no [B, H, T, T] weights")
            rows.append(weights.index_select(2, select.to(weights.device)).to(dtype))  # [B, H, Q, T]
            vals.append(value.to(dtype))                                              # [B, KV, T, d]
            return out, weights
        return eager_attention_forward

    modules = {sys.modules[type(m).__module__] for m in model.modules()}
    files: list[Any] = [f for f in modules if callable(getattr(f, "eager_attention_forward", None))]
    if not files:
        raise ValueError(f"model: {type(model).__name__}'s attention does not go through transformers' "
                         "eager_attention_forward (geoattn.hf.from_cache takes hooked tensors instead)")
    saved = [(f, f.eager_attention_forward) for f in files]
    previous = _set_eager(model)
    try:
        for f, original in saved:
            f.eager_attention_forward = wrap(original)
        with torch.inference_mode():
            model(input_ids=ids.to(device), use_cache=False)
    finally:
        for f, original in saved:
            f.eager_attention_forward = original
        _restore(model, previous)
    if not rows:
        raise ValueError(f"model: {type(model).__name__} ran no eager attention")
    shapes = {(tuple(r.shape[1:]), tuple(v.shape[1:])) for r, v in zip(rows, vals)}
    if len(shapes) != 1:
        raise ValueError(f"model: its layers differ in heads or head size ({sorted(shapes)}): capture them one by one")
    return torch.stack(rows, 1), torch.stack(vals, 1)  # [W, L, H, Q, T], [W, L, KV, T, d]


def _fits_model(model, ids):
    """The model's device, once ids [W, T] are known to fit its vocabulary and positions."""
    parameter = next(model.parameters(), None)
    config = getattr(model, "config", None)
    if parameter is None or config is None:
        raise ValueError(f"model: {type(model).__name__} has no parameters or no config: not a transformers model")
    try:
        vocab = model.get_input_embeddings().num_embeddings  # the rows ids index
    except (AttributeError, NotImplementedError):
        vocab = getattr(config, "vocab_size", None)
    if isinstance(vocab, int) and not 0 <= int(ids.min()) <= int(ids.max()) < vocab:
        bad = int(ids.min()) if int(ids.min()) < 0 else int(ids.max())
        raise ValueError(f"input_ids: id {bad} is outside the model's vocabulary 0..{vocab - 1}")
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int) and ids.shape[1] > positions:
        raise ValueError(f"input_ids: T = {ids.shape[1]}, longer than the model's {positions} positions "
                         "(config.max_position_embeddings)")
    return parameter.device


def _starts_with_bos(model, ids):
    """ValueError naming the first window of ids [W, T] that does not start with the model's BOS
    (config.bos_token_id; nothing to check where the config has none)."""
    bos = getattr(model.config, "bos_token_id", None)
    if not isinstance(bos, int):
        return
    bad = (ids[:, 0] != bos).nonzero()
    if bad.numel():
        w = int(bad[0, 0])
        raise ValueError(f"input_ids: window {w} starts with id {int(ids[w, 0])}, not the model's BOS {bos} "
                         "(config.bos_token_id), where geoattn's windows start (SPEC §7; this tokenizer added "
                         f"none): put {bos} first, or pass bos=False to measure the ids as they are")


def _set_eager(model):
    """Switches the model to eager attention; what to restore."""
    previous = getattr(model.config, "_attn_implementation", None)
    if previous != "eager":
        if hasattr(model, "set_attn_implementation"):  # transformers 5.x
            model.set_attn_implementation("eager")
        else:
            model.config._attn_implementation = "eager"
    return previous


def _restore(model, previous):
    if previous is None or previous == "eager":
        return
    if hasattr(model, "set_attn_implementation"):
        model.set_attn_implementation(previous)
    else:
        model.config._attn_implementation = previous


def from_cache(cache: Mapping[str, Any], *, queries: str | Sequence[int] = "last",
               layers: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(alpha, values) from a cache of TransformerLens hook names (an ActivationCache, or a
    dict of tensors saved with nnsight under those names):
      blocks.{l}.attn.hook_pattern  [batch, heads, T, T]
      blocks.{l}.attn.hook_v        [batch, T, kv_heads, d]
    layers: how many (default: every l present; none may be missing below the last)."""
    import torch

    if not callable(getattr(cache, "keys", None)) or not hasattr(cache, "__getitem__"):
        raise ValueError(f"cache: {type(cache).__name__}, expected a dict or ActivationCache of TransformerLens hook names")
    names = set(map(str, cache.keys()))
    present = 1 + max((int(m.group(1)) for m in map(_HOOK.fullmatch, names) if m), default=-1)  # layers up to the last
    if layers is None:
        if not present:
            raise ValueError("cache: no blocks.{l}.attn.hook_pattern in it")
        layers = present
    layers = _checks.integer(layers, "layers", 1)
    alpha, values, first = [], [], None
    for l in range(layers):
        keys = (f"blocks.{l}.attn.hook_pattern", f"blocks.{l}.attn.hook_v")
        missing = [k for k in keys if k not in names]
        if missing and l >= present:
            raise ValueError(f"layers: {layers}, but the cache has no {missing[0]}")
        if missing:
            raise ValueError(f"cache: {missing[0]} is missing (the cache has layers up to blocks.{present - 1})")
        pattern, v = (_checks.tensor(cache[k], f"cache: {k}") for k in keys)
        if pattern.dim() != 4 or v.dim() != 4 or pattern.shape[2] != pattern.shape[3] \
                or v.shape[:2] != pattern.shape[::3] or 0 in pattern.shape or 0 in v.shape:  # [::3]: batch, T
            raise ValueError(f"cache: blocks.{l}: hook_pattern {list(pattern.shape)} and hook_v {list(v.shape)} "
                             "are not [batch, heads, T, T] and [batch, T, kv_heads, d]")
        this = (pattern.shape, v.shape, pattern.device, v.device)
        first = first or this
        if this != first:  # torch.stack needs one shape and one device
            raise ValueError(f"cache: blocks.{l}: hook_pattern {list(pattern.shape)} and hook_v {list(v.shape)} on "
                             f"{pattern.device} differ from blocks.0's {list(first[0])} and {list(first[1])} on {first[2]}")
        positions = _checks.query_positions(queries, None, pattern.shape[3])
        alpha.append(pattern[:, :, positions, :])  # [B, H, Q, T]
        values.append(v.transpose(1, 2))           # [B, KV, T, d]
    return torch.stack(alpha, 1), torch.stack(values, 1)
