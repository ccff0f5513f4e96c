#pragma once
// The tensors of a decoder checkpoint as keyed data (llama.cpp's llama-arch.cpp): one table per
// tensor layout, one row per tensor with its role, its Hugging Face name, its shape in terms of
// the config and when it is present. A name means one role in one table only (Gemma-2's
// post_attention_layernorm follows the attention; LLaMA's precedes the MLP). Validation,
// loading, expected_tensors and the parameter count all iterate these tables; nothing lists
// the tensors a second time. Pure C++.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "geoattn/arch/config.h"

namespace geoattn::arch {

// What a tensor is for, whatever the checkpoint calls it.
enum class TensorKind {
  Embed,
  AttnNorm, AttnPostNorm, MlpNorm, MlpPostNorm,  // the block's norms (NormLayout)
  Q, K, V, QKV /* fused q, k, v rows (Phi-3) */, O,
  QBias, KBias, VBias, OBias,
  QNorm, KNorm,
  Gate, Up, GateUp /* fused gate, up rows (Phi-3) */, Down,
  GateBias, UpBias, DownBias,
  FinalNorm, LmHead,
  kCount
};

// The sizes a shape is written in.
enum class Dim {
  Vocab, Hidden, HeadDim,
  QDim,    // heads x head_dim
  KVDim,   // kv_heads x head_dim
  QKVDim,  // QDim + 2 KVDim
  Ffn, Ffn2 /* 2 x Ffn */,
  None     // no second dimension (a vector)
};

enum class Presence {
  Always,
  QkvBias,  // config.qkv_bias
  OBias,    // config.o_bias
  MlpBias,  // config.mlp_bias
  Untied,   // !tie_embeddings
};

struct TensorSpec {
  TensorKind kind;
  const char* hf_name;  // "{}" is the layer index; "model." is the model root (see tensor_name)
  std::array<Dim, 2> shape;  // [rows, columns], or [size, Dim::None]
  Presence presence = Presence::Always;

  constexpr bool per_layer() const { return std::string_view(hf_name).find("{}") != std::string_view::npos; }
  constexpr int rank() const { return shape[1] == Dim::None ? 1 : 2; }
};

// The rows of `layout`: model tensors around the per-layer block, in checkpoint order.
std::span<const TensorSpec> tensor_table(TensorLayout layout);
// The row of `kind` in the config's table, or nullptr when that layout has no such tensor.
const TensorSpec* find_tensor(const ModelConfig& config, TensorKind kind);

int64_t dim_size(Dim dim, const ModelConfig& config);
bool is_present(const TensorSpec& spec, const ModelConfig& config);
std::vector<int64_t> tensor_shape(const TensorSpec& spec, const ModelConfig& config);
// Where a checkpoint keeps the decoder: `model` replaces the leading "model." of the tables'
// names, `head` stands before "lm_head.weight". Causal LMs: {"model.", ""}; the text model of
// Gemma-3's multimodal checkpoints: {"language_model.model.", "language_model."} (the Hub's
// files) or {"model.language_model.", ""} (transformers 5.x).
struct TensorRoot {
  std::string_view model = "model.";
  std::string_view head = "";
};
// The checkpoint name of `spec` in `layer` (ignored for model tensors).
std::string tensor_name(const TensorSpec& spec, int64_t layer = 0, TensorRoot root = {});
// Every present tensor's elements, each per-layer one n_layers times (the tied head counts
// once), in long double: what the config asks for, before anything is sized from it.
long double parameter_count_exact(const ModelConfig& config);

}  // namespace geoattn::arch
