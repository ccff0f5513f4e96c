#pragma once
// The N grid's two rules (SPEC §2), for every layer that walks it: sorted unique values >= 1,
// and for a query q only the values N <= q + 1 (which come first).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "geoattn/util/error.h"

namespace geoattn {

// geoattn::Error ("<what>: ...") unless `grid` is sorted, unique and >= 1.
inline void check_n_grid(const std::vector<int64_t>& grid, const char* what) {
  for (size_t i = 0; i < grid.size(); ++i) {
    if (grid[i] < 1) fail("{}: grid value {} is below 1", what, grid[i]);
    if (i > 0 && grid[i] <= grid[i - 1]) fail("{}: the N grid is not sorted ascending and unique at {}", what, grid[i]);
  }
}

// SPEC §2: how many grid values a sample over n tokens reaches (N <= n; they lead the grid).
inline int64_t valid_grid_size(const std::vector<int64_t>& grid, int64_t n) {
  return std::upper_bound(grid.begin(), grid.end(), n) - grid.begin();
}

}  // namespace geoattn
