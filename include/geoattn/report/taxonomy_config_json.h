#pragma once
// The taxonomy thresholds (analysis/taxonomy.h) as JSON: configs/taxonomy.json, and the
// "config" of a taxonomy result. Pure C++.
#include <nlohmann/json.hpp>

#include "geoattn/analysis/taxonomy.h"

namespace geoattn::report {

// Missing keys keep their defaults; keys starting with '_' are comments; any other unknown
// key, a wrong type or a value out of range (cosines in [-1, 1], ratio >= 0, reset_n_max >= 1)
// is a geoattn::Error naming the key ("taxonomy config: ...").
analysis::TaxonomyConfig taxonomy_config_from_json(const nlohmann::json& j);
nlohmann::ordered_json to_json(const analysis::TaxonomyConfig& c);

}  // namespace geoattn::report
