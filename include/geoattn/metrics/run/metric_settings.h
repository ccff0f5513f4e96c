#pragma once
// The metric run's "settings" (measure, metrics, merge), after the command's (run_info.h), as the
// run recorded them, and its whole description. Pure C++.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/core/exact.h"
#include "geoattn/metrics/core/prediction.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/metrics/core/visible_keys.h"

namespace geoattn::metrics {

// SPEC §2b: the random-selection control.
struct ControlSettings {
  int64_t random_permutations = 0;  // per sample (0: none)
  uint64_t seed = 0;
  bool operator==(const ControlSettings&) const = default;
};
// SPEC §2b: the bootstrap; no level or unit where it did not run.
struct BootstrapSettings {
  int64_t replicates = 0;  // 0: none
  uint64_t seed = 0;
  std::optional<BootLevel> level;
  std::optional<BootUnit> unit;
  double ci = kSpecCi;  // the intervals' coverage in percent (recorded where it is not the SPEC's)
  bool operator==(const BootstrapSettings&) const = default;
};
// The metric run's "settings" (measure, metrics, merge), after the command's. Set whole by who
// builds it (pipeline::MetricRun::settings, or report::read_metric_settings, where a key a file
// omits reads as metric_params.h's default); its keys are metric_params.h's record keys.
struct MetricSettings {
  std::string n;        // the N grid as the user wrote it
  int64_t decay_k = 0;  // SPEC §4: the largest lag of the decay fit
  Distance distance{};
  ControlSettings controls;
  BootstrapSettings bootstrap;
  std::optional<double> envelope_kappa;  // SPEC §5's envelopes of the measured samples at this kappa; none: not computed
  // SPEC §1: whose keys a windowed layer's samples range over, and the layers' windows (0: none).
  WindowTokens window_tokens{};
  std::vector<int64_t> layer_windows;
  // The kappa grid of the envelopes for the kappa range (empty: not computed).
  std::vector<double> kappa_scan;
  // SPEC §5: what the predicted envelopes took from --predict-from's result (none: not computed).
  std::optional<Prediction> prediction;
  bool operator==(const MetricSettings&) const = default;
};

using MeasureInfo = RunInfo<MetricSettings>;

}  // namespace geoattn::metrics
