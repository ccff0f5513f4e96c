// Reference sets and frame types of attention sinks (SPEC §9; Ruscio et al. 2025).
#include "geoattn/analysis/frames.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "geoattn/util/error.h"

namespace geoattn::analysis {

namespace {

// Positions 0..T-1 by c descending, ties to the lower position.
std::vector<int64_t> by_score(const double* c, int64_t T) {
  std::vector<int64_t> order(T);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [c](int64_t a, int64_t b) { return c[a] > c[b]; });
  return order;
}

}  // namespace

// SPEC §9: R = {j : c_j > 0.1}, else the top max(1, floor(0.1 T)); at most max(1, floor(0.3 T)).
std::vector<int64_t> reference_set(const double* c, int64_t T) {
  if (T < 1) return {};
  const std::vector<int64_t> order = by_score(c, T);
  const int64_t cap = std::max<int64_t>(1, static_cast<int64_t>(std::floor(0.3 * static_cast<double>(T))));
  int64_t n = 0;
  while (n < T && c[order[n]] > 0.1) ++n;
  if (n == 0) n = std::max<int64_t>(1, static_cast<int64_t>(std::floor(0.1 * static_cast<double>(T))));
  std::vector<int64_t> R(order.begin(), order.begin() + std::min(n, cap));
  std::sort(R.begin(), R.end());
  return R;
}

std::vector<FrameResult> classify_frames(const std::vector<LayerFrameInput>& layers, const FrameConfig& cfg) {
  std::vector<FrameResult> out;
  for (const auto& in : layers) {
    const int64_t T = std::min<int64_t>(anchor_candidates(static_cast<int64_t>(in.alpha.size())), in.alpha.size());
    FrameResult r;
    const std::vector<int64_t> order = by_score(in.alpha.data(), T);
    r.alpha1 = T > 0 ? in.alpha[order[0]] : 0;
    r.alpha2 = T > 1 ? in.alpha[order[1]] : 0;
    for (int64_t k = 0; k < T; ++k)
      if (in.alpha[k] >= cfg.anchor_alpha_min) r.S.push_back(k);
    r.anchor = r.S.empty() ? -1 : order[0];
    r.switched = !out.empty() && out.back().anchor >= 0 && r.anchor >= 0 && out.back().anchor != r.anchor;

    const int64_t nS = static_cast<int64_t>(r.S.size());
    const bool comparable = r.alpha2 >= cfg.comparable_ratio * r.alpha1;
    const auto numbers = fmt::format("|S| = {}, alpha1 = {:.3g}, alpha2 = {:.3g}, consistency = {:.3g}, |R| = {}", nS,
                                     r.alpha1, r.alpha2, in.consistency, in.reference_size);
    // SPEC §9 frame types, checked in order.
    if (nS == 1 && !comparable && in.consistency >= cfg.centralized_consistency) {
      r.type = "centralized", r.rule = "one anchor, alone, in most windows: " + numbers;
    } else if ((nS == 2 && comparable) || r.switched) {
      r.type = "bidirectional";
      r.rule = (r.switched ? fmt::format("the anchor moved from position {} (layer before): ", out.back().anchor)
                           : std::string("two anchors of comparable mass: ")) + numbers;
    } else if ((nS >= cfg.distributed_min_S || (nS != 1 && in.reference_size >= cfg.distributed_min_R)) &&
               in.consistency < cfg.distributed_consistency) {
      r.type = "distributed", r.rule = "several weak anchors, no consistent one: " + numbers;
    } else {
      r.type = "none", r.rule = "no rule fired: " + numbers;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace geoattn::analysis
