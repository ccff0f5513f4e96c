#pragma once
// The metric core as tensor operations (core_tensor.cpp), internal to src/metrics_torch: what
// runs on CUDA (and on CPU for tests). Same inputs and counts as core_cpu
// (geoattn/metrics/core/detail/core.h, the metrics layer's internal header), exactly, on tensors of
// the compute device.
#include <torch/torch.h>

#include <vector>

#include "geoattn/metrics/core/detail/core.h"

namespace geoattn::metrics::detail {

// core.h's CoreGroup with its rows on the device.
struct TensorGroup {
  int64_t n = 0, first = 0;     // n tokens from block row `first` on (SPEC §1)
  torch::Tensor alpha;          // [S, n] float64, on V's device
  torch::Tensor orders;         // [S, O, n] int64 CPU: ordering 0 is top-N, the rest the control
  std::vector<int64_t> block;   // [S]
  std::vector<int64_t> grid;    // N values, all <= n
};

// V [K, T, d] float64 contiguous on the compute device; outputs on the CPU (core.h's CoreOut),
// and with `geometry` SPEC §4's value statistics (torch's reductions: the tensor path's own order).
std::vector<CoreOut> core_tensor(const torch::Tensor& V, const std::vector<TensorGroup>& groups, Distance distance,
                                 int64_t max_chunk_bytes, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats);

// A tensor's values as float64 on the CPU.
std::vector<double> doubles_of(const torch::Tensor& t);

}  // namespace geoattn::metrics::detail
