#include "geoattn/metrics/window_metrics.h"

#include <limits>

#include "geoattn/metrics/metric_names.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

void add_window(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                const std::vector<int64_t>& grid, Aggregator& aggregator, const SelectionOptions& options) {
  using torch::indexing::Slice;
  const int64_t L = alpha.size(0), H = alpha.size(1), T = alpha.size(3);
  const int64_t KV = values.size(1), d = values.size(3), G = static_cast<int64_t>(grid.size());
  if (static_cast<int64_t>(queries.size()) != alpha.size(2)) fail("metrics: {} query positions for {} rows", queries.size(), alpha.size(2));
  if (values.size(0) != L || values.size(2) != T || KV < 1 || H % KV != 0)
    fail("metrics: values [{}, {}, {}, {}] do not fit alpha [{}, {}, *, {}]", values.size(0), KV, values.size(2), d, L, H, T);

  // SPEC §1: query head h reads KV head h / (H / KV).
  auto kv_of_head = torch::arange(H, torch::TensorOptions().dtype(torch::kInt64)).div(H / KV, "floor").to(values.device());
  auto per_head_values = values.index_select(1, kv_of_head);  // [L, H, T, d]

  for (size_t qi = 0; qi < queries.size(); ++qi) {
    const int64_t n = queries[qi] + 1;  // tokens 0..q
    std::vector<int64_t> valid;
    for (int64_t N : grid)
      if (N <= n) valid.push_back(N);
    auto A = alpha.index({Slice(), Slice(), static_cast<int64_t>(qi), Slice(0, n)}).reshape({L * H, n});
    auto V = per_head_values.index({Slice(), Slice(), Slice(0, n)}).reshape({L * H, n, d});
    const SampleMetrics m = valid.empty() ? SampleMetrics{} : selection_metrics(A, V, valid, options);
    if (valid.empty()) continue;

    // The aggregator takes [kCurveMetrics][G] per sample; grid points past q + 1 stay unused.
    auto curves = torch::full({L * H, kCurveMetrics, G}, std::numeric_limits<double>::quiet_NaN(), torch::kFloat64);
    curves.index_put_({Slice(), Slice(), Slice(0, static_cast<int64_t>(valid.size()))}, m.curves);
    auto scalars = m.scalars.contiguous();
    const double* c = curves.data_ptr<double>();
    const double* s = scalars.data_ptr<double>();
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h) {
        const int64_t b = l * H + h;
        aggregator.add_sample(l, h, c + b * kCurveMetrics * G, static_cast<int64_t>(valid.size()), s + b * kScalarMetrics);
      }
  }
}

}  // namespace geoattn::metrics
