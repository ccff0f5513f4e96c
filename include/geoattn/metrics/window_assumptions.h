#pragma once
// From one window's capture to the statistics of the paper's three assumptions (SPEC §4):
// value norms by position, their cv, the decay of cos(v_i, v_j) with the lag, and the last
// query's attention row. Batched over layers and heads, float64, on the capture's device.
#include <torch/torch.h>

#include <vector>

#include "geoattn/metrics/assumption_stats.h"

namespace geoattn::metrics {

// alpha [layers, heads, queries, T], values [layers, kv_heads, T, d] (window_metrics.h).
// Adds to `stats` (shaped [layers, heads, T, K]) and returns true when `queries` holds the last
// position T - 1; returns false, adding nothing, otherwise.
bool add_window_assumptions(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                            AssumptionStats& stats);

}  // namespace geoattn::metrics
