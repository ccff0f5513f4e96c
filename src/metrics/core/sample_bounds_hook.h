#pragma once
// SPEC §5's per-sample bounds from the metric core's Gram matrices (core.h's BlockHook), internal
// to src/metrics: window_bounds.cpp and window_metrics.cpp run it.
#include <vector>

#include "geoattn/metrics/core/detail/core.h"
#include "geoattn/metrics/core/window_bounds.h"

namespace geoattn::metrics::detail {

// A sample's attention row over its keys in float64 and its top-N order, [n] each, where the
// metric core has them already (CoreGroup::alpha and orders).
struct SampleRow {
  const double* alpha = nullptr;
  const int64_t* order = nullptr;
};

// The hook that fills `out` (sized here, [Q, L, H]) with the bounds of every sample reading value
// block b = l * KV + kv, at `kappas`: rho_jk = cos(v_j, v_k) from the block's Gram matrix, or
// from its unit vectors where the grid's G values times d are at most n (per_grid_value_cheaper;
// the Gram matrix is then not asked for), and a_i = alpha_i ||v_i|| from its norms.
// alpha [L, H, Q, T]; `rows`, [Q, L, H] or empty: the samples' rows and orders made already (else
// made here). The arguments must outlive the core's call.
BlockHook sample_bounds_hook(const io::FloatView& alpha, const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                             const LayerWindows& windows, const std::vector<double>& kappas, int64_t KV,
                             const std::vector<SampleRow>& rows, WindowSampleBounds& out);

}  // namespace geoattn::metrics::detail
