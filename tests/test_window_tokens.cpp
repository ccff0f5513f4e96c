// SPEC §1's window convention on real captures of tiny windowed checkpoints (Mistral: W = 8 on
// every layer; Gemma-3: W = 6 on its sliding layers beside global ones), windows of T = 20 > W:
// the metrics, bounds and fits of a windowed layer equal those of the same rows cut to the keys
// the query sees, run as an unwindowed sample; the causal setting keeps every key 0..q.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "geoattn/metrics/core/window_assumptions.h"
#include "geoattn/metrics/core/window_bounds.h"
#include "geoattn/metrics_torch/window_metrics_torch.h"
#include "geoattn/model/capture.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "geoattn/model/decoder.h"
#include "geoattn/util/n_grid.h"
#include "bounds_test_util.h"
#include "test_util.h"

using namespace geoattn;
using geoattn::testing::fixture;
using metrics::LayerWindows;
using metrics::WindowTokens;
using torch::indexing::Slice;

namespace {

constexpr int64_t T = 20;

struct Captured {
  torch::Tensor alpha, values;  // [L, H, T, T] every query, [L, KV, T, d]
  std::vector<int64_t> windows;
};

Captured capture(const std::string& dir) {
  const auto ck = io::Checkpoint::open(fixture(dir));
  const auto decoder = model::Decoder::load(ck, torch::kFloat32, torch::kCPU);
  model::HookCache c;
  const auto ids = (torch::arange(T) * 37 + 1) % ck.config.vocab;
  decoder.forward(ids.unsqueeze(0), model::HookSpec({"blocks.*.attn.pattern", "blocks.*.attn.v"}, ck.config.n_layers), c,
                  false);
  Captured out{c.stacked(model::HookPoint::AttnPattern)[0].contiguous(), c.stacked(model::HookPoint::AttnV)[0].contiguous(), {}};
  for (const auto& l : ck.config.layers) out.windows.push_back(l.window);
  return out;
}

std::vector<int64_t> all_queries() {
  std::vector<int64_t> q(T);
  for (int64_t i = 0; i < T; ++i) q[i] = i;
  return q;
}

const std::vector<int64_t> kGrid = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20};

// Sample (query q, layer l) of `m`, every head: curves [H, C, G] and scalars [H, S].
std::vector<double> sample_values(const metrics::WindowMetrics& m, int64_t qi, int64_t l, bool curves) {
  const int64_t per = curves ? metrics::kCurveMetrics * m.G : metrics::kScalarMetrics;
  const auto& src = curves ? m.curves : m.scalars;
  const auto begin = src.begin() + ((qi * m.L + l) * m.H) * per;
  return {begin, begin + m.H * per};
}

// NaN-aware bitwise equality of two vectors.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

class WindowTokensTest : public ::testing::TestWithParam<std::string> {};

// The windowed run's samples equal the cut rows' (a sample over keys first..q run as a window of
// n = q - first + 1 tokens with its query last), curves and scalars bit for bit, on the CPU core
// and the tensor path (CUDA's); the grid stops at n per (query, layer).
TEST_P(WindowTokensTest, WindowedLayerEqualsTheRowsCutToItsKeys) {
  const Captured cap = capture(GetParam());
  const int64_t L = cap.alpha.size(0);
  ASSERT_TRUE(std::any_of(cap.windows.begin(), cap.windows.end(), [](int64_t w) { return w > 0 && w < T; }));
  WorkerPool pool(2);
  for (const bool tensor_path : {false, true}) {
    metrics::MetricOptions options;
    options.selection.tensor_path = tensor_path;
    options.windows = {cap.windows, WindowTokens::Visible};
    const auto m = metrics::window_metrics(pool, cap.alpha, cap.values, all_queries(), kGrid, 7, options);
    metrics::MetricOptions plain;
    plain.selection.tensor_path = tensor_path;
    int64_t cut_samples = 0;
    for (int64_t q = 0; q < T; ++q)
      for (int64_t l = 0; l < L; ++l) {
        const auto keys = options.windows.keys(q, l);
        EXPECT_EQ(keys.n, cap.windows[l] > 0 ? std::min(q + 1, cap.windows[l]) : q + 1);
        EXPECT_EQ(m.n_valid[q * L + l], valid_grid_size(kGrid, keys.n)) << "q " << q << " layer " << l;
        const auto a = cap.alpha.index({Slice(l, l + 1), Slice(), Slice(q, q + 1), Slice(keys.first, q + 1)}).contiguous();
        const auto v = cap.values.index({Slice(l, l + 1), Slice(), Slice(keys.first, q + 1)}).contiguous();
        const auto cut = metrics::window_metrics(pool, a, v, {keys.n - 1}, kGrid, 7, plain);
        ASSERT_EQ(cut.n_valid[0], m.n_valid[q * L + l]);
        EXPECT_TRUE(same_bits(sample_values(m, q, l, true), sample_values(cut, 0, 0, true)))
            << GetParam() << " q " << q << " layer " << l << (tensor_path ? " (tensor path)" : "");
        EXPECT_TRUE(same_bits(sample_values(m, q, l, false), sample_values(cut, 0, 0, false)))
            << GetParam() << " q " << q << " layer " << l << (tensor_path ? " (tensor path)" : "");
        cut_samples += keys.first > 0;
      }
    EXPECT_GT(cut_samples, 0);
  }
}

// The causal setting is the run without windows: every key 0..q, bit for bit.
TEST_P(WindowTokensTest, CausalKeepsEveryKey) {
  const Captured cap = capture(GetParam());
  WorkerPool pool(2);
  metrics::MetricOptions causal, none;
  causal.windows = {cap.windows, WindowTokens::Causal};
  causal.decay_k = none.decay_k = 4;
  const auto a = metrics::window_metrics(pool, cap.alpha, cap.values, all_queries(), kGrid, 7, causal);
  const auto b = metrics::window_metrics(pool, cap.alpha, cap.values, all_queries(), kGrid, 7, none);
  EXPECT_TRUE(same_bits(a.curves, b.curves));
  EXPECT_TRUE(same_bits(a.scalars, b.scalars));
  EXPECT_EQ(a.n_valid, b.n_valid);
  EXPECT_EQ(a.decay_sums, b.decay_sums);
}

// SPEC §5's bounds and SPEC §4's statistics follow the same keys: per layer, the windowed run's
// envelopes equal those of the cut rows within rounding (rho comes from the Gram matrix of the
// whole block, whose entries a BLAS may sum in another order than the cut rows' own product),
// the fits' inputs bit for bit.
TEST_P(WindowTokensTest, BoundsAndFitsFollowTheWindow) {
  const Captured cap = capture(GetParam());
  const int64_t L = cap.alpha.size(0), H = cap.alpha.size(1), K = 4;
  const LayerWindows windows{cap.windows, WindowTokens::Visible};
  WorkerPool pool(2);
  const auto queries = all_queries();
  const io::FloatView A = model::float_view(cap.alpha), V = model::float_view(cap.values);
  metrics::EnvelopeStats envelopes(L, H, std::ssize(kGrid), 1.0);
  metrics::add_window_bounds(pool, A, V, queries, kGrid, windows, envelopes);
  metrics::AssumptionStats stats(L, H, T, K, metrics::last_query_tokens(windows, L, T));
  ASSERT_TRUE(metrics::add_window_assumptions(pool, cap.alpha, cap.values, queries, stats, windows));
  for (int64_t l = 0; l < L; ++l) {
    // The cut rows of every query of layer l, each its own one-query window.
    metrics::EnvelopeStats cut_env(1, H, std::ssize(kGrid), 1.0);
    for (int64_t q = 0; q < T; ++q) {
      const auto keys = windows.keys(q, l);
      const auto a = cap.alpha.index({Slice(l, l + 1), Slice(), Slice(q, q + 1), Slice(keys.first, q + 1)}).contiguous();
      const auto v = cap.values.index({Slice(l, l + 1), Slice(), Slice(keys.first, q + 1)}).contiguous();
      metrics::add_window_bounds(pool, model::float_view(a), model::float_view(v), {keys.n - 1}, kGrid, {}, cut_env);
    }
    for (int64_t h = 0; h < H; ++h) {
      EXPECT_EQ(envelopes.samples(l, h), cut_env.samples(0, h)) << "layer " << l;
      const auto x = envelopes.mean(l, h), y = cut_env.mean(0, h);
      geoattn::testing::expect_curves(x, y, 1e-12, "layer " + std::to_string(l));
    }
    // The last query's keys as a window of their own.
    const auto keys = windows.keys(T - 1, l);
    EXPECT_EQ(stats.tokens(l), keys.n);
    const auto a = cap.alpha.index({Slice(l, l + 1), Slice(), Slice(T - 1, T), Slice(keys.first, T)}).contiguous();
    const auto v = cap.values.index({Slice(l, l + 1), Slice(), Slice(keys.first, T)}).contiguous();
    metrics::AssumptionStats cut(1, H, keys.n, K);
    ASSERT_TRUE(metrics::add_window_assumptions(pool, a, v, {keys.n - 1}, cut));
    for (int64_t h = 0; h < H; ++h) {
      EXPECT_TRUE(same_bits(stats.mean_norm(l, h), cut.mean_norm(0, h))) << "layer " << l;
      EXPECT_TRUE(same_bits(stats.mean_row(l, h), cut.mean_row(0, h))) << "layer " << l;
      EXPECT_EQ(stats.mean_cv(l, h), cut.mean_cv(0, h)) << "layer " << l;
      EXPECT_TRUE(same_bits(stats.decay(l, h), cut.decay(0, h))) << "layer " << l;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TinyWindowed, WindowTokensTest, ::testing::Values("hf-tiny/mistral", "hf5/gemma3"),
                         [](const auto& info) { return info.param == "hf-tiny/mistral" ? "Mistral" : "Gemma3"; });

}  // namespace
