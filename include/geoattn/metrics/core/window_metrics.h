#pragma once
// From one window's capture to samples: every (query, layer, head) of the window is a sample
// (SPEC §1), all of them in one call to the metric core, which hands them back as arrays. With
// controls, each sample also gets the random-selection control of SPEC §2b; with decay_k, the
// value statistics of SPEC §4 come from the same Gram matrices. Plain C++ over the capture where
// it lies (io::FloatView); window_metrics_torch.h runs the same from tensors, CUDA's included.
#include <cstdint>
#include <functional>
#include <vector>

#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/core/core_options.h"
#include "geoattn/metrics/core/visible_keys.h"
#include "geoattn/metrics/core/window_bounds.h"
#include "geoattn/io/float_view.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

struct MetricOptions {
  SelectionOptions selection;
  int64_t controls = 0;  // R: random permutations per sample (SPEC §2b); 0: none
  uint64_t seed = 0;     // with the window's key, fixes every permutation
  int64_t decay_k = 0;   // > 0: also the value statistics of SPEC §4, lags 1..decay_k
  LayerWindows windows;  // SPEC §1: the layers' windows and whose keys are their tokens
  // Non-empty: SPEC §5's bounds of every sample too, at these kappas (window_kappas' order), from
  // the CPU core's Gram matrices (WindowMetrics::bounds). The tensor path leaves them to
  // add_window_bounds.
  std::vector<double> bound_kappas;
};

// One window's samples, sample (query i, layer l, head h) at [i][l][h].
struct WindowMetrics {
  int64_t Q = 0, L = 0, H = 0, G = 0, KV = 0, T = 0, decay_k = 0;
  std::vector<double> curves;    // [Q, L, H, kCurveMetrics, G]; NaN past n_valid[i] and, without
                                 // controls, in the control's curves
  std::vector<double> scalars;   // [Q, L, H, kScalarMetrics]
  std::vector<int64_t> n_valid;  // [Q, L]: the grid values <= n (the sample's tokens) come first (SPEC §2)
  // With decay_k > 0, per (layer, KV head): ||v_i|| [L, KV, T] and the sums over pairs
  // first < i < j = i + k of cos(v_i, v_j) [L, KV, decay_k] (zero without pairs), where key
  // `first` is the last query's first token on the layer (SPEC §1; 0 without a window).
  std::vector<double> value_norms, decay_sums;
  CoreStats core;  // what the metric core did, and where its time went
  WindowSampleBounds bounds;  // with MetricOptions::bound_kappas on the CPU (else no curves)
};

// alpha [layers, heads, queries, T] (rows zero after their query), values
// [layers, kv_heads, T, d], both row-major, any floating type; queries: the positions of alpha's
// query rows. Query head h reads KV head h / (heads / kv_heads). window_key identifies the
// window in its run (its index), so that the control's permutations do not depend on how a run
// is split into shards. The metric core and the permutations run on `pool`.
WindowMetrics window_metrics(WorkerPool& pool, const io::FloatView& alpha, const io::FloatView& values,
                             const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                             const MetricOptions& options);

// What window_metrics and the tensor path share: each sample's value block (layer l, head h ->
// l * KV + its KV head; SPEC §1: query head h reads KV head h / (H / KV)), and a window's metrics
// before the core fills them (curves NaN, scalars 0).
std::vector<int64_t> value_blocks(int64_t L, int64_t H, int64_t KV);
WindowMetrics empty_window_metrics(int64_t Q, int64_t L, int64_t H, int64_t G, int64_t KV, int64_t T, int64_t decay_k);

// window_metrics' checks of the shapes alone (geoattn::Error): alpha [L, H, Q, T], values
// [L, KV, T, d] with KV dividing H, Q query positions.
void check_window(const std::vector<int64_t>& alpha, const std::vector<int64_t>& values, size_t queries,
                  const MetricOptions& options);

// The samples of one query that share their tokens (SPEC §1): every layer, or the layers of one
// window, with the grid values N <= n.
struct KeyGroup {
  int64_t qi = 0;
  QueryKeys keys;
  std::vector<int64_t> layers, grid;
};
// SPEC §2b: the key of a key group's permutations, from the window, the query and the group's
// first key (0 without a window: the key of one query's samples as before windows had groups).
inline uint64_t control_key(uint64_t window_key, int64_t query, int64_t first) {
  return window_key * 1000003ULL + static_cast<uint64_t>(query) + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(first);
}
// The key groups of every query (none for a query whose grid is empty), and n_valid [Q, L].
std::vector<KeyGroup> key_groups(const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                                 const LayerWindows& windows, int64_t L, std::vector<int64_t>& n_valid);
// Per value block (layer l, KV head: l * KV + kv): the first key of the last query T - 1 (the
// keys SPEC §4's value statistics range over).
std::vector<int64_t> last_query_first_keys(const LayerWindows& windows, int64_t L, int64_t KV, int64_t T);

// Receives each sample (metric_names.h: SampleValues).
using SampleSink = std::function<void(int64_t layer, int64_t head, const SampleValues& sample)>;
// Every sample of `m` in layers [layer_begin, layer_end) (default: all), query by query,
// layer by layer, head by head.
void for_each_sample(const WindowMetrics& m, const SampleSink& sink, int64_t layer_begin = 0, int64_t layer_end = -1);

}  // namespace geoattn::metrics
