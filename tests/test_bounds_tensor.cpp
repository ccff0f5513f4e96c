// SPEC §5's bounds on the tensor path (what a GPU run computes) against the plain formulas
// (analysis::sample_bounds, what a CPU run computes), here on the CPU: per sample on the same
// inputs (the unit value vectors U for the tensor path, rho = U U^T for the formulas) within 1e-12
// with every flag equal; per window, the envelopes' and the kappa scan's means from alpha and v
// (each path its own norms and products) within 1e-9. On real captures:
// stories260K doc windows of OpenWebText (every N, queries from 0 to 255) and the windowed tiny
// Mistral (W = 8, keys first..q); and on the corner cases (a zero value vector, tied alphas,
// every a = 0, n = 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "geoattn/analysis/bounds.h"
#include "geoattn/metrics/core/window_bounds.h"
#include "geoattn/metrics/core/window_metrics.h"
#include "geoattn/metrics/core/window_predicted.h"
#include "geoattn/metrics_torch/selection.h"
#include "geoattn/metrics_torch/window_bounds_torch.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "bounds_test_util.h"
#include "torch_test_util.h"

using namespace geoattn;
using analysis::BoundsCurves;
using geoattn::testing::expect_curves;

namespace {

const std::vector<double> kKappas = {1.0, 0.0625, 16.0};

// One sample's inputs from a capture, alpha [n] and the KV head's values [n, d] (float32): the
// plain formulas' (rho = U U^T) and the tensor path's unit vectors U [n, d].
struct Sample {
  analysis::BoundsInput in;
  torch::Tensor u;
};
Sample sample_of(const torch::Tensor& alpha, const torch::Tensor& values) {
  const auto v = values.to(torch::kFloat64);
  const auto norms = (v * v).sum(1).sqrt();
  const auto u = (v / norms.unsqueeze(1)).masked_fill(norms.eq(0).unsqueeze(1), 0.0).contiguous();
  const auto A = alpha.to(torch::kFloat64).contiguous();
  const auto a = (A * norms).contiguous(), rho = u.matmul(u.t()).contiguous();
  const int64_t n = A.size(0);
  analysis::BoundsInput in;
  in.a = Eigen::Map<const Eigen::VectorXd>(a.data_ptr<double>(), n);
  in.rho = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(rho.data_ptr<double>(), n, n);
  const auto order = metrics::top_n_order(A.unsqueeze(0)).squeeze(0).contiguous();
  in.order.assign(order.data_ptr<int64_t>(), order.data_ptr<int64_t>() + n);
  in.d = values.size(1);
  return {std::move(in), u};
}

std::vector<int64_t> every_n(int64_t n) {
  std::vector<int64_t> grid(static_cast<size_t>(n));
  for (int64_t N = 1; N <= n; ++N) grid[N - 1] = N;
  return grid;
}

// The samples (one n) at once on the tensor path against sample_bounds one by one.
void expect_tensor_matches_plain(const std::vector<Sample>& samples, const std::vector<int64_t>& grid,
                                 const std::string& where) {
  const int64_t S = std::ssize(samples), n = samples[0].in.a.size();
  auto a = torch::empty({S, n}, torch::kFloat64), order = torch::empty({S, n}, torch::kInt64);
  std::vector<torch::Tensor> u;
  for (int64_t s = 0; s < S; ++s) {
    for (int64_t i = 0; i < n; ++i) a[s][i] = samples[s].in.a[i], order[s][i] = samples[s].in.order[i];
    u.push_back(samples[s].u);
  }
  const auto got = metrics::tensor_sample_bounds(a, torch::stack(u), order, samples[0].in.d, grid, kKappas);
  ASSERT_EQ(std::ssize(got), S);
  for (int64_t s = 0; s < S; ++s) {
    const auto want = analysis::sample_bounds(samples[s].in, grid, kKappas);
    for (size_t k = 0; k < kKappas.size(); ++k)
      expect_curves(got[s][k], want[k], 1e-12, where + " sample " + std::to_string(s) + " kappa " + std::to_string(kKappas[k]));
  }
}

struct Capture {
  torch::Tensor alpha, values;  // [L, H, Q, T], [L, KV, T, d]
};

std::vector<Capture> stories260k(int64_t windows, const std::vector<int64_t>& queries) {
  io::WindowOptions w;
  w.T = 256;
  w.max_windows = windows;
  std::vector<Capture> out;
  for (const auto& c : geoattn::testing::capture_windows("models/stories260K", {"data/openwebtext/openwebtext-60docs.jsonl"}, w,
                                                {"blocks.*.attn.pattern", "blocks.*.attn.v"}, queries))
    out.push_back({c.at(model::HookPoint::AttnPattern), c.at(model::HookPoint::AttnV)});
  return out;
}

// Per sample, on the same a, rho and order: the tensor path equals the formulas within 1e-12.
TEST(BoundsTensor, EveryRealSampleEqualsThePlainFormulas) {
  const std::vector<int64_t> queries = {0, 1, 2, 37, 255};
  const auto caps = stories260k(2, queries);
  int64_t samples = 0;
  for (size_t w = 0; w < caps.size(); ++w) {
    const auto& [alpha, values] = caps[w];
    const int64_t L = alpha.size(0), H = alpha.size(1), KV = values.size(1);
    for (size_t qi = 0; qi < queries.size(); ++qi) {
      const int64_t n = queries[qi] + 1;
      for (int64_t l = 0; l < L; ++l) {
        std::vector<Sample> ins;
        for (int64_t h = 0; h < H; ++h)
          ins.push_back(sample_of(alpha[l][h][static_cast<int64_t>(qi)].narrow(0, 0, n),
                                  values[l][h / (H / KV)].narrow(0, 0, n)));
        expect_tensor_matches_plain(ins, every_n(n), "window " + std::to_string(w) + " q " + std::to_string(n - 1) +
                                                         " layer " + std::to_string(l));
        samples += H;
      }
    }
  }
  EXPECT_EQ(samples, 2 * 5 * 5 * 8);
}

// The corner cases of bounds.h's conventions: a zero value vector (rho 0 on its row and column),
// tied alphas (ties lower position first), every a = 0 (B = 0), one token.
TEST(BoundsTensor, CornerCasesEqualThePlainFormulas) {
  const int64_t n = 12, d = 4;
  torch::manual_seed(3);
  auto values = torch::randn({n, d});
  values[5].zero_();
  auto tied = torch::full({n}, 1.0f / n);
  auto spread = torch::softmax(torch::randn({n}), 0);
  spread[2] = spread[7];
  std::vector<Sample> ins = {sample_of(tied, values), sample_of(spread, values),
                                            sample_of(torch::zeros({n}), values), sample_of(spread, torch::zeros({n, d}))};
  expect_tensor_matches_plain(ins, every_n(n), "corner cases");
  expect_tensor_matches_plain({sample_of(torch::ones({1}), values.narrow(0, 0, 1))}, {1}, "one token");
  expect_tensor_matches_plain(ins, {1, 3, 11, 12}, "a sparse grid");
}

// A run's envelopes and kappa scan.
struct Envelopes {
  const metrics::EnvelopeStats& means;
  const metrics::KappaStats& scan;
};
// Head (l, h) of x equals y's within tol (0: bit for bit): its samples, mean curves, non-trivial
// share and kappa scan.
void expect_head_equal(const Envelopes& x, const Envelopes& y, int64_t l, int64_t h, double tol, const std::string& at) {
  EXPECT_EQ(x.means.samples(l, h), y.means.samples(l, h)) << at;
  expect_curves(x.means.mean(l, h), y.means.mean(l, h), tol, at);
  EXPECT_EQ(x.means.nontrivial_share(l, h), y.means.nontrivial_share(l, h)) << at;
  for (int64_t k = 0; k < std::ssize(x.scan.kappas()); ++k)
    for (int c = 0; c < 4; ++c) {
      const auto a = x.scan.mean(l, h, k, c), b = y.scan.mean(l, h, k, c);
      for (size_t g = 0; g < b.size(); ++g)
        if (!std::isnan(b[g])) EXPECT_NEAR(a[g], b[g], tol) << at << " scan kappa " << x.scan.kappas()[k] << " curve " << c;
    }
}

// The window-level envelopes (add_window_bounds from alpha and v, one sample per chunk) equal the
// CPU run's within 1e-9, the kappa scan's too, and those of every layer at once (the layers whose
// query sees the same keys in one chunk) bit for bit; and with the tiny Mistral's W = 8
// the windowed layers' samples are keys first..q as on the CPU. The CPU run's bounds made beside
// the metrics (window_metrics with bound_kappas: the run's path, the Gram matrices shared with
// the orderings of top-N and 3 controls) equal add_window_bounds' bit for bit.
void expect_window_paths_agree(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                               const std::vector<int64_t>& grid, const metrics::LayerWindows& windows,
                               const std::string& where) {
  WorkerPool pool(2);
  const int64_t L = alpha.size(0), H = alpha.size(1), G = std::ssize(grid);
  const std::vector<double> scan_kappas(kKappas.begin() + 1, kKappas.end());
  metrics::EnvelopeStats plain(L, H, G, kKappas[0]), tensor(L, H, G, kKappas[0]), batched(L, H, G, kKappas[0]);
  metrics::KappaStats plain_scan(L, H, G, scan_kappas, std::nullopt), tensor_scan(L, H, G, scan_kappas, std::nullopt),
      batched_scan(L, H, G, scan_kappas, std::nullopt);
  metrics::add_window_bounds(pool, alpha, values, queries, grid, windows, plain, &plain_scan, -1);
  metrics::add_window_bounds(pool, alpha, values, queries, grid, windows, tensor, &tensor_scan, -1,
                             {true, /*max_chunk_bytes=*/1});  // one head per chunk
  metrics::add_window_bounds(pool, alpha, values, queries, grid, windows, batched, &batched_scan, -1,
                             {true, int64_t{1} << 40});  // every layer whose query sees the same keys at once
  metrics::EnvelopeStats fused(L, H, G, kKappas[0]);
  metrics::KappaStats fused_scan(L, H, G, scan_kappas, std::nullopt);
  metrics::MetricOptions options;
  options.controls = 3;
  options.windows = windows;
  options.bound_kappas = kKappas;
  const auto m = metrics::window_metrics(pool, model::float_view(alpha), model::float_view(values), queries, grid, 7, options);
  ASSERT_EQ(std::ssize(m.bounds.curves), std::ssize(queries) * L * H) << where;
  metrics::add_sample_bounds(m.bounds, fused, &fused_scan, -1);
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      const std::string at = where + " head (" + std::to_string(l) + ", " + std::to_string(h) + ")";
      expect_head_equal({fused, fused_scan}, {plain, plain_scan}, l, h, 0.0, at + " beside the metrics");
      expect_head_equal({batched, batched_scan}, {tensor, tensor_scan}, l, h, 0.0, at + " every layer at once");
      expect_head_equal({tensor, tensor_scan}, {plain, plain_scan}, l, h, 1e-9, at);
    }
}

TEST(BoundsTensor, WindowEnvelopesEqualTheCpuRun) {
  const std::vector<int64_t> queries = {3, 64, 255};
  for (const auto& cap : stories260k(2, queries))
    expect_window_paths_agree(cap.alpha, cap.values, queries, every_n(256), {}, "stories260K");
}

// Values scaled by 2^500 (float64): norms past 1e150, where the CPU scales rho's rows and
// columns one at a time (not symmetric, each step finite), agree with the tensor path's own
// cosines, and every envelope is finite (their sigma scales with the values and mu with their
// square, so these bounds are near 1: SPEC §5 is not scale-free).
TEST(BoundsTensor, HugeValuesKeepAFiniteRho) {
  const std::vector<int64_t> queries = {255};
  const auto cap = stories260k(1, queries).front();
  const auto values = (cap.values.to(torch::kFloat64) * std::ldexp(1.0, 500)).contiguous();
  expect_window_paths_agree(cap.alpha, values, queries, every_n(256), {}, "values x 2^500");
  WorkerPool pool(2);
  metrics::EnvelopeStats huge(cap.alpha.size(0), cap.alpha.size(1), 256, 1.0);
  metrics::add_window_bounds(pool, model::float_view(cap.alpha), model::float_view(values), queries, every_n(256), {}, huge);
  for (int64_t l = 0; l < cap.alpha.size(0); ++l)
    for (int64_t h = 0; h < cap.alpha.size(1); ++h) {
      const analysis::BoundsCurves mean = huge.mean(l, h);
      for (const auto* f : analysis::curve_fields(mean))
        for (const double v : *f) ASSERT_TRUE(std::isfinite(v)) << "head (" << l << ", " << h << ")";
    }
}

TEST(BoundsTensor, WindowedLayersReadTheKeysTheQuerySees) {
  const auto ck = io::Checkpoint::open(geoattn::testing::fixture("hf-tiny/mistral"));
  const auto decoder = model::Decoder::load(ck, torch::kFloat32, torch::kCPU);
  model::HookCache c;
  const int64_t T = 20;
  const auto ids = (torch::arange(T) * 37 + 1) % ck.config.vocab;
  decoder.forward(ids.unsqueeze(0), model::HookSpec({"blocks.*.attn.pattern", "blocks.*.attn.v"}, ck.config.n_layers), c,
                  false);
  std::vector<int64_t> layer_windows, queries(T);
  for (const auto& l : ck.config.layers) layer_windows.push_back(l.window);
  for (int64_t q = 0; q < T; ++q) queries[q] = q;
  ASSERT_GT(layer_windows[0], 0);
  expect_window_paths_agree(c.stacked(model::HookPoint::AttnPattern)[0].contiguous(),
                            c.stacked(model::HookPoint::AttnV)[0].contiguous(), queries, {1, 2, 3, 5, 8, 13, 20},
                            {layer_windows, metrics::WindowTokens::Visible}, "Mistral W = 8");
}


// SPEC §5's predicted envelopes on real captures: per head, the mean over its samples of the
// reference formulas (analysis::bounds_terms, O(n^2) from the definitions) on the measured a_i and
// top-N order with rho = Assumption 2's matrix at the head's beta and rho0; a head without a beta
// has none.
TEST(BoundsTensor, PredictedEnvelopesAreTheFormulasOnFittedAssumptions) {
  const std::vector<int64_t> queries = {37, 255};
  const std::vector<int64_t> grid = {1, 2, 3, 5, 8, 16, 38, 100, 256};
  const auto caps = stories260k(2, queries);
  const int64_t L = caps[0].alpha.size(0), H = caps[0].alpha.size(1), KV = caps[0].values.size(1);
  const int64_t T = caps[0].alpha.size(3), d = caps[0].values.size(3);
  metrics::Prediction p{"fits.json", "0123456789abcdef", L, H, {}, {}};
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      p.beta.push_back(h == 1 ? std::nullopt : std::optional<double>(0.02 * static_cast<double>(h + 1)));
      p.rho0.push_back(0.15 * static_cast<double>(l) - 0.1);
    }
  WorkerPool pool(2);
  metrics::EnvelopeStats predicted(L, H, std::ssize(grid), 1.0);
  std::vector<std::vector<analysis::BoundsMean>> want(static_cast<size_t>(L));
  for (auto& row : want)
    for (int64_t h = 0; h < H; ++h) row.emplace_back(grid.size());
  for (const auto& cap : caps) {
    const auto values = cap.values.to(torch::kFloat64);
    const auto norms = values.norm(2, -1).contiguous();  // [L, KV, T]
    std::vector<double> value_norms(norms.data_ptr<double>(), norms.data_ptr<double>() + norms.numel());
    metrics::add_window_predicted(pool, model::float_view(cap.alpha), value_norms, KV, d, queries, grid, {}, p, predicted);
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h) {
        if (!p.beta[static_cast<size_t>(l * H + h)]) continue;
        for (int64_t qi = 0; qi < std::ssize(queries); ++qi) {
          const int64_t n = queries[qi] + 1;
          analysis::BoundsInput in;
          in.a.resize(n);
          std::vector<double> alpha(static_cast<size_t>(n));
          for (int64_t i = 0; i < n; ++i) {
            alpha[i] = cap.alpha[l][h][qi][i].item<double>();
            in.a[i] = alpha[i] * norms[l][h / (H / KV)][i].item<double>();  // a_i = alpha_i ||v_i||
          }
          in.order.resize(static_cast<size_t>(n));
          std::iota(in.order.begin(), in.order.end(), int64_t{0});
          std::stable_sort(in.order.begin(), in.order.end(), [&](int64_t x, int64_t y) { return alpha[x] > alpha[y]; });
          in.rho = analysis::assumption_rho(n, *p.beta[l * H + h], *p.rho0[l * H + h]);
          in.d = d;
          analysis::BoundsCurves c;
          for (const int64_t N : grid) {
            if (N > n) break;
            const auto t = analysis::bounds_terms(in, N);
            analysis::append_bounds(c, t.P_lo, t.P_up, t.R_lo, t.R_up, t.P_up0, t.R_up0, N > 1 && N < n,
                                    N > 1 && N < n && t.Delta > 0, N == n || t.sink_in);
          }
          want[l][h].add(c);
        }
      }
  }
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      const auto got = predicted.mean(l, h);
      if (h == 1) {
        EXPECT_EQ(predicted.samples(l, h), std::vector<int64_t>(grid.size(), 0)) << l;
        continue;
      }
      expect_curves(got, want[l][h].mean(), 1e-12, "layer " + std::to_string(l) + " head " + std::to_string(h));
    }
  (void)T;
}

}  // namespace
