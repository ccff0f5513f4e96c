#pragma once
// The result JSON of `geoattn measure` / `geoattn metrics` (issue 3, SPEC §2-3). Pure C++.
#include <nlohmann/json_fwd.hpp>

#include <vector>

#include "geoattn/metrics/aggregate.h"
#include "geoattn/metrics/assumption_stats.h"
#include "geoattn/metrics/bootstrap.h"

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
// With the random-selection control, each group holds X_random and X_diff (top-N minus random)
// for X in P_rmax, R_rmin, F_rmax, F_rmin. With a bootstrap, each group at or above its level
// holds X_ci ([lo, hi] per N, every curve), X_diff_ci, Y_ci (scalars), sink_recall_corr_ci,
// and the top level "bootstrap" (replicates, seed, level, units, percentiles).
// `fits`, when given, are fits_json(*assumptions) computed already.
nlohmann::ordered_json measure_json(const metrics::Aggregator& agg, const nlohmann::ordered_json& run_info,
                                    const metrics::AssumptionStats* assumptions = nullptr,
                                    const metrics::BootstrapResult* bootstrap = nullptr,
                                    const std::vector<nlohmann::ordered_json>* fits = nullptr);

}  // namespace geoattn::report
