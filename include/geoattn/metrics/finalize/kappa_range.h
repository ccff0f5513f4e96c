#pragma once
// The kappa each head allows. SPEC §5's mean envelopes of a group's own samples
// (kappa_stats.h) at every kappa of a grid, against the group's measured means: the kappas at
// which lower <= mean <= upper for P(r_max, N) and R(r_min, N) at every N the group's samples
// reach; per head, per layer and globally, with a bootstrap interval over documents (the metric
// bootstrap's resamples), and for a head with no such kappa the assumption of SPEC §4 it departs
// from most. Pure C++.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/finalize/head_fits.h"
#include "geoattn/metrics/stats/kappa_stats.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/util/nan.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {

// SPEC §4's three assumptions, as the kappa range names them.
enum class Assumption { Norms, Decay, Profile };
inline constexpr EnumName<Assumption> kAssumptionNames[] = {
    {Assumption::Norms, "norms"}, {Assumption::Decay, "decay"}, {Assumption::Profile, "profile"}};
inline constexpr int kAssumptions = 3;

struct KappaRange {
  // The grid kappas whose envelopes bracket every measured mean: the smallest and the largest
  // (NaN: none), whether every grid kappa between them does too, and whether they are the
  // grid's ends (the range may reach past them).
  double lo = kNaN, hi = kNaN;
  bool contiguous = true, lo_at_edge = false, hi_at_edge = false;
  // Without a range: the grid kappa that leaves the fewest (N, bound) pairs violated, and those
  // pairs, e.g. "R > R_up at N = 64".
  double closest = kNaN;
  std::vector<std::string> violations;
  // Over the bootstrap's replicates (above its level; NaN without): the percentiles of lo and hi
  // over the replicates with a range, and the share of replicates with one.
  Interval lo_ci{kNaN, kNaN}, hi_ci{kNaN, kNaN};
  double with_range = kNaN;
  bool has_range() const { return lo == lo; }
};

// A head without a range: the assumption it departs from most. z: per assumption the head's
// robust z-score (x - median) / (1.4826 MAD) against the heads that have a range (all heads
// when fewer than 3 do) of the statistic: norms the cv of ||v_i||, decay c_far (the mean of
// c(k) over the upper half of the lags that had pairs: what does not decay), profile the
// four-phase fit's error. The named assumption: one whose fit failed, else the largest z when
// it exceeds 3, else none ("none stands out").
struct KappaFailure {
  std::string assumption;  // kAssumptionNames' name, or "none stands out"
  std::string why;         // in words
  std::array<double, kAssumptions> statistic{kNaN, kNaN, kNaN}, z{kNaN, kNaN, kNaN};
};

struct KappaRanges {
  std::vector<double> kappas;
  KappaRange global;
  std::vector<KappaRange> layers, heads;        // [L], [L * H]
  std::vector<KappaFailure> failures;           // [L * H]; assumption empty where the head has a range
};

// The ranges from the run's measured means and envelopes (the same samples); with `units`
// (and envelopes kept per document at the same level), the bootstrap intervals of `replicates`
// resamples seeded by `seed` (ci% intervals), groups on `pool`, with a progress line on stderr
// unless `quiet`.
KappaRanges kappa_ranges(WorkerPool& pool, const Aggregator& measured, const KappaStats& envelopes,
                         const UnitStats* units, int64_t replicates, uint64_t seed, double ci = kSpecCi,
                         bool quiet = true);

// SPEC §4's statistics of a head (KappaFailure::statistic), and the failures of the heads
// without a range named from `fits` ([L * H], fit_heads' order).
std::array<double, kAssumptions> assumption_statistics(const HeadFits& fits);
void name_failing_assumptions(KappaRanges& ranges, const std::vector<HeadFits>& fits);

}  // namespace geoattn::metrics
