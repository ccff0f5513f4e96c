#pragma once
// SPEC §4's fits of the paper's three assumptions for every (layer, head) of a run: the means
// the run accumulated (AssumptionStats) and the fits of analysis/fits.h over them, as structs
// (report/fits_json.h writes them). Pure C++.
#include <cstdint>
#include <vector>

#include "geoattn/analysis/fits.h"
#include "geoattn/metrics/stats/assumption_stats.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

struct HeadFits {
  int64_t windows = 0;            // windows with a last query
  std::vector<double> mean_norm;  // [T] mean ||v_i|| (Assumption 1); NaN past the layer's n tokens (SPEC §1)
  analysis::NormFit norms;
  std::vector<double> c;          // [K] c(k), k = 1..K; NaN past the lags that had pairs (Assumption 2)
  analysis::DecayFit decay;       // fitted over the leading defined c(k)
  std::vector<double> mean_row;   // [T] the last query's mean attention row (Assumption 3); NaN past n
  analysis::ProfileFit profile;
};

// One per (layer, head), layer-major; the heads' fits run in parallel on `pool`.
std::vector<HeadFits> fit_heads(WorkerPool& pool, const AssumptionStats& stats, bool quiet = true);

}  // namespace geoattn::metrics
