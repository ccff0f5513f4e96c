// The metric core's fused loops (src/metrics/core/core_kernels.h) give the same bits on every CPU:
// each level this machine can run (AVX-512, AVX2, the x86-64 baseline: every level is compiled
// and callable by itself, core_kernels.h: kernels_of) equals a definition written out one term
// at a time, with std::fma for every product added to a sum and the one order of
// core_kernels_impl.h's lane_sum. Before, the AVX2 clone summed in 4 lanes where the AVX-512
// clone summed in 8, and the baseline rounded each product apart: the s(N) diagnostics, the value
// norms and the state sidecars of 16 of the 19 result files of the demo, stories15M and the
// 128-head bench moved in their last bits from one CPU to another. A level the CPU lacks is
// skipped, saying so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "geoattn/metrics/core/detail/core.h"
#include "core_kernels.h"
#include "geoattn/metrics/core/grid.h"

using namespace geoattn::metrics::detail;

constexpr double kInf = std::numeric_limits<double>::infinity();

namespace {

// Doubles of mixed signs over 2^-20 .. 2^20, so that the order of a sum shows in its last bits.
std::vector<double> wide(std::mt19937_64& rng, int64_t n) {
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<double> x(static_cast<size_t>(n));
  for (auto& v : x) v = std::ldexp(mantissa(rng), exponent(rng));
  return x;
}

// The mask m (+inf: selected) as TokenState::in's bits.
std::vector<uint8_t> bits_of(const std::vector<double>& m) {
  std::vector<uint8_t> bits((m.size() + 7) / 8, 0);
  for (size_t k = 0; k < m.size(); ++k)
    if (m[k] > 0) bits[k / 8] = static_cast<uint8_t>(bits[k / 8] | 1u << (k % 8));
  return bits;
}

// A counting pass's counts of step N - 1 (N - 1 selected tokens) against the definition's: the
// rest at or within each threshold, the selected beyond each.
void expect_counts(const BandCounts& bc, int64_t out_lo, int64_t out_hi, int64_t N_prev, int64_t in_lo, int64_t in_hi,
                   const std::string& what) {
  EXPECT_EQ(bc.out_certain, out_lo) << what;
  EXPECT_EQ(bc.out_possible, out_hi) << what;
  EXPECT_EQ(bc.in_certain, N_prev - in_lo) << what;
  EXPECT_EQ(bc.in_possible, N_prev - in_hi) << what;
}

// The definition: lane j of 8 takes the terms k = j (mod 8) in turn, fused; the terms after the
// last whole 8 go to lane 0; the lanes add up in order, from 0.
template <class Term>
double lane_sum_definition(int64_t n, Term term) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t whole = n / 8 * 8;
  for (int64_t k = 0; k < whole; ++k) lane[k % 8] = term(k, lane[k % 8]);
  for (int64_t k = whole; k < n; ++k) lane[0] = term(k, lane[0]);
  double acc = 0;
  for (double v : lane) acc += v;
  return acc;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const std::vector<int64_t> kLengths = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 47, 48, 64, 80, 96, 127, 128, 129, 256, 1000};

}  // namespace

// Each level's kernels, by the name of the level.
class KernelLevel : public ::testing::TestWithParam<SimdLevel> {
 protected:
  void SetUp() override {
    k_ = kernels_of(GetParam());
    if (!k_) GTEST_SKIP() << "this build or CPU has no " << simd_level_name(GetParam()) << " level";
  }
  const Kernels* k_ = nullptr;
};

INSTANTIATE_TEST_SUITE_P(Levels, KernelLevel, ::testing::ValuesIn(kSimdLevels),
                         [](const auto& info) { return std::string(simd_level_name(info.param)); });

// The plain functions run the best level here.
TEST(KernelDispatch, PicksTheBestLevelThisCpuHas) {
  const SimdLevel best = best_simd_level();
  ASSERT_NE(kernels_of(best), nullptr);
  for (SimdLevel level : kSimdLevels)
    if (static_cast<int>(level) > static_cast<int>(best)) EXPECT_EQ(kernels_of(level), nullptr) << simd_level_name(level);
  const std::vector<double> x = {1, 2, 3}, y = {4, 5, 6};
  EXPECT_EQ(dot(x, y), kernels_of(best)->dot(x, y));
}

TEST_P(KernelLevel, SumsOfProductsTakeOneOrderOnEveryCpu) {
  const auto& dot = k_->dot;
  const auto& distance_to_scaled = k_->distance_to_scaled;
  std::mt19937_64 rng(25);
  int order_shows = 0;  // lengths where one sequential sum would have given other bits
  for (int64_t n : kLengths) {
    for (int trial = 0; trial < 20; ++trial) {
      const auto x = wide(rng, n), y = wide(rng, n);
      const double a = std::ldexp(0.7853981633974483, static_cast<int>(trial) - 10);
      const double want_dot = lane_sum_definition(n, [&](int64_t k, double acc) { return std::fma(x[k], y[k], acc); });
      const double got_dot = dot(x, y);
      ASSERT_TRUE(same_bits(got_dot, want_dot)) << "dot, n = " << n << ": " << got_dot << " against " << want_dot;
      const double want_dist = std::sqrt(lane_sum_definition(n, [&](int64_t k, double acc) {
        const double r = std::fma(-a, y[k], x[k]);
        return std::fma(r, r, acc);
      }));
      const double got_dist = distance_to_scaled(x, a, y);
      ASSERT_TRUE(same_bits(got_dist, want_dist)) << "distance, n = " << n << ": " << got_dist << " against " << want_dist;
      double sequential = 0;
      for (int64_t k = 0; k < n; ++k) sequential += x[k] * y[k];
      order_shows += !same_bits(sequential, want_dot);
    }
  }
  EXPECT_GT(order_shows, 100) << "the data must be such that the order of the sum shows";
}

TEST_P(KernelLevel, RowUpdatesAreFusedOnEveryCpu) {
  const auto& add_row = k_->add_row;
  const auto& add_rows = k_->add_rows;
  const auto& add_row_and_evaluate = k_->add_row_and_evaluate;
  const auto& add_row_evaluate_and_count = k_->add_row_evaluate_and_count;
  std::mt19937_64 rng(26);
  for (int64_t n : kLengths) {
    const auto x = wide(rng, n), c0 = wide(rng, n), next = wide(rng, n);
    const double a = 0.1234567890123;
    std::vector<double> want(c0.size());
    int fused_shows = 0;
    for (size_t k = 0; k < c0.size(); ++k) {
      want[k] = std::fma(a, x[k], c0[k]);
      fused_shows += !same_bits(want[k], c0[k] + a * x[k]);
    }
    if (n >= 64) EXPECT_GT(fused_shows, 0) << "n = " << n << ": fused and unfused must differ somewhere";

    auto c = c0;
    add_row(a, x, c);
    for (size_t k = 0; k < c.size(); ++k) ASSERT_TRUE(same_bits(c[k], want[k])) << "add_row, n = " << n << ", k = " << k;

    // 1 to kRowsAtOnce rows in one pass: the bits of add_row once per row, in order.
    const auto x1 = wide(rng, n), x2 = wide(rng, n), x3 = wide(rng, n);
    const double as[kRowsAtOnce] = {a, -0.37, 2.5e-3, 1.75};
    const double* xs[kRowsAtOnce] = {x.data(), x1.data(), x2.data(), x3.data()};
    for (int count = 1; count <= kRowsAtOnce; ++count) {
      auto want_rows = c0;
      for (int r = 0; r < count; ++r) add_row(as[r], {xs[r], x.size()}, want_rows);
      StepRows rows;
      rows.count = count, rows.next = next.data();
      for (int r = 0; r < count; ++r) rows.a[r] = as[r], rows.x[r] = xs[r];
      c = c0;
      add_rows(rows, c);
      for (size_t k = 0; k < c.size(); ++k)
        ASSERT_TRUE(same_bits(c[k], want_rows[k])) << "add_rows, " << count << " rows, n = " << n << ", k = " << k;
    }

    // The evaluating pass: c fused the same way, E_k = g_k - 2 alpha_k c_k from it, and the
    // extremes over the selected (m = +inf) and the rest (m = -inf).
    const auto g = wide(rng, n), alpha = wide(rng, n);
    std::vector<double> m(c0.size());
    for (size_t k = 0; k < m.size(); ++k) m[k] = k % 3 == 0 ? kInf : -kInf;
    std::vector<double> E(c0.size());
    c = c0;
    const auto in = bits_of(m);
    const Extremes got = add_row_and_evaluate({a, x, next}, {g, alpha, m, false, in}, c, E);
    double r_max = -kInf, r_min = kInf;
    for (size_t k = 0; k < c.size(); ++k) {
      ASSERT_TRUE(same_bits(c[k], want[k])) << "add_row_and_evaluate, n = " << n;
      const double e = g[k] - 2 * (alpha[k] * want[k]);
      ASSERT_TRUE(same_bits(E[k], e)) << "E, n = " << n << ", k = " << k;
      if (k % 3 == 0) r_max = std::max(r_max, e);
      else r_min = std::min(r_min, e);
    }
    EXPECT_TRUE(same_bits(got.r_max, r_max) && same_bits(got.r_min, r_min)) << "extremes, n = " << n;

    // The counting pass (the control's, at every N): c_new fused the same way from c_old, the
    // same extremes; token 0 is the one step N selects (its mask already set).
    std::vector<double> c_new(c0.size());
    const auto counted = add_row_evaluate_and_count({a, x, next}, {g, alpha, m, false, in}, c0, c_new, {0, 0, 0, 0}, 0, 0);
    for (size_t k = 0; k < c_new.size(); ++k)
      ASSERT_TRUE(same_bits(c_new[k], want[k])) << "add_row_evaluate_and_count, n = " << n << ", k = " << k;
    EXPECT_TRUE(same_bits(counted.extremes.r_max, r_max) && same_bits(counted.extremes.r_min, r_min))
        << "counting pass's extremes, n = " << n;

    // The direct form (TokenState::direct): the state is E itself. One step: E_k = fma(a,
    // alpha_k x_k, E_k), g unread; several rows: E_k = fma(alpha_k, h_k, E_k), h_k = a_0 x_0k,
    // then each next row fused into h_k in order.
    std::vector<double> want_direct(c0.size());
    double d_max = -kInf, d_min = kInf;
    for (size_t k = 0; k < c0.size(); ++k) {
      want_direct[k] = std::fma(a, alpha[k] * x[k], c0[k]);
      if (k % 3 == 0) d_max = std::max(d_max, want_direct[k]);
      else d_min = std::min(d_min, want_direct[k]);
    }
    const TokenState direct{{}, alpha, m, /*direct=*/true, in};
    c = c0;
    const Extremes got_direct = add_row_and_evaluate({a, x, next}, direct, c, {});
    for (size_t k = 0; k < c.size(); ++k)
      ASSERT_TRUE(same_bits(c[k], want_direct[k])) << "direct add_row_and_evaluate, n = " << n << ", k = " << k;
    EXPECT_TRUE(same_bits(got_direct.r_max, d_max) && same_bits(got_direct.r_min, d_min)) << "direct extremes, n = " << n;
    // Counting step N - 1 = 1 (token 0 selected at it, token 3 the one step N selects) at
    // thresholds that cut through the values: the counts of the definition, on E_old.
    std::vector<double> m_prev(m.size(), -kInf), m_now(m.size(), -kInf);
    m_prev[0] = m_now[0] = m_now[3 % m.size()] = kInf;
    const double lo = -0.5, hi = 0.5;
    const Thresholds th{lo, hi, lo, hi};
    int64_t oc = 0, op = 0, ic = 0, ip = 0;
    for (size_t k = 0; k < c0.size(); ++k) {
      if (m_prev[k] > 0) ic += c0[k] > lo, ip += c0[k] > hi;
      else oc += c0[k] <= lo, op += c0[k] <= hi;
    }
    const auto in_now = bits_of(m_now);
    const auto counted_direct = add_row_evaluate_and_count({a, x, next}, {{}, alpha, m_now, true, in_now}, c0, c_new, th, 1,
                                                           n > 3 ? 3 : 0);
    for (size_t k = 0; k < c_new.size(); ++k)
      ASSERT_TRUE(same_bits(c_new[k], want_direct[k])) << "direct counting pass, n = " << n << ", k = " << k;
    if (n > 3) expect_counts(counted_direct.previous, oc, op, 1, ic, ip, "direct, n = " + std::to_string(n));
    // In place (c_new over c_old: run_ordering's direct form): the same state and counts, t's
    // correction read before the pass writes over it.
    if (n > 3) {
      auto state = c0;
      const BandCounts bc = add_row_evaluate_and_count({a, x, next}, {{}, alpha, m_now, true, in_now}, state, state, th,
                                                       1, 3).previous;
      for (size_t k = 0; k < state.size(); ++k)
        ASSERT_TRUE(same_bits(state[k], want_direct[k])) << "counting pass in place, n = " << n << ", k = " << k;
      expect_counts(bc, oc, op, 1, ic, ip, "in place, n = " + std::to_string(n));
    }
    // The same count from c (E_k = g_k - 2 alpha_k c_k, not the state itself).
    if (n > 3) {
      int64_t c_oc = 0, c_op = 0, c_ic = 0, c_ip = 0;
      for (size_t k = 0; k < c0.size(); ++k) {
        const double e = g[k] - 2 * (alpha[k] * c0[k]);
        if (m_prev[k] > 0) c_ic += e > lo, c_ip += e > hi;
        else c_oc += e <= lo, c_op += e <= hi;
      }
      const BandCounts bc = add_row_evaluate_and_count({a, x, next}, {g, alpha, m_now, false, in_now}, c0, c_new, th, 1, 3).previous;
      for (size_t k = 0; k < c_new.size(); ++k)
        ASSERT_TRUE(same_bits(c_new[k], want[k])) << "counting pass from c, n = " << n << ", k = " << k;
      expect_counts(bc, c_oc, c_op, 1, c_ic, c_ip, "from c, n = " + std::to_string(n));
      EXPECT_GT(c_oc + c_op + c_ic + c_ip, 0) << "the thresholds must cut through the values, n = " << n;
    }
    for (int count = 1; count <= kRowsAtOnce; ++count) {
      std::vector<double> want_rows(c0.size());
      for (size_t k = 0; k < c0.size(); ++k) {
        double h = as[0] * xs[0][k];
        for (int r = 1; r < count; ++r) h = std::fma(as[r], xs[r][k], h);
        want_rows[k] = std::fma(alpha[k], h, c0[k]);
      }
      StepRows rows;
      rows.count = count, rows.next = next.data(), rows.alpha = alpha.data();
      for (int r = 0; r < count; ++r) rows.a[r] = as[r], rows.x[r] = xs[r];
      c = c0;
      add_rows(rows, c);
      for (size_t k = 0; k < c.size(); ++k)
        ASSERT_TRUE(same_bits(c[k], want_rows[k])) << "direct add_rows, " << count << " rows, n = " << n << ", k = " << k;
    }
  }
}

// The bootstrap's loops (bootstrap.cpp) at each level: the replicate sums term by term in the
// units' order, each term fused (written out below), and the range and non-finite count.
TEST_P(KernelLevel, BootstrapLoopsGiveTheDefinitionsBits) {
  std::mt19937_64 rng(27);
  std::uniform_int_distribution<int> count(0, 3);
  for (const int64_t U : {int64_t{1}, int64_t{2}, int64_t{7}, int64_t{64}, int64_t{301}}) {
    // W: kTileRows replicates x U units of resampling counts (column-major, ldw = kTileRows);
    // X: U units x kTileCols statistics of wide doubles (ldx = U).
    std::vector<double> W(static_cast<size_t>(kTileRows * U)), R(static_cast<size_t>(kTileRows * kTileCols));
    for (auto& w : W) w = count(rng);
    const auto X = wide(rng, U * kTileCols);
    k_->replicate_tile(W.data(), kTileRows, X.data(), U, U, R.data(), kTileRows);
    for (int64_t j = 0; j < kTileCols; ++j)
      for (int64_t r = 0; r < kTileRows; ++r) {
        double want = 0;
        for (int64_t u = 0; u < U; ++u) want = std::fma(W[r + u * kTileRows], X[u + j * U], want);
        ASSERT_TRUE(same_bits(R[r + j * kTileRows], want)) << "U = " << U << ", r = " << r << ", j = " << j;
      }
  }
  for (int64_t n : kLengths) {
    auto x = wide(rng, n);
    if (n > 4) x[3] = std::nan(""), x[n - 1] = kInf;
    double lo = 0, hi = 0;
    const int64_t bad = k_->range_of(x.data(), n, &lo, &hi);
    int64_t want_bad = 0;
    double want_lo = kInf, want_hi = -kInf;
    for (double v : x) {
      want_bad += !std::isfinite(v);
      want_lo = v < want_lo ? v : want_lo;
      want_hi = v > want_hi ? v : want_hi;
    }
    EXPECT_EQ(bad, want_bad) << "n = " << n;
    EXPECT_TRUE(same_bits(lo, want_lo) && same_bits(hi, want_hi)) << "n = " << n << ": " << lo << ", " << hi;
  }
}

// SPEC §4's decay sums (value_geometry.cpp) in their one written order: per lag, the pairs
// i = 1 .. T - lag - 1 ascending, each cosine <v_i, v_{i+lag}> (1/||v_i|| 1/||v_{i+lag}||); 0
// for a zero vector and for lags without pairs. Plain code, compiled once: the same on every CPU.
TEST(WrittenOrder, DecaySumsAreTheirDefinition) {
  std::mt19937_64 rng(28);
  const int64_t T = 37, d = 5, K = 40;
  auto V = wide(rng, T * d);
  std::fill(V.begin() + 7 * d, V.begin() + 8 * d, 0.0);  // a zero vector: its cosines count as 0
  std::vector<double> norms(T);
  for (int64_t i = 0; i < T; ++i) norms[i] = std::sqrt(dot({V.data() + i * d, static_cast<size_t>(d)}, {V.data() + i * d, static_cast<size_t>(d)}));
  const auto dots = [&](int64_t lag, std::span<double> out) {
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = dot({V.data() + (i + 1) * d, static_cast<size_t>(d)}, {V.data() + (i + 1 + lag) * d, static_cast<size_t>(d)});
  };
  std::vector<double> got(K);
  decay_sums(dots, norms, K, got);
  for (int64_t lag = 1; lag <= K; ++lag) {
    double want = 0;
    for (int64_t i = 1; i + lag < T; ++i) {
      const double inv_i = norms[i] > 0 ? 1 / norms[i] : 0, inv_j = norms[i + lag] > 0 ? 1 / norms[i + lag] : 0;
      want += dot({V.data() + i * d, static_cast<size_t>(d)}, {V.data() + (i + lag) * d, static_cast<size_t>(d)}) * (inv_i * inv_j);
    }
    EXPECT_TRUE(same_bits(got[lag - 1], want)) << "lag " << lag << ": " << got[lag - 1] << " against " << want;
  }
  EXPECT_EQ(got[T - 2], 0.0);  // lag T - 1 has no pair 0 < i
}

// Where the CPU core makes c = <s(N), v_k> again from s(N) rather than adding the Gram rows of the
// steps since the grid value before (core_ordering.h, OrderingPlan): only after gaps of 2d steps or
// more, and only where the rows saved outweigh keeping s(N) (twice its cost).
TEST(OrderingPlan, RemakesCAfterLongGapsOnly) {
  const auto remade_at = [](const std::vector<int64_t>& grid, const OrderingPlan& plan) {
    std::vector<int64_t> at;
    for (size_t i = 0; i < grid.size(); ++i)
      if (plan.remade[i]) at.push_back(grid[i]);
    return at;
  };
  using geoattn::metrics::Distance;
  using geoattn::metrics::parse_n_grid;
  // SmolLM2 (d = 64) at T = 1024 on the default grid: the gaps of 2d and more are the 128, 128
  // and 256 steps before 384, 512 and 768 (1024 = n needs no step).
  const auto grid = parse_n_grid("default", 1024);
  const auto smol = OrderingPlan::of(grid, 1024, 64, Distance::Euclidean);
  EXPECT_EQ(remade_at(grid, smol), (std::vector<int64_t>{384, 512, 768}));
  EXPECT_EQ(smol.last_remade, 768);
  EXPECT_EQ(smol.last_counted, 768);
  EXPECT_FALSE(smol.direct);
  // d = 128 (the bench capture): only 512 -> 768 is 2d long, and its 128 rows saved are fewer than
  // twice the 768 x 128 products that keep s(N).
  EXPECT_FALSE(OrderingPlan::of(grid, 1024, 128, Distance::Euclidean).any_remade());
  // Not with the cosine distance over the Gram matrix, nor on the direct state (`--n all`).
  EXPECT_FALSE(OrderingPlan::of(grid, 1024, 64, Distance::Cosine).any_remade());
  const auto all = parse_n_grid("all", 1024);
  const auto direct = OrderingPlan::of(all, 1024, 64, Distance::Euclidean);
  EXPECT_TRUE(direct.direct);
  EXPECT_FALSE(direct.any_remade());
  // Without a Gram matrix (prefix: G d <= n, stories260K's d = 8), at every grid value that has counts.
  const auto prefix = OrderingPlan::of(grid, 1024, 8, Distance::Euclidean);
  EXPECT_TRUE(prefix.prefix);
  EXPECT_EQ(std::count(prefix.remade.begin(), prefix.remade.end(), 1), static_cast<long>(grid.size()) - 1);
  // The grid of Exact.Stories15MRemadeC (d = 48, n = 256): gaps of 116 and 100, with a pair of
  // consecutive values and a short gap in between, which add rows to the c made at 120.
  const auto custom = parse_n_grid("1:4,120,121,122,150,250", 256);
  const auto s15 = OrderingPlan::of(custom, 256, 48, Distance::Euclidean);
  EXPECT_EQ(remade_at(custom, s15), (std::vector<int64_t>{120, 250}));
  EXPECT_EQ(s15.last_counted, 256);
}
