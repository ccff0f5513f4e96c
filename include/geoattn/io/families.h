#pragma once
// Everything that differs between the model families, one row each (SPEC §8): the mechanisms
// of arch/config.h and the defaults transformers' config classes give keys a config.json
// leaves out. io/config.cpp reads a config through the row of its architecture. No LibTorch.
#include <cstdint>
#include <span>
#include <string_view>

#include "geoattn/arch/config.h"

namespace geoattn::io {

// RoPE's base where a config does not give one: RoFormer's 10000, which LLaMA and the HF configs keep.
inline constexpr double kRopeBase = 10000.0;

// Which layers attend through a sliding window when config.json has no `layer_types`.
enum class WindowRule {
  None,        // no layer (LLaMA, Gemma 1, OLMo-2)
  AllLayers,   // every layer when sliding_window is set (Mistral, Phi-3)
  EvenLayers,  // layers 0, 2, 4, ... (Gemma-2)
  Pattern,     // all but every sliding_window_pattern-th layer (Gemma-3)
  FromLayer,   // layers >= max_window_layers when use_sliding_window (Qwen2, Qwen3)
};

// Which projections carry biases.
enum class BiasRule {
  None,           // none, and no config key for them (Mistral, Phi-3)
  AttentionBias,  // attention_bias: q, k, v and o (LLaMA, Qwen3, Gemma, OLMo-2)
  QkvAlways,      // q, k, v always, o never (Qwen2)
};

// Gemma's attention keys: query_pre_attn_scalar and the tanh soft-caps.
enum class GemmaAttention {
  None,          // neither (scores scaled by 1 / sqrt(head_dim))
  CapsApplied,   // query_pre_attn_scalar; attention and final soft-caps (Gemma-2)
  FinalCapOnly,  // query_pre_attn_scalar; the final soft-cap only: transformers' Gemma-3 never
                 // applies attn_logit_softcapping, so a set one is refused (Gemma-3)
};

// A family's row. The defaults are LLaMA's: a row names only what differs (families.cpp).
struct FamilySpec {
  std::string_view architecture;  // config "architectures"[0]
  std::string_view model_type;    // config "model_type"
  arch::Family family;
  const char* activation_key = "hidden_act";                   // the config field that names the MLP activation
  arch::Activation default_activation = arch::Activation::SiLU;  // when that field is absent
  arch::NormStyle norm_style = arch::NormStyle::WeightAfterCast;
  arch::NormLayout norm_layout = arch::NormLayout::Pre;
  arch::QkNorm qk_norm = arch::QkNorm::None;
  arch::TensorLayout tensors = arch::TensorLayout::Llama;
  BiasRule bias = BiasRule::AttentionBias;
  bool mlp_bias = false;            // reads mlp_bias (LLaMA)
  bool scale_embeddings = false;    // embeddings * sqrt(hidden), in the run dtype (Gemma)
  bool default_tied = false;        // tie_word_embeddings when the config does not say
  int64_t default_head_dim = 0;     // 0: hidden_size / num_attention_heads
  WindowRule windows = WindowRule::None;
  int64_t default_sliding_window = 0;  // when the config does not say (0: none)
  GemmaAttention gemma_attention = GemmaAttention::None;
  double default_attn_softcap = 0, default_final_softcap = 0;  // 0: none
  bool local_rope = false;          // sliding layers use rope_local_base_freq (Gemma-3)
  bool phi_rope_keys = false;       // reads partial_rotary_factor and a top-level original_max_position_embeddings (Phi-3)
  double default_rope_theta = kRopeBase;
  double default_local_rope_theta = kRopeBase;  // rope_local_base_freq when the config does not say (local_rope)
  double default_rms_eps = 1e-6;
  int64_t default_max_positions = 2048;
};

std::span<const FamilySpec> families();
const FamilySpec& family_spec(arch::Family family);
// The row of a causal LM's "architectures"[0] (or, without it, its "model_type"); nullptr if none.
const FamilySpec* find_family(std::string_view architecture, std::string_view model_type);
// "LlamaForCausalLM, MistralForCausalLM, ..." for error messages.
std::string known_architectures();

}  // namespace geoattn::io
