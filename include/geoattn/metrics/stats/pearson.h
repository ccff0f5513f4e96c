#pragma once
// SPEC §3's correlation, in one place for the aggregate (exact sums) and the bootstrap
// (replicate sums in double).
#include <algorithm>
#include <cmath>
#include <limits>

namespace geoattn::metrics {

// SPEC §3: Pearson r = (E[xy] - E[x] E[y]) / sqrt(Var x Var y), clamped to [-1, 1], from the
// means and population variances of n samples. NaN with fewer than two samples or where a
// variance is not above `floor` (0 for exact moments; sums accumulated in double carry
// rounding of their own, so they pass one).
template <typename Real>
double pearson(Real n, Real mean_x, Real mean_y, Real mean_xy, Real var_x, Real var_y, Real floor = 0) {
  if (!(n >= 2) || !(var_x > floor) || !(var_y > floor)) return std::numeric_limits<double>::quiet_NaN();
  const Real scale = std::sqrt(var_x * var_y);
  if (!(scale > 0)) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(std::clamp((mean_xy - mean_x * mean_y) / scale, Real(-1), Real(1)));
}

}  // namespace geoattn::metrics
