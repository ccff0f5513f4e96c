#include "geoattn/util/numbers.h"

#include <unistd.h>

#include "geoattn/util/error.h"

namespace geoattn {

int64_t physical_memory_bytes() {
  return static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(sysconf(_SC_PAGE_SIZE));
}

void check_fits_memory(double bytes, const std::string& what) {
  const double have = static_cast<double>(physical_memory_bytes());
  if (bytes > have)
    fail("{} need {:.3g} GiB, more than this machine's {:.3g} GiB of memory", what, bytes / (1ull << 30),
         have / (1ull << 30));
}

}  // namespace geoattn
