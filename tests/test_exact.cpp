// SPEC §2 "Exact": the metric core's K_in and K_out are those of exact arithmetic on the
// captured float32 alpha and v. Checked against a brute force written here, which decides
// every comparison in extended precision (long double, E_k evaluated directly from s(N) in
// coordinates) and, where even that is too close to call, in binary128; on real captures of
// stories260K and stories15M (doc windows of real OpenWebText, T = 256, every N, the last
// query and every query, top-N and random orderings), through both evaluations of the core
// (the fused CPU loops and the tensor path that CUDA runs). And the exact arithmetic itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "geoattn/io/windows.h"
#include "geoattn/metrics/core/exact.h"
#include "geoattn/metrics/core/grid.h"
#include "geoattn/metrics_torch/selection.h"
#include "geoattn/model/capture.h"
#include "geoattn/util/worker_pool.h"
#include "test_util.h"
#include "torch_test_util.h"

using namespace geoattn;
using namespace geoattn::metrics;

namespace {

// ---- the brute force ------------------------------------------------------------------------

// One sample in floating type F: y = alpha v (exact: 24 x 24 bits) and a_k = ||y_k||.
template <typename F>
struct Terms {
  std::vector<F> y, a, a2;
  int64_t n, d;
  Terms(const std::vector<float>& alpha, const std::vector<float>& V, int64_t n_, int64_t d_) : n(n_), d(d_) {
    y.resize(static_cast<size_t>(n * d));
    a.resize(static_cast<size_t>(n));
    a2.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      F sq = 0;
      for (int64_t m = 0; m < d; ++m) {
        y[k * d + m] = static_cast<F>(alpha[k]) * static_cast<F>(V[k * d + m]);
        sq += y[k * d + m] * y[k * d + m];
      }
      a2[k] = sq;
      a[k] = static_cast<F>(std::sqrt(static_cast<long double>(sq)));
    }
  }
};

// E_k = ||y_k||^2 - 2 <s, y_k> (Euclidean) or D_k - 1 (cosine) for every token, from s = s(N) in
// coordinates and S = sum_{I_N} a_t, in floating type F, with a bound on the rounding of this
// evaluation: err_k = (N + d + 8) eps (a_k^2 + 2 a_k S) (cosine: the same relative to the
// denominator, with the norms' rounding; 0 where y_k = 0, whose D_k - 1 = 0 is exact).
template <typename F>
void evaluate(const Terms<F>& y, const std::vector<F>& s, F S, int64_t N, Distance distance, F eps, std::vector<F>& E,
              std::vector<F>& err) {
  const int64_t n = y.n, d = y.d;
  F s2 = 0;
  for (F x : s) s2 += x * x;
  const F s_norm = static_cast<F>(std::sqrt(static_cast<long double>(s2)));
  E.resize(static_cast<size_t>(n));
  err.resize(static_cast<size_t>(n));
  const F c = static_cast<F>(N + d + 8) * eps;
  for (int64_t k = 0; k < n; ++k) {
    F dot = 0;
    for (int64_t m = 0; m < d; ++m) dot += s[m] * y.y[k * d + m];
    const F a = y.a[k];
    if (distance == Distance::Euclidean) {
      E[k] = y.a2[k] - 2 * dot;  // SPEC §2: D_k - ||s||^2
      err[k] = c * (a * a + 2 * a * S);
    } else {
      // SPEC §2b: D_k = 1 - q_k, compared as -q_k (D itself rounds against the 1).
      const F den = s_norm * a + static_cast<F>(kCosineEps), q = dot / den;
      E[k] = -q;
      const F abs_q = q < 0 ? -q : q, abs_dot = dot < 0 ? -dot : dot;
      err[k] = a == 0 ? F(0) : c * 4 * (abs_q + (a * S + abs_dot * (1 + S * S / (s2 > 0 ? s2 : F(1)))) / den);
    }
  }
}

struct Decision {
  int64_t k_in = 0, k_out = 0;
  bool open = false;  // a comparison the evaluation cannot decide
};

// K_in and K_out from values and bands. `twin[k]` names the first token whose y is identical
// to y_k: such tokens have the same E exactly, whatever the rounding (a true tie).
template <typename F>
Decision decide(const std::vector<F>& E, const std::vector<F>& err, const std::vector<bool>& in,
                const std::vector<int64_t>& twin) {
  const size_t n = E.size();
  // Where r_max (over the selected) and r_min (over the rest) can be, leaving out the twins of
  // `skip` (-1: none).
  auto ranges = [&](int64_t skip, F& lo_max, F& hi_max, F& lo_min, F& hi_min) {
    lo_max = hi_max = -INFINITY, lo_min = hi_min = INFINITY;
    for (size_t k = 0; k < n; ++k) {
      if (skip >= 0 && twin[k] == skip) continue;
      if (in[k]) lo_max = std::max(lo_max, E[k] - err[k]), hi_max = std::max(hi_max, E[k] + err[k]);
      else lo_min = std::min(lo_min, E[k] - err[k]), hi_min = std::min(hi_min, E[k] + err[k]);
    }
  };
  F lo_max, hi_max, lo_min, hi_min;
  ranges(-1, lo_max, hi_max, lo_min, hi_min);
  Decision out;
  for (size_t k = 0; k < n; ++k) {
    const F lo = E[k] - err[k], hi = E[k] + err[k];
    if (in[k]) {
      if (hi <= lo_min) ++out.k_in;
      else if (!(lo > hi_min)) {
        // An unselected twin x: E_k <= r_min iff E_x is the minimum of the others.
        bool twin_out = false;
        for (size_t j = 0; j < n; ++j) twin_out |= !in[j] && twin[j] == twin[k];
        F a, b, lo_o, hi_o;
        ranges(twin[k], a, b, lo_o, hi_o);
        if (twin_out && hi <= lo_o) ++out.k_in;
        else if (!(twin_out && lo > hi_o)) out.open = true;
      }
    } else {
      if (hi <= lo_max) ++out.k_out;
      else if (!(lo > hi_max)) {
        // A selected twin: E_k = E_twin <= r_max.
        bool twin_in = false;
        for (size_t j = 0; j < n; ++j) twin_in |= in[j] && twin[j] == twin[k];
        if (twin_in) ++out.k_out;
        else out.open = true;
      }
    }
  }
  return out;
}

struct Reference {
  std::vector<int64_t> k_in, k_out;  // [n], N = 1..n
  int64_t quad = 0;                  // N decided only in binary128
  std::vector<int64_t> ties;         // N that binary128 could not decide (named by the test)
};

// SPEC §2 for one sample and ordering, every N: long double, binary128 where that is too close.
Reference reference(const std::vector<float>& alpha, const std::vector<float>& V, int64_t n, int64_t d,
                    const std::vector<int64_t>& order, Distance distance) {
  Reference ref;
  const Terms<long double> y(alpha, V, n, d);
  std::vector<int64_t> twin(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    twin[k] = k;
    for (int64_t j = 0; j < k && twin[k] == k; ++j)
      if (std::equal(y.y.begin() + j * d, y.y.begin() + (j + 1) * d, y.y.begin() + k * d)) twin[k] = twin[j];
  }
  std::vector<bool> in(static_cast<size_t>(n), false);
  std::vector<long double> s(static_cast<size_t>(d), 0), E, err;
  long double S = 0;
  for (int64_t N = 1; N <= n; ++N) {
    const int64_t t = order[N - 1];
    in[t] = true;
    for (int64_t m = 0; m < d; ++m) s[m] += y.y[t * d + m];  // s(N) = s(N-1) + y_t
    S += y.a[t];
    evaluate(y, s, S, N, distance, std::numeric_limits<long double>::epsilon(), E, err);
    Decision dec = decide(E, err, in, twin);
    if (dec.open) {
      ++ref.quad;
      const Terms<__float128> yq(alpha, V, n, d);
      std::vector<__float128> sq(static_cast<size_t>(d), 0), Eq, errq;
      __float128 Sq = 0;
      for (int64_t j = 0; j < N; ++j) {
        for (int64_t m = 0; m < d; ++m) sq[m] += yq.y[order[j] * d + m];
        Sq += yq.a[order[j]];
      }
      evaluate(yq, sq, Sq, N, distance, static_cast<__float128>(std::ldexp(1.0, -112)), Eq, errq);
      dec = decide(Eq, errq, in, twin);
      if (dec.open) ref.ties.push_back(N);
    }
    ref.k_in.push_back(dec.k_in);
    ref.k_out.push_back(dec.k_out);
  }
  return ref;
}

// ---- real captures -------------------------------------------------------------------------

struct Captured {
  torch::Tensor alpha;   // [L, H, Q, T] float32
  torch::Tensor values;  // [L, KV, T, d] float32
  std::vector<int64_t> queries;
};

// Doc windows (BOS + the first T-1 tokens) of the shipped OpenWebText documents.
std::vector<Captured> capture(const std::string& model, int64_t windows, const std::vector<int64_t>& queries) {
  io::WindowOptions w;
  w.T = 256;
  w.max_windows = windows;
  std::vector<Captured> out;
  for (const auto& c : geoattn::testing::capture_windows(model, {"data/openwebtext/openwebtext-60docs.jsonl"}, w,
                                                         {"blocks.*.attn.pattern", "blocks.*.attn.v"}, queries))
    out.push_back({c.at(model::HookPoint::AttnPattern), c.at(model::HookPoint::AttnV), queries});
  return out;
}

struct Tally {
  int64_t counts = 0, quad = 0, banded = 0, exact_tokens = 0, tiny = 0, alphas = 0;
};

// Every sample (query, layer, head) of a window, `random` random orderings beside top-N,
// every N: the core's counts (both evaluations) against the reference.
void check_window(WorkerPool& pool, const Captured& cap, int64_t query_index, int64_t random, Distance distance, Tally& tally,
                  bool tensor_path = true, const std::string& n_grid = "all") {
  const int64_t L = cap.alpha.size(0), H = cap.alpha.size(1), KV = cap.values.size(1), d = cap.values.size(3);
  const int64_t q = cap.queries[query_index], n = q + 1;
  using torch::indexing::Slice;
  auto A = cap.alpha.index({Slice(), Slice(), query_index, Slice(0, n)}).reshape({L * H, n}).contiguous();
  auto kv = torch::arange(H).div(H / KV, "floor");
  auto V = cap.values.index_select(1, kv).index({Slice(), Slice(), Slice(0, n)}).reshape({L * H, n, d}).contiguous();
  auto orders = top_n_order(A.to(torch::kFloat64)).unsqueeze(1);
  if (random > 0) orders = torch::cat({orders, random_orders(pool, 11, 1000 + q, random, L * H, n).transpose(0, 1)}, 1);
  orders = orders.contiguous();
  const std::vector<int64_t> grid = parse_n_grid(n_grid, n);
  const int64_t G = static_cast<int64_t>(grid.size());
  SelectionOptions fused, tensor;
  fused.distance = tensor.distance = distance;
  tensor.tensor_path = true;
  CoreStats stats;
  const auto got = ordering_counts(pool, A, V, orders, grid, fused, &stats);
  const auto got_tensor = tensor_path ? ordering_counts(pool, A, V, orders, grid, tensor, &stats) : got;
  tally.banded += stats.banded;
  tally.exact_tokens += stats.exact_tokens;
  const int64_t S = L * H, O = orders.size(1);
  auto flat = [](const torch::Tensor& t) { auto c = t.contiguous(); return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel()); };
  const auto k_in = flat(got.k_in), k_out = flat(got.k_out), k_in_t = flat(got_tensor.k_in), k_out_t = flat(got_tensor.k_out);
  // The references, samples in parallel (the brute force is the slow part of this test).
  std::vector<Reference> refs(static_cast<size_t>(S * O));
  pool.parallel_for(S * O, [&](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t b = i / O, o = i % O;
      std::vector<float> alpha(A[b].data_ptr<float>(), A[b].data_ptr<float>() + n);
      std::vector<float> v(V[b].data_ptr<float>(), V[b].data_ptr<float>() + n * d);
      std::vector<int64_t> order(orders[b][o].data_ptr<int64_t>(), orders[b][o].data_ptr<int64_t>() + n);
      refs[i] = reference(alpha, v, n, d, order, distance);
    }
  });
  auto A_host = A.contiguous();
  for (int64_t b = 0; b < S; ++b) {
    tally.alphas += n;
    for (int64_t k = 0; k < n; ++k) tally.tiny += A_host.data_ptr<float>()[b * n + k] < 1e-6f;
    for (int64_t o = 0; o < O; ++o) {
      const Reference& ref = refs[b * O + o];
      tally.quad += ref.quad;
      for (int64_t N : ref.ties)
        std::printf("  a comparison binary128 cannot decide (a true tie?): layer %ld head %ld query %ld ordering %ld N %ld\n",
                    static_cast<long>(b / H), static_cast<long>(b % H), static_cast<long>(q), static_cast<long>(o),
                    static_cast<long>(N));
      for (int64_t g = 0; g < G; ++g) {
        const int64_t N = grid[g];
        if (std::find(ref.ties.begin(), ref.ties.end(), N) != ref.ties.end()) continue;
        ++tally.counts;
        const int64_t i = (b * O + o) * G + g;
        const auto where = [&] {
          return "layer " + std::to_string(b / H) + " head " + std::to_string(b % H) + " query " + std::to_string(q) +
                 " ordering " + std::to_string(o) + " N " + std::to_string(N);
        };
        ASSERT_EQ(k_in[i], ref.k_in[N - 1]) << "K_in, fused, " << where();
        ASSERT_EQ(k_out[i], ref.k_out[N - 1]) << "K_out, fused, " << where();
        ASSERT_EQ(k_in_t[i], ref.k_in[N - 1]) << "K_in, tensor path, " << where();
        ASSERT_EQ(k_out_t[i], ref.k_out[N - 1]) << "K_out, tensor path, " << where();
      }
    }
  }
}

void report(const char* what, const Tally& t) {
  std::printf("%s: %ld (sample, ordering, N) counts equal to the reference; %.0f%% of alpha below 1e-6; "
              "%ld decided by the reference only in binary128; the core's one-band pass left %ld open, %ld tokens "
              "decided exactly\n",
              what, static_cast<long>(t.counts), 100.0 * t.tiny / std::max<int64_t>(1, t.alphas), static_cast<long>(t.quad),
              static_cast<long>(t.banded), static_cast<long>(t.exact_tokens));
}

std::vector<int64_t> every(int64_t step, int64_t T) {
  std::vector<int64_t> q;
  for (int64_t i = T - 1; i >= 0; i -= step) q.insert(q.begin(), i);
  return q;
}

}  // namespace

// Every test's metric core and brute-force references run on a pool of two workers.
class Exact : public ::testing::Test {
 protected:
  WorkerPool pool{2};
};

TEST_F(Exact, WideSumIsExact) {
  WideSum s;
  s.add(1e300);
  s.add(1e-300);
  s.add(-1e300);
  EXPECT_EQ(s.sign(), 1);
  EXPECT_EQ(static_cast<double>(s.to_f128()), 1e-300);
  // a b - fl(a b) is the rounding error of the product, exactly.
  const double a = 1.0 + 0x1p-30, b = 1.0 - 0x1p-29;
  WideSum p;
  p.add_product(a, b);
  p.add(-(a * b));
  EXPECT_EQ(static_cast<double>(p.to_f128()), std::fma(a, b, -(a * b)));
  EXPECT_NE(p.sign(), 0);
  // Products across the whole range, and their negation.
  WideSum q, r;
  q.add_product(0x1p-1000, 0x1p-70);
  q.add_product(0x1p+1000, 0x1p+20);
  r.subtract(q);
  EXPECT_EQ(r.sign(), -1);
  q.add_product(-0x1p+1000, 0x1p+20);
  EXPECT_EQ(static_cast<double>(q.to_f128()), 0x1p-1070);
  // A sum times a double (s_m y_k).
  WideSum x, y;
  x.add(3.0);
  x.add(0x1p-80);
  y.add_product_of(x, -0.5);
  EXPECT_EQ(static_cast<double>(y.to_f128()), -1.5 - 0x1p-81);
  WideSum zero;
  EXPECT_EQ(zero.sign(), 0);
}

// Heavy tails (alpha down to 1e-40, as real rows have): the core matches the reference where a
// plain float64 evaluation of D_k does not.
TEST_F(Exact, HeavyTailsBeyondPlainFloat64) {
  torch::manual_seed(3);
  const int64_t B = 6, n = 64, d = 4;
  auto logits = torch::rand({B, n}, torch::kFloat64) * -90;  // alpha from 1 down to e^-90 ~ 1e-39
  logits.select(1, 0).fill_(0);
  auto alpha = torch::softmax(logits, -1).to(torch::kFloat32);
  auto values = torch::randn({B, n, d}).to(torch::kFloat32);
  Captured cap{alpha.view({1, B, 1, n}), values.view({1, B, n, d}), {n - 1}};
  Tally t;
  check_window(pool, cap, 0, 3, Distance::Euclidean, t);
  report("synthetic heavy tails", t);
  int64_t wrong = 0, total = 0;
  for (int64_t b = 0; b < B; ++b) {
    std::vector<float> a(alpha[b].data_ptr<float>(), alpha[b].data_ptr<float>() + n);
    std::vector<float> v(values[b].data_ptr<float>(), values[b].data_ptr<float>() + n * d);
    auto ord = top_n_order(alpha[b].to(torch::kFloat64).unsqueeze(0))[0].contiguous();
    std::vector<int64_t> order(ord.data_ptr<int64_t>(), ord.data_ptr<int64_t>() + n);
    const Reference ref = reference(a, v, n, d, order, Distance::Euclidean);
    std::vector<bool> in(static_cast<size_t>(n), false);
    for (int64_t N = 1; N <= n; ++N) {
      in[order[N - 1]] = true;
      std::vector<double> s(static_cast<size_t>(d), 0.0), D(static_cast<size_t>(n));
      for (int64_t t2 = 0; t2 < n; ++t2)
        if (in[t2])
          for (int64_t m = 0; m < d; ++m) s[m] += double(a[t2]) * double(v[t2 * d + m]);
      double r_max = -INFINITY, r_min = INFINITY;
      for (int64_t k = 0; k < n; ++k) {
        double acc = 0;
        for (int64_t m = 0; m < d; ++m) {
          const double r = s[m] - double(a[k]) * double(v[k * d + m]);
          acc += r * r;
        }
        D[k] = acc;
        (in[k] ? r_max = std::max(r_max, acc) : r_min = std::min(r_min, acc));
      }
      int64_t k_in = 0, k_out = 0;
      for (int64_t k = 0; k < n; ++k) (in[k] ? k_in += D[k] <= r_min : k_out += D[k] <= r_max);
      total += 2;
      wrong += (k_in != ref.k_in[N - 1]) + (k_out != ref.k_out[N - 1]);
    }
  }
  std::printf("plain float64 D_k: %ld of %ld counts differ from the reference\n", static_cast<long>(wrong),
              static_cast<long>(total));
  EXPECT_GT(wrong, 0);
}

TEST_F(Exact, Stories260KLastQuery) {
  Tally t;
  for (const auto& cap : capture("models/stories260K", 8, {255})) check_window(pool, cap, 0, 3, Distance::Euclidean, t);
  report("stories260K, 8 doc windows, last query, top-N + 3 random orderings", t);
  EXPECT_GT(t.tiny, t.alphas / 4);  // real attention: a long tail of tiny alphas
}

TEST_F(Exact, Stories260KEveryQuery) {
  Tally t;
  const auto caps = capture("models/stories260K", 1, every(1, 256));
  for (int64_t qi = 0; qi < 256; ++qi) check_window(pool, caps[0], qi, 0, Distance::Euclidean, t, /*tensor_path=*/qi % 8 == 7);
  report("stories260K, 1 doc window, every query, top-N (the tensor path at every 8th)", t);
}

// The default grid: where G d <= n the CPU core computes <s(N), y_k> from s(N) at the grid's N
// instead of adding a Gram row per step (stories260K: d = 8).
TEST_F(Exact, Stories260KDefaultGrid) {
  Tally t;
  for (const auto& cap : capture("models/stories260K", 4, every(32, 256)))
    for (int64_t qi = 0; qi < 8; ++qi) check_window(pool, cap, qi, 3, Distance::Euclidean, t, true, "default");
  for (const auto& cap : capture("models/stories260K", 2, {255})) check_window(pool, cap, 0, 3, Distance::Cosine, t, true, "default");
  report("stories260K, 4 doc windows, every 32nd query, the default grid, top-N + 3 random orderings", t);
}

TEST_F(Exact, Stories15MLastQuery) {
  Tally t;
  for (const auto& cap : capture("models/stories15M", 3, {255})) check_window(pool, cap, 0, 3, Distance::Euclidean, t);
  report("stories15M, 3 doc windows, last query, top-N + 3 random orderings", t);
}

TEST_F(Exact, Stories15MQueries) {
  Tally t;
  const auto q = every(16, 256);
  const auto caps = capture("models/stories15M", 1, q);
  for (size_t qi = 0; qi < q.size(); ++qi) check_window(pool, caps[0], static_cast<int64_t>(qi), 1, Distance::Euclidean, t);
  report("stories15M, 1 doc window, every 16th query, top-N + 1 random ordering", t);
}

// A grid with gaps of 2d steps and more (d = 48): there the CPU core makes c = <s(N), v_k> again
// from s(N), rather than adding the steps' Gram rows, and adds rows to that c after it, through
// the pass of consecutive values (121, 122) and a short gap (150) (OrderingPlan; its test in
// test_kernels.cpp says where). The default grid beside it, where every gap is shorter.
TEST_F(Exact, Stories15MRemadeC) {
  Tally t;
  for (const auto& cap : capture("models/stories15M", 2, {255})) {
    check_window(pool, cap, 0, 3, Distance::Euclidean, t, true, "1:4,120,121,122,150,250");
    check_window(pool, cap, 0, 3, Distance::Euclidean, t, false, "default");
  }
  report("stories15M, 2 doc windows, last query, c made again after long gaps, top-N + 3 random orderings", t);
}

TEST_F(Exact, CosineOnRealCaptures) {
  Tally t;
  for (const auto& cap : capture("models/stories260K", 2, {255})) check_window(pool, cap, 0, 2, Distance::Cosine, t);
  for (const auto& cap : capture("models/stories15M", 1, {255})) check_window(pool, cap, 0, 2, Distance::Cosine, t);
  report("cosine distance, stories260K (2 windows) and stories15M (1 window), last query", t);
}

// The CUDA path (tensor operations on the GPU) gives the CPU's counts, exactly, on a real
// capture. Skipped without a GPU.
TEST_F(Exact, CudaMatchesCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const auto caps = capture("models/stories260K", 2, {127, 255});
  for (const auto& cap : caps)
    for (int64_t qi = 0; qi < 2; ++qi) {
      const int64_t L = cap.alpha.size(0), H = cap.alpha.size(1), KV = cap.values.size(1), d = cap.values.size(3);
      const int64_t n = cap.queries[qi] + 1;
      using torch::indexing::Slice;
      auto A = cap.alpha.index({Slice(), Slice(), qi, Slice(0, n)}).reshape({L * H, n}).contiguous();
      auto kv = torch::arange(H).div(H / KV, "floor");
      auto V = cap.values.index_select(1, kv).index({Slice(), Slice(), Slice(0, n)}).reshape({L * H, n, d}).contiguous();
      auto orders = torch::cat({top_n_order(A.to(torch::kFloat64)).unsqueeze(1), random_orders(pool, 3, 7, 4, L * H, n).transpose(0, 1)}, 1);
      std::vector<int64_t> grid(static_cast<size_t>(n));
      std::iota(grid.begin(), grid.end(), 1);
      for (Distance distance : {Distance::Euclidean, Distance::Cosine}) {
        SelectionOptions options;
        options.distance = distance;
        const auto cpu = ordering_counts(pool, A, V, orders, grid, options);
        const auto gpu = ordering_counts(pool, A.cuda(), V.cuda(), orders, grid, options);
        EXPECT_TRUE(torch::equal(cpu.k_in, gpu.k_in.cpu()));
        EXPECT_TRUE(torch::equal(cpu.k_out, gpu.k_out.cpu()));
      }
    }
}
