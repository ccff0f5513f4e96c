#!/usr/bin/env python3
"""Tiny random checkpoints of the newer decoder families and what upstream transformers computes for them.

    .venv-hf5/bin/python scripts/hf_tiny_fixtures.py [--out tests/fixtures/hf5] [--only NAME,...]

Needs the venv of scripts/requirements-hf5.txt (transformers 5.24, torch 2.14; CPU is enough).
For each fixture (scripts/hf_tiny_fixtures.json) it builds a tiny model with random weights (fixed seed, float32,
attn_implementation="eager"), saves it with save_pretrained, and writes OUT/<name>/:

  model.safetensors       the weights as transformers' save_pretrained names them (float32)
  config.json             the config as save_pretrained writes it (5.x dialect: rope_parameters,
                          layer_types, ...)
  config.hub.json         the same model in the dialect of the Hub's 2024-25 config files of that
                          family (rope_theta, rope_scaling, rope_local_base_freq,
                          sliding_window_pattern, use_sliding_window/max_window_layers, ...)
  model.hub.safetensors   (gemma3-multimodal only) the weights under the Hub's Gemma-3 4B+ names
  reference.safetensors   upstream's forward pass on the ids in __metadata__["ids"]:
                            attn.{l}  float32 [heads, T, T]        attention probabilities of layer l
                            v.{l}     float32 [kv_heads, T, head_dim]  value projection per KV head
                                      (before any GQA repeat, no RoPE, bias included)
                            logits    float32 [T, vocab]
  reference-bf16.safetensors  (llama3, gemma2) the same from the model loaded with
                          dtype=torch.bfloat16: float32 copies of the bf16 values

Every fixture is loaded back with AutoModelForCausalLM.from_pretrained from a folder holding
config.json and from one holding config.hub.json (as config.json); both must give outputs
bit-identical to the in-memory model, or the script fails. It also checks each reference on its own
(rows sum to 1, causal and sliding-window zeros, rows far from uniform, Gemma-2's soft-capping
changes the numbers). Output files are written atomically (temp file + os.replace). The run is
deterministic: the same versions give the same bytes.
"""
import argparse
import copy
import json
import os
import shutil
import sys
import tempfile

import torch

T_DEFAULT = 24


def die(msg):
    sys.exit(f"hf_tiny_fixtures.py: error: {msg}")


# ---------------------------------------------------------------------------------------------
# The fixtures, as data: scripts/hf_tiny_fixtures.json. "config" holds the keyword arguments of the
# 5.x config class (what save_pretrained then writes as config.json); "hub" is the config.hub.json
# text, in the key style of the real released configs named in "hub_model".
FIXTURES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hf_tiny_fixtures.json")
with open(FIXTURES_FILE) as _f:
    FIXTURES = json.load(_f)["fixtures"]


# ---------------------------------------------------------------------------------------------

def write_atomic(path, data):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def json_text(obj):
    return json.dumps(obj, indent=2, sort_keys=True) + "\n"


def text_config(config):
    return config.get_text_config() if hasattr(config, "get_text_config") else config


def decoder(model):
    """The decoder module holding .layers (Gemma3ForConditionalGeneration: model.language_model)."""
    inner = model.model
    return inner.language_model if hasattr(inner, "language_model") else inner


def build(spec):
    import transformers
    cls = getattr(transformers, spec["arch"])
    config = cls.config_class(**copy.deepcopy(spec["config"]))
    torch.manual_seed(spec["seed"])
    model = cls._from_config(config, attn_implementation="eager", dtype=torch.float32).eval()
    # projections std 0.25 at hidden 32, 0.15 at hidden 64: attention rows peaked but not one-hot
    std = 0.25 if text_config(config).hidden_size <= 32 else 0.15
    randomize(model, spec.get("zero_centered", False), spec["seed"], std)
    return model


def randomize(model, zero_centered, seed, std):
    """Every parameter random: projections N(0, std), biases N(0, 0.1), embeddings N(0, 0.5), norm weights
    1 + N(0, 0.1) (x*w styles) or N(0, 0.1) (Gemma's (1+w) style; SigLIP LayerNorms stay 1-centred)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():  # tied lm_head is not listed again
            n = torch.randn(p.shape, generator=g, dtype=torch.float32)
            leaf = name.rsplit(".", 1)[-1]
            is_norm = "norm" in name and "mm_input_projection" not in name
            if is_norm and leaf == "bias":
                val = 0.1 * n
            elif is_norm:
                gemma_style = zero_centered and "vision_tower" not in name
                val = 0.1 * n if gemma_style else 1.0 + 0.1 * n
            elif "embed_tokens" in name:
                val = 0.5 * n
            elif leaf == "bias":
                val = 0.1 * n
            else:
                val = std * n
            p.copy_(val)


def make_ids(spec, config):
    tc = text_config(config)
    T = spec.get("T", T_DEFAULT)
    first = tc.bos_token_id if tc.bos_token_id is not None else tc.eos_token_id
    g = torch.Generator().manual_seed(spec["seed"] + 77)
    rest = torch.randint(0, tc.vocab_size, (T - 1,), generator=g).tolist()
    return [int(first)] + rest


def kv_slicer(model, layer):
    """(module to hook, function mapping its output [1, T, n] to v [kv_heads, T, head_dim])."""
    tc = text_config(model.config)
    attn = decoder(model).layers[layer].self_attn
    head_dim = getattr(tc, "head_dim", None) or tc.hidden_size // tc.num_attention_heads
    kv = tc.num_key_value_heads
    if hasattr(attn, "v_proj"):
        return attn.v_proj, lambda out: out[0].reshape(out.shape[1], kv, head_dim).transpose(0, 1)
    # Phi-3: qkv_proj output is [q (heads*hd) | k (kv*hd) | v (kv*hd)]
    q = tc.num_attention_heads * head_dim
    return attn.qkv_proj, lambda out: out[0, :, q + kv * head_dim:].reshape(out.shape[1], kv, head_dim).transpose(0, 1)


def run(model, ids):
    n_layers = text_config(model.config).num_hidden_layers
    values, handles = {}, []
    for l in range(n_layers):
        module, to_v = kv_slicer(model, l)
        handles.append(module.register_forward_hook(
            lambda _m, _i, out, l=l, to_v=to_v: values.__setitem__(l, to_v(out).float().contiguous())))
    try:
        with torch.no_grad():
            out = model(input_ids=torch.tensor([ids]), output_attentions=True, use_cache=False)
    finally:
        for h in handles:
            h.remove()
    if out.attentions is None or len(out.attentions) != n_layers:
        die("the model returned no attentions for every layer")
    tensors = {}
    for l in range(n_layers):
        tensors[f"attn.{l}"] = out.attentions[l][0].float().contiguous()
        tensors[f"v.{l}"] = values[l]
    tensors["logits"] = out.logits[0].float().contiguous()
    return tensors


def same(a, b, what):
    if a.keys() != b.keys():
        die(f"{what}: tensors {sorted(a)} vs {sorted(b)}")
    for k in a:
        if a[k].shape != b[k].shape or not torch.equal(a[k], b[k]):
            diff = (a[k] - b[k]).abs().max().item() if a[k].shape == b[k].shape else "shape"
            die(f"{what}: {k} differs (max |diff| {diff})")


def rope_buffers(model):
    rot = decoder(model).rotary_emb
    bufs = {n: b.clone() for n, b in rot.named_buffers()}
    scal = {k: v for k, v in vars(rot).items() if "attention_scaling" in k}
    return bufs, scal


def load(folder, dtype=torch.float32):
    from transformers import AutoModelForCausalLM
    model, info = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=dtype,
                                                       output_loading_info=True)
    bad = {k: v for k, v in info.items() if v}
    if bad:
        die(f"{folder}: loading info {bad}")
    return model.eval()


def layer_types(config):
    tc = text_config(config)
    lt = getattr(tc, "layer_types", None)
    if lt is None:  # Llama, Mistral, Phi-3, OLMo-2: one kind for all layers
        kind = "sliding_attention" if getattr(tc, "sliding_window", None) is not None else "full_attention"
        lt = [kind] * tc.num_hidden_layers
    return list(lt)


def check_reference(name, tensors, config, ids, tol=1e-5):
    """Independent sanity checks on attention rows: sum 1, causal/window zeros, far from uniform."""
    tc = text_config(config)
    T = len(ids)
    kinds = layer_types(config)
    W = getattr(tc, "sliding_window", None)
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    row_max = []
    for l, kind in enumerate(kinds):
        a = tensors[f"attn.{l}"]
        if a.shape != (tc.num_attention_heads, T, T):
            die(f"{name}: attn.{l} has shape {tuple(a.shape)}")
        if (a.sum(-1) - 1).abs().max() > tol:
            die(f"{name}: attn.{l} rows do not sum to 1")
        allowed = j <= i
        if kind == "sliding_attention":
            allowed = allowed & (j > i - W)
        if (a[:, ~allowed] != 0).any():
            die(f"{name}: attn.{l} has mass outside the causal{' / window' if kind != 'full_attention' else ''} mask")
        if (a[:, allowed] <= 0).float().mean() > 0.02:
            die(f"{name}: attn.{l}: too many visible keys get no weight")
        visible = allowed.sum(-1).float()  # [T]
        m = a.max(-1).values[:, 4:]  # rows with at least 5 visible keys
        if (m.mean() < 2.0 / visible[4:].mean()) or m.std() < 0.05:
            die(f"{name}: attn.{l} rows look uniform (max prob mean {m.mean():.3f}, std {m.std():.3f})")
        row_max.append((m.min().item(), m.mean().item(), m.max().item()))
    v_shape = (tc.num_key_value_heads, T, getattr(tc, "head_dim", None) or tc.hidden_size // tc.num_attention_heads)
    for l in range(len(kinds)):
        if tuple(tensors[f"v.{l}"].shape) != v_shape:
            die(f"{name}: v.{l} has shape {tuple(tensors[f'v.{l}'].shape)}, expected {v_shape}")
    if tuple(tensors["logits"].shape) != (T, tc.vocab_size) or not torch.isfinite(tensors["logits"]).all():
        die(f"{name}: bad logits")
    return row_max


def check_softcaps(model, ids, ref):
    """Gemma-2: switching either soft-cap off must change the outputs by more than 1e-2."""
    m = copy.deepcopy(model)
    for layer in m.model.layers:
        layer.self_attn.attn_logit_softcapping = None
    d_attn = max((run(m, ids)[k] - ref[k]).abs().max().item() for k in ref)
    m = copy.deepcopy(model)
    m.config.final_logit_softcapping = None
    d_final = (run(m, ids)["logits"] - ref["logits"]).abs().max().item()
    if d_attn <= 1e-2 or d_final <= 1e-2:
        die(f"gemma2: soft-capping barely matters (attn cap off: {d_attn:.3g}, final cap off: {d_final:.3g})")
    return d_attn, d_final


HUB_PREFIXES = [  # 5.24 save_pretrained name -> the Hub's Gemma-3 4B+ name
    ("vision_tower.", "vision_tower.vision_model."),
]


def hub_tensor_name(key):
    for ours, hub in HUB_PREFIXES:
        if key.startswith(ours) and not key.startswith(hub):
            return hub + key[len(ours):]
    return key


def safetensors_bytes(tensors, metadata):
    """A safetensors file (float32 tensors) with its header in a fixed order: tensors and metadata sorted by
    name, so that a rerun writes the same bytes (safetensors' own writer orders the metadata at random)."""
    import struct
    import numpy as np
    from safetensors.torch import load
    header = {"__metadata__": dict(sorted(metadata.items()))}
    blobs, offset = [], 0
    for k in sorted(tensors):
        t = tensors[k]
        if t.dtype != torch.float32:
            die(f"{k}: {t.dtype}, expected float32")
        data = np.ascontiguousarray(t.detach().cpu().numpy(), dtype="<f4").tobytes()
        header[k] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    out = struct.pack("<Q", len(text)) + text + b"".join(blobs)
    back = load(out)  # the safetensors library must read it back to the same tensors
    if back.keys() != tensors.keys() or any(not torch.equal(back[k], tensors[k]) for k in tensors):
        die("safetensors_bytes: the written file does not read back")
    return out


def make_fixture(spec, out_root, versions):
    from safetensors.torch import load_file
    name = spec["name"]
    model = build(spec)
    ids = make_ids(spec, model.config)
    ref = run(model, ids)
    rope_ref = rope_buffers(model)

    work = tempfile.mkdtemp(prefix=f"hf5-{name}-")
    try:
        saved = os.path.join(work, "saved")
        model.save_pretrained(saved)
        with open(os.path.join(saved, "config.json"), "rb") as f:
            config_bytes = f.read()
        with open(os.path.join(saved, "model.safetensors"), "rb") as f:
            model_bytes = f.read()
        hub_text = json_text(spec["hub"])

        weights = load_file(os.path.join(saved, "model.safetensors"))
        if any(t.dtype != torch.float32 for t in weights.values()):
            die(f"{name}: model.safetensors is not all float32")
        hub_model_bytes = None
        if spec.get("multimodal"):
            hub_model_bytes = safetensors_bytes({hub_tensor_name(k): v for k, v in weights.items()},
                                                {"format": "pt"})

        # Load back from each dialect; every output must be bit-identical to the in-memory model's.
        dialects = [("config.json", config_bytes, model_bytes), ("config.hub.json", hub_text.encode(), model_bytes)]
        if hub_model_bytes is not None:
            module_names = safetensors_bytes(  # model.language_model.*, ...; the tied lm_head left out
                {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}, {"format": "pt"})
            dialects += [("config.hub.json + model.hub.safetensors", hub_text.encode(), hub_model_bytes),
                         ("config.json + model.hub.safetensors", config_bytes, hub_model_bytes),
                         ("config.json + the 5.x module names (model.language_model.*; not written)",
                          config_bytes, module_names)]
        for label, cfg, wts in dialects:
            d = os.path.join(work, "load-" + str(len(os.listdir(work))))
            os.makedirs(d)
            write_atomic(os.path.join(d, "config.json"), cfg)
            write_atomic(os.path.join(d, "model.safetensors"), wts)
            loaded = load(d)
            if type(loaded).__name__ != spec["arch"]:
                die(f"{name}: {label} loads as {type(loaded).__name__}, not {spec['arch']}")
            if layer_types(loaded.config) != layer_types(model.config):
                die(f"{name}: {label}: layer types {layer_types(loaded.config)} vs {layer_types(model.config)}")
            if getattr(text_config(loaded.config), "sliding_window", None) != \
                    getattr(text_config(model.config), "sliding_window", None):
                die(f"{name}: {label}: sliding_window differs")
            out = run(loaded, ids)
            bufs, scal = rope_buffers(loaded)  # after the forward: longrope swaps inv_freq in place there
            if bufs.keys() != rope_ref[0].keys() or any(not torch.equal(bufs[k], rope_ref[0][k]) for k in bufs) \
                    or scal != rope_ref[1]:
                die(f"{name}: {label}: RoPE frequencies or attention scaling differ")
            same(ref, out, f"{name}: {label} vs the in-memory model")

        row_max = check_reference(name, ref, model.config, ids)
        extra = {}
        if name == "gemma2":
            extra["softcap_effect"] = check_softcaps(model, ids, ref)

        ref16 = None
        if spec.get("bf16"):
            m16 = load(saved, dtype=torch.bfloat16)
            ref16 = run(m16, ids)
            check_reference(name + " (bf16)", ref16, model.config, ids, tol=2e-2)

        tc = text_config(model.config)
        meta = {
            "format": "pt",
            "ids": json.dumps(ids),
            "producer": f"Hugging Face transformers {versions['transformers']}, torch {versions['torch']}, "
                        f"eager attention, float32, CPU (scripts/hf_tiny_fixtures.py)",
            "transformers_version": versions["transformers"],
            "torch_version": versions["torch"],
            "architecture": spec["arch"],
            "attn_implementation": "eager",
            "dtype": "float32",
            "dialects_checked": json.dumps([label for label, _, _ in dialects]),
            "num_layers": str(tc.num_hidden_layers),
            "layer_types": json.dumps(layer_types(model.config)),
            "sliding_window": json.dumps(getattr(tc, "sliding_window", None)),
            "T": str(len(ids)),
            "bos_id": str(ids[0]),
            "fixture": name,
        }
        folder = os.path.join(out_root, name)
        os.makedirs(folder, exist_ok=True)
        write_atomic(os.path.join(folder, "model.safetensors"), model_bytes)
        write_atomic(os.path.join(folder, "config.json"), config_bytes)
        write_atomic(os.path.join(folder, "config.hub.json"), hub_text.encode())
        if hub_model_bytes is not None:
            write_atomic(os.path.join(folder, "model.hub.safetensors"), hub_model_bytes)
        write_atomic(os.path.join(folder, "reference.safetensors"), safetensors_bytes(ref, meta))
        if ref16 is not None:
            meta16 = dict(meta, dtype="bfloat16 (stored as float32)",
                          producer=meta["producer"].replace("float32, CPU", "dtype=torch.bfloat16, CPU"),
                          dialects_checked=json.dumps(["config.json"]))
            write_atomic(os.path.join(folder, "reference-bf16.safetensors"), safetensors_bytes(ref16, meta16))
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        print(f"{name}: T {len(ids)}, layers {layer_types(model.config)}, row max prob (min/mean/max) "
              + ", ".join(f"{a:.2f}/{b:.2f}/{c:.2f}" for a, b, c in row_max)
              + (f", soft-cap effect {extra['softcap_effect'][0]:.3g}/{extra['softcap_effect'][1]:.3g}"
                 if extra else "") + f", {size / 1024:.0f} KiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "tests", "fixtures", "hf5"))
    ap.add_argument("--only", help="comma-separated fixture names (default: all)")
    a = ap.parse_args()
    import transformers
    from transformers.utils import logging as hf_logging
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    torch.set_num_threads(1)
    torch.set_grad_enabled(False)
    versions = {"transformers": transformers.__version__, "torch": torch.__version__.split("+")[0]}
    names = [s["name"] for s in FIXTURES]
    only = a.only.split(",") if a.only else names
    for n in only:
        if n not in names:
            die(f"--only: no fixture {n} (there are {', '.join(names)})")
    os.makedirs(a.out, exist_ok=True)
    for spec in FIXTURES:
        if spec["name"] in only:
            make_fixture(spec, os.path.normpath(a.out), versions)


if __name__ == "__main__":
    main()
