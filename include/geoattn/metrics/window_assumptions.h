#pragma once
// From one window's capture to the statistics of the paper's three assumptions (SPEC §4):
// value norms by position, their cv, the decay of cos(v_i, v_j) with the lag, and the last
// query's attention row. The value statistics come from the metric core's Gram matrices
// (window_metrics with decay_k), so they cost no second pass over the values.
#include <torch/torch.h>

#include <vector>

#include "geoattn/metrics/assumption_stats.h"
#include "geoattn/metrics/window_metrics.h"

namespace geoattn::metrics {

// alpha [layers, heads, queries, T]; value_norms [layers, kv_heads, T] and decay_sums
// [layers, kv_heads, K] (window_metrics.h). Adds to `stats` (shaped [layers, heads, T, K]) and
// returns true when `queries` holds the last position T - 1; returns false, adding nothing,
// otherwise.
bool add_window_assumptions(const torch::Tensor& alpha, const torch::Tensor& value_norms, const torch::Tensor& decay_sums,
                            const std::vector<int64_t>& queries, AssumptionStats& stats);

// The same from the values [layers, kv_heads, T, d] (value_statistics computes what the
// metric core would).
bool add_window_assumptions(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                            AssumptionStats& stats);

}  // namespace geoattn::metrics
