#pragma once
// window_metrics.h and window_assumptions.h from tensors, on any device: on the CPU the plain
// core over the tensors' own storage; on CUDA (or with options.selection.tensor_path) the
// tensor path, which gives the same counts exactly (its SPEC §4 value statistics in torch's
// order). What the forward (measure, sinks), Python and the tests hand over.
#include <torch/torch.h>

#include <utility>
#include <vector>

#include "geoattn/metrics/core/window_assumptions.h"
#include "geoattn/metrics/core/window_metrics.h"

namespace geoattn::metrics {

// alpha [layers, heads, queries, T], values [layers, kv_heads, T, d] (window_metrics.h).
WindowMetrics window_metrics(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                             const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                             const MetricOptions& options);

// SPEC §4's value statistics alone (what window_metrics gives with decay_k): values
// [L, KV, T, d] -> value_norms [L, KV, T], decay_sums [L, KV, decay_k].
std::pair<std::vector<double>, std::vector<double>> value_statistics(WorkerPool& pool, const torch::Tensor& values,
                                                                     int64_t decay_k, const LayerWindows& windows = {});

// The rows of alpha [L, H, Q, T] that SPEC §4 reads, the last query's (position T - 1 of
// `queries`), on the host and contiguous: [L, H, 1, T]; undefined when `queries` has no T - 1.
// Only they come back from a GPU.
torch::Tensor last_query_rows(const torch::Tensor& alpha, const std::vector<int64_t>& queries);

// window_assumptions.h with alpha [L, H, Q, T] a tensor and the value statistics of `values`
// [L, KV, T, d] (value_statistics).
bool add_window_assumptions(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                            const std::vector<int64_t>& queries, AssumptionStats& stats, const LayerWindows& windows = {});

// window_metrics into a sink, and into an aggregator (without controls).
void add_window(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                const MetricOptions& options, const SampleSink& sink);
void add_window(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, Aggregator& aggregator,
                const SelectionOptions& options = {});

}  // namespace geoattn::metrics
