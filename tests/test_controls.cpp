// SPEC §2b: the random-selection control and the bootstrap over documents. Top-N beats random
// with an interval excluding zero where selection is separable by construction; the interval
// covers zero where alpha carries no information; a constant has a zero-width interval; merging
// shards (documents split between them) gives the same state and intervals as one run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "bootstrap_definition.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/stats/run_state.h"
#include "geoattn/metrics_torch/selection.h"
#include "geoattn/metrics_torch/window_metrics_torch.h"
#include "geoattn/util/error.h"

using namespace geoattn::metrics;
using geoattn::WorkerPool;
using torch::indexing::Slice;

namespace {

constexpr int64_t L = 1, H = 2, T = 32, d = 8;
const std::vector<int64_t> kGrid = {1, 2, 4, 8, 16, 32};

struct Window {
  torch::Tensor alpha, values;  // [L, H, 1, T], [L, H, T, d] (one KV head per head)
};

// Separable: the 4 tokens with the largest alpha have values clustered far from the rest, so
// at N = 4, P = R = 1. Uninformative: uniform attention, so alpha says nothing about the
// tokens (top-N is the first N positions, i.i.d. values: exchangeable with a random choice).
Window make_window(bool separable, int64_t seed) {
  auto gen = at::detail::createCPUGenerator(static_cast<uint64_t>(seed));
  auto values = torch::randn({L, H, T, d}, gen, torch::kFloat64);
  auto logits = separable ? torch::randn({L, H, 1, T}, gen, torch::kFloat64) : torch::zeros({L, H, 1, T}, torch::kFloat64);
  if (separable) {
    auto top = std::get<1>(logits.topk(4, -1));  // [L, H, 1, 4]
    logits.scatter_(-1, top, 6.0);
    for (int64_t h = 0; h < H; ++h)
      for (int64_t k = 0; k < 4; ++k) {
        const int64_t i = top[0][h][0][k].item<int64_t>();
        values.index_put_({0, h, i}, 30.0 + 0.1 * values.index({0, h, i}));
      }
  }
  return {torch::softmax(logits, -1), values};
}

const std::vector<int64_t> kLastQuery = {T - 1};

RunState new_state() {
  return RunState{Aggregator(L, H, kGrid), {}, {}, UnitStats(L, H, 6, BootLevel::Head)};
}

void add(WorkerPool& pool, RunState& state, const Window& w, uint64_t key, const std::string& unit, int64_t controls = 16) {
  MetricOptions options;
  options.controls = controls;
  options.seed = 7;
  add_window(pool, w.alpha, w.values, kLastQuery, kGrid, key, options,
             [&](int64_t l, int64_t h, const SampleValues& sample) { state.add_sample(unit, l, h, sample); });
}

// Two windows per document, 30 documents.
RunState run(WorkerPool& pool, bool separable, int first_doc = 0, int docs = 30) {
  RunState state = new_state();
  for (int doc = first_doc; doc < first_doc + docs; ++doc)
    for (int j = 0; j < 2; ++j) add(pool, state, make_window(separable, 100 * doc + j), 2 * doc + j, "doc" + std::to_string(doc));
  return state;
}

}  // namespace

// The metric core, the permutations and the bootstrap on a pool of two workers.
class Controls : public ::testing::Test {
 protected:
  WorkerPool pool{2};
};

TEST_F(Controls, RandomOrdersArePortablePermutations) {
  const auto a = random_orders(pool, 3, 11, 4, 5, 17), b = random_orders(pool, 3, 11, 4, 5, 17);
  EXPECT_TRUE(torch::equal(a, b));
  EXPECT_FALSE(torch::equal(a, random_orders(pool, 4, 11, 4, 5, 17)));
  EXPECT_TRUE(torch::equal(std::get<0>(a.sort(-1)), torch::arange(17).expand({4, 5, 17})));
  EXPECT_FALSE(torch::equal(a[0][0], a[1][0]));  // different permutations per r
  // A fixed value: any change to the generator shows here.
  EXPECT_EQ(random_orders(pool, 0, 0, 1, 1, 6)[0][0].sum().item<int64_t>(), 15);
}

TEST_F(Controls, SeparableSelectionBeatsRandom) {
  const RunState state = run(pool, true);
  const auto boot = bootstrap(pool, state.units, 1000, 5);
  const auto g = state.metrics.global_stats();
  const int64_t gi = 2;  // N = 4, the cluster
  EXPECT_EQ(g.curve(kP_rmax, gi).mean(), 1.0);
  EXPECT_EQ(g.curve(kR_rmin, gi).mean(), 1.0);
  EXPECT_LT(g.curve(kP_rmax_random, gi).mean(), 0.8);
  EXPECT_GT(boot.global.diff[0][gi][0], 0.0);  // P: the interval excludes zero
  EXPECT_GT(boot.global.diff[1][gi][0], 0.0);  // R
  // At N = 1 top-N is exactly 1 in every sample: a zero-width interval at 1.
  EXPECT_EQ(boot.global.curve[kP_rmax][0][0], 1.0);
  EXPECT_EQ(boot.global.curve[kP_rmax][0][1], 1.0);
  EXPECT_EQ(boot.global.curve[kR_rmin][0][0], 1.0);
}

TEST_F(Controls, UninformativeAlphaCoversZero) {
  const RunState state = run(pool, false);
  const auto boot = bootstrap(pool, state.units, 1000, 5);
  const auto g = state.metrics.global_stats();
  // Eight 95% intervals (P and R at N = 2, 4, 8, 16): about 7.6 cover zero when nothing
  // separates top-N from random; the differences themselves are small.
  int covering = 0;
  for (int64_t gi : {1, 2, 3, 4})
    for (int k : {0, 1}) {
      covering += boot.global.diff[k][gi][0] <= 0.0 && boot.global.diff[k][gi][1] >= 0.0;
      EXPECT_LT(std::abs(g.curve(kP_rmax + k, gi).mean() - g.curve(kP_rmax_random + k, gi).mean()), 0.05);
    }
  EXPECT_GE(covering, 6);
}

// The bootstrap's intervals equal their definition (bootstrap_definition.h) to the last bit.
// (123 replicates and this grid's statistics fill no whole 8 x 8 tile at the edges: the padded
// tiles are checked too.)
TEST_F(Controls, IntervalsEqualTheirDefinition) {
  RunState state = run(pool, true, 0, 7);
  const int64_t B = 123, G = state.units.grid_size();
  const uint64_t seed = 11;
  const auto boot = bootstrap(pool, state.units, B, seed);
  const geoattn::testing::BootstrapDefinition definition(state.units, B, seed);
  const std::vector<std::pair<std::vector<int64_t>, const GroupIntervals*>> groups = {
      {{0, 1}, &boot.global}, {{0}, &boot.heads[0]}, {{1}, &boot.heads[1]}};
  for (const auto& [members, got] : groups) {
    for (int m : {kP_rmax, kR_rmin, kP_rmax_random})
      for (int64_t g = 0; g < G; ++g) {
        const Interval want = definition.interval(members, state.units.curve_index(m, g), g);
        EXPECT_EQ(std::memcmp(&got->curve[m][g], &want, sizeof(Interval)), 0)
            << "metric " << m << " g " << g << ": " << got->curve[m][g][0] << " " << want[0];
      }
    for (int k : {kRho0, kC_sink, kC_last, kC_rest}) {
      const Interval want = definition.interval(members, state.units.scalar_index(k), 0);
      EXPECT_EQ(std::memcmp(&got->scalar[k], &want, sizeof(Interval)), 0) << "scalar " << k;
    }
  }
}

// At another coverage (--ci) too, over enough replicates for the percentiles' fast path
// (bootstrap.cpp: tails), whose sampled thresholds hold the SPEC's tails and not those of 80%.
TEST_F(Controls, IntervalsAtAnyCoverageEqualTheirDefinition) {
  RunState state = run(pool, true, 0, 7);
  const int64_t B = 600, G = state.units.grid_size();
  for (const double ci : {80.0, 99.0, 50.0}) {
    const auto boot = bootstrap(pool, state.units, B, 3, {}, "document", ci);
    EXPECT_EQ(boot.percentiles.lo, (100 - ci) / 2);
    EXPECT_EQ(boot.percentiles.hi, (100 + ci) / 2);
    const geoattn::testing::BootstrapDefinition definition(state.units, B, 3, ci);
    for (int m : {kP_rmax, kR_rmin})
      for (int64_t g = 0; g < G; ++g) {
        const Interval want = definition.interval({0, 1}, state.units.curve_index(m, g), g);
        EXPECT_EQ(std::memcmp(&boot.global.curve[m][g], &want, sizeof(Interval)), 0) << "ci " << ci << " g " << g;
      }
  }
  EXPECT_THROW(bootstrap(pool, state.units, B, 3, {}, "document", 100), geoattn::Error);
}

TEST_F(Controls, IntervalsContainTheMean) {
  const RunState state = run(pool, true);
  const auto boot = bootstrap(pool, state.units, 500, 1);
  ASSERT_EQ(boot.heads.size(), 2u);
  ASSERT_EQ(boot.layers.size(), 1u);
  for (int64_t h = 0; h < H; ++h) {
    const auto& s = state.metrics.head_stats(0, h);
    for (int64_t gi = 0; gi < 6; ++gi) {
      EXPECT_LE(boot.heads[h].curve[kR_rmin][gi][0], s.curve(kR_rmin, gi).mean() + 1e-12);
      EXPECT_GE(boot.heads[h].curve[kR_rmin][gi][1], s.curve(kR_rmin, gi).mean() - 1e-12);
    }
    EXPECT_LE(boot.heads[h].scalar[kRho0][0], s.scalar(kRho0).mean() + 1e-12);
    EXPECT_GE(boot.heads[h].scalar[kRho0][1], s.scalar(kRho0).mean() - 1e-12);
  }
}

TEST_F(Controls, MergeOfShardsEqualsOneRun) {
  const RunState all = run(pool, true, 0, 12);
  RunState merged = run(pool, true, 6, 6);  // the second half first: order must not matter
  merged.merge(run(pool, true, 0, 6));
  const auto a = bootstrap(pool, all.units, 300, 9), b = bootstrap(pool, merged.units, 300, 9);
  // Bit-identical (NaN where undefined on both sides).
  auto same = [](const Interval& x, const Interval& y) { return std::memcmp(x.data(), y.data(), sizeof(Interval)) == 0; };
  for (int m = 0; m < kCurveMetrics; ++m)
    for (int64_t gi = 0; gi < 6; ++gi) {
      EXPECT_TRUE(same(a.global.curve[m][gi], b.global.curve[m][gi]));
      EXPECT_TRUE(same(a.heads[1].curve[m][gi], b.heads[1].curve[m][gi]));
      EXPECT_TRUE(same(a.global.corr[gi], b.global.corr[gi]));
    }
  for (int64_t gi = 0; gi < 6; ++gi)
    EXPECT_EQ(all.metrics.global_stats().curve(kP_rmax_random, gi).mean(),
              merged.metrics.global_stats().curve(kP_rmax_random, gi).mean());
  RunState twice = run(pool, true, 0, 2);
  EXPECT_THROW(twice.merge(run(pool, true, 1, 2)), geoattn::Error);  // doc1 in both
}

TEST_F(Controls, LevelsAndNoControls) {
  RunState state{Aggregator(L, H, kGrid), {}, {}, UnitStats(L, H, 6, BootLevel::Layer)};
  add(pool, state, make_window(true, 1), 0, "a", /*controls=*/0);
  add(pool, state, make_window(true, 2), 1, "b", /*controls=*/0);
  EXPECT_EQ(state.metrics.global_stats().curve(kP_rmax_random, 0).count(), 0);  // no control: absent
  const auto boot = bootstrap(pool, state.units, 50, 0);
  EXPECT_TRUE(boot.heads.empty());
  EXPECT_EQ(boot.layers.size(), 1u);
  EXPECT_THROW(bootstrap(pool, UnitStats(L, H, 6, BootLevel::Head), 10, 0), geoattn::Error);  // no units
}
