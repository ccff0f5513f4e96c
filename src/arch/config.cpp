#include "geoattn/arch/config.h"

namespace geoattn::arch {

int64_t ModelConfig::parameter_count() const {
  const int64_t q_dim = n_heads * head_dim, kv_dim = n_kv_heads * head_dim;
  int64_t attn = hidden * q_dim + 2 * hidden * kv_dim + q_dim * hidden;
  if (attention_bias) attn += q_dim + 2 * kv_dim + hidden;
  const int64_t mlp = 3 * hidden * ffn;
  const int64_t per_layer = attn + mlp + 2 * hidden;
  const int64_t embed = vocab * hidden * (tie_embeddings ? 1 : 2);
  return n_layers * per_layer + embed + hidden;
}

const char* family_name(Family family) {
  switch (family) {
    case Family::Llama: return "llama";
    case Family::Mistral: return "mistral";
    case Family::Gemma: return "gemma";
  }
  return "?";
}

const char* activation_name(Activation act) {
  switch (act) {
    case Activation::SiLU: return "silu";
    case Activation::GeluTanh: return "gelu_pytorch_tanh";
    case Activation::Gelu: return "gelu";
  }
  return "?";
}

}  // namespace geoattn::arch
