// One window's per-sample bounds (SPEC §5) into the run's envelopes (window_bounds.h).
#include "geoattn/metrics/core/window_bounds.h"

#include <cmath>

#include "core.h"
#include "core_gram.h"
#include "geoattn/arch/config.h"
#include "geoattn/util/error.h"
#include "geoattn/util/n_grid.h"

namespace geoattn::metrics {

std::vector<double> window_kappas(const EnvelopeStats& envelopes, const KappaStats* scan, int64_t L, int64_t H, int64_t Q,
                                  const std::vector<int64_t>& queries) {
  if (envelopes.layers() != L || envelopes.heads() != H)
    fail("envelopes are {}x{}, the window {}x{}", envelopes.layers(), envelopes.heads(), L, H);
  if (std::ssize(queries) != Q) fail("internal: {} query positions for {} rows", queries.size(), Q);
  if (scan && (scan->layers() != L || scan->heads() != H)) fail("kappa stats are {}x{}, the window {}x{}", scan->layers(), scan->heads(), L, H);
  std::vector<double> kappas = {envelopes.kappa()};
  if (scan) kappas.insert(kappas.end(), scan->kappas().begin(), scan->kappas().end());
  return kappas;
}

void add_window_bounds(WorkerPool& pool, const io::FloatView& alpha, const io::FloatView& values,
                       const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, const LayerWindows& windows,
                       EnvelopeStats& envelopes, KappaStats* scan, int64_t scan_row) {
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2), T = alpha.size(3);
  const int64_t KV = values.size(1), d = values.size(3);
  // One pass over each sample for all the kappas.
  const std::vector<double> kappas = window_kappas(envelopes, scan, L, H, Q, queries);
  detail::load_blas();
  for_each_query_layer(queries, L, grid, windows, [&](int64_t qi, int64_t l, QueryKeys keys, const std::vector<int64_t>& valid) {
    const int64_t n = keys.n, first = keys.first;  // SPEC §1: tokens first..q
    const int64_t ld = detail::gram_stride(n);
    // Per KV head: the norms ||v_i|| [n] and rho_jk = cos(v_j, v_k) [n, n] (0 with a zero vector,
    // SPEC §3's convention), the Gram of the unit vectors.
    std::vector<std::vector<double>> norms(KV), rho(KV);
    std::vector<char> symmetric(static_cast<size_t>(KV), 0);
    pool.parallel_for(KV, [&](int64_t k0, int64_t k1, int) {
      for (int64_t kv = k0; kv < k1; ++kv) {
        std::vector<double> U(static_cast<size_t>(n * d));
        values.to_double(((l * KV + kv) * T + first) * d, U);
        norms[kv].assign(static_cast<size_t>(n), 0);
        for (int64_t i = 0; i < n; ++i) {
          double s = 0;
          for (int64_t c = 0; c < d; ++c) s += U[i * d + c] * U[i * d + c];
          norms[kv][i] = std::sqrt(s);
          for (int64_t c = 0; c < d; ++c) U[i * d + c] = norms[kv][i] > 0 ? U[i * d + c] / norms[kv][i] : 0;
        }
        rho[kv].assign(static_cast<size_t>(n * ld), 0);
        symmetric[static_cast<size_t>(kv)] = detail::block_gram(U.data(), n, d, rho[kv].data(), ld);
      }
    });
    std::vector<std::vector<analysis::BoundsCurves>> curves(static_cast<size_t>(H));  // [H][kappa]
    pool.parallel_for(H, [&](int64_t h0, int64_t h1, int) {
      for (int64_t h = h0; h < h1; ++h) {
        const int64_t kv = arch::kv_head_of(h, H, KV);
        std::vector<double> row(static_cast<size_t>(n));
        alpha.to_double(((l * H + h) * Q + qi) * T + first, row);
        Eigen::VectorXd a(n);  // [n]
        for (int64_t i = 0; i < n; ++i) a[i] = row[i] * norms[kv][i];  // a_i = alpha_i ||v_i||
        std::vector<int64_t> order(static_cast<size_t>(n));
        detail::top_n_order(row, order);
        // rho [n, n] read in place (the KV head's Gram, shared by its query heads).
        const analysis::BoundsView in{
            a, Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>(rho[kv].data(), n, n, Eigen::OuterStride<>(ld)),
            order, d, symmetric[static_cast<size_t>(kv)] != 0};
        curves[h] = analysis::sample_bounds(in, valid, kappas);
      }
    });
    for (int64_t h = 0; h < H; ++h) {
      envelopes.add(l, h, curves[h][0]);
      if (scan) scan->add(scan_row, l, h, std::span<const analysis::BoundsCurves>(curves[h]).subspan(1));
    }
  });
}

}  // namespace geoattn::metrics
