#pragma once
// The metric flags measure and metrics share (grid, distance, decay lag, controls, bootstrap)
// and the typed specification they give the pipeline (pipeline/metric_run.h).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "geoattn/pipeline/metric_run.h"
#include "geoattn/pipeline/stage_times.h"

namespace geoattn::cli {

using pipeline::doc_ids;
using pipeline::MetricRun;
using pipeline::window_keys;

struct MetricFlags {
  std::string n = "default";
  metrics::Distance distance = metrics::Distance::Euclidean;
  int64_t decay_k = 64;           // SPEC §4: the largest lag K of the decay fit
  int64_t controls = 16;          // SPEC §2b: random permutations per sample
  int64_t bootstrap = 2000;       // SPEC §2b: replicates (0: none)
  std::optional<metrics::BootLevel> boot_level;  // nullopt: auto
  metrics::BootUnit boot_unit = metrics::BootUnit::Document;  // or each window resampled on its own
  uint64_t seed = 0;              // controls and bootstrap
  int64_t metrics_memory_mb = 256;  // the metric core's working memory per chunk of samples
};
void add_metric_flags(CLI::App& cmd, MetricFlags& flags, bool with_seed);

// The typed specification of the metric flags at window length T for `queries`
// (geoattn::Error naming the flag on a bad value).
pipeline::MetricSpec metric_spec(const MetricFlags& flags, int64_t T, const std::vector<int64_t>& queries);

// geoattn metrics: a capture file -> the result JSON at `out`, on `pool`; the stages' times.
pipeline::StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture, const MetricFlags& flags,
                                          const std::string& out);

}  // namespace geoattn::cli
