#!/usr/bin/env python3
"""Convert a LLaMA or Gemma-3 GGUF file to a Hugging Face folder that geoattn loads.

    gguf_to_hf.py MODEL.gguf OUT_DIR [--keep-gguf-qk-order]

Writes OUT_DIR/config.json, OUT_DIR/model.safetensors (float32, HF tensor names) and
OUT_DIR/tokenizer.json (rebuilt from the GGUF's tokenizer metadata with the `tokenizers` package).
Every file is written to a temporary name and renamed into place. Needs only gguf, numpy,
safetensors and tokenizers (no torch, no transformers).

general.architecture "llama" -> LlamaForCausalLM, byte-level BPE tokenizer ("gpt2").
general.architecture "gemma3" -> Gemma3ForCausalLM (model_type gemma3_text), see GEMMA3 below.

Dequantisation is done by the `gguf` package (gguf.quants.dequantize). Two GGUF conventions are
undone here for llama:
  * GGUF lists a tensor's dimensions fastest-first (ggml "ne" order); GGUFReader already returns
    numpy arrays in row-major order, i.e. [out_features, in_features], which is HF's layout.
  * llama.cpp's convert_hf_to_gguf.py (LlamaModel.permute) reorders the rows of q_proj/k_proj of
    every head from HF's rotate-half RoPE layout (pairs (j, j + d/2)) to ggml's interleaved
    layout (pairs (2j, 2j + 1)):
        w.reshape(n_head, 2, d // 2, in).swapaxes(1, 2).reshape(out, in)
    unpermute() below is its inverse. --keep-gguf-qk-order skips it (a deliberately wrong
    model, for checking that the un-permutation matters).

GEMMA3 (llama.cpp's Gemma3Model in convert_hf_to_gguf.py; undone as transformers' own GGUF loader
does, modeling_gguf_pytorch_utils.Gemma2TensorProcessor, which serves "gemma3" too):
  * every RMSNorm weight ("*norm.weight": attn_norm, post_attention_norm, ffn_norm, post_ffw_norm,
    attn_q_norm, attn_k_norm, output_norm) is stored as 1 + w (Gemma's norm multiplies by 1 + w;
    llama.cpp's by w): 1 is subtracted back, in float32;
  * q/k rows are NOT permuted (llama.cpp runs Gemma with NEOX, i.e. rotate-half, RoPE);
  * the embedding is stored unscaled (the model multiplies by sqrt(hidden_size) itself);
  * the GGUF does not carry query_pre_attn_scalar, the local RoPE base, the sliding-window layer
    pattern or the soft-capping settings: they are llama.cpp's hard-coded Gemma-3 values
    (src/llama-model.cpp: sliding pattern 6, local base 1e4, no soft-capping; the attention scale
    is 1/sqrt(head_dim) except for the 62-layer 27B model, 1/sqrt(hidden/heads)).
The tokenizer (tokenizer.ggml.model "llama": SentencePiece pieces, no merges) is rebuilt as
transformers 5.x builds it from a GGUF (integrations/gguf/gguf_tokenizer_mapping.gemma_tokenizer and
GemmaTokenizer): BPE with byte fallback over the pieces, merges derived from the vocabulary in
file order, " " -> "\u2581" normaliser, control tokens special and user-defined tokens added.
"""
import argparse
import json
import os
import sys

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize
from safetensors.numpy import save_file
from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

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

# Gemma-3: GGUF tensor name (after "blk.{i}.") -> HF name (after "model.layers.{i}."), as
# transformers 5.x names Gemma3ForCausalLM's parameters (gguf's TensorNameMap for MODEL_ARCH.GEMMA3).
GEMMA3_LAYER_TENSORS = {
    "attn_norm.weight": "input_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight",
    "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight",
    "attn_output.weight": "self_attn.o_proj.weight",
    "attn_q_norm.weight": "self_attn.q_norm.weight",
    "attn_k_norm.weight": "self_attn.k_norm.weight",
    "post_attention_norm.weight": "post_attention_layernorm.weight",
    "ffn_norm.weight": "pre_feedforward_layernorm.weight",
    "post_ffw_norm.weight": "post_feedforward_layernorm.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight",
    "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
}
GEMMA3_GLOBAL_TENSORS = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
}

# ggml token types (llama.cpp's llama_token_type): 3 = control, 4 = user-defined.
CONTROL, USER_DEFINED = 3, 4


def die(msg):
    sys.exit(f"gguf_to_hf.py: error: {msg}")


def field(reader, key, default=None):
    f = reader.fields.get(key)
    return default if f is None else f.contents()


class GgufKeys:
    """The metadata of one architecture's GGUF, read by key without its "<arch>." prefix."""

    def __init__(self, reader, arch):
        self.reader, self.arch = reader, arch

    def __call__(self, key, default=None):
        return field(self.reader, f"{self.arch}.{key}", default)

    def f32(self, key, default):
        """A float32 field as the decimal it was written as (1e-05, not 9.99999974e-06)."""
        return float(str(np.float32(self(key, default))))

    def check_rope(self, head_dim):
        """Full rotary dimensions and no RoPE scaling (Gemma 3 4B/12B/27B's linear x8 on global
        layers, for one, is not read)."""
        if int(self("rope.dimension_count", head_dim)) != head_dim:
            die("partial rotary embeddings (rope.dimension_count != head_dim) are not supported")
        if self("rope.scaling.type") not in (None, "none"):
            die(f"RoPE scaling {self('rope.scaling.type')!r} is not supported")

    def vocab(self):
        return int(self("vocab_size", len(self.reader.fields["tokenizer.ggml.tokens"].data)))

    def shape(self, hidden, n_head, n_layers, head_dim):
        """config.json's sizes, in the order the Hub's files give them."""
        return {
            "hidden_size": hidden,
            "intermediate_size": int(self("feed_forward_length")),
            "num_hidden_layers": n_layers,
            "num_attention_heads": n_head,
            "num_key_value_heads": int(self("attention.head_count_kv", n_head)),
            "head_dim": head_dim,
        }

    def special_ids(self):
        """bos/eos/pad ids (None where the GGUF has none) and the dtype, config.json's last keys."""
        opt_id = lambda key: None if field(self.reader, key) is None else int(field(self.reader, key))  # noqa: E731
        return {
            "bos_token_id": opt_id("tokenizer.ggml.bos_token_id"),
            "eos_token_id": opt_id("tokenizer.ggml.eos_token_id"),
            "pad_token_id": opt_id("tokenizer.ggml.padding_token_id"),
            "torch_dtype": "float32",
        }


def unpermute(w, n_head):
    """Inverse of llama.cpp's LlamaModel.permute: ggml interleaved rows -> HF rotate-half rows."""
    out, d_in = w.shape
    return w.reshape(n_head, out // n_head // 2, 2, d_in).swapaxes(1, 2).reshape(out, d_in)


def read_config(r):
    arch = field(r, "general.architecture")
    if arch == "gemma3":
        return read_gemma3_config(r)
    if arch != "llama":
        die(f"general.architecture is {arch!r}; only 'llama' and 'gemma3' are supported")
    g = GgufKeys(r, "llama")
    hidden, n_head = int(g("embedding_length")), int(g("attention.head_count"))
    head_dim = int(g("attention.key_length", hidden // n_head))
    g.check_rope(head_dim)
    tied = "output.weight" not in {t.name for t in r.tensors}
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        **g.shape(hidden, n_head, int(g("block_count")), head_dim),
        "hidden_act": "silu",
        "rms_norm_eps": g.f32("attention.layer_norm_rms_epsilon", None),
        "rope_theta": g.f32("rope.freq_base", 10000.0),
        "rope_scaling": None,
        "max_position_embeddings": int(g("context_length")),
        "vocab_size": g.vocab(),
        "tie_word_embeddings": tied,
        "attention_bias": False,
        "mlp_bias": False,
        **g.special_ids(),
    }


def read_gemma3_config(r):
    """Gemma3ForCausalLM config.json in the Hub's 2025 dialect (as google/gemma-3-270m's, written
    by transformers 4.5x: rope_theta + rope_local_base_freq, layer_types and _sliding_window_pattern;
    transformers 5.x reads it into rope_parameters)."""
    g = GgufKeys(r, "gemma3")
    hidden, n_head, n_layers = int(g("embedding_length")), int(g("attention.head_count")), int(g("block_count"))
    head_dim = int(g("attention.key_length", 256))
    if int(g("attention.value_length", head_dim)) != head_dim:
        die("attention.value_length != attention.key_length is not supported")
    g.check_rope(head_dim)
    if g("attn_logit_softcapping") is not None or g("final_logit_softcapping") is not None:
        die("soft-capping keys in a gemma3 GGUF: not expected (Gemma 3 has none)")
    if "output.weight" in {t.name for t in r.tensors}:
        die("output.weight in a gemma3 GGUF: Gemma 3 ties the head to the embedding")
    pattern = 6  # llama.cpp: hparams.set_swa_pattern(6), every sixth layer global
    return {
        "architectures": ["Gemma3ForCausalLM"],
        "model_type": "gemma3_text",
        **g.shape(hidden, n_head, n_layers, head_dim),
        "hidden_activation": "gelu_pytorch_tanh",
        "query_pre_attn_scalar": hidden // n_head if n_layers == 62 else head_dim,
        "rms_norm_eps": g.f32("attention.layer_norm_rms_epsilon", None),
        "rope_theta": g.f32("rope.freq_base", 1000000.0),
        "rope_local_base_freq": 10000.0,
        "rope_scaling": None,
        "sliding_window": int(g("attention.sliding_window")),
        "_sliding_window_pattern": pattern,
        "layer_types": ["full_attention" if (i + 1) % pattern == 0 else "sliding_attention"
                        for i in range(n_layers)],
        "attn_logit_softcapping": None,
        "final_logit_softcapping": None,
        "attention_bias": False,
        "attention_dropout": 0.0,
        "use_bidirectional_attention": False,
        "max_position_embeddings": int(g("context_length")),
        "vocab_size": g.vocab(),
        "tie_word_embeddings": True,
        **g.special_ids(),
    }


def read_tensors(r, cfg, unpermute_qk=True):
    gemma = cfg["model_type"] == "gemma3_text"
    layer_tensors = GEMMA3_LAYER_TENSORS if gemma else LAYER_TENSORS
    global_tensors = GEMMA3_GLOBAL_TENSORS if gemma else GLOBAL_TENSORS
    out = {}
    for t in r.tensors:
        if t.name.startswith("blk."):
            _, layer, rest = t.name.split(".", 2)
            if rest not in layer_tensors:
                die(f"unexpected tensor {t.name}")
            name = f"model.layers.{layer}.{layer_tensors[rest]}"
        elif t.name in global_tensors:
            name = global_tensors[t.name]
        elif t.name == "rope_freqs.weight":
            die("rope_freqs.weight (LLaMA-3.1-style RoPE scaling) is not supported")
        else:
            die(f"unexpected tensor {t.name}")
        w = np.ascontiguousarray(dequantize(t.data, t.tensor_type), dtype=np.float32)
        # GGUF shape is ne (fastest dimension first); the array must be its reverse.
        if list(w.shape) != [int(n) for n in reversed(t.shape)]:
            die(f"{t.name}: dequantised shape {w.shape} does not match GGUF ne {list(t.shape)}")
        if gemma:
            if t.name.endswith("norm.weight"):  # llama.cpp stores Gemma's RMSNorm weights as 1 + w
                w = w - np.float32(1)
        elif unpermute_qk and name.endswith("q_proj.weight"):
            w = unpermute(w, cfg["num_attention_heads"])
        elif unpermute_qk and name.endswith("k_proj.weight"):
            w = unpermute(w, cfg["num_key_value_heads"])
        out[name] = np.ascontiguousarray(w)
    if gemma:
        expected = len(global_tensors) + len(layer_tensors) * cfg["num_hidden_layers"]
    else:
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
    if field(r, "tokenizer.ggml.model") == "llama" and field(r, "general.architecture") == "gemma3":
        return build_gemma_tokenizer(r)
    if field(r, "tokenizer.ggml.model") != "gpt2":
        die(f"tokenizer.ggml.model {field(r, 'tokenizer.ggml.model')!r}: only byte-level BPE ('gpt2') "
            "and Gemma's SentencePiece ('llama' in a gemma3 file)")
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


def generate_merges(vocab, vocab_scores):
    """transformers 5.x tokenization_utils_base.generate_merges (with vocab_scores given): every
    split of every piece into two pieces of the vocabulary, best score first."""
    merges = []
    for merge, piece_score in dict(vocab_scores).items():
        local = []
        for index in range(1, len(merge)):
            piece_l, piece_r = merge[:index], merge[index:]
            if piece_l in vocab and piece_r in vocab:
                local.append((piece_l, piece_r, piece_score))
        local = sorted(local, key=lambda x: (vocab[x[0]], vocab[x[1]]))
        merges.extend(local)
    merges = sorted(merges, key=lambda val: (val[2], len(val[0]), len(val[1])), reverse=True)
    return [(val[0], val[1]) for val in merges]


def build_gemma_tokenizer(r):
    """The tokenizer transformers 5.x builds from a Gemma GGUF (AutoTokenizer.from_pretrained(...,
    gguf_file=...)): gguf_tokenizer_mapping.gemma_tokenizer + GemmaTokenizer + add_gguf_special_tokens.
    The file has SentencePiece pieces and no merges: pieces made only of spaces are respelled with
    "\u2581", merges are derived from the vocabulary ranked by file position (Gemma's scores do not
    follow its merge order), and the pipeline is GemmaTokenizer's (BPE with byte fallback, " " ->
    "\u2581", no prefix space). scripts/check_gguf_conversion.py checks the result against
    transformers on the documents."""
    tokens = field(r, "tokenizer.ggml.tokens")
    types = field(r, "tokenizer.ggml.token_type")
    respelled = ["\u2581" * len(t) if " " in t and not t.strip() else t for t in tokens]
    vocab = {tok: i for i, tok in enumerate(respelled)}
    if len(vocab) != len(tokens):
        die("duplicate strings in tokenizer.ggml.tokens")
    positions = {tok: -i for i, tok in enumerate(respelled)}
    if any(field(r, f"tokenizer.ggml.{key}_token_id") is None for key in ("bos", "unknown")):
        die("no tokenizer.ggml.bos_token_id or tokenizer.ggml.unknown_token_id")
    special = {key: tokens[int(field(r, f"tokenizer.ggml.{key}_token_id"))] for key in ("bos", "unknown")}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=generate_merges(vocab, positions), dropout=None,
                               unk_token=special["unknown"], fuse_unk=True, byte_fallback=True))
    tok.normalizer = normalizers.Replace(" ", "\u2581")
    tok.pre_tokenizer = pre_tokenizers.Split(pattern=" ", behavior="merged_with_previous", invert=False)
    tok.decoder = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse()])
    # Control tokens (<pad>, <eos>, <bos>, <unk>, <mask>, <start_of_turn>, <unusedN>, ...) are special;
    # user-defined ones ("\n\n", "<b>", ...) are plain added tokens, matched whole; the pieces of
    # spaces were respelled above, so (as in transformers) they are not added.
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False)
                            for t, ty in zip(tokens, types) if ty == CONTROL])
    tok.add_tokens([AddedToken(t, special=False, normalized=False)
                    for t, ty in zip(tokens, types) if ty == USER_DEFINED and t in vocab])
    # As transformers' GemmaTokenizer (add_bos_token): BOS before a sequence when special tokens
    # are asked for. scripts/tokenize_docs.py asks for none.
    bos = special["bos"]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos}:0 $A:0", pair=f"{bos}:0 $A:0 {bos}:1 $B:1", special_tokens=[(bos, vocab[bos])])
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
    gemma = cfg["model_type"] == "gemma3_text"
    if gemma and a.keep_gguf_qk_order:
        die("--keep-gguf-qk-order: a gemma3 GGUF's q/k rows are not permuted (NEOX RoPE)")
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
          f"{n / 1e6:.1f}M parameters, "
          + ("norms minus 1, q/k as stored" if gemma else
             f"q/k {'left in GGUF order' if a.keep_gguf_qk_order else 'un-permuted'}"))


if __name__ == "__main__":
    main()
