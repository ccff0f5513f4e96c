# A TransformerLens TransformerBridge -> run_with_cache -> geoattn.hf.from_cache -> geoattn.metrics,
# on the shipped stories15M (a LLaMA: RMSNorm, rotary, SwiGLU), booted by TransformerLens 4.x from
# the local checkpoint. Run from the repository's root: python python/examples/transformer_lens_cache.py
# (needs pip install './python[hf]' transformer-lens: 4.x, where TransformerBridge replaces HookedTransformer).
import torch
from transformer_lens.model_bridge import TransformerBridge
from transformers import AutoModelForCausalLM, AutoTokenizer

import geoattn

hf = AutoModelForCausalLM.from_pretrained("models/stories15M", torch_dtype=torch.float32)
tokenizer = AutoTokenizer.from_pretrained("models/stories15M")
model = TransformerBridge.boot_transformers("models/stories15M", hf_model=hf, tokenizer=tokenizer, device="cpu")

texts = ["Once upon a time, there was a little girl named Lily. She loved to play outside in the sun.",
         "Tom had a red ball. He liked to throw it high and catch it with his two small hands."]
ids = torch.tensor([[tokenizer.bos_token_id] + tokenizer(t, add_special_tokens=False).input_ids[:15] for t in texts])  # [2, 16]
_, cache = model.run_with_cache(ids, names_filter=lambda name: name.endswith(("attn.hook_pattern", "attn.hook_v")))

alpha, values = geoattn.hf.from_cache(cache, queries="last")  # [2, 6, 6, 1, 16], [2, 6, 6, 16, 48]
result = geoattn.metrics(alpha, values, n="all")  # each window its own document
print(result.heads["P_rmax"].shape, result.doc["global"]["P_rmax"][:4])
