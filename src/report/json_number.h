#pragma once
// A double as JSON: the number, or null where it is NaN or infinite (JSON has neither).
#include <cmath>

#include <nlohmann/json.hpp>

namespace geoattn::report {

inline nlohmann::ordered_json number(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

}  // namespace geoattn::report
