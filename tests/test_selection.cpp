// The metric core against a brute force written here from SPEC §2-3 (a loop per N, direct
// float64 distances, exact <=), on random and adversarial inputs; the top-N order a device sort
// gives against the host's.
#include "geoattn/metrics_torch/selection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "geoattn/metrics/core/metric_names.h"
#include "torch_test_util.h"

using namespace geoattn::metrics;

namespace {

struct Brute {
  std::vector<double> P, R, s_norm, loo0, looL, cos0, cosL;
  double rho0 = 0, c_sink = 0, c_last = 0, c_rest = 0;
};

double norm(const std::vector<double>& x) { return std::sqrt(std::inner_product(x.begin(), x.end(), x.begin(), 0.0)); }
double cosine(const std::vector<double>& a, const std::vector<double>& b) {
  const double na = norm(a), nb = norm(b);
  return na > 0 && nb > 0 ? std::inner_product(a.begin(), a.end(), b.begin(), 0.0) / (na * nb) : 0.0;
}

// One sample straight from the definitions.
Brute brute(const std::vector<double>& alpha, const std::vector<std::vector<double>>& v, const std::vector<int64_t>& grid,
            Distance distance = Distance::Euclidean) {
  const int64_t n = alpha.size(), d = v[0].size(), L = n - 1;
  std::vector<std::vector<double>> y(n, std::vector<double>(d));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < d; ++c) y[i][c] = alpha[i] * v[i][c];
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return alpha[a] > alpha[b]; });
  Brute out;
  for (int64_t N : grid) {
    std::vector<bool> in(n, false);
    for (int64_t k = 0; k < N; ++k) in[order[k]] = true;
    std::vector<double> s(d, 0.0);
    for (int64_t i = 0; i < n; ++i)
      if (in[i])
        for (int64_t c = 0; c < d; ++c) s[c] += y[i][c];
    std::vector<double> D(n), E(n);  // D: the selection's distance, E: squared Euclidean
    for (int64_t i = 0; i < n; ++i) {
      double acc = 0;
      for (int64_t c = 0; c < d; ++c) acc += (s[c] - y[i][c]) * (s[c] - y[i][c]);
      E[i] = acc;
      // SPEC §2b: 1 - <s, y> / (||s|| ||y|| + 1e-12)
      D[i] = distance == Distance::Cosine
                 ? 1.0 - std::inner_product(s.begin(), s.end(), y[i].begin(), 0.0) / (norm(s) * norm(y[i]) + 1e-12)
                 : acc;
    }
    double r_max2 = -INFINITY, r_min2 = INFINITY;
    for (int64_t i = 0; i < n; ++i) (in[i] ? r_max2 = std::max(r_max2, D[i]) : r_min2 = std::min(r_min2, D[i]));
    int64_t k_out = 0, k_in = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!in[i] && D[i] <= r_max2) ++k_out;
      if (in[i] && D[i] <= r_min2) ++k_in;
    }
    out.P.push_back(double(N) / (N + k_out));
    out.R.push_back(N == n ? 1.0 : double(k_in) / N);
    out.s_norm.push_back(norm(s));
    out.loo0.push_back(in[0] ? std::sqrt(E[0]) : norm(s));
    out.looL.push_back(in[L] ? std::sqrt(E[L]) : norm(s));
    out.cos0.push_back(cosine(s, v[0]));
    out.cosL.push_back(cosine(s, v[L]));
  }
  for (int64_t j = 1; j < n; ++j) out.rho0 += cosine(v[0], v[j]) / (n - 1);
  out.c_sink = alpha[0] * norm(v[0]);
  out.c_last = alpha[L] * norm(v[L]);
  std::vector<double> rest(d, 0.0);
  for (int64_t i = 1; i < L; ++i)
    for (int64_t c = 0; c < d; ++c) rest[c] += y[i][c];
  out.c_rest = norm(rest);
  return out;
}

std::vector<int64_t> all_n(int64_t n) {
  std::vector<int64_t> g(n);
  std::iota(g.begin(), g.end(), 1);
  return g;
}

// Compares the core (fused CPU counts and generic tensor counts) with the brute force on
// every sample of alpha [B, n], values [B, n, d]: P and R identical, the rest to 1e-12.
void expect_matches_brute(geoattn::WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& grid,
                          Distance distance = Distance::Euclidean) {
  const int64_t B = alpha.size(0), n = alpha.size(1), d = values.size(2);
  for (bool generic : {false, true}) {
    SelectionOptions options;
    options.distance = distance;
    options.tensor_path = generic;
    options.max_chunk_bytes = 1 << 12;  // force several chunks
    auto m = selection_metrics(pool, alpha, values, grid, options);
    auto a64 = alpha.to(torch::kFloat64);
    auto v64 = values.to(torch::kFloat64);
    for (int64_t b = 0; b < B; ++b) {
      std::vector<double> a(n);
      std::vector<std::vector<double>> v(n, std::vector<double>(d));
      for (int64_t i = 0; i < n; ++i) {
        a[i] = a64[b][i].item<double>();
        for (int64_t c = 0; c < d; ++c) v[i][c] = v64[b][i][c].item<double>();
      }
      const Brute ref = brute(a, v, grid, distance);
      for (size_t g = 0; g < grid.size(); ++g) {
        SCOPED_TRACE("sample " + std::to_string(b) + " N " + std::to_string(grid[g]) + (generic ? " generic" : " fused"));
        EXPECT_EQ(m.curves[b][kP_rmax][g].item<double>(), ref.P[g]);
        EXPECT_EQ(m.curves[b][kR_rmin][g].item<double>(), ref.R[g]);
        EXPECT_DOUBLE_EQ(m.curves[b][kF_rmax][g].item<double>(), 2 * ref.P[g] / (1 + ref.P[g]));
        EXPECT_DOUBLE_EQ(m.curves[b][kF_rmin][g].item<double>(), 2 * ref.R[g] / (1 + ref.R[g]));
        EXPECT_NEAR(m.curves[b][kS_norm][g].item<double>(), ref.s_norm[g], 1e-12);
        EXPECT_NEAR(m.curves[b][kS_loo_sink][g].item<double>(), ref.loo0[g], 1e-7);
        EXPECT_NEAR(m.curves[b][kS_loo_last][g].item<double>(), ref.looL[g], 1e-7);
        EXPECT_NEAR(m.curves[b][kCos_s_v0][g].item<double>(), ref.cos0[g], 1e-12);
        EXPECT_NEAR(m.curves[b][kCos_s_vL][g].item<double>(), ref.cosL[g], 1e-12);
      }
      EXPECT_NEAR(m.scalars[b][kRho0].item<double>(), ref.rho0, 1e-12);
      EXPECT_NEAR(m.scalars[b][kC_sink].item<double>(), ref.c_sink, 1e-12);
      EXPECT_NEAR(m.scalars[b][kC_last].item<double>(), ref.c_last, 1e-12);
      EXPECT_NEAR(m.scalars[b][kC_rest].item<double>(), ref.c_rest, 1e-12);
    }
  }
}

torch::Tensor softmax_rows(int64_t B, int64_t n, double temperature) {
  return torch::softmax(torch::randn({B, n}, torch::kFloat64) * temperature, -1);
}

}  // namespace

// The metric core on a pool of two workers.
class Selection : public ::testing::Test {
 protected:
  geoattn::WorkerPool pool{2};
};

TEST_F(Selection, RandomInputsMatchBruteForce) {
  torch::manual_seed(1);
  expect_matches_brute(pool, softmax_rows(5, 33, 3.0), torch::randn({5, 33, 6}), all_n(33));
  expect_matches_brute(pool, softmax_rows(3, 64, 1.0).to(torch::kFloat32), torch::randn({3, 64, 16}), {1, 2, 3, 8, 31, 64});
  // Not trivially 1: at intermediate N random geometry leaves P and R well below 1.
  auto m = selection_metrics(pool, softmax_rows(5, 33, 3.0), torch::randn({5, 33, 6}), {8});
  EXPECT_LT(m.curves.select(1, kP_rmax).mean().item<double>(), 0.9);
  EXPECT_LT(m.curves.select(1, kR_rmin).mean().item<double>(), 0.9);
}

TEST_F(Selection, TiesInAlpha) {
  torch::manual_seed(2);
  // Few distinct values: many exact ties, broken by position.
  auto alpha = torch::randint(1, 4, {4, 20}, torch::kFloat64);
  alpha = alpha / alpha.sum(-1, true);
  expect_matches_brute(pool, alpha, torch::randn({4, 20, 3}), all_n(20));
  // Uniform attention: every alpha equal.
  expect_matches_brute(pool, torch::full({2, 9}, 1.0 / 9, torch::kFloat64), torch::randn({2, 9, 4}), all_n(9));
}

TEST_F(Selection, DuplicateVectors) {
  torch::manual_seed(3);
  auto v = torch::randn({3, 16, 4}, torch::kFloat64);
  v.index_put_({torch::indexing::Slice(), torch::indexing::Slice(8, 16)}, v.index({torch::indexing::Slice(), torch::indexing::Slice(0, 8)}));
  auto alpha = torch::cat({torch::full({3, 8}, 1.0 / 16), torch::full({3, 8}, 1.0 / 16)}, 1).to(torch::kFloat64);
  expect_matches_brute(pool, alpha, v, all_n(16));  // pairs of identical y: exact distance ties
  expect_matches_brute(pool, softmax_rows(3, 16, 2.0), v, all_n(16));
}

TEST_F(Selection, ZeroNormSinkAndTinySequences) {
  torch::manual_seed(4);
  auto v = torch::randn({3, 12, 5}, torch::kFloat64);
  v.index_put_({torch::indexing::Slice(), 0}, 0.0);
  auto alpha = softmax_rows(3, 12, 1.0);
  alpha.index_put_({torch::indexing::Slice(), 0}, 0.9);
  expect_matches_brute(pool, alpha / alpha.sum(-1, true), v, all_n(12));
  expect_matches_brute(pool, torch::ones({2, 1}, torch::kFloat64), torch::randn({2, 1, 3}), {1});  // T = 1
  expect_matches_brute(pool, softmax_rows(2, 2, 1.0), torch::randn({2, 2, 3}), {1, 2});              // T = 2
}

TEST_F(Selection, CosineDistanceMatchesBruteForce) {
  torch::manual_seed(6);
  expect_matches_brute(pool, softmax_rows(4, 33, 3.0), torch::randn({4, 33, 6}), all_n(33), Distance::Cosine);
  auto v = torch::randn({2, 16, 4}, torch::kFloat64);
  v.index_put_({torch::indexing::Slice(), torch::indexing::Slice(8, 16)}, v.index({torch::indexing::Slice(), torch::indexing::Slice(0, 8)}));
  expect_matches_brute(pool, torch::full({2, 16}, 1.0 / 16, torch::kFloat64), v, all_n(16), Distance::Cosine);  // exact ties
  // Cosine and Euclidean select alike but measure differently.
  auto alpha = softmax_rows(6, 40, 2.0);
  auto values = torch::randn({6, 40, 8}, torch::kFloat64);
  SelectionOptions cosine;
  cosine.distance = Distance::Cosine;
  auto a = selection_metrics(pool, alpha, values, {8}), b = selection_metrics(pool, alpha, values, {8}, cosine);
  EXPECT_FALSE(torch::equal(a.curves.select(1, kP_rmax), b.curves.select(1, kP_rmax)));
  EXPECT_TRUE(torch::equal(a.curves.select(1, kS_norm), b.curves.select(1, kS_norm)));
}

TEST_F(Selection, Properties) {
  torch::manual_seed(5);
  const int64_t n = 50;
  auto m = selection_metrics(pool, softmax_rows(8, n, 4.0), torch::randn({8, n, 8}), all_n(n));
  auto P = m.curves.select(1, kP_rmax), R = m.curves.select(1, kR_rmin);
  EXPECT_TRUE((P.select(1, 0) == 1).all().item<bool>());  // N = 1: P = R = 1
  EXPECT_TRUE((R.select(1, 0) == 1).all().item<bool>());
  EXPECT_TRUE((R.select(1, n - 1) == 1).all().item<bool>());  // N = q + 1: R = 1
  auto N = torch::arange(1, n + 1, torch::kFloat64);
  EXPECT_TRUE((P >= N / n - 1e-15).all().item<bool>());  // P in [N/(q+1), 1]
  EXPECT_TRUE((P <= 1).all().item<bool>());
  EXPECT_TRUE(((R >= 0) & (R <= 1)).all().item<bool>());
}

TEST_F(Selection, RefusesBadShapesAndGrids) {
  EXPECT_ANY_THROW(selection_metrics(pool, torch::ones({2, 3}), torch::ones({2, 4, 2}), {1}));
  EXPECT_ANY_THROW(selection_metrics(pool, torch::ones({2, 3}), torch::ones({2, 3, 2}), {4}));
  EXPECT_ANY_THROW(selection_metrics(pool, torch::ones({2, 3}), torch::ones({2, 3, 2}), {0}));
}

// The top-N order a CUDA tensor takes (one stable sort on its device) is the host's: on real
// stories260K rows (every query: their causal zeros tie), on rows of few values (ties
// everywhere) and on zeros of both signs, which compare equal and keep position order.
TEST(TopNOrder, OnTheDeviceEqualsTheHosts) {
  geoattn::io::WindowOptions w;
  w.T = 256;
  w.max_windows = 2;
  std::vector<int64_t> queries(256);
  for (int64_t q = 0; q < 256; ++q) queries[q] = q;
  for (const auto& c : geoattn::testing::capture_windows("models/stories260K", {"data/openwebtext/openwebtext-60docs.jsonl"},
                                                        w, {"blocks.*.attn.pattern"}, queries)) {
    const auto rows = c.at(geoattn::model::HookPoint::AttnPattern).reshape({-1, 256});  // [L H Q, T] float32
    EXPECT_TRUE(torch::equal(top_n_order_on_device(rows), top_n_order(rows)));
  }
  torch::manual_seed(7);
  const auto few = torch::randint(0, 4, {64, 300}, torch::kFloat64) / 4;
  EXPECT_TRUE(torch::equal(top_n_order_on_device(few), top_n_order(few)));
  auto zeros = torch::zeros({3, 10}, torch::kFloat64);
  zeros.index_put_({torch::indexing::Slice(), torch::indexing::Slice(0, torch::indexing::None, 3)}, -0.0);
  zeros[1][5] = 0.5, zeros[2][9] = 0.25;
  ASSERT_TRUE(std::signbit(zeros[0][3].item<double>()));
  EXPECT_TRUE(torch::equal(top_n_order_on_device(zeros), top_n_order(zeros)));
  EXPECT_TRUE(torch::equal(top_n_order(zeros)[0], torch::arange(10)));  // every zero equal: position order
}
