#pragma once
// The result of geoattn intervene as JSON (docs/schema/geoattn.intervene-1.schema.json): the
// model, the data, the settings, then per intervention its heads, what was done to them, and its
// readings with their intervals (metrics/intervene/loss_stats.h), and each document's sums for
// geoattn merge. Pure C++.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/metrics/intervene/loss_stats.h"

namespace geoattn::report {

inline constexpr const char* kInterveneSchema = "geoattn.intervene/1";

// One intervention as the result names it.
struct InterventionInfo {
  std::string name;                                // e.g. "sink-recent:16 on 4.5"
  std::string intervention;                        // "zero", "top-n:N", "sink-recent:K", "random:N", "budget:RULE"
  std::vector<std::pair<int64_t, int64_t>> heads;  // (layer, head)
  std::vector<int64_t> budgets;                    // a budget's N per head (heads' order); empty otherwise
  bool operator==(const InterventionInfo&) const = default;
};

// `model`, `data` and `settings` are written as given; `readings` and `stats` are the run's.
nlohmann::ordered_json intervene_json(const nlohmann::ordered_json& model, const nlohmann::ordered_json& data,
                                      const nlohmann::ordered_json& settings,
                                      const std::vector<InterventionInfo>& interventions,
                                      const metrics::LossStats& stats, const metrics::LossReadings& readings);

// The per-document sums a result holds ("per_document": what merge adds up), exactly as they
// were; geoattn::Error naming `label` (the file) where they are missing or malformed.
metrics::LossStats loss_stats_from_json(const nlohmann::ordered_json& j, const std::string& label);
// What a result did to which heads ("interventions": name, intervention, heads, budgets).
std::vector<InterventionInfo> interventions_from_json(const nlohmann::ordered_json& j);

}  // namespace geoattn::report
