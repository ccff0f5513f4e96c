// The taxonomy thresholds <-> JSON (analysis/taxonomy.h, SPEC §6).
#include "geoattn/report/taxonomy_config_json.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "geoattn/util/error.h"

namespace geoattn::report {

namespace {
// The range each real threshold of kTaxonomyThresholds must lie in, by its name: the cosines in
// [-1, 1], the slack above 0, the rest at least 0 (reset_spread_entropy_min above 1 included: no
// row reaches it, and the sensitivity table's x1.25 of 0.9 is there).
void check_range(const std::string& key, double x) {
  if (key == "retriever_cos_vL_min" || key == "reset_cos_vL_max") {
    if (!(x >= -1 && x <= 1)) fail("taxonomy config: '{}' = {} must be a cosine in [-1, 1]", key, x);
  } else if (key == "mixer_slope_fdr") {
    if (!(x > 0 && x < 1)) fail("taxonomy config: '{}' = {} must be a level in (0, 1)", key, x);
  } else if (key == "mixer_between_slack") {
    if (!(x > 0) || !std::isfinite(x)) fail("taxonomy config: '{}' = {} must be a finite number > 0", key, x);
  } else if (!(x >= 0) || !std::isfinite(x)) {
    fail("taxonomy config: '{}' = {} must be a finite number >= 0{}", key, x,
         key == "reset_spread_entropy_min" ? " (a normalized entropy)" : "");
  }
}

}  // namespace

analysis::TaxonomyConfig taxonomy_config_from_json(const nlohmann::json& j) {
  if (!j.is_object()) fail("taxonomy config: expected a JSON object, got {}", j.type_name());
  analysis::TaxonomyConfig c;
  for (const auto& [key, v] : j.items()) {
    if (!key.empty() && key[0] == '_') continue;  // a comment
    const auto* t = std::find_if(std::begin(analysis::kTaxonomyThresholds), std::end(analysis::kTaxonomyThresholds),
                                 [&key](const auto& entry) { return key == entry.name; });
    if (t == std::end(analysis::kTaxonomyThresholds)) {
      std::string known;
      for (const auto& entry : analysis::kTaxonomyThresholds) known += (known.empty() ? "" : ", ") + std::string(entry.name);
      fail("taxonomy config: unknown key '{}' (known: {})", key, known);
    }
    if (t->real) {
      if (!v.is_number()) fail("taxonomy config: '{}' must be a number, got {}", key, v.dump());
      check_range(key, c.*t->real = v.get<double>());
    } else {
      if (!v.is_number_integer()) fail("taxonomy config: '{}' must be an integer, got {}", key, v.dump());
      c.*t->whole = v.get<int64_t>();
      if (c.*t->whole < 1) fail("taxonomy config: '{}' = {} must be >= 1", key, c.*t->whole);
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
