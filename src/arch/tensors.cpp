#include "geoattn/arch/tensors.h"

#include <fmt/format.h>

namespace geoattn::arch {

namespace {

using D = Dim;
using K = TensorKind;
using P = Presence;

// Rows every layout shares, spelled once. Vectors are {size, D::None}.
constexpr D kVector = D::None;
// The model's own tensors.
constexpr TensorSpec kEmbed = {K::Embed, "model.embed_tokens.weight", {D::Vocab, D::Hidden}};
constexpr TensorSpec kFinalNorm = {K::FinalNorm, "model.norm.weight", {D::Hidden, kVector}};
constexpr TensorSpec kLmHead = {K::LmHead, "lm_head.weight", {D::Vocab, D::Hidden}, P::Untied};
// The attention's projections [out, in], then their biases [out].
constexpr TensorSpec kQ = {K::Q, "model.layers.{}.self_attn.q_proj.weight", {D::QDim, D::Hidden}};
constexpr TensorSpec kK = {K::K, "model.layers.{}.self_attn.k_proj.weight", {D::KVDim, D::Hidden}};
constexpr TensorSpec kV = {K::V, "model.layers.{}.self_attn.v_proj.weight", {D::KVDim, D::Hidden}};
constexpr TensorSpec kO = {K::O, "model.layers.{}.self_attn.o_proj.weight", {D::Hidden, D::QDim}};
constexpr TensorSpec kQBias = {K::QBias, "model.layers.{}.self_attn.q_proj.bias", {D::QDim, kVector}, P::QkvBias};
constexpr TensorSpec kKBias = {K::KBias, "model.layers.{}.self_attn.k_proj.bias", {D::KVDim, kVector}, P::QkvBias};
constexpr TensorSpec kVBias = {K::VBias, "model.layers.{}.self_attn.v_proj.bias", {D::KVDim, kVector}, P::QkvBias};
constexpr TensorSpec kOBias = {K::OBias, "model.layers.{}.self_attn.o_proj.bias", {D::Hidden, kVector}, P::OBias};
// q/k RMSNorm per head (Qwen3, Gemma-3).
constexpr TensorSpec kQNormHead = {K::QNorm, "model.layers.{}.self_attn.q_norm.weight", {D::HeadDim, kVector}};
constexpr TensorSpec kKNormHead = {K::KNorm, "model.layers.{}.self_attn.k_norm.weight", {D::HeadDim, kVector}};
// The MLP's projections, each with its bias.
constexpr TensorSpec kGate = {K::Gate, "model.layers.{}.mlp.gate_proj.weight", {D::Ffn, D::Hidden}};
constexpr TensorSpec kGateBias = {K::GateBias, "model.layers.{}.mlp.gate_proj.bias", {D::Ffn, kVector}, P::MlpBias};
constexpr TensorSpec kUp = {K::Up, "model.layers.{}.mlp.up_proj.weight", {D::Ffn, D::Hidden}};
constexpr TensorSpec kUpBias = {K::UpBias, "model.layers.{}.mlp.up_proj.bias", {D::Ffn, kVector}, P::MlpBias};
constexpr TensorSpec kDown = {K::Down, "model.layers.{}.mlp.down_proj.weight", {D::Hidden, D::Ffn}};
constexpr TensorSpec kDownBias = {K::DownBias, "model.layers.{}.mlp.down_proj.bias", {D::Hidden, kVector}, P::MlpBias};
// The block's norms. "post_attention_layernorm": before the MLP in the pre-norm layouts, after
// the attention in Gemma-2/3 and OLMo-2.
constexpr TensorSpec kInputNorm = {K::AttnNorm, "model.layers.{}.input_layernorm.weight", {D::Hidden, kVector}};
constexpr TensorSpec kPreMlpNorm = {K::MlpNorm, "model.layers.{}.post_attention_layernorm.weight", {D::Hidden, kVector}};
constexpr TensorSpec kPostAttnNorm = {K::AttnPostNorm, "model.layers.{}.post_attention_layernorm.weight", {D::Hidden, kVector}};
constexpr TensorSpec kPreFfnNorm = {K::MlpNorm, "model.layers.{}.pre_feedforward_layernorm.weight", {D::Hidden, kVector}};
constexpr TensorSpec kPostFfnNorm = {K::MlpPostNorm, "model.layers.{}.post_feedforward_layernorm.weight", {D::Hidden, kVector}};

// LLaMA, Mistral, Qwen2, Gemma 1: pre-norm; biases as the config says.
constexpr TensorSpec kLlama[] = {kEmbed, kInputNorm, kQ, kK, kV, kO, kQBias, kKBias, kVBias, kOBias, kPreMlpNorm,
                                 kGate, kUp, kDown, kGateBias, kUpBias, kDownBias, kFinalNorm, kLmHead};
// Qwen3: LLaMA's, with q/k RMSNorm per head.
constexpr TensorSpec kQwen3[] = {kEmbed, kInputNorm, kQ, kK, kV, kO, kQBias, kKBias, kVBias, kOBias, kQNormHead,
                                 kKNormHead, kPreMlpNorm, kGate, kUp, kDown, kFinalNorm, kLmHead};
// Gemma-2: sandwich norms around both the attention and the MLP.
constexpr TensorSpec kGemma2[] = {kEmbed, kInputNorm, kQ, kK, kV, kO, kQBias, kKBias, kVBias, kOBias, kPostAttnNorm,
                                  kPreFfnNorm, kGate, kUp, kDown, kPostFfnNorm, kFinalNorm, kLmHead};
// Gemma-3: Gemma-2's, with q/k RMSNorm per head.
constexpr TensorSpec kGemma3[] = {kEmbed, kInputNorm, kQ, kK, kV, kO, kQBias, kKBias, kVBias, kOBias, kQNormHead,
                                  kKNormHead, kPostAttnNorm, kPreFfnNorm, kGate, kUp, kDown, kPostFfnNorm,
                                  kFinalNorm, kLmHead};
// OLMo-2: norms after the attention and the MLP only; q/k RMSNorm over the whole projection.
constexpr TensorSpec kOlmo2[] = {
    kEmbed, kQ, kK, kV, kO, kQBias, kKBias, kVBias, kOBias,
    {K::QNorm, "model.layers.{}.self_attn.q_norm.weight", {D::QDim, kVector}},
    {K::KNorm, "model.layers.{}.self_attn.k_norm.weight", {D::KVDim, kVector}},
    kPostAttnNorm, kGate, kUp, kDown, kPostFfnNorm, kFinalNorm, kLmHead};
// Phi-3: fused q/k/v and gate/up projections (split into Q, K, V, Gate, Up at load).
constexpr TensorSpec kPhi3[] = {
    kEmbed, kInputNorm,
    {K::QKV, "model.layers.{}.self_attn.qkv_proj.weight", {D::QKVDim, D::Hidden}},
    kO, kPreMlpNorm,
    {K::GateUp, "model.layers.{}.mlp.gate_up_proj.weight", {D::Ffn2, D::Hidden}},
    kDown, kFinalNorm, kLmHead};

struct LayoutTable {
  TensorLayout layout;
  std::span<const TensorSpec> rows;
};
constexpr LayoutTable kLayouts[] = {
    {TensorLayout::Llama, kLlama},   {TensorLayout::Qwen3, kQwen3}, {TensorLayout::Gemma2, kGemma2},
    {TensorLayout::Gemma3, kGemma3}, {TensorLayout::Olmo2, kOlmo2}, {TensorLayout::Phi3, kPhi3},
};

// A table names each role at most once and each name at most once.
constexpr bool unique_rows(std::span<const TensorSpec> rows) {
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = i + 1; j < rows.size(); ++j)
      if (rows[i].kind == rows[j].kind || std::string_view(rows[i].hf_name) == rows[j].hf_name) return false;
  return true;
}
constexpr bool all_tables_unique() {
  for (const auto& t : kLayouts)
    if (!unique_rows(t.rows)) return false;
  return true;
}
static_assert(all_tables_unique(), "one row per role and per name in each tensor table");

}  // namespace

std::span<const TensorSpec> tensor_table(TensorLayout layout) {
  for (const auto& t : kLayouts)
    if (t.layout == layout) return t.rows;
  return {};
}

const TensorSpec* find_tensor(const ModelConfig& config, TensorKind kind) {
  for (const auto& row : tensor_table(config.tensor_layout))
    if (row.kind == kind) return &row;
  return nullptr;
}

namespace {
// The size `dim` stands for, in long double: exact for any config, before anything is checked.
long double dim_extent(Dim dim, const ModelConfig& c) {
  const long double heads = c.n_heads, kv_heads = c.n_kv_heads, head_dim = c.head_dim;
  switch (dim) {
    case Dim::Vocab: return c.vocab;
    case Dim::Hidden: return c.hidden;
    case Dim::HeadDim: return head_dim;
    case Dim::QDim: return heads * head_dim;
    case Dim::KVDim: return kv_heads * head_dim;
    case Dim::QKVDim: return (heads + 2 * kv_heads) * head_dim;
    case Dim::Ffn: return c.ffn;
    case Dim::Ffn2: return 2.0L * c.ffn;
    case Dim::None: return 1;
  }
  return 0;
}
}  // namespace

int64_t dim_size(Dim dim, const ModelConfig& c) { return static_cast<int64_t>(dim_extent(dim, c)); }

bool is_present(const TensorSpec& spec, const ModelConfig& c) {
  switch (spec.presence) {
    case Presence::Always: return true;
    case Presence::QkvBias: return c.qkv_bias;
    case Presence::OBias: return c.o_bias;
    case Presence::MlpBias: return c.mlp_bias;
    case Presence::Untied: return !c.tie_embeddings;
  }
  return false;
}

std::vector<int64_t> tensor_shape(const TensorSpec& spec, const ModelConfig& c) {
  std::vector<int64_t> shape;
  for (int i = 0; i < spec.rank(); ++i) shape.push_back(dim_size(spec.shape[i], c));
  return shape;
}

std::string tensor_name(const TensorSpec& spec, int64_t layer, TensorRoot root) {
  std::string name = spec.per_layer() ? fmt::format(fmt::runtime(spec.hf_name), layer) : std::string(spec.hf_name);
  constexpr std::string_view kModel = "model.";
  if (name.starts_with(kModel)) return std::string(root.model) + name.substr(kModel.size());
  return std::string(root.head) + name;
}

long double parameter_count_exact(const ModelConfig& c) {
  long double total = 0;
  for (const TensorSpec& spec : tensor_table(c.tensor_layout)) {
    if (!is_present(spec, c)) continue;
    long double numel = 1;
    for (int i = 0; i < spec.rank(); ++i) numel *= dim_extent(spec.shape[i], c);
    total += numel * (spec.per_layer() ? c.n_layers : 1);
  }
  return total;
}

int64_t ModelConfig::parameter_count() const { return static_cast<int64_t>(parameter_count_exact(*this)); }

}  // namespace geoattn::arch
