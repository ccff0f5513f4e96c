#pragma once
// The result of `geoattn measure` / `geoattn metrics` (SPEC §2-3): a JSON
// of settings, the global curves and every scalar, and beside it an arrays file
// (X.curves.safetensors) with every per-layer and per-head array. Pure C++.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/stats/envelope_stats.h"
#include "geoattn/metrics/finalize/head_fits.h"
#include "geoattn/metrics/finalize/kappa_range.h"
#include "geoattn/util/result_files.h"

namespace geoattn {
class WorkerPool;
}

namespace geoattn::report {

// The one place that names the result format: bumped when a reader of the old one would misread.
constexpr const char* kMeasureSchema = "geoattn.measure/2";
// Results geoattn still reads: /1 held every array inline in its JSON.
constexpr const char* kMeasureSchemaInline = "geoattn.measure/1";
bool is_measure_schema(const nlohmann::ordered_json& doc);

// One float64 array of the arrays file, named "<group>.<key>" with group "layers" ([L, ...])
// or "heads" ([L, H, ...]); a key with dots is a path into the entry ("fits.decay.c").
// Entry shapes: [G] over n_grid, [G, 2] for an interval per N ([lo, hi]), [T] or [K] for the fits.
// NaN stands where the JSON writes null.
struct NamedArray {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> values;
};
using MeasureArrays = std::vector<NamedArray>;

// {"schema", <the keys of run_info in order: "model", "data", "settings", "timing", ...>,
//  "bootstrap"?, "n_grid", "arrays"?, "global", "layers", "heads"}.
// global, each layer ({"layer"}) and each head ({"layer", "head"}) hold "samples", and for
// each curve X of kCurveNames the arrays over n_grid "X" (means) and "X_std" (population
// std), for each scalar Y the numbers "Y" and "Y_std"; global and layers also hold
// "sink_recall_corr" over n_grid (SPEC §3). Undefined numbers (no samples, no spread) are null.
// With `fits` (metrics/finalize/head_fits.h of the run's assumption stats, one per head; none when the
// run had no last query), every head also holds its "fits" (report/fits_json.h): fitted by the
// caller, never here.
// With the random-selection control, each group holds X_random and X_diff (top-N minus random)
// for X in P_rmax, R_rmin, F_rmax, F_rmin. With a bootstrap, each group at or above its level
// holds X_ci ([lo, hi] per N, every curve), X_diff_ci, Y_ci (scalars), sink_recall_corr_ci,
// and the top level "bootstrap" (replicates, seed, level, units, percentiles).
// With `envelopes` (SPEC §5's bounds of the run's own samples), each group holds
// "envelopes": {"samples": [G] (the samples reaching N), "P_lo", "P_up", "R_lo", "R_up",
// "F_rmax_lo", "F_rmax_up", "F_rmin_lo", "F_rmin_up": [G] (means of per-sample bounds)}.
// With `predicted` (SPEC §5's predicted envelopes), each group holds "predicted_envelopes" as
// "envelopes" above (a head the prediction skips: samples 0, its means null) with its
// "nontrivial_share"; the verdicts against them read intervals (python/geoattn/verdicts.py).
// With `kappa`, each group holds "kappa_range" (kappa_range_json) and the
// heads without one what fails.
// With `arrays` (the layout geoattn writes), every array of a layer or a head goes there
// instead (NamedArray) and the JSON's "arrays" names `arrays_file` and each array's shape;
// without, everything is inline (the layout read_measure returns). With `pool`, the layers are
// merged and the heads built on its workers (the same JSON and arrays).
// geoattn::Error if run_info is not an object or uses one of the keys above.
nlohmann::ordered_json measure_json(const metrics::Aggregator& agg, const nlohmann::ordered_json& run_info,
                                    const std::vector<metrics::HeadFits>* fits = nullptr,
                                    const metrics::BootstrapResult* bootstrap = nullptr,
                                    MeasureArrays* arrays = nullptr, const std::string& arrays_file = "",
                                    const metrics::EnvelopeStats* envelopes = nullptr,
                                    const metrics::KappaRanges* kappa = nullptr, WorkerPool* pool = nullptr,
                                    const metrics::EnvelopeStats* predicted = nullptr);

// A group's "kappa_range" ({lo, hi, ...}; `failure`: a head's, named when it
// has no range).
nlohmann::ordered_json kappa_range_json(const metrics::KappaRange& range, const metrics::KappaFailure* failure);

// The files beside a result X.json (util/result_files.h).
using geoattn::arrays_path;
using geoattn::sibling_path;
// Writes `arrays` (float64, atomically) as a safetensors file numpy and PyTorch read directly,
// the run's identity (report/run_identity.h) in its __metadata__.
void write_measure_arrays(const std::string& path, const MeasureArrays& arrays, const std::string& run_id);

// A measure result as one inline JSON (every array back in its layer and head), from a file of
// either schema; the arrays file is found beside the JSON and must be of its run (run_id,
// report/run_identity.h). geoattn::Error naming the file.
nlohmann::ordered_json read_measure(const std::string& json_path);
// The same for a document already parsed from `json_path`.
void inline_measure_arrays(nlohmann::ordered_json& doc, const std::string& json_path);

}  // namespace geoattn::report
