#pragma once
// window_bounds.h from tensors, on any device: on the CPU the plain formulas (analysis/bounds.h)
// over the tensors' own storage; on CUDA (or with tensor_path) the same quantities of SPEC §5
// batched over a layer's heads in tensor ops, on the device where the forward left alpha and v,
// with only the curves coming back. What measure and Python hand over.
#include <torch/torch.h>

#include <span>
#include <vector>

#include "geoattn/analysis/bounds.h"
#include "geoattn/metrics/core/visible_keys.h"
#include "geoattn/metrics/stats/envelope_stats.h"
#include "geoattn/metrics/stats/kappa_stats.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

// How the bounds of a window run: the tensor path off the CPU or when asked (tests), in chunks
// of samples whose working tensors stay within max_chunk_bytes.
struct BoundsPath {
  bool tensor_path = false;
  int64_t max_chunk_bytes = int64_t{256} << 20;
};

// add_window_bounds (window_bounds.h) with alpha [L, H, Q, T] and values [L, KV, T, d] tensors.
void add_window_bounds(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                       const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, const LayerWindows& windows,
                       EnvelopeStats& envelopes, KappaStats* scan = nullptr, int64_t scan_row = -1,
                       const BoundsPath& path = {});

// SPEC §5 for S samples at once in tensor ops (the tensor path's core): a [S, n] float64 (a_i =
// alpha_i ||v_i||), U [S, n, d'] float64 (the unit value vectors u_i, 0 for a zero vector: rho_jk
// = <u_j, u_k>), order [S, n] int64 (a permutation per sample, I_N its first N), all on one
// device; d the head_dim of SPEC §5's bounds; grid sorted, unique, in 1..n. Per sample, per kappa:
// the curves sample_bounds gives on rho = U U^T, within rounding (torch's exp, sums and products;
// the same comparisons).
std::vector<std::vector<analysis::BoundsCurves>> tensor_sample_bounds(const torch::Tensor& a, const torch::Tensor& U,
                                                                      const torch::Tensor& order, int64_t d,
                                                                      const std::vector<int64_t>& grid,
                                                                      std::span<const double> kappas);

}  // namespace geoattn::metrics
