#pragma once
// The quiet NaN that marks an undefined statistic (no samples, no spread) everywhere.
#include <limits>

namespace geoattn {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace geoattn
