#include "geoattn/metrics/stats/array_view.h"

#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

std::span<const std::byte> exact_sum_bytes(const std::vector<ExactSum>& sums) {
  static_assert(sizeof(ExactSum) == 2 * sizeof(int64_t), "an ExactSum is its two 64-bit halves, nothing more");
  return bytes_of(sums);
}

void read_exact_sums(const std::vector<int64_t>& halves, std::vector<ExactSum>& sums, const std::string& what) {
  if (halves.size() != 2 * sums.size()) fail("{}: {} sum halves for {} sums", what, halves.size(), sums.size());
  for (size_t i = 0; i < sums.size(); ++i) sums[i] = ExactSum::from_halves(static_cast<uint64_t>(halves[2 * i]), halves[2 * i + 1]);
}

void read_counts(const std::vector<int64_t>& in, std::vector<int64_t>& counts, const std::string& what) {
  if (in.size() != counts.size()) fail("{}: {} counts for {}", what, in.size(), counts.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] < 0) fail("{}: a negative count in the state", what);
    counts[i] = in[i];
  }
}

void merge_counts(std::vector<int64_t>& counts, const std::vector<int64_t>& other, const std::string& what) {
  if (counts.size() != other.size()) fail("{}: {} counts merged with {}", what, counts.size(), other.size());
  std::vector<int64_t> total(counts.size());
  for (size_t i = 0; i < counts.size(); ++i)
    if (__builtin_add_overflow(counts[i], other[i], &total[i])) fail("{}: a count overflowed", what);
  counts = std::move(total);
}

}  // namespace geoattn::metrics
