#pragma once
// SPEC §2b: percentile bootstrap over units (documents) with replacement. Every replicate
// draws U units (U = the number of units), and every reported mean is recomputed from the
// replicate's unit sums: a replicate is one weight vector applied to all statistics, so the
// intervals of different metrics come from the same resamples. Pure C++ (Eigen).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

using Interval = std::array<double, 2>;  // [lo, hi] percentiles (SPEC's: 2.5%, 97.5%); NaN where undefined

// SPEC §2b: a percentile interval's coverage in percent, the SPEC's 95 (the 2.5th and 97.5th
// percentiles); a run may ask for another (--ci, as seaborn's ci=95).
inline constexpr double kSpecCi = 95;
struct Percentiles {
  double lo, hi;
};
// The percentiles of a ci% interval: (100 - ci) / 2 and (100 + ci) / 2 (at 95 exactly 2.5, 97.5).
inline Percentiles percentiles_of(double ci) { return {(100 - ci) / 2, (100 + ci) / 2}; }

struct GroupIntervals {
  std::vector<std::vector<Interval>> curve;  // [kCurveMetrics][G]: the mean of each curve
  std::vector<std::vector<Interval>> diff;   // [kControlled][G]: top-N minus random (meaningful
                                             // only when the run measured the control)
  std::vector<Interval> scalar;              // [kScalarMetrics]
  std::vector<Interval> corr;                // [G]: corr(R(r_min, N), rho0)
  // [2]: the slopes against ln N of the mean cos(s, v_0) and cos(s, v_L) curves
  // (analysis::slope_vs_log_n, SPEC §6's Mixer signature), each replicate's from its own means.
  std::array<Interval, 2> slope{};
  // [2]: the same slopes' two-sided p-values for "slope = 0": the Wald test with the replicates'
  // standard deviation as the slope's standard error (wald_p_value, metrics/stats/student_t.h),
  // the inputs of the taxonomy's Benjamini-Hochberg control across heads (SPEC §2b, §6).
  std::array<double, 2> slope_p{};
};

// SPEC §2b: intervals only where the data has them. Below kMinIntervalUnits units there is no
// interval (one unit resampled gives zero-width intervals that would mark every difference
// significant); below kFewIntervalUnits they are reported and flagged as from few units.
inline constexpr int64_t kMinIntervalUnits = 2, kFewIntervalUnits = 10;

// What U units allow (the one place the rule above is applied): whether there are intervals,
// whether they are from few units, and the sentence that says so (empty when neither).
struct IntervalStatus {
  bool intervals = true, few_units = false;
  std::string why;
};
IntervalStatus interval_status(int64_t units, const std::string& unit_name);

struct BootstrapResult {
  int64_t replicates = 0, units = 0;
  uint64_t seed = 0;
  BootLevel level = BootLevel::Head;
  Percentiles percentiles = percentiles_of(kSpecCi);
  IntervalStatus status;  // without intervals (status.intervals false) the groups below are empty
  GroupIntervals global;
  std::vector<GroupIntervals> layers;  // empty below BootLevel::Layer
  std::vector<GroupIntervals> heads;   // [layer * heads + head]; empty below BootLevel::Head
};

// Units are taken in the order of their ids, so the result does not depend on the order in
// which shards were merged. Replicate b draws U indices uniformly with a portable generator
// seeded by (seed, b). Percentiles interpolate linearly between order statistics (numpy's
// default); replicates where a mean is undefined (no unit reached that N) are left out.
// geoattn::Error if replicates < 1 or there are no units; with fewer than kMinIntervalUnits
// units nothing is resampled (status says why). Groups and grid blocks run on `pool`.
// `n_grid`: the grid's N values, for the slopes (empty: the slopes' intervals stay NaN); `ci`:
// the intervals' coverage in percent; a progress line on stderr unless `quiet`.
BootstrapResult bootstrap(WorkerPool& pool, const UnitStats& units, int64_t replicates, uint64_t seed,
                          std::span<const int64_t> n_grid = {}, const std::string& unit_name = "document",
                          double ci = kSpecCi, bool quiet = true);

}  // namespace geoattn::metrics
