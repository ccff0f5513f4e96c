// Reference sets and frame types of attention sinks (SPEC §9; Ruscio et al. 2025).
#include "geoattn/analysis/frames.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "geoattn/util/error.h"

namespace geoattn::analysis {

namespace {

// Positions 0..T-1 by c descending, ties to the lower position.
std::vector<int64_t> by_score(const double* c, int64_t T) {
  std::vector<int64_t> order(T);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [c](int64_t a, int64_t b) { return c[a] > c[b]; });
  return order;
}

// One row per threshold of FrameConfig: its key, where it lives, and its range.
struct Key {
  const char* name;
  double FrameConfig::*real;
  int64_t FrameConfig::*integer;
  double lo, hi;
};
constexpr Key kKeys[] = {
    {"anchor_alpha_min", &FrameConfig::anchor_alpha_min, nullptr, 0, 1},
    {"comparable_ratio", &FrameConfig::comparable_ratio, nullptr, 0, 1},
    {"centralized_consistency", &FrameConfig::centralized_consistency, nullptr, 0, 1},
    {"distributed_consistency", &FrameConfig::distributed_consistency, nullptr, 0, 1},
    {"distributed_min_S", nullptr, &FrameConfig::distributed_min_S, 1, 1e9},
    {"distributed_min_R", nullptr, &FrameConfig::distributed_min_R, 1, 1e9},
    {"density_min", &FrameConfig::density_min, nullptr, 0, 1},
    {"density_max", &FrameConfig::density_max, nullptr, 0, 1},
    {"dormant_row_max", &FrameConfig::dormant_row_max, nullptr, 0, 1},
    {"dormant_col_min", &FrameConfig::dormant_col_min, nullptr, 0, 1},
};

const Key& key_named(const std::string& name) {
  for (const auto& k : kKeys)
    if (name == k.name) return k;
  std::string known;
  for (const auto& k : kKeys) known += (known.empty() ? "" : ", ") + std::string(k.name);
  fail("sinks config: unknown key '{}' (known: {}, sweep)", name, known);
}

void set_key(FrameConfig& c, const Key& k, const nlohmann::json& v) {
  if (k.integer ? !v.is_number_integer() : !v.is_number())
    fail("sinks config: '{}' must be {}, got {}", k.name, k.integer ? "an integer" : "a number", v.dump());
  const double x = v.get<double>();
  if (!(x >= k.lo && x <= k.hi)) fail("sinks config: '{}' = {} must be in [{}, {}]", k.name, v.dump(), k.lo, k.hi);
  if (k.integer)
    c.*k.integer = v.get<int64_t>();
  else
    c.*k.real = x;
}

// What no single key can check: the density range is a range.
void check_range(const FrameConfig& c) {
  if (c.density_min > c.density_max)
    fail("sinks config: density_min {} is above density_max {}", c.density_min, c.density_max);
}

}  // namespace

// SPEC §9: R = {j : c_j > 0.1}, else the top max(1, floor(0.1 T)); at most max(1, floor(0.3 T)).
std::vector<int64_t> reference_set(const double* c, int64_t T) {
  if (T < 1) return {};
  const std::vector<int64_t> order = by_score(c, T);
  const int64_t cap = std::max<int64_t>(1, static_cast<int64_t>(std::floor(0.3 * static_cast<double>(T))));
  int64_t n = 0;
  while (n < T && c[order[n]] > 0.1) ++n;
  if (n == 0) n = std::max<int64_t>(1, static_cast<int64_t>(std::floor(0.1 * static_cast<double>(T))));
  std::vector<int64_t> R(order.begin(), order.begin() + std::min(n, cap));
  std::sort(R.begin(), R.end());
  return R;
}

FrameConfig FrameConfig::from_json(const nlohmann::json& j) {
  if (!j.is_object()) fail("sinks config: expected a JSON object, got {}", j.type_name());
  FrameConfig c;
  for (const auto& [key, v] : j.items())
    if (!(key.empty() || key[0] == '_' || key == "sweep")) set_key(c, key_named(key), v);
  check_range(c);
  return c;
}

nlohmann::ordered_json FrameConfig::to_json() const {
  nlohmann::ordered_json j;
  for (const auto& k : kKeys) {
    if (k.integer)
      j[k.name] = this->*k.integer;
    else
      j[k.name] = this->*k.real;
  }
  return j;
}

std::vector<std::pair<std::string, FrameConfig>> sweep_configs(const nlohmann::json& j, const FrameConfig& base) {
  std::vector<std::pair<std::string, FrameConfig>> out;
  if (!j.is_object() || !j.contains("sweep")) return out;
  const auto& sweep = j.at("sweep");
  if (!sweep.is_object()) fail("sinks config: 'sweep' must be an object of key: [values]");
  for (const auto& [key, values] : sweep.items()) {
    const Key& k = key_named(key);
    if (!values.is_array()) fail("sinks config: sweep '{}' must be a list of values", key);
    for (const auto& v : values) {
      FrameConfig c = base;
      set_key(c, k, v);
      check_range(c);
      out.emplace_back(key, c);
    }
  }
  return out;
}

std::vector<FrameResult> classify_frames(const std::vector<LayerFrameInput>& layers, const FrameConfig& cfg) {
  std::vector<FrameResult> out;
  for (const auto& in : layers) {
    const int64_t T = std::min<int64_t>(anchor_candidates(static_cast<int64_t>(in.alpha.size())), in.alpha.size());
    FrameResult r;
    const std::vector<int64_t> order = by_score(in.alpha.data(), T);
    r.alpha1 = T > 0 ? in.alpha[order[0]] : 0;
    r.alpha2 = T > 1 ? in.alpha[order[1]] : 0;
    for (int64_t k = 0; k < T; ++k)
      if (in.alpha[k] >= cfg.anchor_alpha_min) r.S.push_back(k);
    r.anchor = r.S.empty() ? -1 : order[0];
    r.switched = !out.empty() && out.back().anchor >= 0 && r.anchor >= 0 && out.back().anchor != r.anchor;

    const int64_t nS = static_cast<int64_t>(r.S.size());
    const bool comparable = r.alpha2 >= cfg.comparable_ratio * r.alpha1;
    const auto numbers = fmt::format("|S| = {}, alpha1 = {:.3g}, alpha2 = {:.3g}, consistency = {:.3g}, |R| = {}", nS,
                                     r.alpha1, r.alpha2, in.consistency, in.reference_size);
    // SPEC §9 frame types, checked in order.
    if (nS == 1 && !comparable && in.consistency >= cfg.centralized_consistency) {
      r.type = "centralized", r.rule = "one anchor, alone, in most windows: " + numbers;
    } else if ((nS == 2 && comparable) || r.switched) {
      r.type = "bidirectional";
      r.rule = (r.switched ? fmt::format("the anchor moved from position {} (layer before): ", out.back().anchor)
                           : std::string("two anchors of comparable mass: ")) + numbers;
    } else if ((nS >= cfg.distributed_min_S || (nS != 1 && in.reference_size >= cfg.distributed_min_R)) &&
               in.consistency < cfg.distributed_consistency) {
      r.type = "distributed", r.rule = "several weak anchors, no consistent one: " + numbers;
    } else {
      r.type = "none", r.rule = "no rule fired: " + numbers;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace geoattn::analysis
