// A run's stages in its end line (stage_times.h).
#include "geoattn/pipeline/stage_times.h"

#include <fmt/format.h>

namespace geoattn::pipeline {

std::string StageTimes::over(double total_s, double share) const {
  std::string out;
  for (const auto& [name, s] : seconds())
    if (s > share * total_s) out += fmt::format("{}{} {:.{}f}s", out.empty() ? "" : ", ", name, s, s < 1 ? 2 : 1);
  return out.empty() ? fmt::format("no stage over {:.0f}%", 100 * share) : out;
}

}  // namespace geoattn::pipeline
