// The statistics of the paper's three assumptions (SPEC §4) from captured windows: exact values
// on windows built to have known norms, cv, decay c(k) and attention rows; exact merging; and
// the state sidecar round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "geoattn/report/fits_json.h"
#include "geoattn/report/state_file.h"
#include "geoattn/metrics/stats/run_state.h"
#include "geoattn/metrics_torch/window_metrics_torch.h"
#include "test_util.h"
#include "torch_test_util.h"

using namespace geoattn::metrics;
using geoattn::report::load_run_state;
using geoattn::report::save_run_state;
using torch::indexing::Slice;

namespace {

constexpr int64_t L = 2, H = 4, KV = 2, T = 12, d = 2, K = 5;
constexpr double kTheta = 0.3;

// v_i = r_i (cos(theta i), sin(theta i)): cos(v_i, v_j) = cos(theta (j - i)), so c(k) =
// cos(theta k) exactly; r_i alternates 1, 2 for i > 0 (cv = 1/3) and r_0 = 5.
// KV head 1 is KV head 0 scaled by 3 (same c(k) and cv, norms x3). Query rows: a fixed
// distribution per head, rows for queries 5 and T-1.
struct Window {
  torch::Tensor alpha, values;
  std::vector<int64_t> queries{5, T - 1};
};

Window make_window(double row_scale) {
  auto values = torch::zeros({L, KV, T, d}, torch::kFloat64);
  for (int64_t i = 0; i < T; ++i) {
    const double r = i == 0 ? 5.0 : (i % 2 ? 1.0 : 2.0);
    values.index_put_({Slice(), 0, i, 0}, r * std::cos(kTheta * i));
    values.index_put_({Slice(), 0, i, 1}, r * std::sin(kTheta * i));
  }
  values.index_put_({Slice(), 1}, 3 * values.index({Slice(), 0}));
  auto alpha = torch::zeros({L, H, 2, T}, torch::kFloat64);
  auto last = torch::arange(1, T + 1, torch::kFloat64).pow(row_scale);
  alpha.index_put_({Slice(), Slice(), 1}, last / last.sum());
  alpha.index_put_({Slice(), Slice(), 0, Slice(0, 6)}, 1.0 / 6);
  return {alpha.to(torch::kFloat32), values.to(torch::kFloat32)};
}

// The metric core's workers (value_statistics).
geoattn::WorkerPool& pool() {
  static geoattn::WorkerPool workers(2);
  return workers;
}

}  // namespace

TEST(Assumptions, KnownWindow) {
  const Window w = make_window(1.0);
  AssumptionStats stats(L, H, T, K);
  ASSERT_TRUE(add_window_assumptions(pool(), w.alpha, w.values, w.queries, stats));
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      const double scale = h < 2 ? 1.0 : 3.0;  // heads 0-1 read KV head 0, heads 2-3 KV head 1
      EXPECT_EQ(stats.windows(l, h), 1);
      const auto norm = stats.mean_norm(l, h);
      EXPECT_NEAR(norm[0], 5 * scale, 1e-5);
      for (int64_t i = 1; i < T; ++i) EXPECT_NEAR(norm[i], (i % 2 ? 1.0 : 2.0) * scale, 1e-5);
      // positions 1..11: six 1s and five 2s; mean 16/11, population std sqrt(30/121)
      EXPECT_NEAR(stats.mean_cv(l, h), std::sqrt(30.0) / 11 / (16.0 / 11), 1e-6);
      const auto c = stats.decay(l, h);
      for (int64_t k = 1; k <= K; ++k) EXPECT_NEAR(c[k - 1], std::cos(kTheta * k), 1e-6) << k;
      const auto row = stats.mean_row(l, h);
      for (int64_t i = 0; i < T; ++i) EXPECT_NEAR(row[i], (i + 1) / 78.0, 1e-7);
    }
}

TEST(Assumptions, NeedsTheLastQuery) {
  Window w = make_window(1.0);
  AssumptionStats stats(L, H, T, K);
  EXPECT_FALSE(add_window_assumptions(pool(), w.alpha.index({Slice(), Slice(), Slice(0, 1)}), w.values, {5}, stats));
  EXPECT_EQ(stats.windows(0, 0), 0);
  EXPECT_TRUE(std::isnan(stats.mean_cv(0, 0)));
}

TEST(Assumptions, LagsPastTheWindowHaveNoPairs) {
  const Window w = make_window(1.0);
  AssumptionStats stats(L, H, T, T + 3);
  ASSERT_TRUE(add_window_assumptions(pool(), w.alpha, w.values, w.queries, stats));
  const auto c = stats.decay(0, 0);
  EXPECT_NEAR(c[T - 3], std::cos(kTheta * (T - 2)), 1e-6);  // k = T-2: the one pair (1, T-1)
  for (int64_t k = T - 1; k <= T + 3; ++k) EXPECT_TRUE(std::isnan(c[k - 1])) << k;
}

TEST(Assumptions, MergeIsExactAndRoundTrips) {
  AssumptionStats all(L, H, T, K), first(L, H, T, K), second(L, H, T, K);
  for (int i = 0; i < 4; ++i) {
    const Window w = make_window(0.5 + 0.37 * i);
    add_window_assumptions(pool(), w.alpha, w.values, w.queries, all);
    add_window_assumptions(pool(), w.alpha, w.values, w.queries, i < 2 ? first : second);
  }
  first.merge(second);
  for (int64_t h = 0; h < H; ++h) {
    EXPECT_EQ(first.mean_row(1, h), all.mean_row(1, h));  // bit-identical
    EXPECT_EQ(first.mean_norm(1, h), all.mean_norm(1, h));
    EXPECT_EQ(first.windows(1, h), 4);
  }
  const auto arrays = all.arrays();
  ASSERT_EQ(arrays.size(), 3u);
  const auto values = [](const geoattn::metrics::ArrayView& a) {
    std::vector<int64_t> out(a.bytes.size() / sizeof(int64_t));
    std::memcpy(out.data(), a.bytes.data(), a.bytes.size());
    return out;
  };
  const auto back = AssumptionStats::from_tensors(L, H, T, K, values(arrays[0]), values(arrays[1]), values(arrays[2]));
  EXPECT_EQ(back.decay(0, 3), all.decay(0, 3));
  EXPECT_EQ(back.mean_cv(1, 2), all.mean_cv(1, 2));
  EXPECT_THROW(AssumptionStats(L, H, T, K + 1).merge(all), geoattn::Error);
}

TEST(Assumptions, RunStateSidecar) {
  geoattn::testing::TempDir tmp;
  RunState state{Aggregator(L, H, {1, 2}), AssumptionStats(L, H, T, K), {}};
  state.run_info.model.path = "x";
  const Window w = make_window(2.0);
  add_window_assumptions(pool(), w.alpha, w.values, w.queries, state.assumptions);
  save_run_state(tmp / "s.safetensors", state);
  const RunState back = load_run_state(tmp / "s.safetensors");
  EXPECT_EQ(back.assumptions.mean_row(1, 1), state.assumptions.mean_row(1, 1));
  EXPECT_EQ(back.run_info, state.run_info);
  RunState without{Aggregator(L, H, {1, 2}), {}, {}};
  save_run_state(tmp / "none.safetensors", without);
  EXPECT_TRUE(load_run_state(tmp / "none.safetensors").assumptions.empty());
  EXPECT_THROW(without.merge(state), geoattn::Error);  // one run has fits, the other not
}

// A fit that fails says so and reports no parameters: null, not the numbers its search stopped at.
TEST(Assumptions, FailedFitsWriteNullParameters) {
  const AssumptionStats empty(1, 1, 16, 4);  // no window: every statistic undefined
  const auto typed = geoattn::metrics::fit_heads(pool(), empty);
  ASSERT_EQ(typed.size(), 1u);
  const auto fits = geoattn::report::to_json(typed[0]);
  for (const char* part : {"norms", "decay", "profile"}) {
    EXPECT_FALSE(fits.at(part).at("ok").get<bool>()) << part;
    EXPECT_FALSE(fits.at(part).value("why", "").empty()) << part;
  }
  for (const char* key : {"C", "lambda", "cv"}) EXPECT_TRUE(fits["norms"][key].is_null()) << key;
  for (const char* key : {"beta", "mae"}) EXPECT_TRUE(fits["decay"][key].is_null()) << key;
  for (const char* key : {"p_sink", "p_base", "eta", "omega", "T1", "T2", "error"})
    EXPECT_TRUE(fits["profile"][key].is_null()) << key;
}

// SPEC §4: the result states each fit's identifiability test, the sentences of analysis::kFitTests.
TEST(Assumptions, FitTestsAreStatedInTheResult) {
  const auto tests = geoattn::report::fit_tests_json();
  ASSERT_EQ(tests.size(), 3u);
  for (const auto& t : geoattn::analysis::kFitTests)
    EXPECT_EQ(tests.at(std::string(t.fit)).get<std::string>(), std::string(t.sentence)) << t.fit;
}
