#pragma once
// Wall seconds since a point in time: the stage timings of every run ("timing" in the results).
#include <chrono>

namespace geoattn {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace geoattn
