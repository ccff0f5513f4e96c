#include "geoattn/metrics/window_metrics.h"

#include <limits>

#include "geoattn/metrics/metric_names.h"
#include "geoattn/util/error.h"
#include "geoattn/util/random.h"

namespace geoattn::metrics {

namespace {

using torch::indexing::Slice;

// SPEC §2b: the control's four curves, each the mean over R random selections.
void add_controls(const torch::Tensor& A, const torch::Tensor& V, const std::vector<int64_t>& valid, uint64_t key,
                  const MetricOptions& options, torch::Tensor& curves) {
  const int64_t B = A.size(0), n = A.size(1), nv = static_cast<int64_t>(valid.size());
  const auto orders = random_orders(options.seed, key, options.controls, B, n).to(A.device());
  auto sum = torch::zeros({B, kControlled, nv}, torch::kFloat64);
  for (int64_t r = 0; r < options.controls; ++r)
    sum += metrics_for_order(A, V, orders[r], valid, options.selection).curves.narrow(1, kP_rmax, kControlled);
  curves.index_put_({Slice(), Slice(kFirstOptionalCurve, kFirstOptionalCurve + kControlled), Slice(0, nv)},
                    sum / static_cast<double>(options.controls));
}

}  // namespace

torch::Tensor random_orders(uint64_t seed, uint64_t key, int64_t R, int64_t B, int64_t n) {
  auto out = torch::empty({R, B, n}, torch::kInt64);
  int64_t* p = out.data_ptr<int64_t>();
  for (int64_t r = 0; r < R; ++r)
    for (int64_t b = 0; b < B; ++b) {
      uint64_t mix = seed ^ 0x6A09E667F3BCC909ULL;
      uint64_t state = splitmix64_next(mix) ^ key;
      state = splitmix64_next(state) ^ static_cast<uint64_t>(r * B + b);
      int64_t* perm = p + (r * B + b) * n;
      for (int64_t i = 0; i < n; ++i) perm[i] = i;
      for (int64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[uniform_below(state, static_cast<uint64_t>(i + 1))]);
    }
  return out;
}

void add_window(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                const std::vector<int64_t>& grid, uint64_t window_key, const MetricOptions& options,
                const SampleSink& sink) {
  const int64_t L = alpha.size(0), H = alpha.size(1), T = alpha.size(3);
  const int64_t KV = values.size(1), d = values.size(3), G = static_cast<int64_t>(grid.size());
  if (static_cast<int64_t>(queries.size()) != alpha.size(2)) fail("metrics: {} query positions for {} rows", queries.size(), alpha.size(2));
  if (values.size(0) != L || values.size(2) != T || KV < 1 || H % KV != 0)
    fail("metrics: values [{}, {}, {}, {}] do not fit alpha [{}, {}, *, {}]", values.size(0), KV, values.size(2), d, L, H, T);
  if (options.controls < 0) fail("metrics: {} random permutations", options.controls);

  // SPEC §1: query head h reads KV head h / (H / KV).
  auto kv_of_head = torch::arange(H, torch::TensorOptions().dtype(torch::kInt64)).div(H / KV, "floor").to(values.device());
  auto per_head_values = values.index_select(1, kv_of_head);  // [L, H, T, d]

  for (size_t qi = 0; qi < queries.size(); ++qi) {
    const int64_t n = queries[qi] + 1;  // tokens 0..q
    std::vector<int64_t> valid;
    for (int64_t N : grid)
      if (N <= n) valid.push_back(N);
    if (valid.empty()) continue;
    auto A = alpha.index({Slice(), Slice(), static_cast<int64_t>(qi), Slice(0, n)}).reshape({L * H, n});
    auto V = per_head_values.index({Slice(), Slice(), Slice(0, n)}).reshape({L * H, n, d});
    const SampleMetrics m = selection_metrics(A, V, valid, options.selection);

    // The sink takes [kCurveMetrics][G] per sample; grid points past q + 1 stay unused.
    auto curves = torch::full({L * H, kCurveMetrics, G}, std::numeric_limits<double>::quiet_NaN(), torch::kFloat64);
    curves.index_put_({Slice(), Slice(), Slice(0, static_cast<int64_t>(valid.size()))}, m.curves);
    if (options.controls > 0)
      add_controls(A, V, valid, window_key * 1000003ULL + static_cast<uint64_t>(queries[qi]), options, curves);
    auto scalars = m.scalars.contiguous();
    const double* c = curves.data_ptr<double>();
    const double* s = scalars.data_ptr<double>();
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h) {
        const int64_t b = l * H + h;
        sink(l, h, c + b * kCurveMetrics * G, static_cast<int64_t>(valid.size()), s + b * kScalarMetrics);
      }
  }
}

void add_window(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                const std::vector<int64_t>& grid, Aggregator& aggregator, const SelectionOptions& options) {
  MetricOptions metric_options;
  metric_options.selection = options;
  add_window(alpha, values, queries, grid, 0, metric_options,
             [&](int64_t l, int64_t h, const double* curves, int64_t n_valid, const double* scalars) {
               aggregator.add_sample(l, h, curves, n_valid, scalars);
             });
}

}  // namespace geoattn::metrics
