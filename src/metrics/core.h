#pragma once
// The metric core's two evaluations, internal to src/metrics: the fused CPU loops over one
// Gram matrix per value block (core_cpu.cpp: the scheduling over the pool; core_ordering.cpp:
// one ordering; core_kernels.cpp: the loops) and the tensor path that CUDA runs
// (core_tensor.cpp). Both take the same batch and give the same counts, exactly.
#include <torch/torch.h>

#include <functional>
#include <vector>

#include "core_ordering.h"
#include "geoattn/metrics/selection.h"
#include "geoattn/util/worker_pool.h"

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
  torch::Tensor diag;         // [S, kDiagnostics, G]
  torch::Tensor scalars;      // [S, kScalarMetrics]
};

// SPEC §4's value statistics (Assumption 2), what the core hands back when asked (decay_k > 0):
// ||v_i|| and the sums of cos(v_i, v_{i+lag}) per value block.
struct ValueGeometry {
  torch::Tensor norms;       // [K, T] float64 CPU
  torch::Tensor decay_sums;  // [K, decay_k] float64 CPU (0 for lags >= T - 1)
};

// V [K, T, d] contiguous: core_cpu takes any floating dtype on CPU (each block is converted to
// float64 by the worker that takes it), core_tensor float64 on the compute device. With
// `geometry`, SPEC §4's value statistics (lags 1..decay_k) of every block too. The CPU
// evaluation runs on `pool`.
std::vector<CoreOut> core_cpu(WorkerPool& pool, const torch::Tensor& V, const std::vector<CoreGroup>& groups,
                              Distance distance, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats);
std::vector<CoreOut> core_tensor(const torch::Tensor& V, const std::vector<CoreGroup>& groups, Distance distance,
                                 int64_t max_chunk_bytes, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats);

// The per-sample curves [S, kCurveMetrics, G] of a group: P, R, F of ordering 0, the mean of
// the other orderings as the control (NaN without them), the diagnostics (selection.cpp). Into
// `curves` (a view of that shape, NaN where nothing is written), or a new tensor.
void curves_from_counts(const CoreOut& out, const std::vector<int64_t>& grid, const torch::Tensor& curves);
torch::Tensor curves_from_counts(const CoreOut& out, const std::vector<int64_t>& grid);

// SPEC §4 (value_geometry.cpp): [k, decay_k] sums of cos(v_i, v_{i+lag}) over 0 < i, i + lag < T,
// lag = 1..decay_k (0 with a zero vector; 0 where no pair has the lag), from norms [k, T] and
// dots(lag) = [k, T - lag - 1], the <v_i, v_{i+lag}> for i = 1 .. T - lag - 1: a diagonal of a
// Gram matrix where the CPU core has one, else from the values (the tensor path, blocks without
// a Gram matrix, window_metrics.h's value_statistics).
using LagDots = std::function<torch::Tensor(int64_t lag)>;
torch::Tensor decay_sums(const LagDots& dots, const torch::Tensor& norms, int64_t decay_k);
LagDots value_lag_dots(const torch::Tensor& V);    // V [k, T, d]: O(k T d) a lag
LagDots gram_lag_dots(const torch::Tensor& gram);  // gram [k, T, T]: a diagonal a lag

}  // namespace geoattn::metrics::detail
