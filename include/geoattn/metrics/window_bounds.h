#pragma once
// From one window's capture to the per-sample bounds of SPEC §5: a_i = alpha_i ||v_i|| and
// rho_jk = cos(v_j, v_k) in float64 on the capture's device, then the pure formulas
// (bounds.h) per sample, heads in parallel.
#include <torch/torch.h>

#include <vector>

#include "geoattn/analysis/bounds_tables.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

// alpha [layers, heads, queries, T], values [layers, kv_heads, T, d] (window_metrics.h); the
// selection order is the metric core's (top_n_order), so bounds and measurements share I_N.
// Heads run on `pool`.
void add_window_bounds(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                       const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                       const analysis::BoundsOptions& options, analysis::BoundsTables& tables);

}  // namespace geoattn::metrics
