// geoattn sinks (SPEC §9): every per-window number against a brute force written here from
// the definitions (long double, direct loops, Eigen's dense eigensolver) on real captures of
// stories260K (GQA) and stories15M with every query and the residual stream; the attention
// graph on hand-computed small graphs; the frame types on hand-built attention; Sink^eps as a
// direct count; and the command end to end: shards merge to one run bit for bit, a capture file
// gives the model run's numbers, bad input is one line.
#include <gtest/gtest.h>

#include <csignal>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <nlohmann/json.hpp>

#include "geoattn/analysis/frames.h"
#include "geoattn/io/windows.h"
#include "geoattn/metrics/sinks/sink_stats.h"
#include "geoattn/metrics_torch/sink_window.h"
#include "geoattn/model/capture.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/sinks_json.h"
#include "test_util.h"
#include "torch_test_util.h"

using namespace geoattn;
using geoattn::testing::run_tool;
using geoattn::testing::source;
using geoattn::testing::TempDir;
using LD = long double;

namespace {

const std::vector<double> kTaus = {0.01, 0.05, 0.1, 0.2};

// ---- captures -------------------------------------------------------------------------------

struct Window {
  torch::Tensor alpha;   // [L, H, T, T] float32, every query
  torch::Tensor values;  // [L, KV, T, d]
  torch::Tensor resid;   // [L, T, hidden]
  std::vector<int64_t> ids;
};

// Doc windows (BOS + the first T-1 tokens) of the shipped OpenWebText documents.
std::vector<Window> capture(const std::string& model, int64_t windows, int64_t T) {
  io::WindowOptions w;
  w.T = T;
  w.max_windows = windows;
  std::vector<Window> out;
  for (const auto& c : geoattn::testing::capture_windows(model, {"data/openwebtext/openwebtext-60docs.jsonl"}, w,
                                                         {"blocks.*.attn.pattern", "blocks.*.attn.v", "blocks.*.hook_resid_pre"}))
    out.push_back({c.at(model::HookPoint::AttnPattern), c.at(model::HookPoint::AttnV), c.at(model::HookPoint::ResidPre), c.ids});
  return out;
}

// ---- the brute force ------------------------------------------------------------------------

// A [T, T] (rows: queries) of one head or of the mean over heads, in long double.
using Matrix = std::vector<std::vector<LD>>;

Matrix head_matrix(const torch::Tensor& alpha, int64_t l, int64_t h) {
  const int64_t T = alpha.size(3);
  auto a = alpha.accessor<float, 4>();
  Matrix A(T, std::vector<LD>(T));
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) A[i][j] = a[l][h][i][j];
  return A;
}

// Abar += A / H: one head's share of the layer's mean over heads.
void add_to_mean(Matrix& bar, const Matrix& A, int64_t H) {
  for (size_t i = 0; i < A.size(); ++i)
    for (size_t j = 0; j < A.size(); ++j) bar[i][j] += A[i][j] / H;
}

std::vector<std::vector<LD>> rows_of(const torch::Tensor& x) {  // [T, D]
  const auto c = x.to(torch::kFloat64).contiguous();
  std::vector<std::vector<LD>> out(c.size(0), std::vector<LD>(c.size(1)));
  for (int64_t i = 0; i < c.size(0); ++i)
    for (int64_t m = 0; m < c.size(1); ++m) out[i][m] = c[i][m].item<double>();
  return out;
}

LD norm(const std::vector<LD>& x) {
  LD s = 0;
  for (LD v : x) s += v * v;
  return std::sqrt(s);
}
LD dot(const std::vector<LD>& x, const std::vector<LD>& y) {
  LD s = 0;
  for (size_t m = 0; m < x.size(); ++m) s += x[m] * y[m];
  return s;
}
LD cosine(const std::vector<LD>& x, const std::vector<LD>& y) {
  const LD n = norm(x) * norm(y);
  return n > 0 ? dot(x, y) / n : 0;
}

// Gu et al.: alpha_k = (1/(T-k)) sum_{t>=k} A[t,k].
std::vector<LD> alpha_of(const Matrix& A) {
  const int64_t T = A.size();
  std::vector<LD> a(T);
  for (int64_t k = 0; k < T; ++k) {
    LD s = 0;
    for (int64_t t = k; t < T; ++t) s += A[t][k];
    a[k] = s / (T - k);
  }
  return a;
}

LD entropy(const std::vector<LD>& p) {
  LD h = 0;
  for (LD x : p)
    if (x > 0) h -= x * std::log(x);
  return h;
}

// Guo et al.: mean_{i>=1} H(A_i)/log(i+1) and max_{j<=T-2} H(A[.,j]/sum)/log(T-j).
std::pair<LD, LD> dormant_scores(const Matrix& A) {
  const int64_t T = A.size();
  LD row = 0, col = -1;
  for (int64_t i = 1; i < T; ++i) row += entropy(A[i]) / std::log(static_cast<LD>(i + 1));
  for (int64_t j = 0; j + 1 < T; ++j) {
    std::vector<LD> c;
    LD s = 0;
    for (int64_t i = 0; i < T; ++i) s += A[i][j];
    for (int64_t i = 0; i < T; ++i) c.push_back(s > 0 ? A[i][j] / s : 0);
    col = std::max(col, entropy(c) / std::log(static_cast<LD>(T - j)));
  }
  return {row / (T - 1), col};
}

// Ruscio et al.: R from c_j = (1/T) sum_i A[i,j]; {c > 0.1}, else the top max(1, floor(0.1T)),
// at most max(1, floor(0.3T)).
std::vector<bool> reference_set_of(const Matrix& A) {
  const int64_t T = A.size();
  std::vector<LD> c(T, 0);
  for (int64_t j = 0; j < T; ++j)
    for (int64_t i = 0; i < T; ++i) c[j] += A[i][j] / T;
  std::vector<int64_t> order(T);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return c[a] > c[b]; });
  std::vector<bool> in_R(T, false);
  int64_t above = 0;
  for (int64_t j = 0; j < T; ++j) above += c[j] > 0.1L;
  int64_t n = above > 0 ? above : std::max<int64_t>(1, static_cast<int64_t>(std::floor(0.1 * T)));
  n = std::min(n, std::max<int64_t>(1, static_cast<int64_t>(std::floor(0.3 * T))));
  for (int64_t r = 0; r < n; ++r) in_R[order[r]] = true;
  return in_R;
}

// Geoattn's convention: over i not in R, ||r_i||/||y_i|| and (1 + cos(r_i, y_i))/2.
std::vector<LD> reference_of(const Matrix& A, const std::vector<std::vector<LD>>& x) {
  const int64_t T = A.size();
  const auto in_R = reference_set_of(A);
  const int64_t n = std::count(in_R.begin(), in_R.end(), true);
  LD magnitude = 0, direction = 0;
  int64_t outside = 0;
  const size_t D = x[0].size();
  for (int64_t i = 0; i < T; ++i) {
    if (in_R[i]) continue;
    std::vector<LD> y(D, 0), r(D, 0);
    for (int64_t j = 0; j < T; ++j)
      for (size_t m = 0; m < D; ++m) {
        y[m] += A[i][j] * x[j][m];
        if (in_R[j]) r[m] += A[i][j] * x[j][m];
      }
    magnitude += norm(y) > 0 ? norm(r) / norm(y) : 0;
    direction += (1 + cosine(r, y)) / 2;
    ++outside;
  }
  return {static_cast<LD>(n), magnitude / std::max<int64_t>(1, outside), direction / std::max<int64_t>(1, outside)};
}

// SPEC §9 graph of Abar at tau: edges i > j with Abar[i,j] > tau. Gini here by its pairwise
// definition sum_ab |x_a - x_b| / (2 n^2 mean), the spectrum by Eigen's dense solver.
std::vector<LD> graph_of(const Matrix& Abar, double tau) {
  const int64_t T = Abar.size();
  const LD n = T;
  std::vector<LD> d_in(T, 0), deg(T, 0);
  LD edges = 0;
  Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic> L = Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic>::Zero(T, T);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < i; ++j)
      if (Abar[i][j] > tau) {
        d_in[j] += 1, deg[i] += 1, deg[j] += 1, edges += 1;
        L(i, j) -= 0.5L, L(j, i) -= 0.5L, L(i, i) += 0.5L, L(j, j) += 0.5L;
      }
  LD pair_sum = 0, total = 0;
  for (int64_t a = 0; a < T; ++a) {
    total += d_in[a];
    for (int64_t b = 0; b < T; ++b) pair_sum += std::fabs(d_in[a] - d_in[b]);
  }
  const LD gini = total > 0 ? pair_sum / (2 * n * total) : 0;
  const LD max_in = *std::max_element(d_in.begin(), d_in.end()), max_deg = *std::max_element(deg.begin(), deg.end());
  LD central = 0;
  for (LD d : deg) central += max_deg - d;
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic>> eig(L, Eigen::EigenvaluesOnly);
  const auto& ev = eig.eigenvalues();  // ascending
  return {edges / (n * (n - 1) / 2), gini, 0.3L * max_in / (n - 1) + 0.7L * gini, central / ((n - 1) * (n - 2)), ev(1),
          ev(2) - ev(1)};
}

// The authors' convention (SPEC §9), from the released code's definitions.
// Guo et al.'s entropy.py: each row renormalised, row 0 scored 0, the mean over all T rows.
LD authors_row_score(const Matrix& A) {
  const int64_t T = A.size();
  LD row = 0;
  for (int64_t i = 1; i < T; ++i) {
    LD s = 0;
    for (LD a : A[i]) s += a;
    std::vector<LD> p;
    for (LD a : A[i]) p.push_back(a > 0 ? a / s : 0);
    row += entropy(p) / std::log(static_cast<LD>(i + 1));
  }
  return row / T;
}

// reference_point.ipynb: rows renormalised; per query outside R, min(1, ||r||/||y||) (1 when
// only ||y|| < 1e-10, 0 when both) and (1 + clip(cos, -1, 1))/2 (0.5 when a norm is below 1e-10);
// 0.5 for both at a query in R; the means over all T queries.
std::vector<LD> authors_reference_of(const Matrix& A, const std::vector<std::vector<LD>>& x) {
  const int64_t T = A.size();
  const size_t D = x[0].size();
  const auto in_R = reference_set_of(A);  // the same rule in both conventions
  const LD n = std::count(in_R.begin(), in_R.end(), true);
  LD magnitude = 0, direction = 0;
  for (int64_t i = 0; i < T; ++i) {
    if (in_R[i]) {
      magnitude += 0.5L, direction += 0.5L;
      continue;
    }
    LD s = 0;
    for (LD a : A[i]) s += a;
    std::vector<LD> y(D, 0), r(D, 0);
    for (int64_t j = 0; j < T; ++j)
      for (size_t m = 0; m < D; ++m) {
        const LD w = s > 1e-10L ? A[i][j] / s : 0;
        y[m] += w * x[j][m];
        if (in_R[j]) r[m] += w * x[j][m];
      }
    const LD ny = norm(y), nr = norm(r);
    magnitude += ny < 1e-10L ? (nr < 1e-10L ? 0 : 1) : std::min<LD>(1, nr / ny);
    direction += nr < 1e-10L || ny < 1e-10L ? 0.5L : (1 + std::clamp<LD>(dot(r, y) / (nr * ny), -1, 1)) / 2;
  }
  return {n, magnitude / T, direction / T};
}

// What the notebook does not record (its early return): NaN, as sink_window marks it.
constexpr LD kNoValue = std::numeric_limits<LD>::quiet_NaN();

// laplacian.ipynb compute_laplacian_eigenvalues: B = [Abar > tau] everywhere (the diagonal too);
// for T > 50 the nodes are those with an edge; Gini (pairwise definition), 0.3 max_in/(n-1) +
// 0.7 Gini, sum(max_in - d_in)/(n-1)^2 over those nodes; density edges/T^2; the Laplacian of
// (B + B^T)/2 over all T, exact; fewer than 2 edges: 0 but the density.
std::vector<LD> authors_graph_of(const Matrix& Abar, double tau) {
  const int64_t T = Abar.size();
  Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic> B = Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic>::Zero(T, T);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) B(i, j) = Abar[i][j] > tau ? 1 : 0;
  const LD edges = B.sum(), density = edges / (static_cast<LD>(T) * T);
  if (edges < 2) return {kNoValue, kNoValue, 0, 0, 0, 0};  // the early return: no density, no Gini
  std::vector<LD> d_in;  // of the graph's nodes
  for (int64_t j = 0; j < T; ++j)
    if (T <= 50 || B.col(j).sum() + B.row(j).sum() > 0) d_in.push_back(B.col(j).sum());
  const LD n = d_in.size();
  LD pair_sum = 0, total = 0;
  for (LD a : d_in) {
    total += a;
    for (LD b : d_in) pair_sum += std::fabs(a - b);
  }
  const LD gini = total > 0 ? pair_sum / (2 * n * total) : 0;
  const LD max_in = *std::max_element(d_in.begin(), d_in.end());
  LD central = 0;
  for (LD d : d_in) central += max_in - d;
  const Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic> sym = (B + B.transpose()) / 2;
  const Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic> L = Eigen::Matrix<LD, Eigen::Dynamic, 1>(sym.rowwise().sum()).asDiagonal().toDenseMatrix() - sym;
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic>> eig(L, Eigen::EigenvaluesOnly);
  const auto& ev = eig.eigenvalues();  // ascending
  return {density, gini, 0.3L * max_in / std::max<LD>(1, n - 1) + 0.7L * gini,
          max_in > 0 && n > 1 ? central / ((n - 1) * (n - 1)) : 0, ev(1), ev(2) - ev(1)};
}

// ---- per-window numbers against the brute force ---------------------------------------------

class RealCapture : public ::testing::TestWithParam<std::string> {};

TEST_P(RealCapture, EveryNumberEqualsTheBruteForce) {
  const int64_t T = 96;
  const auto windows = capture("models/" + GetParam(), 2, T);
  ASSERT_EQ(windows.size(), 2u);
  const int64_t L = windows[0].alpha.size(0), H = windows[0].alpha.size(1), KV = windows[0].values.size(1);
  int64_t compared = 0;
  for (const auto& win : windows) {
    const metrics::SinkWindow s = metrics::sink_window(win.alpha, win.values, win.resid, kTaus);
    ASSERT_EQ(s.alpha.size(), static_cast<size_t>(L * H * T));
    ASSERT_EQ(s.reference_resid.size(), static_cast<size_t>(L * 3));
    for (int64_t l = 0; l < L; ++l) {
      Matrix bar(T, std::vector<LD>(T, 0));
      for (int64_t h = 0; h < H; ++h) {
        const int64_t lh = l * H + h, kv = h / (H / KV);
        const Matrix A = head_matrix(win.alpha, l, h);
        add_to_mean(bar, A, H);
        const auto alpha = alpha_of(A);
        for (int64_t k = 0; k < T; ++k) ASSERT_NEAR(s.alpha[lh * T + k], static_cast<double>(alpha[k]), 1e-12) << l << " " << h << " " << k;
        const auto [row, col] = dormant_scores(A);
        EXPECT_NEAR(s.row_score[lh], static_cast<double>(row), 1e-11) << l << " " << h;
        EXPECT_NEAR(s.col_score[lh], static_cast<double>(col), 1e-11) << l << " " << h;
        const auto V = rows_of(win.values[l][kv]);
        const auto ref = reference_of(A, V);
        for (int64_t m = 0; m < 3; ++m) EXPECT_NEAR(s.reference_v[lh * 3 + m], static_cast<double>(ref[m]), 1e-11) << l << " " << h;
        // SPEC §3 rho0 at query t, averaged over t = 1..T-1.
        LD rho = 0, running = 0;
        for (int64_t t = 1; t < T; ++t) {
          running += cosine(V[0], V[t]);
          rho += running / t;
        }
        EXPECT_NEAR(s.rho0[lh], static_cast<double>(rho / (T - 1)), 1e-11) << l << " " << h;
        if (h % (H / KV) == 0)
          for (int64_t i = 0; i < T; ++i) EXPECT_NEAR(s.norms[(l * KV + kv) * T + i], static_cast<double>(norm(V[i])), 1e-9);
        ++compared;
      }
      const auto ref_resid = reference_of(bar, rows_of(win.resid[l]));
      EXPECT_EQ(s.reference_bar[l], static_cast<double>(ref_resid[0])) << l;
      EXPECT_NEAR(s.reference_resid[l * 3 + 1], static_cast<double>(ref_resid[1]), 1e-10) << l;
      EXPECT_NEAR(s.reference_resid[l * 3 + 2], static_cast<double>(ref_resid[2]), 1e-10) << l;
      for (size_t t = 0; t < kTaus.size(); ++t) {
        const auto g = graph_of(bar, kTaus[t]);
        for (int64_t m = 0; m < metrics::kNumGraphStats; ++m)
          EXPECT_NEAR(s.graph[(l * kTaus.size() + t) * metrics::kNumGraphStats + m], static_cast<double>(g[m]), 1e-9)
              << "layer " << l << " tau " << kTaus[t] << " " << metrics::kGraphStatsGeoattn[m];
      }
    }
  }
  EXPECT_EQ(compared, 2 * L * H);
}

// --convention authors: every number that differs from geoattn's convention, against
// the released code's definitions written out above; T = 40 (the notebook's dense graph of all T
// nodes) and T = 64 (its graph from the edge list, isolated tokens dropped).
TEST_P(RealCapture, AuthorsConventionEqualsTheBruteForce) {
  for (const int64_t T : {40, 64}) {
    const auto windows = capture("models/" + GetParam(), 1, T);
    ASSERT_EQ(windows.size(), 1u);
    const auto& win = windows[0];
    const int64_t L = win.alpha.size(0), H = win.alpha.size(1), KV = win.values.size(1);
    const auto s = metrics::sink_window(win.alpha, win.values, win.resid, kTaus, metrics::SinkConvention::authors);
    int64_t fewer_nodes = 0;
    for (int64_t l = 0; l < L; ++l) {
      Matrix bar(T, std::vector<LD>(T, 0));
      for (int64_t h = 0; h < H; ++h) {
        const int64_t lh = l * H + h, kv = h / (H / KV);
        const Matrix A = head_matrix(win.alpha, l, h);
        add_to_mean(bar, A, H);
        EXPECT_NEAR(s.row_score[lh], static_cast<double>(authors_row_score(A)), 1e-11) << T << " " << l << " " << h;
        EXPECT_NEAR(s.col_score[lh], static_cast<double>(dormant_scores(A).second), 1e-11) << T << " " << l << " " << h;
        const auto ref = authors_reference_of(A, rows_of(win.values[l][kv]));
        for (int64_t m = 0; m < 3; ++m)
          EXPECT_NEAR(s.reference_v[lh * 3 + m], static_cast<double>(ref[m]), 1e-11) << T << " " << l << " " << h << " " << m;
      }
      const auto ref_resid = authors_reference_of(bar, rows_of(win.resid[l]));
      for (int64_t m = 1; m < 3; ++m)
        EXPECT_NEAR(s.reference_resid[l * 3 + m], static_cast<double>(ref_resid[m]), 1e-10) << T << " " << l << " " << m;
      for (size_t t = 0; t < kTaus.size(); ++t) {
        const auto g = authors_graph_of(bar, kTaus[t]);
        for (int64_t m = 0; m < metrics::kNumGraphStats; ++m) {
          const double got = s.graph[(l * kTaus.size() + t) * metrics::kNumGraphStats + m];
          if (std::isnan(g[m])) EXPECT_TRUE(std::isnan(got));
          else EXPECT_NEAR(got, static_cast<double>(g[m]), 1e-9)
              << "T " << T << " layer " << l << " tau " << kTaus[t] << " " << metrics::kGraphStatsAuthors[m];
        }
        if (T > 50) {
          int64_t present = 0;
          for (int64_t j = 0; j < T; ++j) {
            bool edge = false;
            for (int64_t i = 0; i < T; ++i) edge = edge || bar[i][j] > kTaus[t] || bar[j][i] > kTaus[t];
            present += edge;
          }
          fewer_nodes += present < T;
        }
      }
    }
    if (T > 50) EXPECT_GT(fewer_nodes, 0) << "the edge-list graph drops isolated tokens somewhere: the case is tested";
  }
}

// Sink_k^eps: the share of (window, layer, head) with alpha_k > eps, counted directly.
TEST_P(RealCapture, SinkCountsAreDirectCounts) {
  const int64_t T = 64;
  const auto windows = capture("models/" + GetParam(), 3, T);
  const int64_t L = windows[0].alpha.size(0), H = windows[0].alpha.size(1), KV = windows[0].values.size(1);
  for (const double eps : {0.05, 0.3}) {
    metrics::SinkStats stats({L, H, KV, T, static_cast<int64_t>(kTaus.size()), false}, eps);
    std::vector<int64_t> direct(L * H * T, 0);
    for (const auto& win : windows) {
      stats.add(metrics::sink_window(win.alpha, win.values, torch::Tensor(), kTaus), win.ids);
      for (int64_t l = 0; l < L; ++l)
        for (int64_t h = 0; h < H; ++h) {
          const auto alpha = alpha_of(head_matrix(win.alpha, l, h));
          for (int64_t k = 0; k < T; ++k) direct[(l * H + h) * T + k] += alpha[k] > eps;
        }
    }
    int64_t sinks_at_0 = 0;
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h) {
        for (int64_t k = 0; k < T; ++k) ASSERT_EQ(stats.sink_windows(l, h, k), direct[(l * H + h) * T + k]);
        sinks_at_0 += direct[(l * H + h) * T];
      }
    EXPECT_EQ(stats.windows(), 3);
    if (eps == 0.05) EXPECT_GT(sinks_at_0, 0) << "no sink head at position 0 at eps 0.05: the test tests nothing";
  }
}

// On a GPU the same window gives the same numbers (float64 on both; cuSOLVER's spectra round
// differently from LAPACK's).
TEST_P(RealCapture, CudaMatchesCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const auto windows = capture("models/" + GetParam(), 1, 96);
  const auto& w = windows[0];
  for (const auto convention : {metrics::SinkConvention::geoattn, metrics::SinkConvention::authors}) {
    const auto cpu = metrics::sink_window(w.alpha, w.values, w.resid, kTaus, convention);
    const auto gpu = metrics::sink_window(w.alpha.cuda(), w.values.cuda(), w.resid.cuda(), kTaus, convention);
    auto expect_near = [&](const std::vector<double>& a, const std::vector<double>& b, double tol, const char* what) {
      ASSERT_EQ(a.size(), b.size()) << what;
      for (size_t i = 0; i < a.size(); ++i)
        ASSERT_NEAR(a[i], b[i], tol) << name_of(metrics::kSinkConventionNames, convention) << " " << what << " " << i;
    };
    expect_near(cpu.alpha, gpu.alpha, 1e-12, "alpha");
    expect_near(cpu.row_score, gpu.row_score, 1e-11, "row");
    expect_near(cpu.col_score, gpu.col_score, 1e-11, "col");
    expect_near(cpu.reference_v, gpu.reference_v, 1e-11, "reference_v");
    expect_near(cpu.reference_resid, gpu.reference_resid, 1e-10, "reference_resid");
    expect_near(cpu.rho0, gpu.rho0, 1e-11, "rho0");
    expect_near(cpu.graph, gpu.graph, 1e-9, "graph");
  }
}

INSTANTIATE_TEST_SUITE_P(Models, RealCapture, ::testing::Values("stories260K", "stories15M"));

// ---- the attention graph on hand-computed cases ----------------------------------------------

// Abar with Abar[i][j] = 1 on the listed edges (i > j), 0 elsewhere: at tau = 0.5 the graph is
// exactly those edges.
std::vector<double> graph_for(int64_t T, const std::vector<std::pair<int, int>>& edges) {
  auto abar = torch::zeros({T, T}, torch::kFloat32);
  for (auto [i, j] : edges) abar[i][j] = 1;
  const auto g = metrics::graph_stats(abar, {0.5}).contiguous();
  return {g.data_ptr<double>(), g.data_ptr<double>() + g.numel()};
}

void expect_graph(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t m = 0; m < want.size(); ++m) EXPECT_NEAR(got[m], want[m], 1e-12) << metrics::kGraphStatsGeoattn[m];
}

TEST(AttentionGraph, HandComputedCases) {
  // Star: queries 1..3 attend to 0. d_in = (3,0,0,0): Gini = 3*3/(4*3) = 0.75; star-likeness
  // 0.3*3/3 + 0.7*0.75 = 0.825; degrees (3,1,1,1): centralisation 6/6 = 1; density 3/6;
  // L = L(K_{1,3})/2, spectrum {0, 1, 1, 4}/2: Fiedler 0.5, gap 0.
  expect_graph(graph_for(4, {{1, 0}, {2, 0}, {3, 0}}), {0.5, 0.75, 0.825, 1.0, 0.5, 0.0});
  // Every earlier key: d_in = (3,2,1,0): Gini = (-1 + 2 + 9)/(4*6) = 5/12; star 0.3 + 0.7*5/12;
  // K_4 is regular: centralisation 0; density 1; spectrum {0, 4, 4, 4}/2: Fiedler 2, gap 0.
  expect_graph(graph_for(4, {{1, 0}, {2, 0}, {3, 0}, {2, 1}, {3, 1}, {3, 2}}), {1.0, 5.0 / 12, 0.3 + 0.7 * 5 / 12, 0, 2, 0});
  // A path (each query attends to the previous key): d_in = (1,1,1,0): Gini = 3/12 = 0.25; star
  // 0.1 + 0.175; degrees (1,2,2,1): centralisation 2/6; density 3/6; spectrum of L(P_4)/2 =
  // (1 - cos(k pi/4)): Fiedler 1 - 1/sqrt(2), gap (1 - 0) - (1 - 1/sqrt(2)) = 1/sqrt(2).
  expect_graph(graph_for(4, {{1, 0}, {2, 1}, {3, 2}}),
               {0.5, 0.25, 0.275, 1.0 / 3, 1 - 1 / std::sqrt(2.0), 1 / std::sqrt(2.0)});
  // No edge: every statistic 0 (and the Fiedler value of an empty graph is 0).
  expect_graph(graph_for(5, {}), {0, 0, 0, 0, 0, 0});
}

// ---- frame types on hand-built attention ------------------------------------------------------

// One window's attention [L, H, T, T] in which every query puts weight w[k] on each anchor k it
// can see and spreads the rest evenly over the other keys it can see (all of it on the anchors,
// renormalised, when there are none).
torch::Tensor anchored(int64_t L, int64_t H, int64_t T, const std::map<int64_t, double>& w) {
  auto A = torch::zeros({T, T}, torch::kFloat64);
  for (int64_t t = 0; t < T; ++t) {
    double on_anchors = 0;
    int64_t others = 0;
    for (int64_t k = 0; k <= t; ++k) w.count(k) ? on_anchors += w.at(k) : ++others;
    for (int64_t k = 0; k <= t; ++k) {
      if (w.count(k))
        A[t][k] = others > 0 ? w.at(k) : w.at(k) / on_anchors;
      else
        A[t][k] = (1 - on_anchors) / others;
    }
  }
  return A.to(torch::kFloat32).expand({L, H, T, T}).contiguous();
}

// The frame types of one layer of `windows` windows built by `weights(w)`, through the whole
// chain: sink_window -> SinkStats -> sinks_report.
std::string frame_type(const std::function<std::map<int64_t, double>(int64_t)>& weights, int64_t windows = 4) {
  const int64_t L = 1, H = 2, KV = 1, T = 32, d = 4;
  metrics::SinkStats stats({L, H, KV, T, 1, false}, 0.3);
  torch::manual_seed(7);
  for (int64_t w = 0; w < windows; ++w) {
    std::vector<int64_t> tokens(T);
    std::iota(tokens.begin(), tokens.end(), 100 * w);  // a different token everywhere
    tokens[0] = 1;                                     // BOS
    stats.add(metrics::sink_window(anchored(L, H, T, weights(w)), torch::randn({L, KV, T, d}), torch::Tensor(), {0.1}),
              tokens);
  }
  metrics::SinkRun run{stats, {}, {}};
  run.run_info.method.taus = {0.1};
  run.run_info.method.profile_positions = 8;
  const auto json = report::sinks_report(run);
  return json.at("layers").at(0).at("frame").at("type").get<std::string>();
}

TEST(FrameTypes, HandBuiltAttention) {
  // One anchor at BOS holding 60% of every query's attention: centralized.
  EXPECT_EQ(frame_type([](int64_t) { return std::map<int64_t, double>{{0, 0.6}}; }), "centralized");
  // Two anchors of 40% each: bidirectional.
  EXPECT_EQ(frame_type([](int64_t) { return std::map<int64_t, double>{{0, 0.4}, {1, 0.4}}; }), "bidirectional");
  // Three anchors of about a third, the strongest a different one in each window (and every
  // token different): no consistent anchor, |S| = 3: distributed.
  EXPECT_EQ(frame_type([](int64_t w) {
              std::map<int64_t, double> m{{0, 0.27}, {4, 0.27}, {8, 0.27}};
              m[4 * (w % 3)] = 0.36;
              return m;
            }, 3),
            "distributed");
  // Uniform causal attention: no anchor, the reference set is BOS alone: none.
  EXPECT_EQ(frame_type([](int64_t) { return std::map<int64_t, double>{}; }), "none");
}

TEST(FrameTypes, RuleOnProfiles) {
  using analysis::LayerFrameInput;
  std::vector<double> one(16, 0.01), two(16, 0.01), moved(16, 0.01);
  one[0] = 0.8, two[0] = 0.5, two[3] = 0.4, moved[5] = 0.7;
  // Layer 2's anchor moved from 0 to 5 with a consistency below 0.9: bidirectional (switch).
  const auto f = analysis::classify_frames({{one, 1.0, 1}, {two, 1.0, 2}, {moved, 0.6, 1}}, {});
  EXPECT_EQ(f[0].type, "centralized");
  EXPECT_EQ(f[1].type, "bidirectional");
  EXPECT_FALSE(f[1].switched);  // both anchored at 0
  EXPECT_EQ(f[2].type, "bidirectional");
  EXPECT_TRUE(f[2].switched);
  EXPECT_EQ(f[2].S, std::vector<int64_t>{5});
  // Positions past T/2 are not anchor candidates: a large alpha there is no anchor.
  std::vector<double> late(16, 0.01);
  late[15] = 0.9;
  EXPECT_EQ(analysis::classify_frames({{late, 1.0, 1}}, {})[0].S, std::vector<int64_t>{});
}

TEST(ReferenceSet, Rule) {
  const std::vector<double> c = {0.5, 0.05, 0.2, 0.05, 0.2};  // two above 0.1 tie: lower first
  EXPECT_EQ(analysis::reference_set(c.data(), 5), (std::vector<int64_t>{0}));  // cap max(1, floor(1.5)) = 1
  std::vector<double> flat(20, 0.05);
  flat[7] = 0.06, flat[3] = 0.06;
  EXPECT_EQ(analysis::reference_set(flat.data(), 20), (std::vector<int64_t>{3, 7}));  // top floor(2.0) = 2
}

TEST(FrameConfig, ConfigFileIsTheDefaults) {
  const auto j = nlohmann::ordered_json::parse(geoattn::testing::read_file(source("configs/sinks.json")));
  EXPECT_EQ(report::frame_config_from_json(j), analysis::FrameConfig{});
  EXPECT_FALSE(report::sink_rule_from_json(j).sweep.empty());
  EXPECT_NE(geoattn::testing::error_of([] { report::frame_config_from_json({{"anchor_alpha", 0.3}}); }).find("unknown key 'anchor_alpha'"),
            std::string::npos);
  EXPECT_NE(geoattn::testing::error_of([] { report::frame_config_from_json({{"comparable_ratio", 2}}); }).find("'comparable_ratio'"),
            std::string::npos);
}

// ---- the command end to end -------------------------------------------------------------------

const std::string kModel = source("models/stories260K");
const std::string kData = source("data/openwebtext/openwebtext-60docs.jsonl");
const std::string kInput = " --data " + kData + " --ctx 48 --max-windows 6 --quiet";

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(geoattn::testing::read_file(path)); }

// The numbers of a result: everything but where the windows came from and how long it took.
nlohmann::json numbers(nlohmann::json j) {
  j.erase("run_id");  // a digest of the run's description, where the windows came from included
  for (const char* key : {"data", "timing", "model"}) j.erase(key);
  j["settings"].erase("ctx");
  j["settings"].erase("dtype");
  return j;
}

TEST(SinksCommand, ShardsMergeToOneRunBitForBit) {
  TempDir tmp;
  const std::string base = "geoattn sinks --model " + kModel + kInput + " --residual";
  ASSERT_EQ(run_tool(base + " --out " + tmp / "all.json", tmp).code, 0);
  ASSERT_EQ(run_tool(base + " --shard 0/2 --out " + tmp / "a.json", tmp).code, 0);
  ASSERT_EQ(run_tool(base + " --shard 1/2 --out " + tmp / "b.json", tmp).code, 0);
  const auto r = run_tool("geoattn merge " + tmp / "a.json " + tmp / "b.json --out " + tmp / "merged.json", tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto all = read_json(tmp / "all.json"), merged = read_json(tmp / "merged.json"), a = read_json(tmp / "a.json");
  EXPECT_EQ(all.at("schema"), "geoattn.sinks/1");
  EXPECT_EQ(all.at("windows"), 6);
  EXPECT_LT(a.at("windows").get<int>(), 6);
  EXPECT_EQ(merged.at("windows"), 6);
  EXPECT_EQ(numbers(merged), numbers(all));  // every number, bit for bit
  EXPECT_EQ(merged.at("data").at("windows"), 6);
  // The residual stream's reference measures are there, named as geoattn's convention names them.
  EXPECT_EQ(all.at("settings").at("convention"), "geoattn");
  EXPECT_TRUE(all.at("layers").at(0).at("reference").at("direction_agreement").is_number());
  // A shard of the authors' convention does not merge with one of geoattn's.
  ASSERT_EQ(run_tool(base + " --convention authors --shard 1/2 --out " + tmp / "c.json", tmp).code, 0);
  EXPECT_EQ(read_json(tmp / "c.json").at("settings").at("convention"), "authors");
  const auto mixed = run_tool("geoattn merge " + tmp / "a.json " + tmp / "c.json --out " + tmp / "mixed.json", tmp);
  EXPECT_NE(mixed.code, 0);
  EXPECT_NE(mixed.err.find("convention"), std::string::npos) << mixed.err;
  EXPECT_FALSE(std::filesystem::exists(tmp / "mixed.json"));
}

// A sinks run killed (SIGKILL) after a checkpoint resumes with the same arguments and
// writes the bytes of an uninterrupted run, timing aside: no window counted twice or lost, the
// anchors' histograms and token texts included.
TEST(SinksCommand, ResumesAfterSigkill) {
  TempDir tmp;
  const std::string args = "sinks --model " + kModel + kInput + " --residual --checkpoint-every 2";
  ASSERT_EQ(run_tool("geoattn " + args + " --out " + tmp / "whole.json", tmp).code, 0);
  const auto killed = run_tool("geoattn " + args + " --out " + tmp / "r.json", tmp, "GEOATTN_TEST_KILL_AFTER_WINDOWS=5 ");
  EXPECT_EQ(killed.code, 128 + SIGKILL);  // the shell reports the killed child
  ASSERT_FALSE(std::filesystem::exists(tmp / "r.json"));
  ASSERT_TRUE(std::filesystem::exists(tmp / "r.state.safetensors"));  // the checkpoint after window 4
  const auto resumed = run_tool("geoattn " + args + " --out " + tmp / "r.json", tmp);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  auto whole = read_json(tmp / "whole.json"), r = read_json(tmp / "r.json");
  EXPECT_EQ(r.at("timing").at("resumed_after_windows"), 4);
  whole.erase("timing"), r.erase("timing");
  EXPECT_EQ(r.dump(1), whole.dump(1));
}

TEST(SinksCommand, CaptureFileGivesTheModelRunsNumbers) {
  TempDir tmp;
  ASSERT_EQ(run_tool("geoattn sinks --model " + kModel + kInput + " --out " + tmp / "model.json", tmp).code, 0);
  auto r = run_tool("geoattn capture --model " + kModel + kInput + " --queries all --out " + tmp / "cap.safetensors", tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_tool("geoattn sinks --capture " + tmp / "cap.safetensors --out " + tmp / "cap.json", tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  auto model = numbers(read_json(tmp / "model.json")), cap = numbers(read_json(tmp / "cap.json"));
  // A capture carries no tokenizer: texts are null there. Everything else is equal.
  const std::function<void(nlohmann::json&)> drop_text = [&](nlohmann::json& j) {
    if (j.is_object()) {
      j.erase("text");
      for (auto& [k, v] : j.items()) drop_text(v);
    } else if (j.is_array()) {
      for (auto& v : j) drop_text(v);
    }
  };
  drop_text(model), drop_text(cap);
  cap["settings"]["queries"] = model["settings"]["queries"];
  EXPECT_EQ(cap, model);
}

// At thresholds where the notebook returns early (fewer than 2 edges in a window's graph),
// `--convention authors` equals laplacian.ipynb's own aggregation: the density and the Gini over
// the other windows (graph[].windows), the rest over every window with the early return's zeros.
// The reference ran the notebook's functions on the windows of this capture, remade here
// (scripts/reference/sinks_authors_graph.py; tests/fixtures/sinks-authors/README.md).
TEST(SinksCommand, AuthorsEarlyReturnEqualsTheNotebook) {
  TempDir tmp;
  const auto ref = nlohmann::json::parse(geoattn::testing::read_file(source("tests/fixtures/sinks-authors/stories260K-T40-high-taus.json")));
  ASSERT_GT(ref.at("early_returns").get<int>(), 0);
  ASSERT_GT(ref.at("margin").get<double>(), 1e-9);  // no edge can move between machines
  auto r = run_tool("geoattn capture --quiet --model " + kModel + " --data " +
                        source("data/openwebtext/openwebtext-60docs.jsonl") +
                        " --ctx 40 --max-windows 6 --queries all --out " + tmp / "C.safetensors",
                    tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  std::string taus;
  for (const auto& t : ref.at("taus")) taus += (taus.empty() ? "" : ",") + t.dump();
  r = run_tool("geoattn sinks --quiet --convention authors --taus " + taus + " --capture " + tmp / "C.safetensors" +
                   " --out " + tmp / "s.json",
               tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  // The reference's windows are these: the same tokens.
  const auto capture = geoattn::model::read_capture_file(tmp / "C.safetensors");
  const auto& want_tokens = ref.at("capture").at("tokens");
  ASSERT_EQ(capture.tokens.size(0), static_cast<int64_t>(want_tokens.size()));
  for (int64_t w = 0; w < capture.tokens.size(0); ++w)
    for (int64_t t = 0; t < capture.tokens.size(1); ++t)
      ASSERT_EQ(capture.tokens[w][t].item<int64_t>(), want_tokens[w][t].get<int64_t>()) << w << " " << t;
  const auto doc = read_json(tmp / "s.json");
  ASSERT_EQ(doc.at("layers").size(), ref.at("layers").size());
  int64_t fewer = 0;
  for (size_t l = 0; l < ref.at("layers").size(); ++l)
    for (size_t t = 0; t < ref.at("taus").size(); ++t) {
      const auto& want = ref.at("layers")[l].at("graph")[t];
      const auto& got = doc.at("layers")[l].at("graph")[t];
      const std::string where = "layer " + std::to_string(l) + " tau " + want.at("tau").dump();
      EXPECT_EQ(got.at("windows"), want.at("density_count")) << where;
      EXPECT_EQ(want.at("gini_count"), want.at("density_count")) << where;
      fewer += want.at("density_count").get<int64_t>() < 6;
      for (const char* stat : {"density", "gini", "star", "degree_centralization", "fiedler", "gap"}) {
        if (want.at(stat).is_null()) {
          EXPECT_TRUE(got.at(stat).is_null()) << where << " " << stat;
        } else {
          ASSERT_TRUE(got.at(stat).is_number()) << where << " " << stat;
          EXPECT_NEAR(got.at(stat).get<double>(), want.at(stat).get<double>(), 1e-9) << where << " " << stat;
        }
      }
    }
  EXPECT_GT(fewer, 0) << "some (layer, tau) leaves windows out: the case is tested";
}

TEST(SinksCommand, BadInputIsOneLine) {
  TempDir tmp;
  const std::string run = "geoattn sinks --model " + kModel + kInput + " --out " + tmp / "x.json";
  auto expect_error = [&](const std::string& args, const std::string& needle) {
    const auto r = run_tool(args, tmp);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(tmp / "x.json"));
  };
  expect_error(run + " --queries last", "--queries last");
  expect_error(run + " --taus 0.1,x", "--taus: '0.1,x' is not a list of numbers");
  expect_error(run + " --eps 1.5", "--eps");
  expect_error(run + " --convention paper", "--convention");
  geoattn::testing::write_file(tmp / "bad.json", R"({"anchor_alpha_min": 2})");
  expect_error(run + " --config " + tmp / "bad.json", "bad.json");
  ASSERT_EQ(run_tool("geoattn capture --model " + kModel + kInput + " --out " + tmp / "last.safetensors", tmp).code, 0);
  expect_error("geoattn sinks --capture " + tmp / "last.safetensors --out " + tmp / "x.json", "every query position");
}

}  // namespace
