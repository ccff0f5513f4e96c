#include "geoattn/model/capture.h"

#include <string_view>

#include "geoattn/util/error.h"

namespace geoattn::model {

namespace {
struct PointName {
  std::string_view suffix;
  HookPoint point;
};
// The hook names, one row per point.
constexpr PointName kPoints[] = {
    {"attn.pattern", HookPoint::AttnPattern},
    {"attn.v", HookPoint::AttnV},
    {"hook_resid_pre", HookPoint::ResidPre},
};

std::string_view suffix_of(HookPoint point) {
  for (const auto& p : kPoints)
    if (p.point == point) return p.suffix;
  return "?";
}

// "blocks.{l}.{suffix}" -> (layer or -1 for '*', point)
std::pair<int64_t, HookPoint> parse_name(const std::string& name, int64_t n_layers) {
  constexpr std::string_view prefix = "blocks.";
  const auto dot = name.find('.', prefix.size());
  if (name.compare(0, prefix.size(), prefix) != 0 || dot == std::string::npos)
    fail("capture point '{}': expected blocks.<layer>.<point> (attn.pattern, attn.v, hook_resid_pre)", name);
  const std::string layer_text = name.substr(prefix.size(), dot - prefix.size());
  const std::string suffix = name.substr(dot + 1);
  int64_t layer = -1;
  if (layer_text != "*") {
    if (layer_text.empty() || layer_text.find_first_not_of("0123456789") != std::string::npos || layer_text.size() > 9)
      fail("capture point '{}': layer must be a number or '*'", name);
    layer = std::stoll(layer_text);
    if (layer >= n_layers) fail("capture point '{}': the model has layers 0..{}", name, n_layers - 1);
  }
  for (const auto& p : kPoints)
    if (p.suffix == suffix) return {layer, p.point};
  fail("capture point '{}': unknown point '{}' (attn.pattern, attn.v, hook_resid_pre)", name, suffix);
}
}  // namespace

Capture::Capture(const std::vector<std::string>& names, int64_t n_layers, std::vector<int64_t> queries)
    : n_layers_(n_layers), queries_(std::move(queries)), wanted_(n_layers * kHookPoints, 0),
      values_(n_layers * kHookPoints) {
  for (const auto& name : names) {
    auto [layer, point] = parse_name(name, n_layers);
    for (int64_t l = (layer < 0 ? 0 : layer); l < (layer < 0 ? n_layers : layer + 1); ++l) {
      wanted_[l * kHookPoints + static_cast<int>(point)] = 1;
      last_layer_ = std::max(last_layer_, l);
    }
  }
}

std::string Capture::name_of(int64_t layer, HookPoint point) {
  return "blocks." + std::to_string(layer) + "." + std::string(suffix_of(point));
}

void Capture::record(int64_t layer, HookPoint point, torch::Tensor value) {
  values_[layer * kHookPoints + static_cast<int>(point)] = std::move(value);
}

int64_t Capture::index_of(const std::string& name) const {
  auto [layer, point] = parse_name(name, n_layers_);
  if (layer < 0) fail("capture point '{}': get() takes one layer, not '*'", name);
  return layer * kHookPoints + static_cast<int>(point);
}

bool Capture::has(const std::string& name) const { return values_[index_of(name)].defined(); }

const torch::Tensor& Capture::get(const std::string& name) const {
  const auto& t = values_[index_of(name)];
  if (!t.defined()) fail("capture point '{}' was not captured (was it asked for?)", name);
  return t;
}

torch::Tensor Capture::stacked(HookPoint point) const {
  std::vector<torch::Tensor> layers;
  for (int64_t l = 0; l < n_layers_; ++l) layers.push_back(get(name_of(l, point)));
  return torch::stack(layers, 1);
}

void Capture::clear() {
  for (auto& v : values_) v = torch::Tensor();
}

}  // namespace geoattn::model
