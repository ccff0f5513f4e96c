#pragma once
// The fits of the paper's three assumptions (SPEC §4) for every (layer, head) of a run, as the
// "fits" object of each head in the measure JSON. Pure C++.
#include <nlohmann/json_fwd.hpp>

#include <vector>

#include "geoattn/metrics/assumption_stats.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::report {

// One entry per (layer, head), in layer-major order: {"windows", "norms": {"C", "lambda", "cv",
// "mean_norm": [T], "ok", "why"?}, "decay": {"beta", "mae", "c": [K], "ok", "why"?},
// "profile": {"p_sink", "p_base", "eta", "omega", "T1", "T2", "error", "skipped",
// "mean_row": [T], "ok", "why"?}}. The fits of different heads run in parallel on `pool`.
std::vector<nlohmann::ordered_json> fits_json(WorkerPool& pool, const metrics::AssumptionStats& stats);

}  // namespace geoattn::report
