#pragma once
// From one window's capture to samples: every (query, layer, head) of the window is a sample
// (SPEC §1), all of them in one call to the metric core, which hands them back as batched
// tensors. With controls, each sample also gets the random-selection control of SPEC §2b; with
// decay_k, the value statistics of SPEC §4 come from the same Gram matrices.
#include <torch/torch.h>

#include <functional>
#include <vector>

#include "geoattn/metrics/aggregate.h"
#include "geoattn/metrics/selection.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

struct MetricOptions {
  SelectionOptions selection;
  int64_t controls = 0;  // R: random permutations per sample (SPEC §2b); 0: none
  uint64_t seed = 0;     // with the window's key, fixes every permutation
  int64_t decay_k = 0;   // > 0: also the value statistics of SPEC §4, lags 1..decay_k
};

// One window's samples, sample (query i, layer l, head h) at [i][l][h].
struct WindowMetrics {
  torch::Tensor curves;          // [Q, L, H, kCurveMetrics, G] float64 CPU; NaN past n_valid[i]
                                 // and, without controls, in the control's curves
  torch::Tensor scalars;         // [Q, L, H, kScalarMetrics] float64 CPU
  std::vector<int64_t> n_valid;  // [Q]: the grid values <= q + 1 come first (SPEC §2)
  // With decay_k > 0, per (layer, KV head): ||v_i|| [L, KV, T] and the sums over pairs
  // 0 < i < j = i + k of cos(v_i, v_j) [L, KV, decay_k] (zero for k > T - 2).
  torch::Tensor value_norms, decay_sums;
  CoreStats core;  // what the metric core did, and where its time went
};

// alpha [layers, heads, queries, T] (rows zero after their query), values
// [layers, kv_heads, T, d]; queries: the positions of alpha's query rows. Query head h reads
// KV head h / (heads / kv_heads). window_key identifies the window in its run (its index),
// so that the control's permutations do not depend on how a run is split into shards. The CPU
// metric core and the permutations run on `pool`.
WindowMetrics window_metrics(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                             const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                             const MetricOptions& options);

// SPEC §4's value statistics alone (what window_metrics gives with decay_k): values
// [L, KV, T, d] -> value_norms [L, KV, T], decay_sums [L, KV, decay_k].
std::pair<torch::Tensor, torch::Tensor> value_statistics(const torch::Tensor& values, int64_t decay_k);

// Receives each sample (metric_names.h: SampleValues).
using SampleSink = std::function<void(int64_t layer, int64_t head, const SampleValues& sample)>;
// Every sample of `m` in layers [layer_begin, layer_end) (default: all), query by query,
// layer by layer, head by head.
void for_each_sample(const WindowMetrics& m, const SampleSink& sink, int64_t layer_begin = 0, int64_t layer_end = -1);

// window_metrics into a sink, and into an aggregator (without controls).
void add_window(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                const MetricOptions& options, const SampleSink& sink);
void add_window(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, Aggregator& aggregator,
                const SelectionOptions& options = {});

}  // namespace geoattn::metrics
