#include "geoattn/model/capture.h"

#include <string_view>

#include "geoattn/util/enum_names.h"
#include "geoattn/util/error.h"

namespace geoattn::model {

namespace {
// The hook names: ours first (name_of writes them), then TransformerLens's spellings.
constexpr EnumName<HookPoint> kPoints[] = {
    {HookPoint::AttnPattern, "attn.pattern"}, {HookPoint::AttnV, "attn.v"},
    {HookPoint::ResidPre, "hook_resid_pre"},  {HookPoint::AttnZ, "attn.z"},
    {HookPoint::AttnPattern, "attn.hook_pattern"}, {HookPoint::AttnV, "attn.hook_v"},
    {HookPoint::AttnZ, "attn.hook_z"},
};
constexpr const char* kKnown =
    "attn.pattern, attn.v, hook_resid_pre, attn.z, attn.hook_pattern, attn.hook_v, attn.hook_z";
}  // namespace

std::pair<int64_t, HookPoint> HookSpec::parse(const std::string& name, int64_t n_layers) {
  constexpr std::string_view prefix = "blocks.";
  const auto dot = name.find('.', prefix.size());
  if (name.compare(0, prefix.size(), prefix) != 0 || dot == std::string::npos)
    fail("capture point '{}': expected blocks.<layer>.<point> ({})", name, kKnown);
  const std::string layer_text = name.substr(prefix.size(), dot - prefix.size());
  const std::string suffix = name.substr(dot + 1);
  int64_t layer = -1;
  if (layer_text != "*") {
    if (layer_text.empty() || layer_text.find_first_not_of("0123456789") != std::string::npos || layer_text.size() > 9)
      fail("capture point '{}': layer must be a number or '*'", name);
    layer = std::stoll(layer_text);
    if (layer >= n_layers) fail("capture point '{}': the model has layers 0..{}", name, n_layers - 1);
  }
  if (auto point = value_of(kPoints, suffix)) return {layer, *point};
  fail("capture point '{}': unknown point '{}' ({})", name, suffix, kKnown);
}

HookSpec::HookSpec(const std::vector<std::string>& names, int64_t n_layers, std::vector<int64_t> queries,
                   RowsDtype rows_dtype)
    : n_layers_(n_layers), queries_(std::move(queries)), rows_dtype_(rows_dtype), wanted_(n_layers * kHookPoints, 0) {
  for (const auto& name : names) {
    auto [layer, point] = parse(name, n_layers);
    for (int64_t l = (layer < 0 ? 0 : layer); l < (layer < 0 ? n_layers : layer + 1); ++l) {
      wanted_[l * kHookPoints + static_cast<int>(point)] = 1;
      last_layer_ = std::max(last_layer_, l);
    }
  }
}

std::string HookSpec::name_of(int64_t layer, HookPoint point) {
  return "blocks." + std::to_string(layer) + "." + geoattn::name_of(kPoints, point);
}

void HookCache::record(int64_t layer, HookPoint point, torch::Tensor value) {
  values_[layer * kHookPoints + static_cast<int>(point)] = std::move(value);
}

bool HookCache::has(int64_t layer, HookPoint point) const {
  return layer >= 0 && layer < n_layers_ && values_[layer * kHookPoints + static_cast<int>(point)].defined();
}

bool HookCache::has(const std::string& name) const {
  auto [layer, point] = HookSpec::parse(name, n_layers_);
  if (layer < 0) fail("capture point '{}': has() takes one layer, not '*'", name);
  return has(layer, point);
}

const torch::Tensor& HookCache::get(int64_t layer, HookPoint point) const {
  if (!has(layer, point))
    fail("capture point '{}' was not captured (was it asked for?)", HookSpec::name_of(layer, point));
  return values_[layer * kHookPoints + static_cast<int>(point)];
}

const torch::Tensor& HookCache::get(const std::string& name) const {
  auto [layer, point] = HookSpec::parse(name, n_layers_);
  if (layer < 0) fail("capture point '{}': get() takes one layer, not '*'", name);
  return get(layer, point);
}

torch::Tensor HookCache::stacked(HookPoint point) const {
  std::vector<torch::Tensor> layers;
  for (int64_t l = 0; l < n_layers_; ++l) layers.push_back(get(l, point));
  return torch::stack(layers, 1);
}

void HookCache::clear() {
  for (auto& v : values_) v = torch::Tensor();
}

}  // namespace geoattn::model
