#include "geoattn/metrics_torch/selection.h"

#include <limits>

#include "core_tensor.h"
#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "geoattn/util/error.h"

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

// B independent samples, each its own value block, with orderings [B, O, n]: the CPU core over
// plain arrays, or the tensor path.
detail::CoreOut run_core(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values, const torch::Tensor& orders,
                         const std::vector<int64_t>& grid, const SelectionOptions& options, CoreStats* stats) {
  check_inputs(alpha, values, grid);
  if (orders.dim() != 3 || orders.size(0) != alpha.size(0) || orders.size(2) != alpha.size(1))
    fail("metrics: orders must be [B, O, n]");
  c10::InferenceMode inference;
  auto A = alpha.to(torch::kFloat64).contiguous();
  auto V = values.to(A.device(), torch::kFloat64).contiguous();
  auto O = orders.to(torch::kCPU, torch::kInt64).contiguous();
  const int64_t B = A.size(0), n = A.size(1);
  std::vector<int64_t> blocks(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) blocks[b] = b;
  if (A.is_cuda() || options.tensor_path) {
    const std::vector<detail::TensorGroup> groups = {{n, 0, A, O, blocks, grid}};
    return std::move(detail::core_tensor(V, groups, options.distance, options.max_chunk_bytes, 0, nullptr, stats).front());
  }
  const std::vector<detail::CoreGroup> groups = {
      {n, B, O.size(1), 0, detail::doubles_of(A), {O.data_ptr<int64_t>(), O.data_ptr<int64_t>() + O.numel()}, blocks, grid}};
  return std::move(detail::core_cpu(pool, model::float_view(V), groups, options.distance, 0, nullptr, stats).front());
}

// The curves of run_core's samples, [B, kCurveMetrics, G] (NaN where nothing is written).
torch::Tensor curves_of(const detail::CoreOut& out, const std::vector<int64_t>& grid) {
  auto curves = torch::full({out.S, kCurveMetrics, out.G}, std::numeric_limits<double>::quiet_NaN(), torch::kFloat64);
  detail::curves_from_counts(out, grid, 0, out.S, curves.data_ptr<double>(), kCurveMetrics * out.G, out.G);
  return curves;
}

torch::Tensor tensor_of(const std::vector<double>& v, std::vector<int64_t> shape) {
  return torch::tensor(v, torch::kFloat64).reshape(shape);
}

}  // namespace

torch::Tensor top_n_order_on_device(const torch::Tensor& alpha) {
  // SPEC §2: descending, equal alphas in position order (a stable sort). alpha + 0 turns a -0.0
  // into 0.0, which equals it: a device's radix sort would order the two by their bits.
  return std::get<1>(torch::sort(alpha.to(torch::kFloat64) + 0.0, /*stable=*/true, /*dim=*/-1, /*descending=*/true));
}

torch::Tensor top_n_order(const torch::Tensor& alpha) {
  if (alpha.is_cuda()) return top_n_order_on_device(alpha);
  auto A = alpha.to(torch::kCPU, torch::kFloat64).contiguous().view({-1, alpha.size(-1)});
  auto out = torch::empty(A.sizes(), torch::kInt64);
  const int64_t n = A.size(1);
  for (int64_t b = 0; b < A.size(0); ++b)
    detail::top_n_order({A.data_ptr<double>() + b * n, static_cast<size_t>(n)},
                        {out.data_ptr<int64_t>() + b * n, static_cast<size_t>(n)});
  return out.view(alpha.sizes()).to(alpha.device());
}

torch::Tensor random_orders(WorkerPool& pool, uint64_t seed, uint64_t key, int64_t R, int64_t B, int64_t n) {
  auto out = torch::empty({R, B, n}, torch::kInt64);
  random_orders_into(pool, seed, key, out);
  return out;
}

void random_orders_into(WorkerPool& pool, uint64_t seed, uint64_t key, const torch::Tensor& out) {
  if (out.dim() != 3 || out.scalar_type() != torch::kInt64 || out.is_cuda() || out.stride(2) != 1)
    fail("random_orders: the output must be [R, B, n] int64 on the CPU with contiguous rows");
  detail::random_orders(pool, seed, key, out.size(0), out.size(1), out.size(2), out.data_ptr<int64_t>(), out.stride(0),
                        out.stride(1));
}

OrderingCounts ordering_counts(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                               const torch::Tensor& orders, const std::vector<int64_t>& grid,
                               const SelectionOptions& options, CoreStats* stats) {
  const auto out = run_core(pool, alpha, values, orders, grid, options, stats);
  return {tensor_of(out.k_in, {out.S, out.O, out.G}), tensor_of(out.k_out, {out.S, out.O, out.G})};
}

SampleMetrics metrics_for_order(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                                const torch::Tensor& order, const std::vector<int64_t>& grid,
                                const SelectionOptions& options, CoreStats* stats) {
  const auto out = run_core(pool, alpha, values, order.unsqueeze(1), grid, options, stats);
  return {curves_of(out, grid), tensor_of(out.scalars, {out.S, kScalarMetrics})};
}

SampleMetrics selection_metrics(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                                const std::vector<int64_t>& grid, const SelectionOptions& options, CoreStats* stats) {
  check_inputs(alpha, values, grid);
  return metrics_for_order(pool, alpha, values, top_n_order(alpha.to(torch::kFloat64)), grid, options, stats);
}

}  // namespace geoattn::metrics
