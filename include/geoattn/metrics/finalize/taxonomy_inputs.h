#pragma once
// SPEC §6's per-head features of a run, straight from its aggregated means: what
// report::taxonomy_inputs reads back out of the run's result JSON, without writing it. Pure C++.
#include <vector>

#include "geoattn/analysis/taxonomy.h"
#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/finalize/head_fits.h"

namespace geoattn::metrics {

// Every (layer, head), layer-major: c_sink, c_last, c_rest and the cos(s, v_0), cos(s, v_L)
// curves (their means over the samples; NaN where no sample reached an N), and with `boot` (a
// head-level bootstrap with intervals) the slopes' intervals, the leave-one-out curves, and with
// `fits` (one per head, layer-major; empty: none) each head's mean attention row. geoattn::Error,
// as report::taxonomy_inputs words it, for a head without samples.
std::vector<analysis::TaxonomyInput> taxonomy_inputs(const Aggregator& agg, const BootstrapResult* boot = nullptr,
                                                     const std::vector<HeadFits>* fits = nullptr);

}  // namespace geoattn::metrics
