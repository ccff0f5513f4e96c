#include "geoattn/metrics/window_assumptions.h"

#include <algorithm>

#include "geoattn/util/error.h"

namespace geoattn::metrics {

using torch::indexing::Slice;

bool add_window_assumptions(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                            AssumptionStats& stats) {
  c10::InferenceMode inference;
  const int64_t L = alpha.size(0), H = alpha.size(1), T = alpha.size(3), KV = values.size(1), K = stats.K();
  const auto last = std::find(queries.begin(), queries.end(), T - 1);
  if (last == queries.end()) return false;
  if (stats.layers() != L || stats.heads() != H || stats.T() != T)
    fail("assumption stats are {}x{} at T = {}, the window {}x{} at T = {}", stats.layers(), stats.heads(), stats.T(), L, H, T);

  auto V = values.to(torch::kFloat64);                 // [L, KV, T, d]
  auto norm = V.norm(2, -1);                           // [L, KV, T]
  // SPEC §4 (Assumption 1): cv = std/mean of ||v_i||, i > 0, in this window (population std).
  auto rest = norm.index({Slice(), Slice(), Slice(1)});
  auto mean = T > 1 ? rest.mean(-1) : torch::zeros({L, KV}, norm.options());
  auto sd = T > 1 ? rest.std(-1, /*unbiased=*/false) : torch::zeros({L, KV}, norm.options());
  auto cv = torch::where(mean > 0, sd / mean.clamp_min(1e-300), torch::zeros_like(mean));
  // SPEC §4 (Assumption 2): sum over pairs 0 < i < j = i + k of cos(v_i, v_j), k = 1..K.
  auto U = torch::where(norm.unsqueeze(-1) > 0, V / norm.clamp_min(1e-300).unsqueeze(-1), torch::zeros_like(V));
  auto decay_sum = torch::zeros({L, KV, K}, norm.options());
  std::vector<int64_t> pairs(static_cast<size_t>(K), 0);
  for (int64_t k = 1; k <= K && k <= T - 2; ++k) {
    auto dots = (U.index({Slice(), Slice(), Slice(1, T - k)}) * U.index({Slice(), Slice(), Slice(1 + k, T)})).sum({-1, -2});
    decay_sum.select(2, k - 1).copy_(dots);
    pairs[k - 1] = T - 1 - k;
  }
  // SPEC §4 (Assumption 3): the last query's row, by position.
  auto row = alpha.index({Slice(), Slice(), last - queries.begin()}).to(torch::kFloat64).cpu().contiguous();  // [L, H, T]
  norm = norm.cpu().contiguous();
  cv = cv.cpu().contiguous();
  decay_sum = decay_sum.cpu().contiguous();
  const double *norm_p = norm.data_ptr<double>(), *cv_p = cv.data_ptr<double>();
  const double *row_p = row.data_ptr<double>(), *decay_p = decay_sum.data_ptr<double>();
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t kv = l * KV + h / (H / KV);  // SPEC §1: query head h reads KV head h / (H / KV)
      stats.add(l, h, {norm_p + kv * T, cv_p[kv], row_p + (l * H + h) * T, decay_p + kv * K, pairs.data()});
    }
  return true;
}

}  // namespace geoattn::metrics
