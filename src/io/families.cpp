#include "geoattn/io/families.h"

#include <string>

#include "geoattn/util/error.h"

namespace geoattn::io {

namespace {

using arch::Activation;
using arch::Family;
using arch::NormLayout;
using arch::NormStyle;
using arch::QkNorm;
using arch::TensorLayout;

// SPEC §8, one row per family, naming what differs from FamilySpec's defaults (LLaMA's; those
// of transformers' config classes, 5.x). Gemma 1 reads `hidden_activation` and uses the tanh
// GELU when it is absent, whatever `hidden_act` says (the original Gemma behaviour).
constexpr FamilySpec kFamilies[] = {
    {.architecture = "LlamaForCausalLM", .model_type = "llama", .family = Family::Llama, .mlp_bias = true},
    {.architecture = "MistralForCausalLM", .model_type = "mistral", .family = Family::Mistral, .bias = BiasRule::None,
     .windows = WindowRule::AllLayers, .default_sliding_window = 4096, .default_max_positions = 4096 * 32},
    {.architecture = "GemmaForCausalLM", .model_type = "gemma", .family = Family::Gemma,
     .activation_key = "hidden_activation", .default_activation = Activation::GeluTanh,
     .norm_style = NormStyle::OnePlusWeight, .scale_embeddings = true, .default_tied = true, .default_head_dim = 256,
     .default_max_positions = 8192},
    {.architecture = "Gemma2ForCausalLM", .model_type = "gemma2", .family = Family::Gemma2,
     .activation_key = "hidden_activation", .default_activation = Activation::GeluTanh,
     .norm_style = NormStyle::OnePlusWeight, .norm_layout = NormLayout::Sandwich, .tensors = TensorLayout::Gemma2,
     .scale_embeddings = true, .default_tied = true, .default_head_dim = 256, .windows = WindowRule::EvenLayers,
     .default_sliding_window = 4096, .gemma_attention = GemmaAttention::CapsApplied, .default_attn_softcap = 50.0,
     .default_final_softcap = 30.0, .default_max_positions = 8192},
    {.architecture = "Gemma3ForCausalLM", .model_type = "gemma3_text", .family = Family::Gemma3,
     .activation_key = "hidden_activation", .default_activation = Activation::GeluTanh,
     .norm_style = NormStyle::OnePlusWeight, .norm_layout = NormLayout::Sandwich, .qk_norm = QkNorm::PerHead,
     .tensors = TensorLayout::Gemma3, .scale_embeddings = true, .default_tied = true, .default_head_dim = 256,
     .windows = WindowRule::Pattern, .default_sliding_window = 4096, .gemma_attention = GemmaAttention::FinalCapOnly,
     .local_rope = true, .default_rope_theta = 1000000.0, .default_max_positions = 131072},
    {.architecture = "Qwen2ForCausalLM", .model_type = "qwen2", .family = Family::Qwen2, .bias = BiasRule::QkvAlways,
     .windows = WindowRule::FromLayer, .default_sliding_window = 4096, .default_max_positions = 32768},
    {.architecture = "Qwen3ForCausalLM", .model_type = "qwen3", .family = Family::Qwen3, .qk_norm = QkNorm::PerHead,
     .tensors = TensorLayout::Qwen3, .default_head_dim = 128, .windows = WindowRule::FromLayer,
     .default_sliding_window = 4096, .default_max_positions = 32768},
    {.architecture = "Phi3ForCausalLM", .model_type = "phi3", .family = Family::Phi3, .tensors = TensorLayout::Phi3,
     .bias = BiasRule::None, .windows = WindowRule::AllLayers, .phi_rope_keys = true, .default_rms_eps = 1e-5,
     .default_max_positions = 4096},
    {.architecture = "Olmo2ForCausalLM", .model_type = "olmo2", .family = Family::Olmo2,
     .norm_style = NormStyle::WeightBeforeCast, .norm_layout = NormLayout::Post, .qk_norm = QkNorm::Whole,
     .tensors = TensorLayout::Olmo2, .default_rms_eps = 1e-5},
};

}  // namespace

std::span<const FamilySpec> families() { return kFamilies; }

const FamilySpec& family_spec(arch::Family family) {
  for (const auto& f : kFamilies)
    if (f.family == family) return f;
  fail("internal: no family row");
}

const FamilySpec* find_family(std::string_view architecture, std::string_view model_type) {
  for (const auto& f : kFamilies)
    if (architecture == f.architecture || (architecture.empty() && model_type == f.model_type)) return &f;
  return nullptr;
}

std::string known_architectures() {
  std::string out;
  for (const auto& f : kFamilies) out += (out.empty() ? "" : ", ") + std::string(f.architecture);
  return out + ", Gemma3ForConditionalGeneration (its text model)";
}

}  // namespace geoattn::io
