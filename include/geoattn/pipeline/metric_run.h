#pragma once
// The run after the capture, as a library: a typed specification built once from the flags,
// the window's samples handed to the aggregation inside (no per-sample callbacks through the
// CLI), and the settings it records. Shared by measure (windows from the forward) and metrics
// (windows from a capture file). Plain C++ (measure.h hands it tensors).
#include <cstdint>
#include <string>
#include <vector>

#include <optional>

#include "geoattn/io/float_view.h"
#include "geoattn/io/windows.h"
#include "geoattn/metrics/exact.h"
#include "geoattn/metrics/run_info.h"
#include "geoattn/metrics/run_state.h"
#include "geoattn/metrics/unit_stats.h"
#include "geoattn/metrics/window_metrics.h"
#include "geoattn/pipeline/stage_times.h"
#include "geoattn/util/argument_names.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::pipeline {

using metrics::BootUnit;  // what the bootstrap resamples (SPEC §2b)

// Everything the metric run needs, typed; the CLI builds it from its flags and names the flag
// in its errors (tools/geoattn/metric_flags.cpp).
struct MetricSpec {
  std::string n_spec = "default";  // the grid as the user wrote it (recorded in the settings)
  std::vector<int64_t> grid;       // SPEC §2: sorted, unique, 1..T
  std::vector<int64_t> queries;    // query positions
  metrics::Distance distance = metrics::Distance::Euclidean;
  int64_t decay_k = 64;            // SPEC §4: the largest lag K of the decay fit
  int64_t controls = 16;           // SPEC §2b: random permutations per sample
  int64_t bootstrap = 2000;        // SPEC §2b: replicates (0: none)
  std::optional<metrics::BootLevel> boot_level;  // nullopt: auto (metrics::auto_boot_level)
  BootUnit boot_unit = BootUnit::Document;
  uint64_t seed = 0;               // controls and bootstrap
  int64_t chunk_bytes = int64_t(256) << 20;  // the tensor path's working memory per chunk
  ArgumentStyle names = ArgumentStyle::Flag;  // how check_metric_spec's errors name the fields
};

// The spec's counts and sizes for a run of `layers` x `heads` at window length T, checked before
// anything is allocated (geoattn::Error naming the field as spec.names spells it: "--controls",
// "controls"): decay_k at most max(64, T - 1) (lags past T - 1 hold no pairs), the control
// orderings, the bootstrap's replicates and the working memory within the machine's memory.
// MetricRun checks its spec so; the CLI and Python share these limits.
void check_metric_spec(const MetricSpec& spec, int64_t layers, int64_t heads, int64_t T);

// A key per window that names it independently of how the run is split into shards: the hash
// of its document and its rank among that document's windows (stream mode cuts several).
std::vector<uint64_t> window_keys(const std::vector<std::string>& doc_ids);
std::vector<std::string> doc_ids(const std::vector<io::Window>& windows);

class MetricRun {
 public:
  // The windows' metric core runs on `pool`, which must outlive the run.
  MetricRun(WorkerPool& pool, const MetricSpec& spec, int64_t layers, int64_t heads, int64_t T);

  // One captured window: alpha [L, H, Q, T], values [L, KV, T, d] where they lie. `key` is the
  // window's index in the run, `doc` its document (the bootstrap resamples documents, or windows).
  void add_window(const io::FloatView& alpha, const io::FloatView& values, uint64_t key, const std::string& doc);
  // The same for a window whose metrics are computed (window_metrics with options(key)): alpha
  // [L, H, Q, T] for SPEC §4's last row.
  void add_window(const metrics::WindowMetrics& m, const io::FloatView& alpha, uint64_t key, const std::string& doc);
  // What window_metrics runs with for this run's windows.
  metrics::MetricOptions options() const;

  const MetricSpec& spec() const { return spec_; }
  WorkerPool& pool() const { return pool_; }
  metrics::RunState& state() { return state_; }
  StageTimes& times() { return times_; }
  // The metric run's "settings" (after the command's own).
  metrics::MetricSettings settings() const;

 private:
  WorkerPool& pool_;
  MetricSpec spec_;
  metrics::RunState state_;
  StageTimes times_;
};

}  // namespace geoattn::pipeline
