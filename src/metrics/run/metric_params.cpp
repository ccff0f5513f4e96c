#include "geoattn/metrics/run/metric_params.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "geoattn/util/error.h"
#include "geoattn/util/numbers.h"

namespace geoattn::metrics {

void MetricParams::validate(int64_t layers, int64_t heads, int64_t T, int64_t queries, int64_t grid,
                            ArgumentStyle style) const {
  const auto name = [&](FieldName field) { return argument_name(style, field); };
  if (decay_k < 1 || decay_k > std::max<int64_t>(64, T - 1))
    fail("{}: {} is not from 1 to max(64, T - 1) = {} (lags past T - 1 = {} hold no pairs)", name(kDecayK), decay_k,
         std::max<int64_t>(64, T - 1), T - 1);
  if (controls < 0) fail("{}: {} is not 0 or more", name(kControls), controls);
  if (bootstrap < 0) fail("{}: {} is not 0 or more", name(kBootstrap), bootstrap);
  if (!(kappa > 0) || !std::isfinite(kappa)) fail("{}: {} is not a number > 0", name(kKappa), kappa);
  if (!(ci > 0 && ci < 100)) fail("{}: {} is not a coverage in percent, above 0 and below 100", name(kCi), ci);
  if (metrics_memory_mb < 1 || metrics_memory_mb > (std::numeric_limits<int64_t>::max() >> 20))
    fail("{}: {} MiB is not from 1 to {}", name(kMetricsMemory), metrics_memory_mb, std::numeric_limits<int64_t>::max() >> 20);
  const double Q = static_cast<double>(queries), LH = static_cast<double>(layers * heads), G = static_cast<double>(grid);
  // window_metrics: per sample and ordering (the top-N, then each control's), an int64 ordering of
  // up to T keys, its in- and out-counts over the grid (2 float64 each) and the core's task entry.
  check_fits_memory(Q * LH * (1 + static_cast<double>(controls)) * (static_cast<double>(T) * 8 + G * 16 + 32),
                    fmt::format("{}: {} orderings per sample", name(kControls), controls));
  // bootstrap: float64 replicates x grid counts for the whole model and each layer at least.
  check_fits_memory(static_cast<double>(bootstrap) * G * (1 + static_cast<double>(layers)) * 8 * 2,
                    fmt::format("{}: {} replicates", name(kBootstrap), bootstrap));
  check_fits_memory(static_cast<double>(chunk_bytes()), fmt::format("{}: {} MiB", name(kMetricsMemory), metrics_memory_mb));
}

}  // namespace geoattn::metrics
