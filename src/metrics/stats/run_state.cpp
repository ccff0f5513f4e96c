#include "geoattn/metrics/stats/run_state.h"

#include "geoattn/util/error.h"

namespace geoattn::metrics {

void RunState::merge(const RunState& other) {
  metrics.merge(other.metrics);
  if (assumptions.empty() != other.assumptions.empty())
    fail("one run has the assumption statistics (a last query) and the other does not");
  assumptions.merge(other.assumptions);
  if (units.empty() != other.units.empty())
    fail("one run has the bootstrap's per-document statistics and the other does not");
  units.merge(other.units);
  if (envelopes.empty() != other.envelopes.empty())
    fail("one run has the envelopes of its samples (SPEC §5) and the other does not");
  envelopes.merge(other.envelopes);
  if (kappa_scan.empty() != other.kappa_scan.empty())
    fail("one run has the envelopes at a grid of kappas (the kappa range) and the other does not");
  kappa_scan.merge(other.kappa_scan);
  // Predictions from different fits do not add up (settings.predict_from differ: refused before).
  if (predicted.empty() != other.predicted.empty())
    fail("one run has predicted envelopes (--predict-from) and the other does not");
  predicted.merge(other.predicted);
}

void RunState::add_sample(const std::string& unit, int64_t layer, int64_t head, const SampleValues& sample) {
  add_sample(unit_row(unit), layer, head, sample);
}

void RunState::add_sample(int64_t unit_row, int64_t layer, int64_t head, const SampleValues& sample) {
  metrics.add_sample(layer, head, sample);  // checks every value first
  if (!units.empty()) units.add_sample(unit_row, layer, head, sample);
}

}  // namespace geoattn::metrics
