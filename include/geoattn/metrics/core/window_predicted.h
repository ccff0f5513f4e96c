#pragma once
// One window's predicted envelopes (SPEC §5, "Which envelope tests the theory"): per sample the
// measured a_i = alpha_i ||v_i|| and top-N order, rho from the head's fitted assumptions
// (analysis::assumption_rho with the Prediction's beta and rho0), through the same formulas as
// the realized envelopes (analysis::sample_bounds). Plain C++ over the capture on the host.
#include <cstdint>
#include <span>
#include <vector>

#include "geoattn/io/float_view.h"
#include "geoattn/metrics/core/prediction.h"
#include "geoattn/metrics/core/visible_keys.h"
#include "geoattn/metrics/stats/envelope_stats.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

// alpha [L, H, Q, T] (query rows at `queries`), value_norms [L, KV, T] (||v_i|| in float64, as
// window_metrics gives them), d the head dimension; samples of heads the prediction does not
// predict are skipped. Samples run on `pool`; they are added to `predicted` (its kappa) in
// window_bounds.h's for_each_query_layer order.
void add_window_predicted(WorkerPool& pool, const io::FloatView& alpha, std::span<const double> value_norms, int64_t KV,
                          int64_t d, const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                          const LayerWindows& windows, const Prediction& prediction, EnvelopeStats& predicted);

}  // namespace geoattn::metrics
