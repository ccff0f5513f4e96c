// SPEC §4's value statistics (core.h): the decay sums of Assumption 2, in one written order.
#include <algorithm>
#include <vector>

#include "geoattn/metrics/core/detail/core.h"

namespace geoattn::metrics::detail {

void decay_sums(const LagDots& dots, std::span<const double> norms, int64_t decay_k, std::span<double> out) {
  const auto T = static_cast<int64_t>(norms.size());
  std::vector<double> inv(norms.size()), d(norms.size());
  // 1/||v_i||, 0 for a zero vector (its cosines count as 0).
  for (int64_t i = 0; i < T; ++i) inv[i] = norms[i] > 0 ? 1.0 / std::max(norms[i], 1e-300) : 0.0;
  for (int64_t lag = 1; lag <= decay_k; ++lag) {
    double sum = 0;
    if (lag <= T - 2) {
      const std::span<double> dl(d.data(), static_cast<size_t>(T - lag - 1));
      dots(lag, dl);
      // SPEC §4: cos(v_i, v_{i+lag}) = <v_i, v_{i+lag}> / (||v_i|| ||v_{i+lag}||), pairs 0 < i, i + lag < T,
      // summed with i ascending.
      for (int64_t i = 1; i + lag < T; ++i) sum += dl[i - 1] * (inv[i] * inv[i + lag]);
    }
    out[lag - 1] = sum;
  }
}

}  // namespace geoattn::metrics::detail
