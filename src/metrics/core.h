#pragma once
#include <functional>
// The metric core's two evaluations, internal to src/metrics: the fused CPU loops over one
// Gram matrix per value block (core_cpu.cpp) and the tensor path that CUDA runs
// (core_tensor.cpp). Both take the same batch and give the same counts, exactly.
#include <torch/torch.h>

#include <vector>

#include "geoattn/metrics/selection.h"

namespace geoattn::metrics::detail {

// Samples with n tokens each (one query position) whose values are rows 0..n-1 of a block of
// V: sample i reads block[i] (a KV head) with its own attention row alpha[i].
struct CoreGroup {
  int64_t n = 0;
  torch::Tensor alpha;          // [S, n] float64, on V's device
  torch::Tensor orders;         // [S, O, n] int64 CPU: ordering 0 is top-N, the rest the control
  std::vector<int64_t> block;   // [S]
  std::vector<int64_t> grid;    // N values, all <= n
};

// Per group: the counts of every ordering, the s(N) diagnostics of ordering 0 (kS_norm ..
// kCos_s_vL, in CurveMetric order) and the sample scalars (ScalarMetric order). CPU float64.
struct CoreOut {
  torch::Tensor k_in, k_out;  // [S, O, G]
  torch::Tensor diag;         // [S, 5, G]
  torch::Tensor scalars;      // [S, kScalarMetrics]
};
constexpr int kDiagnostics = 5;

// SPEC §4's value statistics, when asked for (decay_k > 0): ||v_i|| and the sums over pairs
// 0 < i < j = i + k of cos(v_i, v_j), per block.
struct ValueGeometry {
  torch::Tensor norms;       // [K, T] float64 CPU
  torch::Tensor decay_sums;  // [K, decay_k] float64 CPU (0 for lags >= T - 1)
};

// V [K, T, d] float64 contiguous on the compute device.
std::vector<CoreOut> core_cpu(const torch::Tensor& V, const std::vector<CoreGroup>& groups, Distance distance,
                              int64_t max_chunk_bytes, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats);
std::vector<CoreOut> core_tensor(const torch::Tensor& V, const std::vector<CoreGroup>& groups, Distance distance,
                                 int64_t max_chunk_bytes, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats);

// The per-sample curves [S, kCurveMetrics, G] of a group: P, R, F of ordering 0, the mean of
// the other orderings as the control (NaN without them), the diagnostics (selection.cpp).
torch::Tensor curves_from_counts(const CoreOut& out, const std::vector<int64_t>& grid);

// SPEC §4 (Assumption 2): [k, decay_k] sums of cos(v_i, v_{i+lag}) over 0 < i, i + lag < T,
// lag = 1..decay_k (0 with a zero vector; 0 where no pair has the lag), from norms [k, T] and
// dots(lag) = [k, T - lag - 1], the <v_i, v_{i+lag}> for i = 1 .. T - lag - 1: a diagonal of a
// Gram matrix where there is one (gram_lag_dots), else from the values (value_lag_dots).
using LagDots = std::function<torch::Tensor(int64_t lag)>;
torch::Tensor decay_sums(const LagDots& dots, const torch::Tensor& norms, int64_t decay_k);
LagDots value_lag_dots(const torch::Tensor& V);    // V [k, T, d]: O(k T d) a lag
LagDots gram_lag_dots(const torch::Tensor& gram);  // gram [k, T, T]

}  // namespace geoattn::metrics::detail
