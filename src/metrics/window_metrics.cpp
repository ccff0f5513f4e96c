#include "geoattn/metrics/window_metrics.h"

#include <limits>

#include "core.h"
#include "geoattn/arch/config.h"
#include "geoattn/util/n_grid.h"
#include "geoattn/metrics/metric_names.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

using torch::indexing::Slice;

WindowMetrics window_metrics(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                             const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                             const MetricOptions& options) {
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2), T = alpha.size(3);
  const int64_t KV = values.size(1), d = values.size(3), G = static_cast<int64_t>(grid.size());
  if (static_cast<int64_t>(queries.size()) != Q) fail("metrics: {} query positions for {} rows", queries.size(), Q);
  if (values.size(0) != L || values.size(2) != T || KV < 1 || H % KV != 0)
    fail("metrics: values [{}, {}, {}, {}] do not fit alpha [{}, {}, *, {}]", values.size(0), KV, values.size(2), d, L, H, T);
  if (options.controls < 0) fail("metrics: {} random permutations", options.controls);
  c10::InferenceMode inference;
  // The value blocks: one per (layer, KV head); SPEC §1: query head h reads KV head h / (H / KV).
  // Float64 for the tensor path; the CPU core converts each block in the worker that takes it.
  const bool tensor = values.is_cuda() || options.selection.tensor_path;
  auto V = values.reshape({L * KV, T, d});
  V = (tensor ? V.to(torch::kFloat64) : V).contiguous();
  std::vector<int64_t> block_of;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) block_of.push_back(l * KV + arch::kv_head_of(h, H, KV));

  WindowMetrics out;
  out.curves = torch::full({Q, L, H, kCurveMetrics, G}, std::numeric_limits<double>::quiet_NaN(), torch::kFloat64);
  out.scalars = torch::zeros({Q, L, H, kScalarMetrics}, torch::kFloat64);
  std::vector<detail::CoreGroup> groups;
  std::vector<int64_t> group_query;
  for (int64_t qi = 0; qi < Q; ++qi) {
    const int64_t n = queries[qi] + 1;  // tokens 0..q
    detail::CoreGroup g;
    g.n = n;
    g.grid.assign(grid.begin(), grid.begin() + valid_grid_size(grid, n));  // SPEC §2: N <= q + 1
    out.n_valid.push_back(static_cast<int64_t>(g.grid.size()));
    if (g.grid.empty()) continue;
    g.alpha = alpha.index({Slice(), Slice(), qi, Slice(0, n)}).to(torch::kFloat64).reshape({L * H, n}).contiguous();
    g.orders = torch::empty({L * H, 1 + options.controls, n}, torch::kInt64);  // [LH, O, n]: top-N, then the control's
    g.orders.select(1, 0).copy_(top_n_order(g.alpha));
    // SPEC §2b: R nested permutations per sample, keyed by the window and the query.
    if (options.controls > 0)
      random_orders_into(pool, options.seed, window_key * 1000003ULL + static_cast<uint64_t>(queries[qi]),
                         g.orders.narrow(1, 1, options.controls).transpose(0, 1));
    g.block = block_of;
    groups.push_back(std::move(g));
    group_query.push_back(qi);
  }
  const auto& sel = options.selection;
  detail::ValueGeometry geometry;
  detail::ValueGeometry* geo = options.decay_k > 0 ? &geometry : nullptr;
  const auto results = tensor ? detail::core_tensor(V, groups, sel.distance, sel.max_chunk_bytes, options.decay_k, geo, &out.core)
                              : detail::core_cpu(pool, V, groups, sel.distance, options.decay_k, geo, &out.core);
  // Each group's curves, ranges of samples on the pool: elementwise and per sample, the same
  // numbers as in one piece, without leaving a core idle.
  for (size_t i = 0; i < groups.size(); ++i) {
    const int64_t qi = group_query[i], Gq = static_cast<int64_t>(groups[i].grid.size());
    const detail::CoreOut& r = results[i];
    auto curves = out.curves[qi].narrow(-1, 0, Gq).view({L * H, kCurveMetrics, Gq});
    pool.parallel_for(L * H, [&](int64_t s0, int64_t s1, int) {
      c10::InferenceMode worker_inference;  // thread-local
      const int64_t s = s1 - s0;
      const detail::CoreOut part{r.k_in.narrow(0, s0, s), r.k_out.narrow(0, s0, s), r.diag.narrow(0, s0, s),
                                 r.scalars.narrow(0, s0, s)};
      detail::curves_from_counts(part, groups[i].grid, curves.narrow(0, s0, s));
    });
    out.scalars[qi].copy_(r.scalars.view({L, H, kScalarMetrics}));
  }
  if (geo) {
    out.value_norms = geometry.norms.view({L, KV, T});
    out.decay_sums = geometry.decay_sums.view({L, KV, options.decay_k});
  }
  return out;
}

std::pair<torch::Tensor, torch::Tensor> value_statistics(const torch::Tensor& values, int64_t decay_k) {
  c10::InferenceMode inference;
  const int64_t L = values.size(0), KV = values.size(1), T = values.size(2), d = values.size(3);
  auto V = values.to(torch::kFloat64).reshape({L * KV, T, d});
  auto norms = V.norm(2, -1);
  auto decay = detail::decay_sums(detail::value_lag_dots(V), norms, decay_k);
  return {norms.cpu().view({L, KV, T}), decay.cpu().view({L, KV, decay_k})};
}

void for_each_sample(const WindowMetrics& m, const SampleSink& sink, int64_t layer_begin, int64_t layer_end) {
  const int64_t Q = m.curves.size(0), L = m.curves.size(1), H = m.curves.size(2), G = m.curves.size(4);
  if (layer_end < 0) layer_end = L;
  auto curves = m.curves.contiguous();
  auto scalars = m.scalars.contiguous();
  const std::span<const double> c(curves.data_ptr<double>(), static_cast<size_t>(curves.numel()));
  const std::span<const double> s(scalars.data_ptr<double>(), static_cast<size_t>(scalars.numel()));
  for (int64_t qi = 0; qi < Q; ++qi) {
    if (m.n_valid[qi] == 0) continue;
    for (int64_t l = layer_begin; l < layer_end; ++l)
      for (int64_t h = 0; h < H; ++h) {
        const int64_t b = (qi * L + l) * H + h;
        sink(l, h, {c.subspan(b * kCurveMetrics * G, kCurveMetrics * G), m.n_valid[qi],
                    s.subspan(b * kScalarMetrics).first<kScalarMetrics>()});
      }
  }
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
