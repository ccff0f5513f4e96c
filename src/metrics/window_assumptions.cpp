#include "geoattn/metrics/window_assumptions.h"

#include <algorithm>

#include "geoattn/arch/config.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

using torch::indexing::Slice;

bool add_window_assumptions(const torch::Tensor& alpha, const torch::Tensor& value_norms, const torch::Tensor& decay_sums,
                            const std::vector<int64_t>& queries, AssumptionStats& stats) {
  c10::InferenceMode inference;
  const int64_t L = alpha.size(0), H = alpha.size(1), T = alpha.size(3), KV = value_norms.size(1), K = stats.K();
  const auto last = std::find(queries.begin(), queries.end(), T - 1);
  if (last == queries.end()) return false;
  if (stats.layers() != L || stats.heads() != H || stats.T() != T)
    fail("assumption stats are {}x{} at T = {}, the window {}x{} at T = {}", stats.layers(), stats.heads(), stats.T(), L, H, T);
  if (decay_sums.size(2) != K) fail("metrics: decay sums for {} lags, the stats hold {}", decay_sums.size(2), K);
  auto norm = value_norms.to(torch::kCPU, torch::kFloat64).contiguous();  // [L, KV, T]
  // SPEC §4 (Assumption 1): cv = std/mean of ||v_i||, i > 0, in this window (population std).
  auto rest = norm.index({Slice(), Slice(), Slice(1)});
  auto mean = T > 1 ? rest.mean(-1) : torch::zeros({L, KV}, norm.options());
  auto sd = T > 1 ? rest.std(-1, /*unbiased=*/false) : torch::zeros({L, KV}, norm.options());
  auto cv = torch::where(mean > 0, sd / mean.clamp_min(1e-300), torch::zeros_like(mean)).contiguous();
  // SPEC §4 (Assumption 2): the pairs 0 < i < j = i + k, k = 1..K.
  std::vector<int64_t> pairs(static_cast<size_t>(K), 0);
  for (int64_t k = 1; k <= K && k <= T - 2; ++k) pairs[k - 1] = T - 1 - k;
  // SPEC §4 (Assumption 3): the last query's row, by position.
  auto row = alpha.index({Slice(), Slice(), last - queries.begin()}).to(torch::kCPU, torch::kFloat64).contiguous();  // [L, H, T]
  auto decay = decay_sums.to(torch::kCPU, torch::kFloat64).contiguous();
  const double* cv_p = cv.data_ptr<double>();
  const auto span_of = [](const torch::Tensor& t) { return std::span<const double>(t.data_ptr<double>(), t.numel()); };
  const auto norms = span_of(norm), rows = span_of(row), decays = span_of(decay);  // [L KV T], [L H T], [L KV K]
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t kv = l * KV + arch::kv_head_of(h, H, KV);
      stats.add(l, h, {norms.subspan(kv * T, T), cv_p[kv], rows.subspan((l * H + h) * T, T), decays.subspan(kv * K, K), pairs});
    }
  return true;
}

bool add_window_assumptions(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                            AssumptionStats& stats) {
  if (std::find(queries.begin(), queries.end(), alpha.size(3) - 1) == queries.end()) return false;
  const auto [norms, decay] = value_statistics(values, stats.K());
  return add_window_assumptions(alpha, norms, decay, queries, stats);
}

}  // namespace geoattn::metrics
