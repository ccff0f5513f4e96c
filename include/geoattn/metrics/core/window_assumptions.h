#pragma once
// From one window's capture to the statistics of the paper's three assumptions (SPEC §4):
// value norms by position, their cv, the decay of cos(v_i, v_j) with the lag, and the last
// query's attention row. The value statistics come from the metric core's Gram matrices
// (window_metrics with decay_k), so they cost no second pass over the values. Plain C++.
#include <cstdint>
#include <span>
#include <vector>

#include "geoattn/metrics/stats/assumption_stats.h"
#include "geoattn/metrics/core/visible_keys.h"
#include "geoattn/io/float_view.h"

namespace geoattn::metrics {

// alpha [layers, heads, queries, T]; value_norms [layers, kv_heads, T] and decay_sums
// [layers, kv_heads, K] (window_metrics.h with the same windows, K = stats.K()). Adds to
// `stats` (shaped [layers, heads, T, K], last_query_tokens per layer) and returns true when
// `queries` holds the last position T - 1; returns false, adding nothing, otherwise. On a layer
// with a window, the last query's tokens are its keys as `windows` says (SPEC §1).
bool add_window_assumptions(const io::FloatView& alpha, std::span<const double> value_norms,
                            std::span<const double> decay_sums, int64_t kv_heads, const std::vector<int64_t>& queries,
                            const LayerWindows& windows, AssumptionStats& stats);

// The last query's number of tokens per layer (AssumptionStats' tokens).
std::vector<int64_t> last_query_tokens(const LayerWindows& windows, int64_t L, int64_t T);

}  // namespace geoattn::metrics
