#include "geoattn/metrics/core/window_metrics.h"

#include <algorithm>
#include <limits>

#include "geoattn/metrics/core/detail/core.h"
#include "sample_bounds_hook.h"
#include "geoattn/arch/config.h"
#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/util/error.h"
#include "geoattn/util/n_grid.h"

namespace geoattn::metrics {

void check_window(const std::vector<int64_t>& alpha, const std::vector<int64_t>& values, size_t queries,
                  const MetricOptions& options) {
  if (alpha.size() != 4 || values.size() != 4) fail("metrics: alpha must be [L, H, Q, T] and values [L, KV, T, d]");
  const int64_t L = alpha[0], H = alpha[1], Q = alpha[2], T = alpha[3], KV = values[1];
  if (static_cast<int64_t>(queries) != Q) fail("metrics: {} query positions for {} rows", queries, Q);
  if (values[0] != L || values[2] != T || KV < 1 || H % KV != 0)
    fail("metrics: values [{}, {}, {}, {}] do not fit alpha [{}, {}, *, {}]", values[0], KV, values[2], values[3], L, H, T);
  if (options.controls < 0) fail("metrics: {} random permutations", options.controls);
}

std::vector<int64_t> value_blocks(int64_t L, int64_t H, int64_t KV) {
  std::vector<int64_t> block_of;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) block_of.push_back(l * KV + arch::kv_head_of(h, H, KV));
  return block_of;
}

WindowMetrics empty_window_metrics(int64_t Q, int64_t L, int64_t H, int64_t G, int64_t KV, int64_t T, int64_t decay_k) {
  WindowMetrics out;
  out.Q = Q, out.L = L, out.H = H, out.G = G, out.KV = KV, out.T = T, out.decay_k = decay_k;
  out.curves.assign(static_cast<size_t>(Q * L * H * kCurveMetrics * G), std::numeric_limits<double>::quiet_NaN());
  out.scalars.assign(static_cast<size_t>(Q * L * H * kScalarMetrics), 0.0);
  return out;
}

std::vector<KeyGroup> key_groups(const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                                 const LayerWindows& windows, int64_t L, std::vector<int64_t>& n_valid) {
  std::vector<KeyGroup> groups;
  n_valid.assign(static_cast<size_t>(std::ssize(queries) * L), 0);
  for (int64_t qi = 0; qi < std::ssize(queries); ++qi) {
    const size_t begin = groups.size();
    for (int64_t l = 0; l < L; ++l) {
      const QueryKeys keys = windows.keys(queries[qi], l);  // SPEC §1
      const int64_t G = valid_grid_size(grid, keys.n);       // SPEC §2: N <= n
      n_valid[qi * L + l] = G;
      if (G == 0) continue;
      auto same = std::find_if(groups.begin() + static_cast<std::ptrdiff_t>(begin), groups.end(),
                               [&](const KeyGroup& g) { return g.keys.first == keys.first; });
      if (same == groups.end()) {
        groups.push_back({qi, keys, {}, std::vector<int64_t>(grid.begin(), grid.begin() + G)});
        same = groups.end() - 1;
      }
      same->layers.push_back(l);
    }
  }
  return groups;
}

std::vector<int64_t> last_query_first_keys(const LayerWindows& windows, int64_t L, int64_t KV, int64_t T) {
  std::vector<int64_t> first;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t kv = 0; kv < KV; ++kv) first.push_back(windows.keys(T - 1, l).first);
  return first;
}

WindowMetrics window_metrics(WorkerPool& pool, const io::FloatView& alpha, const io::FloatView& values,
                             const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, uint64_t window_key,
                             const MetricOptions& options) {
  check_window(alpha.shape, values.shape, queries.size(), options);
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2), T = alpha.size(3);
  const int64_t KV = values.size(1), d = values.size(3), G = static_cast<int64_t>(grid.size());
  const io::FloatView V{values.data, values.dtype, {L * KV, T, d}};  // the value blocks
  const std::vector<int64_t> block_of = value_blocks(L, H, KV);
  WindowMetrics out = empty_window_metrics(Q, L, H, G, KV, T, options.decay_k);
  const std::vector<KeyGroup> keyed = key_groups(queries, grid, options.windows, L, out.n_valid);
  std::vector<detail::CoreGroup> groups;
  const int64_t O = 1 + options.controls;
  for (const KeyGroup& k : keyed) {
    const int64_t n = k.keys.n, qi = k.qi;
    detail::CoreGroup g;
    g.n = n, g.first = k.keys.first, g.S = std::ssize(k.layers) * H, g.O = O;
    g.grid = k.grid;
    // Each sample's row over its keys first..q, in float64; sample s is (layers[s / H], s % H).
    g.alpha.resize(static_cast<size_t>(g.S * n));
    for (int64_t s = 0; s < g.S; ++s) {
      const int64_t lh = k.layers[s / H] * H + s % H;
      alpha.to_double((lh * Q + qi) * T + g.first, {g.alpha.data() + s * n, static_cast<size_t>(n)});
      g.block.push_back(block_of[lh]);
    }
    // [S, O, n]: the top-N order, then the control's.
    g.orders.resize(static_cast<size_t>(g.S * O * n));
    pool.parallel_for(g.S, [&](int64_t s0, int64_t s1, int) {
      for (int64_t s = s0; s < s1; ++s)
        detail::top_n_order({g.alpha.data() + s * n, static_cast<size_t>(n)},
                            {g.orders.data() + s * O * n, static_cast<size_t>(n)});
    });
    // SPEC §2b: R nested permutations per sample, keyed by the window, the query and the group.
    if (options.controls > 0)
      detail::random_orders(pool, options.seed, control_key(window_key, queries[qi], k.keys.first),
                            options.controls, g.S, n, g.orders.data() + n, n, O * n);
    groups.push_back(std::move(g));
  }
  detail::ValueGeometry geometry;
  detail::ValueGeometry* geo = options.decay_k > 0 ? &geometry : nullptr;
  if (geo) geometry.first = last_query_first_keys(options.windows, L, KV, T);
  // SPEC §5's bounds from the same Gram matrices, rows and top-N orders, where the run asks for them.
  std::vector<detail::SampleRow> rows;
  if (!options.bound_kappas.empty()) {
    rows.resize(static_cast<size_t>(Q * L * H));
    for (size_t i = 0; i < groups.size(); ++i)
      for (int64_t s = 0; s < groups[i].S; ++s) {
        const int64_t n = groups[i].n, sample = (keyed[i].qi * L + keyed[i].layers[s / H]) * H + s % H;
        rows[static_cast<size_t>(sample)] = {groups[i].alpha.data() + s * n, groups[i].orders.data() + s * O * n};
      }
  }
  const detail::BlockHook bounds = options.bound_kappas.empty()
                                       ? detail::BlockHook()
                                       : detail::sample_bounds_hook(alpha, queries, grid, options.windows,
                                                                    options.bound_kappas, KV, rows, out.bounds);
  const auto results =
      detail::core_cpu(pool, V, groups, options.selection.distance, options.decay_k, geo, &out.core, bounds);
  // Each group's curves and scalars into their samples' places, ranges of samples on the pool.
  for (size_t i = 0; i < groups.size(); ++i)
    pool.parallel_for(groups[i].S, [&](int64_t s0, int64_t s1, int) { detail::place_samples(keyed[i], results[i], s0, s1, out); });
  if (geo) out.value_norms = std::move(geometry.norms), out.decay_sums = std::move(geometry.decay_sums);
  return out;
}

namespace detail {
void place_samples(const KeyGroup& k, const CoreOut& r, int64_t s0, int64_t s1, WindowMetrics& out) {
  const int64_t L = out.L, H = out.H, G = out.G;
  const int64_t stride = kCurveMetrics * G;  // the curves of one sample, over the whole grid
  for (int64_t s = s0; s < s1; ++s) {
    const int64_t sample = (k.qi * L + k.layers[s / H]) * H + s % H;
    curves_from_counts(r, k.grid, s, s + 1, out.curves.data() + sample * stride, stride, G);
    std::copy_n(r.scalars.begin() + s * kScalarMetrics, kScalarMetrics, out.scalars.begin() + sample * kScalarMetrics);
  }
}
}  // namespace detail

void for_each_sample(const WindowMetrics& m, const SampleSink& sink, int64_t layer_begin, int64_t layer_end) {
  const int64_t L = m.L, H = m.H, G = m.G;
  if (layer_end < 0) layer_end = L;
  const std::span<const double> c(m.curves), s(m.scalars);
  for (int64_t qi = 0; qi < m.Q; ++qi) {
    for (int64_t l = layer_begin; l < layer_end; ++l) {
      const int64_t n_valid = m.n_valid[qi * L + l];
      if (n_valid == 0) continue;
      for (int64_t h = 0; h < H; ++h) {
        const int64_t b = (qi * L + l) * H + h;
        sink(l, h, {c.subspan(b * kCurveMetrics * G, kCurveMetrics * G), n_valid,
                    s.subspan(b * kScalarMetrics).first<kScalarMetrics>()});
      }
    }
  }
}

}  // namespace geoattn::metrics
