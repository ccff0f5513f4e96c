// The slots of a group of heads (head_grid.h).
#include "geoattn/metrics/stats/head_grid.h"

#include "geoattn/util/error.h"

namespace geoattn::metrics {

std::vector<int64_t> HeadGrid::group_slots(int64_t layer, int64_t head, const char* what) const {
  if (layer < -1 || layer >= layers_ || head < -1 || head >= heads_ || (layer < 0 && head >= 0))
    fail("{}: layer {} head {} is outside {} x {}", what, layer, head, layers_, heads_);
  std::vector<int64_t> out;
  for (int64_t l = layer < 0 ? 0 : layer; l < (layer < 0 ? layers_ : layer + 1); ++l)
    for (int64_t h = head < 0 ? 0 : head; h < (head < 0 ? heads_ : head + 1); ++h) out.push_back(l * heads_ + h);
  return out;
}

std::vector<int64_t> HeadGrid::group_counts(const std::vector<int64_t>& counts, int64_t G, int64_t layer, int64_t head,
                                            const char* what) const {
  std::vector<int64_t> n(static_cast<size_t>(G), 0);
  for (const int64_t s : group_slots(layer, head, what))
    for (int64_t g = 0; g < G; ++g) n[g] += counts[s * G + g];
  return n;
}

}  // namespace geoattn::metrics
