#pragma once
// The metric run's settings as a user gives them (measure, metrics, bench, bounds and
// geoattn.metrics), each defined once: its field, default, names, range and help. Pure C++.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "geoattn/metrics/core/core_options.h"
#include "geoattn/metrics/core/exact.h"
#include "geoattn/metrics/core/grid.h"
#include "geoattn/metrics/core/prediction.h"
#include "geoattn/metrics/core/visible_keys.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/stats/kappa_stats.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/util/argument_names.h"
#include "geoattn/util/enum_names.h"

namespace geoattn::metrics {

// An on/off setting that may also be auto (nullopt), as flags and Python spell it.
inline constexpr EnumName<bool> kOnOffNames[] = {{true, "on"}, {false, "off"}};

// The metric run's settings as a user gives them, each once: its field and default here, its two
// names (util/argument_names.h), what it takes and its help in visit_settings below, from which
// measure's, metrics' and bench's flags bind (tools/geoattn/metric_flags.cpp) and geoattn.metrics
// takes its keyword arguments, their defaults and choices (python/csrc/module.cpp, checked by
// python/tests/test_defaults.py); validate() checks them together.
struct MetricParams {
  // Recorded (report/settings.cpp, by the walk below) under these names and paths: controls and
  // bootstrap as objects of their count and seed, the envelopes as an object of their kappa where
  // they ran (their on/off is that object's presence), the kappa scan as an object of its kappas,
  // predict_from as what the prediction took (report/prediction_json.h); metrics_memory_mb
  // changes no number and is not recorded. An entry that MetricUnused says the run left unread
  // is not recorded either.
  static constexpr FieldName kN{"n", "--n"}, kDistance{"distance", "--distance"}, kDecayK{"decay_k", "--decay-k"},
      // A result without controls or bootstrap ran none.
      kControls{"controls", "--controls", "random_permutations", "controls", {}, "0"},
      kBootstrap{"bootstrap", "--bootstrap", "replicates", "bootstrap", {}, "0"},
      kBootLevel{"bootstrap_level", "--bootstrap-level", "level", "bootstrap"},
      kBootUnit{"bootstrap_unit", "--bootstrap-unit", "unit", "bootstrap"}, kCi{"ci", "--ci", {}, "bootstrap", {}, {}, true},
      kSeed{"seed", "--seed", {}, "bootstrap", "controls"},
      kMetricsMemory{"metrics_memory_mb", "--metrics-memory", {}, kNotRecorded},
      kEnvelopes{"envelopes", "--envelopes"}, kKappa{"kappa", "--kappa", {}, "envelopes"},
      // Results from before SPEC §1's window convention counted every key 0..q: causal.
      kWindowTokens{"window_tokens", "--window-tokens", {}, {}, {}, "causal"}, kKappaScan{"kappa_scan", "--kappa-scan", "kappas", "kappa_scan"},
      kPredictFrom{"predict_from", "--predict-from", "file", "predict_from"};

  NGrid n;                    // SPEC §2: the N grid, read where it is given (its text is recorded)
  Distance distance = Distance::Euclidean;
  int64_t decay_k = 64;       // SPEC §4: the largest lag K of the decay fit
  int64_t controls = 16;      // SPEC §2b: random permutations per sample
  int64_t bootstrap = 2000;   // SPEC §2b: replicates (0: none)
  std::optional<BootLevel> boot_level;  // nullopt: auto (auto_boot_level)
  BootUnit boot_unit = BootUnit::Document;
  double ci = kSpecCi;        // SPEC §2b: the intervals' coverage in percent
  uint64_t seed = 0;          // controls and bootstrap
  int64_t metrics_memory_mb = kDefaultChunkMiB;  // the tensor path's working memory per chunk, MiB
  // SPEC §5: the bounds of every measured sample, their means beside the measurements. nullopt
  // (auto): on, on every device (on a GPU the tensor path computes them where the forward ran).
  std::optional<bool> envelopes;
  double kappa = 1.0;         // SPEC §5: the concentration constant of those bounds
  // SPEC §1: a windowed layer's tokens are the keys its query sees (visible), or every key 0..q
  // (causal, the older convention).
  WindowTokens window_tokens = WindowTokens::Visible;
  // The kappas of the envelopes for the kappa range each head allows, an opt-in diagnostic (SPEC
  // §5, "What the envelopes can say"): off (the default), auto or a list.
  KappaScan kappa_scan;
  // SPEC §5, "Which envelope tests the theory": the result whose fits the predicted envelopes take
  // (none: no predicted envelopes).
  PredictFrom predict_from;

  // Every setting once, in the order --help lists them and a result records them:
  // visitor.parsed(name, field, help) (a value read from its text once, where it is given:
  // X::parse(text), field.text()), .choice(name, field, names, help) (an optional field takes
  // "auto" too) and .number(name, field, low, high, help); the field's initializer is its
  // default. A visitor with .fact(key, text) also sees the constants a result records among
  // them (record_fact). `Self` is MetricParams or const MetricParams.
  template <typename Self, typename Visitor>
  static void visit_settings(Self& p, Visitor&& v);
  int64_t chunk_bytes() const { return metrics_memory_mb << 20; }
  // The counts and sizes for a run of `layers` x `heads` at window length T with `queries` query
  // positions and `grid` N values, before anything is allocated (geoattn::Error naming the field
  // as `style` spells it): decay_k at most max(64, T - 1) (lags past T - 1 hold no pairs), the
  // control orderings, the bootstrap's replicates and the working memory within the machine's.
  void validate(int64_t layers, int64_t heads, int64_t T, int64_t queries, int64_t grid, ArgumentStyle style) const;
};

// A constant a result records among the settings, for a visitor that writes the record (one
// with .fact); every other visitor passes it by.
template <typename Visitor>
void record_fact(Visitor& v, const char* key, const char* text) {
  if constexpr (requires { v.fact(key, text); }) v.fact(key, text);
}

template <typename Self, typename Visitor>
void MetricParams::visit_settings(Self& p, Visitor&& v) {
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  v.parsed(kN, p.n, "N grid: default, all, or a list like 1:16,24,32");
  v.number(kDecayK, p.decay_k, int64_t{1}, kMost, "largest lag k of the decay fit c(k), at most max(64, T - 1) (SPEC §4)");
  v.choice(kDistance, p.distance, kDistanceNames, "euclidean (the paper) or cosine (SPEC §2b)");
  record_fact(v, "ball", "closed (paper appendix A.1)");
  record_fact(v, "comparisons", kComparisons);
  record_fact(v, "metrics_precision", "float64");
  v.number(kControls, p.controls, int64_t{0}, kMost, "random-selection permutations per sample (SPEC §2b; 0: none)");
  v.number(kBootstrap, p.bootstrap, int64_t{0}, kMost, "bootstrap replicates over documents (SPEC §2b; 0: none)");
  v.number(kSeed, p.seed, uint64_t{0}, std::numeric_limits<uint64_t>::max(), "seed of the controls and the bootstrap");
  v.choice(kBootLevel, p.boot_level, kBootLevelNames,
           "finest level with intervals: head, layer, global, or auto (head while heads x grid x replicates stay "
           "small, else layer; not with --bootstrap 0)");
  v.choice(kBootUnit, p.boot_unit, kBootUnitNames,
           "what the bootstrap resamples: document (windows of one document together) or window (not with "
           "--bootstrap 0)");
  v.number(kCi, p.ci, 0.0, 100.0,
           "the bootstrap intervals' coverage in percent, above 0 and below 100: the (100 - ci)/2 and (100 + ci)/2 "
           "percentiles (SPEC §2b: 95; a label that reads an interval reads it at this coverage; not with "
           "--bootstrap 0)");
  v.choice(kEnvelopes, p.envelopes, kOnOffNames,
           "the bounds of every measured sample (SPEC §5), their means beside the measurements: on, off, or auto (on; "
           "on a GPU computed there, batched over heads)");
  v.number(kKappa, p.kappa, 0.0, std::numeric_limits<double>::max(),
           "the concentration constant kappa > 0 of SPEC §5's bounds (in measure and metrics: of the envelopes, not "
           "with --envelopes off)",
           LowBound::Open);
  v.parsed(kKappaScan, p.kappa_scan,
         std::string("opt-in diagnostic: the kappas of the envelopes for the kappa range each head allows: off, auto (") +
             kDefaultKappasText +
             " where the envelopes are on), or a list like 0.25,0.5,1,2. A smaller kappa never tightens a bound (kappa "
             "-> 0+ gives the kappa-free envelopes every run reports), so a head that brackets at some kappa brackets "
             "at every small enough one: a range's low end says where the grid stops, not what the head needs");
  v.parsed(kPredictFrom, p.predict_from,
           "none, or a measure result (its JSON) whose fits give the predicted envelopes (SPEC §5): per sample the "
           "measured a_i with rho_jk = exp(-beta |j-k|) and rho_0j = rho0 of the same head there (heads whose decay "
           "fit is not ok have none, counted); the result of a first run over the same windows predicts in sample");
  v.choice(kWindowTokens, p.window_tokens, kWindowTokensNames,
           "a windowed layer's tokens (SPEC §1): visible (the keys its query sees, n = min(q + 1, W)) or causal "
           "(every key 0..q, those outside the window as alpha = 0: the older convention)");
  v.number(kMetricsMemory, p.metrics_memory_mb, int64_t{1}, kMost >> 20,
           "MiB of working memory for the metric core on a GPU (it chunks over heads to stay under it; on CPU: a T x T "
           "Gram matrix per thread)");
}

// A setting the run leaves unread while another has a value: its flag or keyword is refused
// where given (tools/geoattn/metric_flags.cpp; geoattn.metrics through geoattn.settings_table),
// and a result does not record it. `setting` is unread with `when` at `value` (as its flag takes it).
struct MetricUnused {
  FieldName setting, when;
  std::string_view value, why;
  bool (*unread)(const MetricParams&);
};
inline constexpr MetricUnused kMetricUnused[] = {
    // SPEC §5: kappa is the envelopes' constant, and nothing else reads it.
    {MetricParams::kKappa, MetricParams::kEnvelopes, "off", "kappa is the envelopes' constant, SPEC §5",
     [](const MetricParams& p) { return p.envelopes == false; }},
    {MetricParams::kBootLevel, MetricParams::kBootstrap, "0", "no intervals", [](const MetricParams& p) { return p.bootstrap == 0; }},
    {MetricParams::kBootUnit, MetricParams::kBootstrap, "0", "no intervals", [](const MetricParams& p) { return p.bootstrap == 0; }},
    {MetricParams::kCi, MetricParams::kBootstrap, "0", "no intervals", [](const MetricParams& p) { return p.bootstrap == 0; }},
};
// Whether `p` leaves the setting `name` unread (kMetricUnused).
inline bool metric_unread(const MetricParams& p, FieldName name) {
  for (const MetricUnused& rule : kMetricUnused)
    if (rule.setting.python == name.python && rule.unread(p)) return true;
  return false;
}

}  // namespace geoattn::metrics
