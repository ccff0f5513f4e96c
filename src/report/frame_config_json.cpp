// The frame-type rule of `geoattn sinks` <-> JSON (configs/sinks.json, SPEC §9).
#include "geoattn/report/frame_config_json.h"

#include <string>

#include "geoattn/util/error.h"

namespace geoattn::report {

using analysis::FrameConfig;
using nlohmann::ordered_json;

namespace {

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
constexpr const char* kSweep = "sweep";

bool is_note(const std::string& key) { return key.empty() || key[0] == '_'; }

const Key& key_named(const std::string& name) {
  for (const auto& k : kKeys)
    if (name == k.name) return k;
  std::string known;
  for (const auto& k : kKeys) known += (known.empty() ? "" : ", ") + std::string(k.name);
  fail("sinks config: unknown key '{}' (known: {}, sweep)", name, known);
}

void set_key(FrameConfig& c, const Key& k, const ordered_json& v) {
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

std::vector<metrics::FrameSweep> sweep_from_json(const ordered_json& j, const FrameConfig& base) {
  std::vector<metrics::FrameSweep> out;
  if (!j.contains(kSweep)) return out;
  const auto& sweep = j.at(kSweep);
  if (!sweep.is_object()) fail("sinks config: 'sweep' must be an object of key: [values]");
  for (const auto& [key, values] : sweep.items()) {
    const Key& k = key_named(key);
    if (!values.is_array()) fail("sinks config: sweep '{}' must be a list of values", key);
    metrics::FrameSweep s{key, {}};
    for (const auto& v : values) {
      FrameConfig c = base;
      set_key(c, k, v);
      check_range(c);
      s.configs.push_back(c);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

FrameConfig frame_config_from_json(const ordered_json& j) {
  if (!j.is_object()) fail("sinks config: expected a JSON object, got {}", j.type_name());
  FrameConfig c;
  for (const auto& [key, v] : j.items())
    if (!(is_note(key) || key == kSweep)) set_key(c, key_named(key), v);
  check_range(c);
  return c;
}

ordered_json to_json(const FrameConfig& c) {
  ordered_json j = ordered_json::object();
  for (const auto& k : kKeys) {
    if (k.integer)
      j[k.name] = c.*k.integer;
    else
      j[k.name] = c.*k.real;
  }
  return j;
}

metrics::SinkRule sink_rule_from_json(const ordered_json& j) {
  metrics::SinkRule rule;
  rule.config = frame_config_from_json(j);  // checks that j is an object
  for (const auto& [key, v] : j.items()) {
    if (!is_note(key)) continue;
    if (!v.is_string()) fail("sinks config: '{}' is a comment (it starts with '_') and must be a string", key);
    rule.notes.emplace_back(key, v.get<std::string>());
  }
  rule.sweep = sweep_from_json(j, rule.config);
  return rule;
}

ordered_json to_json(const metrics::SinkRule& rule) {
  ordered_json j = ordered_json::object();
  for (const auto& [key, text] : rule.notes) j[key] = text;
  j.update(to_json(rule.config));
  if (rule.sweep.empty()) return j;
  ordered_json& sweep = j[kSweep] = ordered_json::object();
  for (const auto& s : rule.sweep) {
    ordered_json values = ordered_json::array();
    for (const auto& c : s.configs) values.push_back(sweep_value(s, c));
    sweep[s.key] = std::move(values);
  }
  return j;
}

ordered_json sweep_value(const metrics::FrameSweep& sweep, const FrameConfig& c) { return to_json(c).at(sweep.key); }

}  // namespace geoattn::report
