#pragma once
// What measure and metrics share after the capture: the metric flags (grid, distance, decay
// lag, controls, bootstrap), the run state they fill, and the settings JSON they record.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "geoattn/io/windows.h"
#include "geoattn/metrics/run_state.h"
#include "geoattn/metrics/window_metrics.h"
#include "stage_times.h"

namespace geoattn::cli {

struct MetricFlags {
  std::string n = "default";
  std::string distance = "euclidean";
  int64_t decay_k = 64;           // SPEC §4: the largest lag K of the decay fit
  int64_t controls = 16;          // SPEC §2b: random permutations per sample
  int64_t bootstrap = 2000;       // SPEC §2b: replicates (0: none)
  std::string boot_level = "auto";
  std::string boot_unit = "document";  // or "window": each window resampled on its own
  uint64_t seed = 0;              // controls and bootstrap
  int64_t metrics_memory_mb = 256;  // the metric core's working memory per chunk of samples
};
void add_metric_flags(CLI::App& cmd, MetricFlags& flags, bool with_seed);

// A run over layers x heads at window length T: geoattn::Error on a bad flag.
// A key per window that names it independently of how the run is split into shards: the hash
// of its document and its rank among that document's windows (stream mode cuts several).
std::vector<uint64_t> window_keys(const std::vector<std::string>& doc_ids);
std::vector<std::string> doc_ids(const std::vector<io::Window>& windows);

class MetricRun {
 public:
  MetricRun(const MetricFlags& flags, int64_t layers, int64_t heads, int64_t T, const std::vector<int64_t>& queries);

  // One captured window: alpha [L, H, Q, T], values [L, KV, T, d]. `key` is the window's index
  // in the run, `unit` its document (the bootstrap resamples documents).
  // With --bootstrap-unit window the unit is the window itself ("window <key>").
  void add_window(const torch::Tensor& alpha, const torch::Tensor& values, uint64_t key, const std::string& doc);

  const std::vector<int64_t>& grid() const { return grid_; }
  metrics::RunState& state() { return state_; }
  StageTimes& times() { return times_; }
  // The "settings" entries of the metrics (merged into the command's own).
  nlohmann::ordered_json settings() const;

 private:
  MetricFlags flags_;
  std::vector<int64_t> queries_, grid_;
  metrics::MetricOptions options_;
  metrics::RunState state_;
  StageTimes times_;
};

// geoattn metrics: a capture file -> the result JSON at `out`; the stages' times.
StageTimes metrics_from_capture(const std::string& capture, const MetricFlags& flags, const std::string& out, int threads);

}  // namespace geoattn::cli
