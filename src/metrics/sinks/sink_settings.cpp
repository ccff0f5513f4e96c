#include "geoattn/metrics/sinks/sink_settings.h"

#include "geoattn/util/error.h"

namespace geoattn::metrics {

void SinkSettings::validate(ArgumentStyle style) const {
  const auto name = [&](FieldName field) { return argument_name(style, field); };
  // SPEC §9: thresholds on attention weights, which lie in [0, 1].
  if (!(eps >= 0 && eps < 1)) fail("{}: {} is not in [0, 1)", name(kEps), eps);
  if (taus.empty()) fail("{}: give at least one threshold", name(kTaus));
  for (const double tau : taus)
    if (!(tau >= 0 && tau < 1)) fail("{}: {} is not in [0, 1)", name(kTaus), tau);
  if (profile_positions < 1) fail("{}: {} is not at least 1", name(kProfilePositions), profile_positions);
}

}  // namespace geoattn::metrics
