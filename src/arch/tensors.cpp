#include "geoattn/arch/tensors.h"

#include <fmt/format.h>

namespace geoattn::arch {

int64_t dim_size(Dim dim, const ModelConfig& c) {
  switch (dim) {
    case Dim::Vocab: return c.vocab;
    case Dim::Hidden: return c.hidden;
    case Dim::QDim: return c.n_heads * c.head_dim;
    case Dim::KVDim: return c.n_kv_heads * c.head_dim;
    case Dim::Ffn: return c.ffn;
  }
  return 0;
}

bool is_present(const TensorSpec& spec, const ModelConfig& c) {
  switch (spec.presence) {
    case Presence::Always: return true;
    case Presence::AttentionBias: return c.attention_bias;
    case Presence::Untied: return !c.tie_embeddings;
  }
  return false;
}

std::vector<int64_t> tensor_shape(const TensorSpec& spec, const ModelConfig& c) {
  std::vector<int64_t> shape;
  for (int i = 0; i < spec.rank; ++i) shape.push_back(dim_size(spec.shape[i], c));
  return shape;
}

std::string tensor_name(const TensorSpec& spec, int64_t layer) {
  return spec.per_layer ? fmt::format(fmt::runtime(spec.hf_name), layer) : std::string(spec.hf_name);
}

// Every present tensor's elements, each per-layer one n_layers times (the tied head counts once).
int64_t ModelConfig::parameter_count() const {
  int64_t total = 0;
  for (const TensorSpec& spec : kTensors) {
    if (!is_present(spec, *this)) continue;
    int64_t numel = 1;
    for (int64_t n : tensor_shape(spec, *this)) numel *= n;
    total += numel * (spec.per_layer ? n_layers : 1);
  }
  return total;
}

}  // namespace geoattn::arch
