#pragma once
// The metric core (SPEC §2-3): top-N selection in value space for a batch of samples. Tensors
// in, tensors out; it never sees the model, so it runs on synthetic data and on captures from
// other tools alike. DESIGN.md "The metric core in tensor operations" is the algorithm:
//
//   * every ordering (the top-N order and each random permutation of the control) of a sample
//     is evaluated against the same values; on CPU one Gram matrix V V^T per KV head serves
//     every head, query and ordering (G = alpha alpha^T o V V^T, O(n^2) per ordering, fused
//     loops); the tensor path (CUDA) takes <s(N), y_k> from prefix sums of y in each order and
//     one batched product;
//   * comparisons use E_k = ||y_k||^2 - 2 <s(N), y_k> (D_k minus the common ||s||^2), with a
//     proven bound on its rounding; what the bound cannot decide is decided exactly (exact.h),
//     so K_in and K_out are those of exact arithmetic on the captured alpha and v.
#include <torch/torch.h>

#include <vector>

#include "geoattn/metrics/core/core_options.h"
#include "geoattn/metrics/core/exact.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

struct SampleMetrics {
  torch::Tensor curves;   // [B, kCurveMetrics, G] float64 (metric_names.h); the control's curves NaN
  torch::Tensor scalars;  // [B, kScalarMetrics] float64
};

// The selection order of top-N: a stable descending argsort of alpha [B, n] -> [B, n] (SPEC §2:
// ties broken by the lower position), on alpha's device: on the host (the metric core's
// detail::top_n_order) for a CPU tensor, top_n_order_on_device for a CUDA one.
torch::Tensor top_n_order(const torch::Tensor& alpha);
// The same order as one stable sort on the tensor's own device, no round trip to the host: what
// a CUDA tensor takes (callable on any device; the same order as the host's, the tests check).
torch::Tensor top_n_order_on_device(const torch::Tensor& alpha);

// SPEC §2b: R random permutations of 0..n-1 for each of B samples, [R, B, n] int64, from a
// portable generator (splitmix64, Fisher-Yates with unbiased bounded draws): the same on every
// platform and LibTorch version for the same (seed, key, B, n, R), whatever the pool's size.
torch::Tensor random_orders(WorkerPool& pool, uint64_t seed, uint64_t key, int64_t R, int64_t B, int64_t n);
// The same into `out` [R, B, n] (int64, CPU, rows contiguous), e.g. the control's part of a
// [B, 1 + R, n] tensor of orderings: orders.narrow(1, 1, R).transpose(0, 1).
void random_orders_into(WorkerPool& pool, uint64_t seed, uint64_t key, const torch::Tensor& out);

// alpha [B, n]: one query's attention row over its keys 0..n-1 (n = q + 1); values [B, n, d]:
// the value states of those keys; grid: N values in 1..n. Selection by top-N alpha. On CPU the
// samples' value blocks run on `pool` (the tensor path does not use it).
SampleMetrics selection_metrics(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                                const std::vector<int64_t>& grid, const SelectionOptions& options = {},
                                CoreStats* stats = nullptr);

// The same with the selection order given: order [B, n] is a permutation of 0..n-1 per
// sample whose first N entries are I_N.
SampleMetrics metrics_for_order(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                                const torch::Tensor& order, const std::vector<int64_t>& grid,
                                const SelectionOptions& options = {}, CoreStats* stats = nullptr);

// The ball counts alone, for several orderings per sample: orders [B, O, n] -> K_in and K_out
// [B, O, G] float64. The core of everything above.
struct OrderingCounts {
  torch::Tensor k_in, k_out;
};
OrderingCounts ordering_counts(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                               const torch::Tensor& orders, const std::vector<int64_t>& grid,
                               const SelectionOptions& options = {}, CoreStats* stats = nullptr);

}  // namespace geoattn::metrics
