#pragma once
// Everything a run accumulates, as one value that merges exactly and round-trips through the
// state sidecar (report/state_file.h): the metric moments (aggregate.h), the assumption stats (assumption_stats.h,
// empty when the run had no last query), and the run's description (run_info.h). Pure C++.
#include <string>

#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/stats/assumption_stats.h"
#include "geoattn/metrics/stats/envelope_stats.h"
#include "geoattn/metrics/stats/kappa_stats.h"
#include "geoattn/metrics/run/metric_record.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/metrics/stats/unit_stats.h"

namespace geoattn::metrics {

struct RunState {
  Aggregator metrics;
  AssumptionStats assumptions;
  MeasureInfo run_info;
  UnitStats units;  // per-document sums for the bootstrap (empty: no bootstrap)
  EnvelopeStats envelopes;  // SPEC §5's bounds of the same samples (empty: not computed)
  KappaStats kappa_scan;    // the same at a grid of kappas, for the kappa range (empty: not computed)
  // SPEC §5's predicted envelopes of the same samples, rho from fitted assumptions (empty: not
  // computed; run_info.method.prediction says from what).
  EnvelopeStats predicted;

  // geoattn::Error when the shapes differ or a document is in both.
  void merge(const RunState& other);
  // One sample into the metrics and, when kept, its unit's sums.
  void add_sample(const std::string& unit, int64_t layer, int64_t head, const SampleValues& sample);
  // The same by the unit's row (unit_row: registers the unit once; -1 without units). Samples
  // of different layers may be added from different threads at once, unless the units are kept
  // at level global (layers_apart()): each layer's slots then see their samples in the order
  // one thread would add them, bit for bit the same sums.
  int64_t unit_row(const std::string& unit) { return units.empty() ? -1 : units.row(unit); }
  void add_sample(int64_t unit_row, int64_t layer, int64_t head, const SampleValues& sample);
  bool layers_apart() const { return units.empty() || units.level() != BootLevel::Global; }
};


}  // namespace geoattn::metrics
