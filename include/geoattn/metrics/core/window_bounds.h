#pragma once
// From one window's capture to the per-sample bounds of SPEC §5: a_i = alpha_i ||v_i|| and
// rho_jk = cos(v_j, v_k) in float64, then the pure formulas (analysis/bounds.h) per sample, heads
// in parallel, into the run's envelopes. Plain C++ over the capture where it lies
// (io::FloatView), as window_metrics.h.
#include <cstdint>
#include <vector>

#include "geoattn/io/float_view.h"
#include "geoattn/metrics/stats/envelope_stats.h"
#include "geoattn/metrics/stats/kappa_stats.h"
#include "geoattn/metrics/core/visible_keys.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

// alpha [layers, heads, queries, T], values [layers, kv_heads, T, d] (window_metrics.h); the
// selection order is the metric core's (top_n_order), so bounds and measurements share I_N.
// A sample's tokens are its query's keys as `windows` says (SPEC §1), and it adds the grid values
// N <= n; kappa is the envelopes'. Heads run on `pool`.
// With `scan`, the same samples' bounds at its kappas too, into document row `scan_row`
// (KappaStats::row), from the same pass over each sample.
void add_window_bounds(WorkerPool& pool, const io::FloatView& alpha, const io::FloatView& values,
                       const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, const LayerWindows& windows,
                       EnvelopeStats& envelopes, KappaStats* scan = nullptr, int64_t scan_row = -1);

}  // namespace geoattn::metrics
