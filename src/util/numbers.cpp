#include "geoattn/util/numbers.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "geoattn/util/error.h"

namespace geoattn {

int64_t physical_memory_bytes() {
  return static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(sysconf(_SC_PAGE_SIZE));
}

int64_t available_memory_bytes() {
  // MemAvailable: what the kernel could give without swapping (the page cache it can drop
  // included); a kernel without it: the physical memory.
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.rfind("MemAvailable:", 0) == 0) {
      const long long kib = std::atoll(line.c_str() + 13);  // "MemAvailable:   21474836 kB"
      if (kib > 0) return std::min<int64_t>(kib * 1024, physical_memory_bytes());
    }
  return physical_memory_bytes();
}

void check_fits_memory(double bytes, const std::string& what) {
  const double have = static_cast<double>(available_memory_bytes());
  if (bytes > have)
    fail("{} need {:.3g} GiB, more than this machine's {:.3g} GiB of available memory", what, bytes / (1ull << 30),
         have / (1ull << 30));
}

}  // namespace geoattn
