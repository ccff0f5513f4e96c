#pragma once
// The number of values of an array of shape `dims` (1 for a scalar's empty shape): the one
// product of a shape that the readers, writers and result tables share.
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>

namespace geoattn {

inline int64_t values_of(std::span<const int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

}  // namespace geoattn
