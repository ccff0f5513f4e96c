#include "geoattn/metrics/array_view.h"

#include "geoattn/metrics/aggregate.h"

namespace geoattn::metrics {

std::span<const std::byte> exact_sum_bytes(const std::vector<ExactSum>& sums) {
  static_assert(sizeof(ExactSum) == 2 * sizeof(int64_t), "an ExactSum is its two 64-bit halves, nothing more");
  return bytes_of(sums);
}

}  // namespace geoattn::metrics
