#include "geoattn/metrics/selection.h"

#include <limits>

#include "core.h"
#include "geoattn/metrics/metric_names.h"
#include "geoattn/util/error.h"
#include "geoattn/util/random.h"

namespace geoattn::metrics {

namespace {

void check_inputs(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& grid) {
  if (alpha.dim() != 2 || values.dim() != 3 || values.size(0) != alpha.size(0) || values.size(1) != alpha.size(1))
    fail("metrics: alpha must be [B, n] and values [B, n, d]");
  const int64_t n = alpha.size(1);
  if (n < 1) fail("metrics: a sample needs at least one token");
  for (int64_t N : grid)
    if (N < 1 || N > n) fail("metrics: N = {} is outside 1..{}", N, n);
}

// B independent samples: each its own value block.
detail::CoreGroup independent(const torch::Tensor& A, const torch::Tensor& orders, const std::vector<int64_t>& grid) {
  detail::CoreGroup g;
  g.n = A.size(1);
  g.alpha = A;
  g.orders = orders.to(torch::kCPU, torch::kInt64).contiguous();
  for (int64_t b = 0; b < A.size(0); ++b) g.block.push_back(b);
  g.grid = grid;
  return g;
}

detail::CoreOut run_core(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values, const torch::Tensor& orders,
                         const std::vector<int64_t>& grid, const SelectionOptions& options, CoreStats* stats) {
  check_inputs(alpha, values, grid);
  if (orders.dim() != 3 || orders.size(0) != alpha.size(0) || orders.size(2) != alpha.size(1))
    fail("metrics: orders must be [B, O, n]");
  c10::InferenceMode inference;
  auto A = alpha.to(torch::kFloat64).contiguous();
  auto V = values.to(A.device(), torch::kFloat64).contiguous();
  const std::vector<detail::CoreGroup> groups = {independent(A, orders, grid)};
  auto outs = (A.is_cuda() || options.tensor_path)
                  ? detail::core_tensor(V, groups, options.distance, options.max_chunk_bytes, 0, nullptr, stats)
                  : detail::core_cpu(pool, V, groups, options.distance, 0, nullptr, stats);
  return std::move(outs.front());
}

}  // namespace

void CoreStats::merge(const CoreStats& o) {
  decisions += o.decisions, banded += o.banded, exact_tokens += o.exact_tokens;
  gram_s += o.gram_s, top_s += o.top_s, controls_s += o.controls_s;
}

namespace detail {
void curves_from_counts(const CoreOut& out, const std::vector<int64_t>& grid, const torch::Tensor& curves) {
  const int64_t O = out.k_in.size(1), G = static_cast<int64_t>(grid.size());
  auto N = torch::tensor(grid, torch::kFloat64).view({1, 1, G});
  // One metric at a time: its [S, O, G] temporaries are most of this function's memory.
  for (int k = 0; k < kControlled; ++k) {
    // SPEC §2: P(r_max, N) = N / (N + K_out), R(r_min, N) = K_in / N, F = 2x / (1 + x).
    const int metric = kP_rmax + k;
    auto x = metric == kP_rmax || metric == kF_rmax ? N / (N + out.k_out) : out.k_in / N;
    if (metric == kF_rmax || metric == kF_rmin) x = 2 * x / (1 + x);
    curves.select(1, metric).copy_(x.select(1, 0));
    // SPEC §2b: the control is each sample's mean over its random orderings.
    if (O > 1) curves.select(1, kFirstOptionalCurve + k).copy_(x.narrow(1, 1, O - 1).mean(1));
  }
  curves.narrow(1, kS_norm, kDiagnostics).copy_(out.diag);
}

torch::Tensor curves_from_counts(const CoreOut& out, const std::vector<int64_t>& grid) {
  auto curves = torch::full({out.k_in.size(0), kCurveMetrics, static_cast<int64_t>(grid.size())},
                            std::numeric_limits<double>::quiet_NaN(), torch::kFloat64);
  curves_from_counts(out, grid, curves);
  return curves;
}
}  // namespace detail

torch::Tensor top_n_order(const torch::Tensor& alpha) {
  // Stable descending sort: equal alphas keep position order, lower position first (SPEC §2).
  return std::get<1>(alpha.sort(/*stable=*/true, /*dim=*/-1, /*descending=*/true));
}

torch::Tensor random_orders(WorkerPool& pool, uint64_t seed, uint64_t key, int64_t R, int64_t B, int64_t n) {
  auto out = torch::empty({R, B, n}, torch::kInt64);
  random_orders_into(pool, seed, key, out);
  return out;
}

void random_orders_into(WorkerPool& pool, uint64_t seed, uint64_t key, const torch::Tensor& out) {
  if (out.dim() != 3 || out.scalar_type() != torch::kInt64 || out.is_cuda() || out.stride(2) != 1)
    fail("random_orders: the output must be [R, B, n] int64 on the CPU with contiguous rows");
  const int64_t B = out.size(1), n = out.size(2), R_stride = out.stride(0), B_stride = out.stride(1);
  int64_t* p = out.data_ptr<int64_t>();
  // Each (r, b) has its own stream: the permutations do not depend on the thread count.
  pool.parallel_for(out.size(0) * B, [&](int64_t begin, int64_t end, int) {
    for (int64_t rb = begin; rb < end; ++rb) {
      uint64_t mix = seed ^ 0x6A09E667F3BCC909ULL;
      uint64_t state = splitmix64_next(mix) ^ key;
      state = splitmix64_next(state) ^ static_cast<uint64_t>(rb);
      int64_t* perm = p + (rb / B) * R_stride + (rb % B) * B_stride;
      for (int64_t i = 0; i < n; ++i) perm[i] = i;
      for (int64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[uniform_below(state, static_cast<uint64_t>(i + 1))]);
    }
  });
}

OrderingCounts ordering_counts(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                               const torch::Tensor& orders, const std::vector<int64_t>& grid,
                               const SelectionOptions& options, CoreStats* stats) {
  auto out = run_core(pool, alpha, values, orders, grid, options, stats);
  return {out.k_in, out.k_out};
}

SampleMetrics metrics_for_order(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                                const torch::Tensor& order, const std::vector<int64_t>& grid,
                                const SelectionOptions& options, CoreStats* stats) {
  const auto out = run_core(pool, alpha, values, order.unsqueeze(1), grid, options, stats);
  return {detail::curves_from_counts(out, grid), out.scalars};
}

SampleMetrics selection_metrics(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                                const std::vector<int64_t>& grid, const SelectionOptions& options, CoreStats* stats) {
  check_inputs(alpha, values, grid);
  return metrics_for_order(pool, alpha, values, top_n_order(alpha.to(torch::kFloat64)), grid, options, stats);
}

}  // namespace geoattn::metrics
