#include "geoattn/metrics/core/window_assumptions.h"

#include <algorithm>
#include <cmath>

#include "geoattn/arch/config.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

namespace {
// SPEC §4 (Assumption 1): cv = std/mean of ||v_i||, i > 0, in one window (population std; 0 if
// the mean is 0), each sum in one written order (i ascending).
double norm_cv(std::span<const double> norm) {
  const auto rest = norm.subspan(1);
  if (rest.empty()) return 0.0;
  const double n = static_cast<double>(rest.size());
  double sum = 0;
  for (const double x : rest) sum += x;
  const double mean = sum / n;
  double squares = 0;
  for (const double x : rest) squares += (x - mean) * (x - mean);
  const double sd = std::sqrt(squares / n);
  return mean > 0 ? sd / std::max(mean, 1e-300) : 0.0;
}
}  // namespace

bool add_window_assumptions(const io::FloatView& alpha, std::span<const double> value_norms,
                            std::span<const double> decay_sums, int64_t kv_heads, const std::vector<int64_t>& queries,
                            const LayerWindows& windows, AssumptionStats& stats) {
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2), T = alpha.size(3), KV = kv_heads, K = stats.K();
  const auto last = std::find(queries.begin(), queries.end(), T - 1);
  if (last == queries.end()) return false;
  if (stats.layers() != L || stats.heads() != H || stats.T() != T)
    fail("assumption stats are {}x{} at T = {}, the window {}x{} at T = {}", stats.layers(), stats.heads(), stats.T(), L, H, T);
  if (static_cast<int64_t>(decay_sums.size()) != L * KV * K)
    fail("metrics: decay sums for {} lags, the stats hold {}", static_cast<int64_t>(decay_sums.size()) / std::max<int64_t>(1, L * KV), K);
  if (static_cast<int64_t>(value_norms.size()) != L * KV * T) fail("internal: value norms of {} values", value_norms.size());
  const int64_t qi = last - queries.begin();
  for (int64_t l = 0; l < L; ++l) {
    // SPEC §1: the last query's tokens on this layer, keys first..T-1.
    const QueryKeys keys = windows.keys(T - 1, l);
    const int64_t n = keys.n;
    if (stats.tokens(l) != n) fail("internal: layer {} has {} tokens, its stats {}", l, n, stats.tokens(l));
    // SPEC §4 (Assumption 2): the pairs 0 < i < j = i + k, k = 1..K, among the n tokens.
    std::vector<int64_t> pairs(static_cast<size_t>(K), 0);
    for (int64_t k = 1; k <= K && k <= n - 2; ++k) pairs[k - 1] = n - 1 - k;
    // SPEC §4 (Assumption 3): the last query's row, by position among its tokens.
    std::vector<double> row(static_cast<size_t>(n));
    for (int64_t h = 0; h < H; ++h) {
      const int64_t kv = l * KV + arch::kv_head_of(h, H, KV);
      const auto norm = value_norms.subspan(kv * T + keys.first, n);
      alpha.to_double(((l * H + h) * Q + qi) * T + keys.first, row);
      stats.add(l, h, {norm, norm_cv(norm), row, decay_sums.subspan(kv * K, K), pairs});
    }
  }
  return true;
}

// SPEC §1: the last query's tokens per layer, what AssumptionStats is shaped by.
std::vector<int64_t> last_query_tokens(const LayerWindows& windows, int64_t L, int64_t T) {
  std::vector<int64_t> n;
  for (int64_t l = 0; l < L; ++l) n.push_back(windows.keys(T - 1, l).n);
  return n;
}

}  // namespace geoattn::metrics
