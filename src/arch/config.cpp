#include "geoattn/arch/config.h"

#include "geoattn/util/enum_names.h"

namespace geoattn::arch {

namespace {
constexpr EnumName<Family> kFamilyNames[] = {
    {Family::Llama, "llama"},   {Family::Mistral, "mistral"}, {Family::Gemma, "gemma"},
    {Family::Gemma2, "gemma2"}, {Family::Gemma3, "gemma3"},   {Family::Qwen2, "qwen2"},
    {Family::Qwen3, "qwen3"},   {Family::Phi3, "phi3"},       {Family::Olmo2, "olmo2"},
};
constexpr EnumName<Activation> kActivationNames[] = {
    {Activation::SiLU, "silu"}, {Activation::GeluTanh, "gelu_pytorch_tanh"}, {Activation::Gelu, "gelu"}};
constexpr EnumName<RopeKind> kRopeNames[] = {
    {RopeKind::Default, "default"}, {RopeKind::Linear, "linear"}, {RopeKind::Dynamic, "dynamic"},
    {RopeKind::Llama3, "llama3"},   {RopeKind::Yarn, "yarn"},     {RopeKind::LongRope, "longrope"}};
constexpr EnumName<NormStyle> kNormStyleNames[] = {{NormStyle::WeightAfterCast, "weight_after_cast"},
                                                   {NormStyle::WeightBeforeCast, "weight_before_cast"},
                                                   {NormStyle::OnePlusWeight, "one_plus_weight"}};
constexpr EnumName<NormLayout> kNormLayoutNames[] = {
    {NormLayout::Pre, "pre"}, {NormLayout::Sandwich, "sandwich"}, {NormLayout::Post, "post"}};
constexpr EnumName<QkNorm> kQkNormNames[] = {
    {QkNorm::None, "none"}, {QkNorm::PerHead, "per_head"}, {QkNorm::Whole, "whole"}};
}  // namespace

const char* family_name(Family family) { return name_of(kFamilyNames, family); }
const char* activation_name(Activation act) { return name_of(kActivationNames, act); }
const char* rope_kind_name(RopeKind kind) { return name_of(kRopeNames, kind); }
const char* norm_style_name(NormStyle style) { return name_of(kNormStyleNames, style); }
const char* norm_layout_name(NormLayout layout) { return name_of(kNormLayoutNames, layout); }
const char* qk_norm_name(QkNorm norm) { return name_of(kQkNormNames, norm); }

std::vector<int64_t> ModelConfig::layer_windows() const {
  std::vector<int64_t> out;
  for (const auto& layer : layers) out.push_back(layer.window);
  return out;
}

int64_t ModelConfig::sliding_window() const {
  int64_t window = 0;
  for (const auto& layer : layers) {
    if (layer.window == 0) continue;
    if (window != 0 && layer.window != window) return 0;
    window = layer.window;
  }
  return window;
}

}  // namespace geoattn::arch
