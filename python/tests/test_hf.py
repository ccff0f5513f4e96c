"""geoattn.hf: captures of models transformers runs, against geoattn capture (SmolLM2, a real
model the C++ forward implements) and against the model's own attention output (families the
C++ forward does not implement), then through geoattn.metrics and geoattn.sinks end to end."""
import os

import pytest
import torch

import geoattn
from conftest import real_model, run, without_run_info
from test_metrics import same

transformers = pytest.importorskip("transformers")


def test_smollm2_capture_equals_geoattn_capture(geoattn_bin, tmp_path):
    smollm2 = real_model("smollm2-135m", "scripts/get-model.sh smollm2")
    path = tmp_path / "c.safetensors"
    run(geoattn_bin, "capture", "--model", smollm2, "--data", os.path.join(smollm2, "openwebtext-60docs.bin"), "--ctx", 128, "--max-windows", 2,
        "--queries", "-8,-4,-2,-1", "--dtype", "fp32", "--quiet", "--out", path)
    c = geoattn.read_capture(path)
    model = transformers.AutoModelForCausalLM.from_pretrained(smollm2, dtype=torch.float32).eval()
    alpha, values = geoattn.hf.capture(model, c["tokens"], queries=c["queries"])
    assert alpha.shape == c["alpha"].shape == (2, 30, 9, 4, 128) and values.shape == c["values"].shape
    assert float((alpha - c["alpha"]).abs().max()) < 1e-4
    assert float((values - c["values"]).abs().max()) < 1e-4 * max(1.0, float(c["values"].abs().max()))
    # The metrics of both captures. In one build (one LibTorch doing the same float32 ops) the
    # two captures are bit-identical, and so is everything computed from them; across builds
    # they differ in the last bits and the curves agree to rounding.
    kw = dict(queries=c["queries"], n="all", controls=4, bootstrap=20, seed=1)
    ours = geoattn.metrics(c["alpha"], c["values"], **kw)
    theirs = geoattn.metrics(alpha, values, **kw)
    if torch.equal(alpha, c["alpha"]) and torch.equal(values, c["values"]):
        same(without_run_info(ours.doc), without_run_info(theirs.doc))
    for key in ("P_rmax", "R_rmin", "F_rmax", "P_rmax_random"):
        assert ours.heads[key] == pytest.approx(theirs.heads[key], abs=1e-9, nan_ok=True), key


# Families geoattn's C++ forward does not implement, built tiny by transformers itself: the
# config, and where each layer's attention output (the o-projection's input) is.
FAMILIES = {
    "gpt_neox": (dict(model_type="gpt_neox", vocab_size=97, hidden_size=64, num_hidden_layers=3, num_attention_heads=4,
                      intermediate_size=128, max_position_embeddings=128, rotary_pct=0.25),
                 lambda m, l: m.gpt_neox.layers[l].attention.dense),
    "gpt2": (dict(model_type="gpt2", vocab_size=97, n_embd=64, n_layer=3, n_head=4, n_positions=128),
             lambda m, l: m.transformer.h[l].attn.c_proj),
    "granite": (dict(model_type="granite", vocab_size=97, hidden_size=64, num_hidden_layers=3, num_attention_heads=4,
                     num_key_value_heads=2, intermediate_size=128, max_position_embeddings=128, attention_bias=True),
                lambda m, l: m.model.layers[l].self_attn.o_proj),
}


def tiny(family):
    config, out_proj = FAMILIES[family]
    torch.manual_seed(0)
    config = transformers.AutoConfig.for_model(**config)
    model = transformers.AutoModelForCausalLM.from_config(config).eval()
    with torch.no_grad():  # biases that init leaves at 0, so that the value bias shows
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.normal_(0, 0.5)
    return model, out_proj


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_family_without_a_cpp_forward_end_to_end(family):
    model, out_proj = tiny(family)
    ids = torch.randint(0, 97, (2, 40), generator=torch.Generator().manual_seed(3))
    mixed = {}
    hooks = [out_proj(model, l).register_forward_pre_hook(lambda m, a, l=l: mixed.__setitem__(l, a[0].detach()))
             for l in range(3)]
    try:
        alpha, values = geoattn.hf.capture(model, ids, queries="all", bos=False)  # random ids: no BOS first
    finally:
        for h in hooks:
            h.remove()
    W, L, H, Q, T = alpha.shape
    assert (W, L, Q, T) == (2, 3, 40, 40) and values.shape[:2] == (2, 3)
    # What attention mixed is alpha times these values, head by head: the captured values are
    # the ones its weights read (projection, bias, grouped heads).
    KV = values.shape[2]
    for l in range(L):
        v = values[:, l].repeat_interleave(H // KV, dim=1)           # [W, H, T, d]
        y = (alpha[:, l] @ v).transpose(1, 2).reshape(W, T, -1)      # [W, T, H d]
        assert torch.allclose(y, mixed[l], atol=1e-5), f"layer {l}"
    r = geoattn.metrics(alpha[:, :, :, -1:], values, n="all", controls=2)
    assert r.heads["P_rmax"].shape == (3, H, 40)
    assert geoattn.taxonomy(r)["totals"]["heads"] == 3 * H
    s = geoattn.sinks(alpha, values, tokens=ids)
    assert len(s.doc["layers"]) == 3


def test_capture_restores_the_attention_implementation():
    model, _ = tiny("granite")
    model.set_attn_implementation("sdpa")
    import transformers.models.granite.modeling_granite as granite

    original = granite.eager_attention_forward
    geoattn.hf.capture(model, [1, 2, 3, 4])
    assert model.config._attn_implementation == "sdpa"
    assert granite.eager_attention_forward is original


def test_from_cache_takes_transformer_lens_names():
    """A TransformerLens/nnsight cache of blocks.{l}.attn.hook_pattern and hook_v gives what
    capture gives."""
    model, _ = tiny("granite")
    ids = torch.randint(0, 97, (1, 24), generator=torch.Generator().manual_seed(5))
    full, values = geoattn.hf.capture(model, ids, queries="all", bos=False)  # random ids: no BOS first
    cache = {}
    for l in range(full.shape[1]):
        cache[f"blocks.{l}.attn.hook_pattern"] = full[:, l]              # [B, H, T, T]
        cache[f"blocks.{l}.attn.hook_v"] = values[:, l].transpose(1, 2)  # [B, T, KV, d]
    alpha, v = geoattn.hf.from_cache(cache, queries="last")
    last, _ = geoattn.hf.capture(model, ids, queries="last", bos=False)
    assert torch.equal(alpha, last) and torch.equal(v, values)
    same(without_run_info(geoattn.metrics(alpha, v, controls=0).doc),
         without_run_info(geoattn.metrics(last, values, controls=0).doc))
