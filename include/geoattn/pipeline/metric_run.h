#pragma once
// The run after the capture, as a library: a typed specification built once from the flags,
// the window's samples handed to the aggregation inside (no per-sample callbacks through the
// CLI), and the settings it records. Shared by measure (windows from the forward) and metrics
// (windows from a capture file). Plain C++ (measure.h hands it tensors).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "geoattn/io/float_view.h"
#include "geoattn/io/windows.h"
#include "geoattn/metrics/core/window_metrics.h"
#include "geoattn/metrics/run/metric_params.h"
#include "geoattn/metrics/run/metric_record.h"
#include "geoattn/metrics/stats/run_state.h"
#include "geoattn/pipeline/stage_times.h"
#include "geoattn/util/argument_names.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::pipeline {

// Everything the metric run needs, typed: the settings, the grid and the query positions they
// give at the capture's T, and how errors name the settings.
struct MetricSpec : metrics::MetricParams {
  std::vector<int64_t> grid;     // SPEC §2: sorted, unique, 1..T
  std::vector<int64_t> queries;  // query positions
  std::vector<int64_t> layer_windows;  // SPEC §1: per layer 0 or its window W (the model's; empty: none)
  ArgumentStyle names = ArgumentStyle::Flag;
  bool envelopes_on() const { return envelopes.value_or(true); }  // auto: on, on every device
  metrics::LayerWindows windows() const { return {layer_windows, window_tokens}; }
  // The kappa grid kappa_scan gives (empty: none); geoattn::Error naming the field on a list
  // without the envelopes.
  std::vector<double> kappas() const;
  // MetricParams::validate for this spec's queries and grid, and its kappa scan read.
  void validate(int64_t layers, int64_t heads, int64_t T) const {
    MetricParams::validate(layers, heads, T, static_cast<int64_t>(queries.size()), static_cast<int64_t>(grid.size()), names);
    (void)kappas();
  }
};

// The specification of `params` at a capture's window length T for its query positions: the
// grid of n at T (geoattn::Error naming n as `names` spells it), errors naming the settings so.
MetricSpec metric_spec(const metrics::MetricParams& params, int64_t T, std::vector<int64_t> queries, ArgumentStyle names);

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
  // With envelopes, the bounds of its samples too.
  void add_window(const io::FloatView& alpha, const io::FloatView& values, uint64_t key, const std::string& doc);
  // The same for a window whose metrics are computed (window_metrics with options()). SPEC §4
  // reads the last query's row: `alpha` [L, H, Q', T] holds the window's rows at positions
  // `rows` (all the spec's queries, or only T - 1; unused when the run has no last query).
  void add_window(const metrics::WindowMetrics& m, const io::FloatView& alpha, const std::vector<int64_t>& rows,
                  uint64_t key, const std::string& doc);
  // SPEC §5's bounds of a window's samples into the run's envelopes (nothing without them),
  // computed by `bounds`: what add_window(alpha, values, ...) does after the metrics, for a window
  // whose metrics came from elsewhere (measure.h: on the device where the forward left them).
  // `bounds` is handed the run's envelopes, its kappa scan (null without one) and the window's
  // row in it.
  using WindowBounds = std::function<void(metrics::EnvelopeStats&, metrics::KappaStats*, int64_t scan_row)>;
  void add_window_envelopes(const WindowBounds& bounds, uint64_t key, const std::string& doc);
  // SPEC §5's predicted envelopes of a window's samples (nothing without --predict-from): alpha
  // [L, H, Q, T] every query row on the host, `m` the window's metrics (their value norms), d the
  // head dimension.
  void add_window_predicted(const io::FloatView& alpha, const metrics::WindowMetrics& m, int64_t d);
  // The run's windows, before the first: the kappa scan's per-document sums sized for their
  // units, or geoattn::Error naming the kappa scan's setting where they would not fit in memory.
  void expect_windows(const std::vector<uint64_t>& keys, const std::vector<std::string>& docs);
  // What the bootstrap calls window `key` of document `doc` (its document, or the window itself).
  std::string unit_of(uint64_t key, const std::string& doc) const;
  // What window_metrics runs with for this run's windows.
  metrics::MetricOptions options() const;

  const MetricSpec& spec() const { return spec_; }
  WorkerPool& pool() const { return pool_; }
  metrics::RunState& state() { return state_; }
  StageTimes& times() { return times_; }
  // The metric run's "settings" (after the command's own).
  metrics::MetricRecord settings() const;

 private:
  WorkerPool& pool_;
  MetricSpec spec_;
  metrics::RunState state_;
  metrics::Prediction prediction_;  // what --predict-from's result gives (empty: none)
  StageTimes times_;
};

}  // namespace geoattn::pipeline
