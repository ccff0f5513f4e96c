// SPEC §2b's calibration of the taxonomy's slope tests (SPEC §6, Mixer (ii)): on null runs, where
// no head's cos(s, v_0) or cos(s, v_L) curve moves with N, the tests adjusted across heads
// (metrics::bootstrap's p-values, analysis::bh_adjusted at 0.05) mark a slope in at most about 5%
// of runs, where each head's 95% interval read alone marks one in most runs; and on runs where
// a few heads' curves do move, the adjusted tests still find them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "geoattn/analysis/taxonomy.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/stats/student_t.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/util/worker_pool.h"

namespace {

using namespace geoattn::metrics;

constexpr int64_t kHeads = 20, kDocs = 40, kReplicates = 400;
const std::vector<int64_t> kGrid = {1, 2, 4, 8, 16, 32, 64, 128};

// One run of kDocs documents, one sample per head each: cos(s, v_0) and cos(s, v_L) at every N
// are a head's constant plus the document's noise (sd 0.1, independent over N), plus `trend`
// per unit of ln N on the first `moving` heads (cos(s, v_0) falling, cos(s, v_L) rising).
UnitStats null_run(uint64_t seed, int64_t moving = 0, double trend = 0) {
  const int64_t G = static_cast<int64_t>(kGrid.size());
  UnitStats units(1, kHeads, G, BootLevel::Head);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.1);
  std::vector<double> curves(static_cast<size_t>(kCurveMetrics * G), 0.0);
  const std::array<double, kScalarMetrics> scalars{};
  for (int64_t d = 0; d < kDocs; ++d) {
    const int64_t row = units.row("doc" + std::to_string(d));
    for (int64_t h = 0; h < kHeads; ++h) {
      const double slope = h < moving ? trend : 0.0;
      for (int64_t g = 0; g < G; ++g) {
        const double ln_n = std::log(static_cast<double>(kGrid[g]));
        curves[kCos_s_v0 * G + g] = 0.5 - slope * ln_n + noise(rng);
        curves[kCos_s_vL * G + g] = 0.2 + slope * ln_n + noise(rng);
      }
      units.add_sample(row, 0, h, SampleValues{curves, G, scalars});
    }
  }
  return units;
}

struct Marks {
  int64_t adjusted = 0, per_head = 0;  // slopes marked by the adjusted tests / by each interval alone
  int64_t moving_found = 0;            // of them, the adjusted marks on the moving heads' slopes
};

Marks marks_of(geoattn::WorkerPool& pool, const UnitStats& units, uint64_t seed, int64_t moving = 0) {
  const auto boot = bootstrap(pool, units, kReplicates, seed, kGrid);
  std::vector<double> p;
  Marks m;
  for (const auto& head : boot.heads)
    for (int k = 0; k < 2; ++k) {
      p.push_back(head.slope_p[k]);
      m.per_head += head.slope[k][0] > 0 || head.slope[k][1] < 0;
    }
  const auto q = geoattn::analysis::bh_adjusted(p);
  for (size_t i = 0; i < q.size(); ++i)
    if (q[i] <= 0.05) ++m.adjusted, m.moving_found += static_cast<int64_t>(i / 2) < moving;
  return m;
}

}  // namespace

TEST(SlopeCalibration, NullRunsMarkAboutFivePercentAndTrendsAreFound) {
  geoattn::WorkerPool pool(2);
  constexpr int kRuns = 200;
  int adjusted = 0, per_head = 0;
  for (int r = 0; r < kRuns; ++r) {
    const Marks m = marks_of(pool, null_run(1000 + r), 7 + r);
    adjusted += m.adjusted > 0, per_head += m.per_head > 0;
  }
  // SPEC §2b: "at most about 5% of null comparisons mark anything". 200 runs: a binomial at 5%
  // exceeds 16 (8%) with probability under 3%; the runs are seeded, so this is one fixed draw.
  RecordProperty("null_runs_marked_adjusted", adjusted);
  RecordProperty("null_runs_marked_per_head", per_head);
  EXPECT_LE(adjusted, 16) << "of " << kRuns << " null runs";
  // Read alone, 40 intervals at 95% mark something in most null runs (1 - 0.95^40 = 87%).
  EXPECT_GE(per_head, kRuns / 2) << "of " << kRuns << " null runs";
  std::printf("null runs marking any slope: adjusted %d of %d, each interval alone %d of %d\n", adjusted, kRuns,
              per_head, kRuns);
  // Power: 4 of 20 heads whose curves move by 0.03 per unit of ln N (about 0.13 over the grid):
  // the adjusted tests find nearly all 8 of their slopes, and little else.
  int64_t found = 0, other = 0;
  for (int r = 0; r < 20; ++r) {
    const Marks m = marks_of(pool, null_run(5000 + r, 4, 0.03), 11 + r, 4);
    found += m.moving_found, other += m.adjusted - m.moving_found;
  }
  std::printf("moving heads: %lld of %d slopes found; %lld others marked\n", static_cast<long long>(found), 20 * 8,
              static_cast<long long>(other));
  EXPECT_GE(found, 20 * 8 * 9 / 10);
  EXPECT_LE(other, 20 * 32 / 20);  // at most about 5% of the null slopes among them
}

// Student's t two-sided tail against its closed forms (1 and 2 degrees of freedom) and a
// tabulated value; the Wald p-value's edge cases.
TEST(SlopeCalibration, StudentTTailAndWaldPValue) {
  for (const double t : {0.0, 0.3, 1.0, 2.5, 12.0, -4.0}) {
    EXPECT_NEAR(student_t_two_sided(t, 1), 1 - 2 / M_PI * std::atan(std::abs(t)), 1e-13) << t;
    EXPECT_NEAR(student_t_two_sided(t, 2), 1 - std::abs(t) / std::sqrt(2 + t * t), 1e-13) << t;
  }
  EXPECT_NEAR(student_t_two_sided(2.0, 10), 0.073388034770740, 1e-12);  // 2 (1 - F_10(2)), tabulated
  EXPECT_NEAR(student_t_two_sided(1.959963984540054, 1e7), 0.05, 1e-6);  // the normal limit
  EXPECT_TRUE(std::isnan(student_t_two_sided(1.0, 0)));
  EXPECT_EQ(wald_p_value(0.0, 0.1, 10), 1.0);
  EXPECT_EQ(wald_p_value(0.2, 0.0, 10), 0.0);
  EXPECT_TRUE(std::isnan(wald_p_value(0.2, 0.1, 1)));
  // t = 0.2 / (0.1 sqrt(10 / 9)) with 9 degrees of freedom.
  EXPECT_NEAR(wald_p_value(0.2, 0.1, 10), student_t_two_sided(2.0 / std::sqrt(10.0 / 9.0), 9), 1e-15);
}
