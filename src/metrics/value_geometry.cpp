// SPEC §4's value statistics (core.h): the decay sums of Assumption 2.
#include "core.h"

namespace geoattn::metrics::detail {

using torch::indexing::Slice;

torch::Tensor decay_sums(const LagDots& dots, const torch::Tensor& norms, int64_t decay_k) {
  const int64_t k = norms.size(0), T = norms.size(1);
  auto out = torch::zeros({k, decay_k}, norms.options());
  auto inv = torch::where(norms > 0, 1.0 / norms.clamp_min(1e-300), torch::zeros_like(norms));  // [k, T]
  for (int64_t lag = 1; lag <= decay_k && lag <= T - 2; ++lag) {
    // SPEC §4: cos(v_i, v_{i+lag}) = <v_i, v_{i+lag}> / (||v_i|| ||v_{i+lag}||), pairs 0 < i, i + lag < T
    auto scale = inv.index({Slice(), Slice(1, T - lag)}) * inv.index({Slice(), Slice(1 + lag, T)});  // [k, T-lag-1]
    out.select(1, lag - 1).copy_((dots(lag) * scale).sum(-1));
  }
  return out;
}

LagDots value_lag_dots(const torch::Tensor& V) {
  return [V](int64_t lag) {
    const int64_t T = V.size(1);
    return (V.index({Slice(), Slice(1, T - lag)}) * V.index({Slice(), Slice(1 + lag, T)})).sum(-1);  // [k, T-lag-1]
  };
}

LagDots gram_lag_dots(const torch::Tensor& gram) {
  return [gram](int64_t lag) { return gram.diagonal(lag, 1, 2).narrow(1, 1, gram.size(1) - lag - 1); };  // [k, T-lag-1]
}

}  // namespace geoattn::metrics::detail
