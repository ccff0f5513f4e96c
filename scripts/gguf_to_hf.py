#!/usr/bin/env python3
"""Convert a LLaMA-architecture GGUF file to a Hugging Face folder that geoattn loads.

    gguf_to_hf.py MODEL.gguf OUT_DIR [--keep-gguf-qk-order]

Writes OUT_DIR/config.json (LlamaForCausalLM), OUT_DIR/model.safetensors (float32, HF tensor
names) and OUT_DIR/tokenizer.json (byte-level BPE rebuilt from the GGUF's tokenizer metadata with
the `tokenizers` package). Every file is written to a temporary name and renamed into place.

Dequantisation is done by the `gguf` package (gguf.quants.dequantize). Two GGUF conventions are
undone here:
  * GGUF lists a tensor's dimensions fastest-first (ggml "ne" order); GGUFReader already returns
    numpy arrays in row-major order, i.e. [out_features, in_features], which is HF's layout.
  * llama.cpp's convert_hf_to_gguf.py (LlamaModel.permute) reorders the rows of q_proj/k_proj of
    every head from HF's rotate-half RoPE layout (pairs (j, j + d/2)) to ggml's interleaved
    layout (pairs (2j, 2j + 1)):
        w.reshape(n_head, 2, d // 2, in).swapaxes(1, 2).reshape(out, in)
    unpermute() below is its inverse. --keep-gguf-qk-order skips it (a deliberately wrong
    model, for checking that the un-permutation matters).
"""
import argparse
import json
import os
import sys

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize
from safetensors.numpy import save_file
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors

# GGUF tensor name (after "blk.{i}.") -> HF name (after "model.layers.{i}.").
LAYER_TENSORS = {
    "attn_norm.weight": "input_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight",
    "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight",
    "attn_output.weight": "self_attn.o_proj.weight",
    "ffn_norm.weight": "post_attention_layernorm.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight",
    "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
}
GLOBAL_TENSORS = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
}

# ggml token types (llama.cpp's llama_token_type): 3 = control, 4 = user-defined.
CONTROL, USER_DEFINED = 3, 4


def die(msg):
    sys.exit(f"gguf_to_hf.py: error: {msg}")


def field(reader, key, default=None):
    f = reader.fields.get(key)
    return default if f is None else f.contents()


def unpermute(w, n_head):
    """Inverse of llama.cpp's LlamaModel.permute: ggml interleaved rows -> HF rotate-half rows."""
    out, d_in = w.shape
    return w.reshape(n_head, out // n_head // 2, 2, d_in).swapaxes(1, 2).reshape(out, d_in)


def read_config(r):
    arch = field(r, "general.architecture")
    if arch != "llama":
        die(f"general.architecture is {arch!r}; only 'llama' is supported")
    p = lambda key, default=None: field(r, f"llama.{key}", default)  # noqa: E731
    f32 = lambda key, default: float(str(np.float32(p(key, default))))  # 1e-05, not 9.99999974e-06  # noqa: E731
    hidden, n_head = int(p("embedding_length")), int(p("attention.head_count"))
    head_dim = int(p("attention.key_length", hidden // n_head))
    if int(p("rope.dimension_count", head_dim)) != head_dim:
        die("partial rotary embeddings (rope.dimension_count != head_dim) are not supported")
    if p("rope.scaling.type") not in (None, "none"):
        die(f"RoPE scaling {p('rope.scaling.type')!r} is not supported")
    vocab = int(p("vocab_size", len(r.fields["tokenizer.ggml.tokens"].data)))
    tied = "output.weight" not in {t.name for t in r.tensors}
    opt_id = lambda key: None if field(r, key) is None else int(field(r, key))  # noqa: E731
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": hidden,
        "intermediate_size": int(p("feed_forward_length")),
        "num_hidden_layers": int(p("block_count")),
        "num_attention_heads": n_head,
        "num_key_value_heads": int(p("attention.head_count_kv", n_head)),
        "head_dim": head_dim,
        "hidden_act": "silu",
        "rms_norm_eps": f32("attention.layer_norm_rms_epsilon", None),
        "rope_theta": f32("rope.freq_base", 10000.0),
        "rope_scaling": None,
        "max_position_embeddings": int(p("context_length")),
        "vocab_size": vocab,
        "tie_word_embeddings": tied,
        "attention_bias": False,
        "mlp_bias": False,
        "bos_token_id": opt_id("tokenizer.ggml.bos_token_id"),
        "eos_token_id": opt_id("tokenizer.ggml.eos_token_id"),
        "pad_token_id": opt_id("tokenizer.ggml.padding_token_id"),
        "torch_dtype": "float32",
        "source_gguf": {"name": field(r, "general.name"), "file_type": field(r, "general.file_type")},
    }


def read_tensors(r, cfg, unpermute_qk=True):
    out = {}
    for t in r.tensors:
        if t.name.startswith("blk."):
            _, layer, rest = t.name.split(".", 2)
            if rest not in LAYER_TENSORS:
                die(f"unexpected tensor {t.name}")
            name = f"model.layers.{layer}.{LAYER_TENSORS[rest]}"
        elif t.name in GLOBAL_TENSORS:
            name = GLOBAL_TENSORS[t.name]
        elif t.name == "rope_freqs.weight":
            die("rope_freqs.weight (LLaMA-3.1-style RoPE scaling) is not supported")
        else:
            die(f"unexpected tensor {t.name}")
        w = np.ascontiguousarray(dequantize(t.data, t.tensor_type), dtype=np.float32)
        # GGUF shape is ne (fastest dimension first); the array must be its reverse.
        if list(w.shape) != [int(n) for n in reversed(t.shape)]:
            die(f"{t.name}: dequantised shape {w.shape} does not match GGUF ne {list(t.shape)}")
        if unpermute_qk and name.endswith("q_proj.weight"):
            w = unpermute(w, cfg["num_attention_heads"])
        elif unpermute_qk and name.endswith("k_proj.weight"):
            w = unpermute(w, cfg["num_key_value_heads"])
        out[name] = np.ascontiguousarray(w)
    expected = 3 + 9 * cfg["num_hidden_layers"] - cfg["tie_word_embeddings"]
    if len(out) != expected:
        die(f"found {len(out)} tensors, expected {expected}")
    return out


def pre_tokenizer_for(pre):
    """HF pre-tokenizer equivalent to llama.cpp's regexes for tokenizer.ggml.pre."""
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)  # GPT-2 regex
    if pre in ("gpt2", "default"):
        return byte_level
    if pre in ("smollm", "starcoder", "refact", "codeshell"):  # "\p{N}" split first, then GPT-2
        return pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
    die(f"tokenizer.ggml.pre {pre!r} is not supported (add its regexes to pre_tokenizer_for)")


def build_tokenizer(r):
    if field(r, "tokenizer.ggml.model") != "gpt2":
        die(f"tokenizer.ggml.model {field(r, 'tokenizer.ggml.model')!r}: only byte-level BPE ('gpt2')")
    tokens = field(r, "tokenizer.ggml.tokens")
    types = field(r, "tokenizer.ggml.token_type")
    merges = [tuple(m.split(" ")) for m in field(r, "tokenizer.ggml.merges")]
    vocab = {tok: i for i, tok in enumerate(tokens)}
    if len(vocab) != len(tokens):
        die("duplicate strings in tokenizer.ggml.tokens")
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizer_for(field(r, "tokenizer.ggml.pre", "default"))
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)  # adds no BOS/EOS
    # Control and user-defined tokens are matched whole in the input, never BPE-merged.
    tok.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                            for i, ty in enumerate(types) if ty in (CONTROL, USER_DEFINED)])
    return tok


def write_atomic(path, write):
    tmp = f"{path}.tmp.{os.getpid()}"
    write(tmp)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gguf")
    ap.add_argument("out_dir")
    ap.add_argument("--keep-gguf-qk-order", action="store_true",
                    help="do NOT un-permute q/k rows (wrong on purpose, for checks)")
    a = ap.parse_args()

    r = GGUFReader(a.gguf)
    cfg = read_config(r)
    tensors = read_tensors(r, cfg, unpermute_qk=not a.keep_gguf_qk_order)
    if tensors["model.embed_tokens.weight"].shape[0] != cfg["vocab_size"]:
        die("embedding rows != vocab_size")
    tok = build_tokenizer(r)
    if tok.get_vocab_size() != cfg["vocab_size"]:
        die(f"tokenizer has {tok.get_vocab_size()} tokens, the model {cfg['vocab_size']}")

    os.makedirs(a.out_dir, exist_ok=True)
    out = lambda name: os.path.join(a.out_dir, name)  # noqa: E731
    write_atomic(out("tokenizer.json"), lambda p: tok.save(p))
    write_atomic(out("model.safetensors"), lambda p: save_file(tensors, p, metadata={"format": "pt"}))
    # config.json last: its presence marks a complete folder.
    write_atomic(out("config.json"), lambda p: open(p, "w").write(json.dumps(cfg, indent=2) + "\n"))
    n = sum(w.size for w in tensors.values())
    print(f"gguf_to_hf.py: {a.out_dir}: {cfg['num_hidden_layers']} layers, hidden {cfg['hidden_size']}, "
          f"{cfg['num_attention_heads']}/{cfg['num_key_value_heads']} heads, vocab {cfg['vocab_size']}, "
          f"{n / 1e6:.1f}M parameters, q/k {'left in GGUF order' if a.keep_gguf_qk_order else 'un-permuted'}")


if __name__ == "__main__":
    main()
