#pragma once
// The median of x (the mean of the two middle values when there is an even number of them);
// NaN when x is empty.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "geoattn/util/nan.h"

namespace geoattn::analysis {

inline double median(std::vector<double> x) {
  if (x.empty()) return kNaN;
  const size_t n = x.size(), mid = n / 2;
  std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(mid), x.end());
  const double upper = x[mid];
  if (n % 2 == 1) return upper;
  return 0.5 * (*std::max_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(mid)) + upper);
}

}  // namespace geoattn::analysis
