#pragma once
// From one window's capture to samples: every (query, layer, head) of the window is a sample
// (SPEC §1). Heads are batched together; the metric core does the work. With controls, each
// sample also gets the random-selection control of SPEC §2b.
#include <torch/torch.h>

#include <functional>
#include <vector>

#include "geoattn/metrics/aggregate.h"
#include "geoattn/metrics/selection.h"

namespace geoattn::metrics {

struct MetricOptions {
  SelectionOptions selection;
  int64_t controls = 0;  // R: random permutations per sample (SPEC §2b); 0: none
  uint64_t seed = 0;     // with the window's key, fixes every permutation
};

// Receives each sample: curves row-major [kCurveMetrics][G] (grid indices g < n_valid are
// defined; the random-control curves are NaN without controls), scalars [kScalarMetrics].
using SampleSink =
    std::function<void(int64_t layer, int64_t head, const double* curves, int64_t n_valid, const double* scalars)>;

// alpha [layers, heads, queries, T] (rows zero after their query), values
// [layers, kv_heads, T, d]; queries: the positions of alpha's query rows. Query head h reads
// KV head h / (heads / kv_heads). Grid values above q + 1 are skipped for query q (SPEC §2).
// window_key identifies the window in its run (its index), so that the control's permutations
// do not depend on how a run is split into shards.
void add_window(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                const std::vector<int64_t>& grid, uint64_t window_key, const MetricOptions& options,
                const SampleSink& sink);

// The same into an aggregator, without controls.
void add_window(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                const std::vector<int64_t>& grid, Aggregator& aggregator, const SelectionOptions& options = {});

// SPEC §2b: R random permutations of 0..n-1 for each of B samples, [R, B, n] int64, from a
// portable generator (splitmix64, Fisher-Yates with unbiased bounded draws): the same on every
// platform and LibTorch version for the same (seed, key, B, n, R).
torch::Tensor random_orders(uint64_t seed, uint64_t key, int64_t R, int64_t B, int64_t n);

}  // namespace geoattn::metrics
