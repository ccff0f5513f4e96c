#include "geoattn/metrics_torch/window_metrics_torch.h"

#include <algorithm>
#include <limits>

#include "core_tensor.h"
#include "geoattn/arch/config.h"
#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "geoattn/metrics_torch/selection.h"
#include "geoattn/util/error.h"
#include "geoattn/util/n_grid.h"

namespace geoattn::metrics {

namespace {

using torch::indexing::Slice;

// The tensor path (what CUDA runs): window_metrics.cpp's steps with the core on the device.
WindowMetrics tensor_window_metrics(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                                    const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                                    uint64_t window_key, const MetricOptions& options) {
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2), T = alpha.size(3);
  const int64_t KV = values.size(1), d = values.size(3), G = static_cast<int64_t>(grid.size());
  auto V = values.reshape({L * KV, T, d}).to(torch::kFloat64).contiguous();
  const std::vector<int64_t> block_of = value_blocks(L, H, KV);
  WindowMetrics out = empty_window_metrics(Q, L, H, G, KV, T, options.decay_k);
  const std::vector<KeyGroup> keyed = key_groups(queries, grid, options.windows, L, out.n_valid);
  std::vector<detail::TensorGroup> groups;
  for (const KeyGroup& k : keyed) {
    const int64_t n = k.keys.n, qi = k.qi, S = std::ssize(k.layers) * H;
    detail::TensorGroup g;
    g.n = n, g.first = k.keys.first;
    g.grid = k.grid;
    // [S, n]: the rows of the group's layers over their keys first..q; sample s is (layers[s / H], s % H).
    auto layers = torch::tensor(k.layers, torch::kInt64).to(alpha.device());
    g.alpha = alpha.index_select(0, layers).index({Slice(), Slice(), qi, Slice(g.first, g.first + n)})
                  .to(torch::kFloat64).reshape({S, n}).contiguous();
    g.orders = torch::empty({S, 1 + options.controls, n}, torch::kInt64);  // [S, O, n]: top-N, then the control's
    g.orders.select(1, 0).copy_(top_n_order(g.alpha));  // sorted where alpha is, into the host's orders
    // SPEC §2b: R nested permutations per sample, keyed by the window, the query and the group.
    if (options.controls > 0)
      random_orders_into(pool, options.seed, control_key(window_key, queries[qi], k.keys.first),
                         g.orders.narrow(1, 1, options.controls).transpose(0, 1));
    for (const int64_t l : k.layers) g.block.insert(g.block.end(), block_of.begin() + l * H, block_of.begin() + (l + 1) * H);
    groups.push_back(std::move(g));
  }
  const auto& sel = options.selection;
  detail::ValueGeometry geometry;
  detail::ValueGeometry* geo = options.decay_k > 0 ? &geometry : nullptr;
  if (geo) geometry.first = last_query_first_keys(options.windows, L, KV, T);
  const auto results = detail::core_tensor(V, groups, sel.distance, sel.max_chunk_bytes, options.decay_k, geo, &out.core);
  for (size_t i = 0; i < groups.size(); ++i) detail::place_samples(keyed[i], results[i], 0, results[i].S, out);
  if (geo) out.value_norms = std::move(geometry.norms), out.decay_sums = std::move(geometry.decay_sums);
  return out;
}

}  // namespace

WindowMetrics window_metrics(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                             const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                             const MetricOptions& options) {
  if (alpha.dim() != 4 || values.dim() != 4) fail("metrics: alpha must be [L, H, Q, T] and values [L, KV, T, d]");
  c10::InferenceMode inference;
  if (values.is_cuda() || options.selection.tensor_path) {
    check_window(alpha.sizes().vec(), values.sizes().vec(), queries.size(), options);
    return tensor_window_metrics(pool, alpha, values, queries, grid, window_key, options);
  }
  const auto A = alpha.contiguous(), V = values.contiguous();
  return window_metrics(pool, model::float_view(A), model::float_view(V), queries, grid, window_key, options);
}

std::pair<std::vector<double>, std::vector<double>> value_statistics(WorkerPool& pool, const torch::Tensor& values,
                                                                     int64_t decay_k, const LayerWindows& windows) {
  c10::InferenceMode inference;
  const int64_t L = values.size(0), KV = values.size(1), T = values.size(2), d = values.size(3);
  const auto V = values.to(torch::kCPU).contiguous();
  const io::FloatView view = model::float_view(V);
  detail::ValueGeometry geometry;
  geometry.first = last_query_first_keys(windows, L, KV, T);
  detail::core_cpu(pool, io::FloatView{view.data, view.dtype, {L * KV, T, d}}, {}, Distance::Euclidean, decay_k, &geometry,
                   nullptr);
  return {std::move(geometry.norms), std::move(geometry.decay_sums)};
}

torch::Tensor last_query_rows(const torch::Tensor& alpha, const std::vector<int64_t>& queries) {
  const auto last = std::find(queries.begin(), queries.end(), alpha.size(3) - 1);
  if (last == queries.end()) return {};
  return alpha.narrow(2, last - queries.begin(), 1).to(torch::kCPU).contiguous();
}

bool add_window_assumptions(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                            const std::vector<int64_t>& queries, AssumptionStats& stats, const LayerWindows& windows) {
  const auto rows = last_query_rows(alpha, queries);
  if (!rows.defined()) return false;
  const auto [norms, decay] = value_statistics(pool, values, stats.K(), windows);
  return add_window_assumptions(model::float_view(rows), norms, decay, values.size(1), {alpha.size(3) - 1}, windows, stats);
}

void add_window(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                const MetricOptions& options, const SampleSink& sink) {
  for_each_sample(window_metrics(pool, alpha, values, queries, grid, window_key, options), sink);
}

void add_window(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, Aggregator& aggregator,
                const SelectionOptions& options) {
  MetricOptions metric_options;
  metric_options.selection = options;
  add_window(pool, alpha, values, queries, grid, 0, metric_options,
             [&](int64_t l, int64_t h, const SampleValues& sample) { aggregator.add_sample(l, h, sample); });
}

}  // namespace geoattn::metrics
