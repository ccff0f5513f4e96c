#include "geoattn/metrics/window_bounds.h"

#include "geoattn/arch/config.h"
#include "geoattn/metrics/selection.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

using torch::indexing::Slice;

void add_window_bounds(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                       const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                       const analysis::BoundsOptions& options, analysis::BoundsTables& tables) {
  c10::InferenceMode inference;
  const int64_t L = alpha.size(0), H = alpha.size(1), KV = values.size(1), d = values.size(3);
  if (tables.layers != L || tables.heads != H) fail("bounds tables are {}x{}, the window {}x{}", tables.layers, tables.heads, L, H);
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    const int64_t n = queries[qi] + 1;  // tokens 0..q
    for (int64_t l = 0; l < L; ++l) {
      auto V = values[l].index({Slice(), Slice(0, n)}).to(torch::kFloat64);  // [KV, n, d]
      auto norms = V.norm(2, -1);                                             // [KV, n]
      // rho_jk = cos(v_j, v_k), 0 with a zero vector (SPEC §3's convention).
      auto U = torch::where(norms.unsqueeze(-1) > 0, V / norms.clamp_min(1e-300).unsqueeze(-1), torch::zeros_like(V));
      auto rho = torch::bmm(U, U.transpose(1, 2)).cpu().contiguous();       // [KV, n, n]
      auto A = alpha.index({l, Slice(), static_cast<int64_t>(qi), Slice(0, n)}).to(torch::kFloat64);  // [H, n]
      std::vector<int64_t> kv_of(static_cast<size_t>(H));
      for (int64_t h = 0; h < H; ++h) kv_of[h] = arch::kv_head_of(h, H, KV);
      auto kv_of_head = torch::tensor(kv_of, torch::kInt64).to(norms.device());
      auto a = (A * norms.index_select(0, kv_of_head)).cpu().contiguous();  // a_i = alpha_i ||v_i||
      auto order = metrics::top_n_order(A).cpu().contiguous();

      std::vector<analysis::BoundsCurves> curves(static_cast<size_t>(H));
      pool.parallel_for(H, [&](int64_t h0, int64_t h1, int) {
        for (int64_t h = h0; h < h1; ++h) {
          analysis::BoundsInput in;
          in.a = Eigen::Map<const Eigen::VectorXd>(a.data_ptr<double>() + h * n, n);
          // rho is symmetric: its row-major bytes read as the same column-major matrix.
          in.rho = Eigen::Map<const Eigen::MatrixXd>(rho.data_ptr<double>() + arch::kv_head_of(h, H, KV) * n * n, n, n);
          in.order.assign(order.data_ptr<int64_t>() + h * n, order.data_ptr<int64_t>() + (h + 1) * n);
          in.d = d;
          std::vector<int64_t> valid;
          for (int64_t N : grid)
            if (N <= n) valid.push_back(N);
          curves[h] = analysis::sample_bounds(in, valid, options);
        }
      });
      for (int64_t h = 0; h < H; ++h) tables.add(l, h, curves[h]);
    }
  }
}

}  // namespace geoattn::metrics
