#pragma once
// The tensors of a decoder checkpoint as keyed data (llama.cpp's llama-arch.cpp): one row per
// tensor kind with its Hugging Face name, its shape in terms of the config and when it is
// present. Validation, loading, expected_tensors and the parameter count all iterate this
// table; nothing lists the tensors a second time. Pure C++.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "geoattn/arch/config.h"

namespace geoattn::arch {

enum class TensorKind {
  Embed, AttnNorm, Q, K, V, O, QBias, KBias, VBias, OBias, MlpNorm, Gate, Up, Down, FinalNorm, LmHead, kCount
};

// The sizes a shape is written in.
enum class Dim { Vocab, Hidden, QDim /* heads x head_dim */, KVDim /* kv_heads x head_dim */, Ffn };

enum class Presence { Always, AttentionBias /* config.attention_bias */, Untied /* !tie_embeddings */ };

struct TensorSpec {
  TensorKind kind;
  const char* hf_name;  // "{}" is the layer index
  bool per_layer;
  int rank;             // 1 or 2
  std::array<Dim, 2> shape;
  Presence presence;
};

// SPEC §8: LLaMA, Mistral and Gemma share these names (a family that renames a tensor adds
// its own table). Rows in TensorKind order, model tensors around the per-layer block.
inline constexpr TensorSpec kTensors[] = {
    {TensorKind::Embed, "model.embed_tokens.weight", false, 2, {Dim::Vocab, Dim::Hidden}, Presence::Always},
    {TensorKind::AttnNorm, "model.layers.{}.input_layernorm.weight", true, 1, {Dim::Hidden}, Presence::Always},
    {TensorKind::Q, "model.layers.{}.self_attn.q_proj.weight", true, 2, {Dim::QDim, Dim::Hidden}, Presence::Always},
    {TensorKind::K, "model.layers.{}.self_attn.k_proj.weight", true, 2, {Dim::KVDim, Dim::Hidden}, Presence::Always},
    {TensorKind::V, "model.layers.{}.self_attn.v_proj.weight", true, 2, {Dim::KVDim, Dim::Hidden}, Presence::Always},
    {TensorKind::O, "model.layers.{}.self_attn.o_proj.weight", true, 2, {Dim::Hidden, Dim::QDim}, Presence::Always},
    {TensorKind::QBias, "model.layers.{}.self_attn.q_proj.bias", true, 1, {Dim::QDim}, Presence::AttentionBias},
    {TensorKind::KBias, "model.layers.{}.self_attn.k_proj.bias", true, 1, {Dim::KVDim}, Presence::AttentionBias},
    {TensorKind::VBias, "model.layers.{}.self_attn.v_proj.bias", true, 1, {Dim::KVDim}, Presence::AttentionBias},
    {TensorKind::OBias, "model.layers.{}.self_attn.o_proj.bias", true, 1, {Dim::Hidden}, Presence::AttentionBias},
    {TensorKind::MlpNorm, "model.layers.{}.post_attention_layernorm.weight", true, 1, {Dim::Hidden}, Presence::Always},
    {TensorKind::Gate, "model.layers.{}.mlp.gate_proj.weight", true, 2, {Dim::Ffn, Dim::Hidden}, Presence::Always},
    {TensorKind::Up, "model.layers.{}.mlp.up_proj.weight", true, 2, {Dim::Ffn, Dim::Hidden}, Presence::Always},
    {TensorKind::Down, "model.layers.{}.mlp.down_proj.weight", true, 2, {Dim::Hidden, Dim::Ffn}, Presence::Always},
    {TensorKind::FinalNorm, "model.norm.weight", false, 1, {Dim::Hidden}, Presence::Always},
    {TensorKind::LmHead, "lm_head.weight", false, 2, {Dim::Vocab, Dim::Hidden}, Presence::Untied},
};
static_assert(std::size(kTensors) == static_cast<size_t>(TensorKind::kCount), "one row per tensor kind");

constexpr bool rows_in_kind_order() {
  for (size_t i = 0; i < std::size(kTensors); ++i)
    if (static_cast<size_t>(kTensors[i].kind) != i) return false;
  return true;
}
static_assert(rows_in_kind_order(), "kTensors[k] is the row of TensorKind k");

constexpr const TensorSpec& tensor_spec(TensorKind kind) { return kTensors[static_cast<size_t>(kind)]; }

int64_t dim_size(Dim dim, const ModelConfig& config);
bool is_present(const TensorSpec& spec, const ModelConfig& config);
std::vector<int64_t> tensor_shape(const TensorSpec& spec, const ModelConfig& config);
// The checkpoint name of `spec` in `layer` (ignored for model tensors).
std::string tensor_name(const TensorSpec& spec, int64_t layer = 0);

}  // namespace geoattn::arch
