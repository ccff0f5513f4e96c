#pragma once
// From one window's capture to the per-sample bounds of SPEC §5: a_i = alpha_i ||v_i|| and
// rho_jk = cos(v_j, v_k) in float64 from the metric core's Gram matrix of each value block (or
// its unit vectors where heads are small and the grid sparse), then
// the pure formulas (analysis/bounds.h) per sample, value blocks in parallel, into the run's
// envelopes. Plain C++ over the capture where it lies (io::FloatView), as window_metrics.h.
#include <cstdint>
#include <vector>

#include "geoattn/analysis/bounds.h"
#include "geoattn/io/float_view.h"
#include "geoattn/metrics/stats/envelope_stats.h"
#include "geoattn/metrics/stats/kappa_stats.h"
#include "geoattn/metrics/core/visible_keys.h"
#include "geoattn/util/n_grid.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

// The kappas a run's bounds run at, on either path: the envelopes', then the scan's (none with
// the envelopes off).
std::vector<double> bound_kappas(const EnvelopeStats& envelopes, const KappaStats* scan);
// The same for one window, geoattn::Error
// unless the stats are L x H and `queries` has one position per query row (Q).
std::vector<double> window_kappas(const EnvelopeStats& envelopes, const KappaStats* scan, int64_t L, int64_t H, int64_t Q,
                                  const std::vector<int64_t>& queries);

// Every (query row qi, layer l) of a window whose keys reach some grid value, in the order both
// paths add them: f(qi, l, keys, valid), keys the query's tokens on that layer (SPEC §1), valid the
// grid values N <= keys.n.
// The grid values a sample with tokens `keys` adds: N <= keys.n (SPEC §2).
inline std::vector<int64_t> valid_grid(const std::vector<int64_t>& grid, const QueryKeys& keys) {
  return {grid.begin(), grid.begin() + valid_grid_size(grid, keys.n)};
}
template <class F>
void for_each_query_layer(const std::vector<int64_t>& queries, int64_t L, const std::vector<int64_t>& grid,
                          const LayerWindows& windows, F&& f) {
  for (int64_t qi = 0; qi < std::ssize(queries); ++qi)
    for (int64_t l = 0; l < L; ++l) {
      const QueryKeys keys = windows.keys(queries[qi], l);
      const std::vector<int64_t> valid = valid_grid(grid, keys);
      if (!valid.empty()) f(qi, l, keys, valid);
    }
}

// One window's per-sample bounds as the CPU metric core computes them beside the metrics
// (MetricOptions::bound_kappas): sample (query row qi, layer l, head h) at [(qi * L + l) * H + h],
// one BoundsCurves per kappa (window_kappas' order); empty where the sample reaches no grid value.
struct WindowSampleBounds {
  int64_t L = 0, H = 0;
  std::vector<std::vector<analysis::BoundsCurves>> curves;
};
// Into the run's envelopes (the first kappa) and, with `scan`, its document row `scan_row` (the
// rest), in for_each_query_layer's order.
void add_sample_bounds(const WindowSampleBounds& bounds, EnvelopeStats& envelopes, KappaStats* scan = nullptr,
                       int64_t scan_row = -1);

// alpha [layers, heads, queries, T], values [layers, kv_heads, T, d] (window_metrics.h); the
// selection order is the metric core's (top_n_order), so bounds and measurements share I_N.
// A sample's tokens are its query's keys as `windows` says (SPEC §1), and it adds the grid values
// N <= n; kappa is the envelopes'. The value blocks run on `pool`, as in the metric core (whose
// Gram matrices window_metrics hands to the same per-block work where bound_kappas asks).
// With `scan`, the same samples' bounds at its kappas too, into document row `scan_row`
// (KappaStats::row), from the same pass over each sample.
void add_window_bounds(WorkerPool& pool, const io::FloatView& alpha, const io::FloatView& values,
                       const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, const LayerWindows& windows,
                       EnvelopeStats& envelopes, KappaStats* scan = nullptr, int64_t scan_row = -1);

}  // namespace geoattn::metrics
