// The taxonomy thresholds <-> JSON (analysis/taxonomy.h, SPEC §6).
#include "geoattn/report/taxonomy_config_json.h"

#include <cmath>
#include <string>

#include "geoattn/util/error.h"

namespace geoattn::report {

namespace {
void read_cos(const nlohmann::json& v, const std::string& key, double& out) {
  if (!v.is_number()) fail("taxonomy config: '{}' must be a number, got {}", key, v.dump());
  out = v.get<double>();
  if (!(out >= -1 && out <= 1)) fail("taxonomy config: '{}' = {} must be a cosine in [-1, 1]", key, out);
}

}  // namespace

analysis::TaxonomyConfig taxonomy_config_from_json(const nlohmann::json& j) {
  if (!j.is_object()) fail("taxonomy config: expected a JSON object, got {}", j.type_name());
  analysis::TaxonomyConfig c;
  for (const auto& [key, v] : j.items()) {
    if (!key.empty() && key[0] == '_') continue;  // a comment
    if (key == "retriever_cos_vL_min") {
      read_cos(v, key, c.retriever_cos_vL_min);
    } else if (key == "reset_cos_vL_max") {
      read_cos(v, key, c.reset_cos_vL_max);
    } else if (key == "reset_sink_ratio") {
      if (!v.is_number()) fail("taxonomy config: '{}' must be a number, got {}", key, v.dump());
      c.reset_sink_ratio = v.get<double>();
      if (!(c.reset_sink_ratio >= 0) || !std::isfinite(c.reset_sink_ratio))
        fail("taxonomy config: '{}' = {} must be a finite number >= 0", key, c.reset_sink_ratio);
    } else if (key == "reset_spread_entropy_min") {
      if (!v.is_number()) fail("taxonomy config: '{}' must be a number, got {}", key, v.dump());
      c.reset_spread_entropy_min = v.get<double>();
      // Above 1 no row reaches it (the sensitivity table's x1.25 of 0.9): allowed, as the table has it.
      if (!(c.reset_spread_entropy_min >= 0) || !std::isfinite(c.reset_spread_entropy_min))
        fail("taxonomy config: '{}' = {} must be a finite number >= 0 (a normalized entropy)", key, c.reset_spread_entropy_min);
    } else if (key == "mixer_between_slack") {
      if (!v.is_number()) fail("taxonomy config: '{}' must be a number, got {}", key, v.dump());
      c.mixer_between_slack = v.get<double>();
      if (!(c.mixer_between_slack > 0) || !std::isfinite(c.mixer_between_slack))
        fail("taxonomy config: '{}' = {} must be a finite number > 0", key, c.mixer_between_slack);
    } else if (key == "reset_n_max") {
      if (!v.is_number_integer()) fail("taxonomy config: '{}' must be an integer, got {}", key, v.dump());
      c.reset_n_max = v.get<int64_t>();
      if (c.reset_n_max < 1) fail("taxonomy config: '{}' = {} must be >= 1", key, c.reset_n_max);
    } else {
      std::string known;
      for (const auto& t : analysis::kTaxonomyThresholds) known += (known.empty() ? "" : ", ") + std::string(t.name);
      fail("taxonomy config: unknown key '{}' (known: {})", key, known);
    }
  }
  return c;
}

nlohmann::ordered_json to_json(const analysis::TaxonomyConfig& c) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& t : analysis::kTaxonomyThresholds) {
    if (t.real) out[t.name] = c.*t.real;
    else out[t.name] = c.*t.whole;
  }
  return out;
}

}  // namespace geoattn::report
