#pragma once
// Wall seconds since a point in time and the process's peak memory: the timings of every run
// ("timing" in the results).
#include <sys/resource.h>

#include <chrono>
#include <cstdint>

namespace geoattn {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The process's peak resident memory so far (Linux reports ru_maxrss in KiB).
inline int64_t peak_rss_bytes() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace geoattn
