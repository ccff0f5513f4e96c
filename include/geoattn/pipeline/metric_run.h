#pragma once
// The run after the capture, as a library: a typed specification built once from the flags,
// the window's samples handed to the aggregation inside (no per-sample callbacks through the
// CLI), and the settings it records. Shared by measure (windows from the forward) and metrics
// (windows from a capture file). Plain C++ (measure.h hands it tensors).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "geoattn/io/float_view.h"
#include "geoattn/io/windows.h"
#include "geoattn/metrics/core/exact.h"
#include "geoattn/metrics/core/grid.h"
#include "geoattn/metrics/stats/kappa_stats.h"
#include "geoattn/metrics/run/metric_settings.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/metrics/stats/run_state.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/metrics/core/window_metrics.h"
#include "geoattn/pipeline/stage_times.h"
#include "geoattn/util/argument_names.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::pipeline {

using metrics::BootUnit;  // what the bootstrap resamples (SPEC §2b)

// An on/off setting that may also be auto (nullopt), as flags and Python spell it.
inline constexpr EnumName<bool> kOnOffNames[] = {{true, "on"}, {false, "off"}};

// The metric run's settings as a user gives them, each once: its field and default here, its two
// names (util/argument_names.h), what it takes and its help in visit_settings below, from which
// measure's, metrics' and bench's flags bind (tools/geoattn/metric_flags.cpp) and geoattn.metrics
// takes its keyword arguments, their defaults and choices (python/csrc/module.cpp, checked by
// python/tests/test_defaults.py); validate() checks them together.
struct MetricParams {
  static constexpr FieldName kN{"n", "--n"}, kDistance{"distance", "--distance"}, kDecayK{"decay_k", "--decay-k"},
      kControls{"controls", "--controls"}, kBootstrap{"bootstrap", "--bootstrap"},
      kBootLevel{"bootstrap_level", "--bootstrap-level"}, kBootUnit{"bootstrap_unit", "--bootstrap-unit"},
      kCi{"ci", "--ci"},
      kSeed{"seed", "--seed"}, kMetricsMemory{"metrics_memory_mb", "--metrics-memory"},
      kEnvelopes{"envelopes", "--envelopes"}, kKappa{"kappa", "--kappa"}, kWindowTokens{"window_tokens", "--window-tokens"},
      kKappaScan{"kappa_scan", "--kappa-scan"};

  metrics::NGrid n;           // SPEC §2: the N grid, read where it is given (its text is recorded)
  metrics::Distance distance = metrics::Distance::Euclidean;
  int64_t decay_k = 64;       // SPEC §4: the largest lag K of the decay fit
  int64_t controls = 16;      // SPEC §2b: random permutations per sample
  int64_t bootstrap = 2000;   // SPEC §2b: replicates (0: none)
  std::optional<metrics::BootLevel> boot_level;  // nullopt: auto (metrics::auto_boot_level)
  BootUnit boot_unit = BootUnit::Document;
  double ci = metrics::kSpecCi;  // SPEC §2b: the intervals' coverage in percent
  uint64_t seed = 0;          // controls and bootstrap
  int64_t metrics_memory_mb = 256;  // the tensor path's working memory per chunk, MiB
  // SPEC §5: the bounds of every measured sample, their means beside the measurements. nullopt
  // (auto): on where the metrics run on the CPU, off on a GPU, where these CPU formulas would
  // cost more than the forward (docs/cli.md: `geoattn measure`, --envelopes).
  std::optional<bool> envelopes;
  double kappa = 1.0;         // SPEC §5: the concentration constant of those bounds
  // SPEC §1: a windowed layer's tokens are the keys its query sees (visible), or every key 0..q
  // (causal, the older convention).
  metrics::WindowTokens window_tokens = metrics::WindowTokens::Visible;
  // The kappas of the envelopes for the kappa range each head allows, an opt-in diagnostic (SPEC
  // §5, "What the envelopes can say"): off (the default), auto or a list.
  metrics::KappaScan kappa_scan;

  // Every setting once, in the order --help lists them: visitor.parsed(name, field, help) (a
  // value read from its text once, where it is given: X::parse(text), field.text()),
  // .choice(name, field, names, help) (an optional field takes "auto" too) and
  // .number(name, field, low, high, help); the field's initializer is its default. `Self` is
  // MetricParams or const MetricParams.
  template <typename Self, typename Visitor>
  static void visit_settings(Self& p, Visitor&& v);
  int64_t chunk_bytes() const { return metrics_memory_mb << 20; }
  // The counts and sizes for a run of `layers` x `heads` at window length T with `queries` query
  // positions and `grid` N values, before anything is allocated (geoattn::Error naming the field
  // as `style` spells it): decay_k at most max(64, T - 1) (lags past T - 1 hold no pairs), the
  // control orderings, the bootstrap's replicates and the working memory within the machine's.
  void validate(int64_t layers, int64_t heads, int64_t T, int64_t queries, int64_t grid, ArgumentStyle style) const;
};

template <typename Self, typename Visitor>
void MetricParams::visit_settings(Self& p, Visitor&& v) {
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  v.parsed(kN, p.n, "N grid: default, all, or a list like 1:16,24,32");
  v.choice(kDistance, p.distance, metrics::kDistanceNames, "euclidean (the paper) or cosine (SPEC §2b)");
  v.number(kDecayK, p.decay_k, int64_t{1}, kMost, "largest lag k of the decay fit c(k), at most max(64, T - 1) (SPEC §4)");
  v.number(kControls, p.controls, int64_t{0}, kMost, "random-selection permutations per sample (SPEC §2b; 0: none)");
  v.number(kBootstrap, p.bootstrap, int64_t{0}, kMost, "bootstrap replicates over documents (SPEC §2b; 0: none)");
  v.choice(kBootLevel, p.boot_level, metrics::kBootLevelNames,
           "finest level with intervals: head, layer, global, or auto (head while heads x grid x replicates stay "
           "small, else layer; not with --bootstrap 0)");
  v.choice(kBootUnit, p.boot_unit, metrics::kBootUnitNames,
           "what the bootstrap resamples: document (windows of one document together) or window (not with "
           "--bootstrap 0)");
  v.number(kCi, p.ci, 0.0, 100.0,
           "the bootstrap intervals' coverage in percent, above 0 and below 100: the (100 - ci)/2 and (100 + ci)/2 "
           "percentiles (SPEC §2b: 95; a label that reads an interval reads it at this coverage; not with "
           "--bootstrap 0)");
  v.choice(kEnvelopes, p.envelopes, kOnOffNames,
           "the bounds of every measured sample (SPEC §5), their means beside the measurements: on, off, or auto (on "
           "where the metrics run on the CPU, off on a GPU)");
  v.number(kKappa, p.kappa, 0.0, std::numeric_limits<double>::max(),
           "the concentration constant kappa > 0 of SPEC §5's bounds (in measure and metrics: of the envelopes, not "
           "with --envelopes off)");
  v.parsed(kKappaScan, p.kappa_scan,
         std::string("opt-in diagnostic: the kappas of the envelopes for the kappa range each head allows: off, auto (") +
             metrics::kDefaultKappasText +
             " where the envelopes are on), or a list like 0.25,0.5,1,2. A smaller kappa never tightens a bound (kappa "
             "-> 0+ gives the kappa-free envelopes every run reports), so a head that brackets at some kappa brackets "
             "at every small enough one: a range's low end says where the grid stops, not what the head needs");
  v.choice(kWindowTokens, p.window_tokens, metrics::kWindowTokensNames,
           "a windowed layer's tokens (SPEC §1): visible (the keys its query sees, n = min(q + 1, W)) or causal "
           "(every key 0..q, those outside the window as alpha = 0: the older convention)");
  v.number(kMetricsMemory, p.metrics_memory_mb, int64_t{1}, kMost >> 20,
           "MiB of working memory for the metric core on a GPU (it chunks over heads to stay under it; on CPU: a T x T "
           "Gram matrix per thread)");
  v.number(kSeed, p.seed, uint64_t{0}, std::numeric_limits<uint64_t>::max(), "seed of the controls and the bootstrap");
}

// Everything the metric run needs, typed: the settings, the grid and the query positions they
// give at the capture's T, and how errors name the settings.
struct MetricSpec : MetricParams {
  std::vector<int64_t> grid;     // SPEC §2: sorted, unique, 1..T
  std::vector<int64_t> queries;  // query positions
  std::vector<int64_t> layer_windows;  // SPEC §1: per layer 0 or its window W (the model's; empty: none)
  ArgumentStyle names = ArgumentStyle::Flag;
  bool on_gpu = false;            // the metrics run on a GPU (the envelopes' auto)
  bool envelopes_on() const { return envelopes.value_or(!on_gpu); }
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
MetricSpec metric_spec(const MetricParams& params, int64_t T, std::vector<int64_t> queries, ArgumentStyle names);

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
  // SPEC §5's bounds of a window's samples into the run's envelopes (nothing without them):
  // what add_window(alpha, values, ...) does after the metrics, for a window whose metrics came
  // from elsewhere (the tensor path). alpha [L, H, Q, T] of all the spec's queries, on the host.
  void add_window_envelopes(const io::FloatView& alpha, const io::FloatView& values, uint64_t key, const std::string& doc);
  // What the bootstrap calls window `key` of document `doc` (its document, or the window itself).
  std::string unit_of(uint64_t key, const std::string& doc) const;
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
