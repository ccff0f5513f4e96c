#pragma once
// The result JSON of `geoattn measure` / `geoattn metrics` (issue 3, SPEC §2-3). Pure C++.
#include <nlohmann/json_fwd.hpp>

#include "geoattn/metrics/aggregate.h"
#include "geoattn/metrics/assumption_stats.h"

namespace geoattn::report {

constexpr const char* kMeasureSchema = "geoattn.measure/1";

// {"schema": "geoattn.measure/1", <the keys of run_info in order: "model", "data",
//  "settings", "timing", ...>, "n_grid": [...], "global": {...}, "layers": [...], "heads": [...]}.
// global, each layer ({"layer"}) and each head ({"layer", "head"}) hold "samples", and for
// each curve X of kCurveNames the arrays over n_grid "X" (means) and "X_std" (population
// std), for each scalar Y the numbers "Y" and "Y_std"; global and layers also hold
// "sink_recall_corr" over n_grid (SPEC §3). Undefined numbers (no samples, no spread) are null.
// geoattn::Error if run_info is not an object or uses one of the keys above.
// With assumption stats (non-empty), every head also holds "fits" (fits_json.h).
nlohmann::ordered_json measure_json(const metrics::Aggregator& agg, const nlohmann::ordered_json& run_info,
                                    const metrics::AssumptionStats* assumptions = nullptr);

}  // namespace geoattn::report
