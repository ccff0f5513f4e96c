# A TransformerLens HookedTransformer -> run_with_cache -> geoattn.hf.from_cache -> geoattn.metrics,
# on the shipped stories15M (a LLaMA: RMSNorm, rotary, SwiGLU), its weights converted by
# TransformerLens itself. Run from the repository's root: python python/examples/transformer_lens_cache.py
# (needs pip install './python[hf]' transformer-lens==3.9.0: the last release with HookedTransformer).
import torch
from transformer_lens import HookedTransformer, HookedTransformerConfig
from transformer_lens.pretrained.weight_conversions import convert_llama_weights
from transformers import AutoModelForCausalLM, AutoTokenizer

import geoattn

hf = AutoModelForCausalLM.from_pretrained("models/stories15M", torch_dtype=torch.float32)
c = hf.config
cfg = HookedTransformerConfig(
    n_layers=c.num_hidden_layers, d_model=c.hidden_size, d_head=c.head_dim, n_heads=c.num_attention_heads,
    n_key_value_heads=c.num_key_value_heads, d_mlp=c.intermediate_size, d_vocab=c.vocab_size,
    n_ctx=c.max_position_embeddings, act_fn="silu", normalization_type="RMS", eps=c.rms_norm_eps,
    positional_embedding_type="rotary", rotary_dim=c.head_dim, rotary_base=10000.0,  # stories15M's rope_theta
    rotary_adjacent_pairs=False, gated_mlp=True, final_rms=True, original_architecture="LlamaForCausalLM")
model = HookedTransformer(cfg)
model.load_state_dict(convert_llama_weights(hf, cfg), strict=False)  # not in it: the masks and rotary tables

tokenizer = AutoTokenizer.from_pretrained("models/stories15M")
texts = ["Once upon a time, there was a little girl named Lily. She loved to play outside in the sun.",
         "Tom had a red ball. He liked to throw it high and catch it with his two small hands."]
ids = torch.tensor([[tokenizer.bos_token_id] + tokenizer(t, add_special_tokens=False).input_ids[:15] for t in texts])  # [2, 16]
_, cache = model.run_with_cache(ids, names_filter=lambda name: name.endswith(("hook_pattern", "hook_v")))

alpha, values = geoattn.hf.from_cache(cache, queries="last")  # [2, 6, 6, 1, 16], [2, 6, 6, 16, 48]
result = geoattn.metrics(alpha, values, n="all")  # each window its own document
print(result.heads["P_rmax"].shape, result.doc["global"]["P_rmax"][:4])
