#pragma once
// The state sidecar X.state.safetensors: everything a run accumulated (metrics/stats/run_state.h),
// for merging shards and resuming. Files belong here, above the metrics, which read and write
// none. Pure C++ (no LibTorch).
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/io/safetensors_writer.h"
#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/stats/array_view.h"
#include "geoattn/metrics/stats/run_state.h"

namespace geoattn::report {

// The state sidecar (safetensors), for merging shards and resuming. Tensors, with
// M = kCurveMetrics*G + kScalarMetrics + G Moments slots per head (GroupStats order):
//   "counts"  I64 [L, H, M]        sample count per slot
//   "sums"    I64 [L, H, M, 2, 2]  [slot][sum, sum_sq][lo, hi]: the ExactSum int128 halves
//                                  (lo is the low 64 bits' pattern, hi the signed high half)
//   "cross"   I64 [L, H, G, 2]     Σ R(r_min, N_g) rho0 as [lo, hi]
//   "extrema" F64 [L, H, M, 2]     [min, max] (+inf, -inf where the count is 0)
// __metadata__: "format" = "geoattn-state-1", "layers", "heads" (decimal), and the JSON texts
// "n_grid", "curves", "scalars" (the metric names, so a state of other metrics is refused)
// and "run_info" (report/run_info_json.h). Written atomically.
// `extra`: further tensors of the same run (the assumption stats, run_state.h), stored beside;
// `run_id` (report/run_identity.h), where given, in "run_id".
void save_state(const std::string& path, const metrics::Aggregator& agg, const nlohmann::ordered_json& run_info,
                const std::vector<io::TensorBlob>& extra = {}, const std::string& run_id = "");
// Validates format, names, shapes against layers/heads/grid and the values: geoattn::Error
// naming the file.
std::pair<metrics::Aggregator, nlohmann::ordered_json> load_state(const std::string& path);

// The state sidecar of a metric run: the above, with the assumption stats and the per-document
// sums of the bootstrap beside it, and the typed run_info (`info`: another description of the
// same run, as a writer on another thread holds it while the state's own is filled in), and the
// run's identity (report/run_identity.h; computed from the state where not given).
void save_run_state(const std::string& path, const metrics::RunState& state);
void save_run_state(const std::string& path, const metrics::RunState& state, const metrics::MeasureInfo& info,
                    const std::string& run_id);
// geoattn::Error naming the file on anything malformed.
metrics::RunState load_run_state(const std::string& path);

// The arrays of a statistic (metrics/stats/array_view.h) as the safetensors writer takes them; the
// blobs point where the views do, so the views must outlive them (a derived array lives in its view).
std::vector<io::TensorBlob> tensor_blobs(const std::vector<metrics::ArrayView>& arrays);

}  // namespace geoattn::report
