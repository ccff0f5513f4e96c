#pragma once
// SPEC §2b: percentile bootstrap over units (documents) with replacement. Every replicate
// draws U units (U = the number of units), and every reported mean is recomputed from the
// replicate's unit sums: a replicate is one weight vector applied to all statistics, so the
// intervals of different metrics come from the same resamples. Pure C++ (Eigen).
#include <array>
#include <cstdint>
#include <vector>

#include "geoattn/metrics/metric_names.h"
#include "geoattn/metrics/unit_stats.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

using Interval = std::array<double, 2>;  // [2.5%, 97.5%]; NaN where undefined

struct GroupIntervals {
  std::vector<std::vector<Interval>> curve;  // [kCurveMetrics][G]: the mean of each curve
  std::vector<std::vector<Interval>> diff;   // [kControlled][G]: top-N minus random (meaningful
                                             // only when the run measured the control)
  std::vector<Interval> scalar;              // [kScalarMetrics]
  std::vector<Interval> corr;                // [G]: corr(R(r_min, N), rho0)
};

struct BootstrapResult {
  int64_t replicates = 0, units = 0;
  uint64_t seed = 0;
  BootLevel level = BootLevel::Head;
  GroupIntervals global;
  std::vector<GroupIntervals> layers;  // empty below BootLevel::Layer
  std::vector<GroupIntervals> heads;   // [layer * heads + head]; empty below BootLevel::Head
};

// Units are taken in the order of their ids, so the result does not depend on the order in
// which shards were merged. Replicate b draws U indices uniformly with a portable generator
// seeded by (seed, b). Percentiles interpolate linearly between order statistics (numpy's
// default); replicates where a mean is undefined (no unit reached that N) are left out.
// geoattn::Error if replicates < 1 or there are no units. Groups and grid blocks run on `pool`.
BootstrapResult bootstrap(WorkerPool& pool, const UnitStats& units, int64_t replicates, uint64_t seed);

}  // namespace geoattn::metrics
