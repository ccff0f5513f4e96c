#pragma once
// The metric run's "settings" (measure, metrics, merge) as a result records them, after the
// command's (run_info.h), and its whole description. Pure C++.
#include <cstdint>
#include <optional>
#include <vector>

#include "geoattn/metrics/core/prediction.h"
#include "geoattn/metrics/run/metric_params.h"
#include "geoattn/metrics/run/run_info.h"

namespace geoattn::metrics {

// The settings table's entries as the run resolved them, and what it took from elsewhere. Written
// and read by one walk of MetricParams::visit_settings (report/settings.cpp); a key a file omits
// reads as the table's default.
struct MetricRecord {
  // As run: boot_level the level the bootstrap ran at (none: no bootstrap), envelopes on or off,
  // kappa_scan the kappas the envelopes ran at (off: none); the entries the run left unread
  // (kMetricUnused) and metrics_memory_mb at their defaults.
  MetricParams params = [] {
    MetricParams none;
    none.envelopes = false;  // a record says whether they ran
    return none;
  }();
  std::vector<int64_t> layer_windows;    // SPEC §1: the layers' windows (0: none)
  std::optional<Prediction> prediction;  // SPEC §5: what the predicted envelopes took (none: not computed)
  // Two runs recorded the same settings: every recorded entry equal (the N grid as written, the
  // prediction by its fingerprint and values, not its path).
  bool operator==(const MetricRecord& o) const;

  // SPEC §5: the kappa of the envelopes of the measured samples (none: not computed).
  std::optional<double> envelope_kappa() const {
    return params.envelopes.value_or(false) ? std::optional<double>(params.kappa) : std::nullopt;
  }
};

using MeasureInfo = RunInfo<MetricRecord>;

}  // namespace geoattn::metrics
