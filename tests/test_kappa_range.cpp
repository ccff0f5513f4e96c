// The kappa each head allows (SPEC §5): by its definition on envelopes built by hand, and on
// heads drawn under the paper's assumptions beside one built to break decay.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "geoattn/metrics/finalize/kappa_range.h"
#include "geoattn/metrics/core/window_assumptions.h"
#include "geoattn/metrics/core/window_bounds.h"
#include "geoattn/metrics/core/window_metrics.h"

using namespace geoattn;
using namespace geoattn::metrics;

namespace {

constexpr int64_t T = 64, d = 64;

// How a head's values are drawn.
enum class Directions {
  Sphere,  // uniform on the unit sphere of the first d_eff = 2 kappa0 d coordinates: for a fixed x,
           // <u, x> / ||x|| has tails exp(-d_eff t^2 / 2) = exp(-kappa0 d t^2), the Chernoff form of
           // SPEC §5's tails; independent tokens (Assumption 2 with fast decay)
  Same,    // one direction for every token: cos(v_i, v_j) = 1 at every lag (Assumption 2 broken)
};

struct Head {
  Directions directions = Directions::Sphere;
  double kappa0 = 0.5;
};

// One window of `heads` heads (one layer, a KV head each), the last query only: alpha from a
// sink-then-decay profile (Assumption 3), ||v_0|| = 0.3, ||v_i|| log-normal with cv 0.1
// (Assumption 1), directions as each head says.
struct Window {
  std::vector<float> alpha, values;  // [1, H, 1, T], [1, H, T, d]
};

Window make_window(const std::vector<Head>& heads, std::mt19937_64& rng) {
  const auto H = static_cast<int64_t>(heads.size());
  std::normal_distribution<double> z(0.0, 1.0);
  Window w;
  w.alpha.resize(static_cast<size_t>(H * T));
  w.values.assign(static_cast<size_t>(H * T * d), 0.0f);
  for (int64_t h = 0; h < H; ++h) {
    // Assumption 3: a sink, then a noisy rise to the query.
    std::vector<double> a(static_cast<size_t>(T));
    double total = 0;
    for (int64_t i = 0; i < T; ++i) total += a[i] = i == 0 ? 8.0 : std::exp(0.05 * static_cast<double>(i) + 0.8 * z(rng));
    for (int64_t i = 0; i < T; ++i) w.alpha[h * T + i] = static_cast<float>(a[i] / total);
    const int64_t d_eff = std::max<int64_t>(1, std::llround(2 * heads[h].kappa0 * d));
    std::vector<double> same(static_cast<size_t>(d));
    for (auto& x : same) x = z(rng);
    for (int64_t i = 0; i < T; ++i) {
      std::vector<double> u(static_cast<size_t>(d), 0.0);
      if (heads[h].directions == Directions::Same) u = same;
      else
        for (int64_t c = 0; c < d_eff; ++c) u[c] = z(rng);
      double n2 = 0;
      for (const double x : u) n2 += x * x;
      const double norm = i == 0 ? 0.3 : std::exp(0.1 * z(rng) - 0.005);  // Assumption 1
      for (int64_t c = 0; c < d; ++c) w.values[(h * T + i) * d + c] = static_cast<float>(norm * u[c] / std::sqrt(n2));
    }
  }
  return w;
}

struct Measured {
  Aggregator measured;
  KappaStats scan;
  UnitStats units;
  AssumptionStats assumptions;
};

// `windows` windows, each its own document, measured and bounded as geoattn measure does.
Measured run_heads(const std::vector<Head>& heads, int64_t windows, uint64_t seed) {
  const auto H = static_cast<int64_t>(heads.size());
  const std::vector<int64_t> grid = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
  Measured r{Aggregator(1, H, grid), KappaStats(1, H, std::ssize(grid), default_kappas(), BootLevel::Head),
        UnitStats(1, H, std::ssize(grid), BootLevel::Head), AssumptionStats(1, H, T, 16)};
  EnvelopeStats envelopes(1, H, std::ssize(grid), 1.0);
  WorkerPool pool(2);
  std::mt19937_64 rng(seed);
  MetricOptions options;
  options.decay_k = 16;
  for (int64_t w = 0; w < windows; ++w) {
    const Window win = make_window(heads, rng);
    const io::FloatView alpha{win.alpha.data(), io::Dtype::F32, {1, H, 1, T}};
    const io::FloatView values{win.values.data(), io::Dtype::F32, {1, H, T, d}};
    const auto m = window_metrics(pool, alpha, values, {T - 1}, grid, static_cast<uint64_t>(w), options);
    const std::string doc = "doc " + std::to_string(w);
    const int64_t row = r.units.row(doc);
    for_each_sample(m, [&](int64_t l, int64_t h, const SampleValues& s) {
      r.measured.add_sample(l, h, s);
      r.units.add_sample(row, l, h, s);
    });
    add_window_assumptions(alpha, m.value_norms, m.decay_sums, H, {T - 1}, {}, r.assumptions);
    add_window_bounds(pool, alpha, values, {T - 1}, grid, {}, envelopes, &r.scan, r.scan.row(doc));
  }
  return r;
}

}  // namespace

// The range by its definition, on envelopes built by hand: a head whose mean envelopes bracket
// its means exactly at the kappas of indices 3..9 of the grid, one bracketed at 2..4 and 7 (not
// contiguous), one never (above the upper envelope at N = 2); four identical documents, so every
// bootstrap replicate sees the same means.
TEST(KappaRange, TheRangeIsTheKappasThatBracketEveryMean) {
  const std::vector<int64_t> grid = {1, 2, 4};
  const std::vector<double> kappas = default_kappas();
  const auto K = std::ssize(kappas);
  Aggregator measured(1, 3, grid);
  UnitStats units(1, 3, std::ssize(grid), BootLevel::Head);
  KappaStats scan(1, 3, std::ssize(grid), kappas, BootLevel::Head);
  // Which kappas bracket, per head.
  const auto brackets = [&](int64_t h, int64_t k) {
    return h == 0 ? k >= 3 && k <= 9 : h == 1 ? (k >= 2 && k <= 4) || k == 7 : false;
  };
  for (int doc = 0; doc < 4; ++doc) {
    const std::string id = "doc " + std::to_string(doc);
    const int64_t row = units.row(id), scan_row = scan.row(id);
    for (int64_t h = 0; h < 3; ++h) {
      // Measured: P = R = 1 at N = 1, 0.6 and 0.5 after.
      std::vector<double> curves(static_cast<size_t>(kCurveMetrics * 3), kNaN);
      for (int m = 0; m < kCurveMetrics; ++m)
        for (int64_t g = 0; g < 3; ++g) curves[m * 3 + g] = g == 0 ? 1.0 : m == kR_rmin ? 0.5 : 0.6;
      const std::array<double, kScalarMetrics> scalars{};
      const SampleValues sample{curves, 3, scalars};
      measured.add_sample(0, h, sample);
      units.add_sample(row, 0, h, sample);
      std::vector<analysis::BoundsCurves> per_kappa(static_cast<size_t>(K));
      for (int64_t k = 0; k < K; ++k) {
        auto& c = per_kappa[k];
        // Bracketing: [0.1, 0.9] around both; else the upper bound of R at N = 2 below 0.5.
        const double r_up = brackets(h, k) ? 0.9 : 0.4;
        c.P_lo = {1, 0.1, 0.1}, c.P_up = {1, 0.9, 0.9}, c.R_lo = {1, 0.1, 0.1}, c.R_up = {1, r_up, 0.9};
        for (auto* f : {&c.F_rmax_lo, &c.F_rmax_up, &c.F_rmin_lo, &c.F_rmin_up}) *f = {1, 1, 1};
      }
      scan.add(scan_row, 0, h, per_kappa);
    }
  }
  WorkerPool pool(2);
  const KappaRanges r = kappa_ranges(pool, measured, scan, &units, 50, 3);
  EXPECT_EQ(r.heads[0].lo, kappas[3]);
  EXPECT_EQ(r.heads[0].hi, kappas[9]);
  EXPECT_TRUE(r.heads[0].contiguous);
  EXPECT_FALSE(r.heads[0].lo_at_edge || r.heads[0].hi_at_edge);
  EXPECT_EQ(r.heads[0].lo_ci, (Interval{kappas[3], kappas[3]}));
  EXPECT_EQ(r.heads[0].hi_ci, (Interval{kappas[9], kappas[9]}));
  EXPECT_EQ(r.heads[0].with_range, 1.0);
  EXPECT_EQ(r.heads[1].lo, kappas[2]);
  EXPECT_EQ(r.heads[1].hi, kappas[7]);
  EXPECT_FALSE(r.heads[1].contiguous);
  EXPECT_FALSE(r.heads[2].has_range());
  EXPECT_EQ(r.heads[2].violations, (std::vector<std::string>{"R > R_up at N = 2"}));
  EXPECT_EQ(r.heads[2].with_range, 0.0);
  // The layer and the run bracket by their own means (not the heads' intersection): R_up at
  // N = 2 is (0.9 + 0.9 + 0.4) / 3 where two heads bracket, (0.9 + 0.4 + 0.4) / 3 where one does,
  // both above R = 0.5, and 0.4 where none does.
  EXPECT_EQ(r.layers[0].lo, kappas[2]);
  EXPECT_EQ(r.layers[0].hi, kappas[9]);
  EXPECT_TRUE(r.layers[0].contiguous);
  EXPECT_EQ(r.global.lo, kappas[2]);
  EXPECT_EQ(r.global.hi, kappas[9]);
}

// A head whose values all point one way (cos = 1 at every lag: Assumption 2 broken) beside heads
// drawn under the assumptions (directions uniform on a sphere, norms and profile as above): no
// kappa brackets its means, it departs from the others in decay, and decay is what it is named
// for; none of the others is.
TEST(KappaRange, AHeadThatBreaksDecayHasNoKappaAndNamesIt) {
  const std::vector<Head> heads = {{Directions::Sphere, 0.25}, {Directions::Sphere, 0.25}, {Directions::Sphere, 0.25},
                                   {Directions::Same, 0.25}};
  const Measured r = run_heads(heads, 30, 11);
  WorkerPool pool(2);
  KappaRanges k = kappa_ranges(pool, r.measured, r.scan, &r.units, 100, 1);
  name_failing_assumptions(k, fit_heads(pool, r.assumptions));
  const KappaRange& broken = k.heads[3];
  EXPECT_FALSE(broken.has_range());
  EXPECT_FALSE(broken.violations.empty());
  EXPECT_EQ(broken.with_range, 0.0);
  EXPECT_EQ(k.failures[3].assumption, "decay") << k.failures[3].why;
  EXPECT_NEAR(k.failures[3].statistic[1], 1.0, 1e-6);  // c_far: no decay at all
  for (int h = 0; h < 3; ++h) {
    EXPECT_NE(k.failures[h].assumption, "decay") << "head " << h << ": " << k.failures[h].why;
    EXPECT_LT(std::abs(assumption_statistics(fit_heads(pool, r.assumptions)[h])[1]), 0.1) << "head " << h;
  }
}
