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

// The flags' defaults are MetricSpec's (pipeline/metric_run.h): one definition, Python's too.
struct MetricFlags {
  std::string n = pipeline::MetricSpec{}.n_spec;
  metrics::Distance distance = pipeline::MetricSpec{}.distance;
  int64_t decay_k = pipeline::MetricSpec{}.decay_k;      // SPEC §4: the largest lag K of the decay fit
  int64_t controls = pipeline::MetricSpec{}.controls;    // SPEC §2b: random permutations per sample
  int64_t bootstrap = pipeline::MetricSpec{}.bootstrap;  // SPEC §2b: replicates (0: none)
  std::optional<metrics::BootLevel> boot_level = pipeline::MetricSpec{}.boot_level;  // nullopt: auto
  metrics::BootUnit boot_unit = pipeline::MetricSpec{}.boot_unit;  // or each window resampled on its own
  uint64_t seed = pipeline::MetricSpec{}.seed;           // controls and bootstrap
  int64_t metrics_memory_mb = pipeline::MetricSpec{}.chunk_bytes >> 20;  // the metric core's working memory
};
void add_metric_flags(CLI::App& cmd, MetricFlags& flags, bool with_seed);

// The typed specification of the metric flags at window length T for `queries`
// (geoattn::Error naming the flag on a bad value).
pipeline::MetricSpec metric_spec(const MetricFlags& flags, int64_t T, const std::vector<int64_t>& queries);

// geoattn metrics: a capture file -> the result JSON at `out`, on `pool`; the stages' times.
pipeline::StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture, const MetricFlags& flags,
                                          const std::string& out);

}  // namespace geoattn::cli
