// The metric core as tensor operations: what runs on CUDA (and on CPU for tests). Every
// ordering of a chunk of samples at once: y gathered in each order, prefix sums at the grid's
// N (s(N)), one batched product for every <s(N), y_k>, then E_k, its per-token rounding band
// (exact.h) and the ball counts, all on the device. Only the rare (sample, ordering, N) whose
// bands overlap come back to the host, once per chunk, for resolve_counts.
//
// Why prefix sums and a product here, and one Gram matrix on CPU: on a GPU the O(G n d)
// product runs on FP64 tensor cores, while an O(n^2) pass over a permuted Gram matrix per
// ordering is bound by memory bandwidth (8 MB per sample and ordering at n = 1024); on CPU the
// fused O(n^2) loop is cheaper than O(G n d) multiply-adds (core_cpu.cpp).
#include <algorithm>
#include <map>

#include "core_tensor.h"
#include "geoattn/metrics/metric_names.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics::detail {

namespace {

using torch::indexing::Slice;

// exact.h's formulas on tensors: elementwise, broadcasting.
struct TensorOps {
  static torch::Tensor select(const torch::Tensor& c, double a, const torch::Tensor& x) {
    return torch::where(c, torch::scalar_tensor(a, x.options()), x);
  }
  static torch::Tensor equal(const torch::Tensor& x, double y) { return x == y; }
  template <typename Y>
  static torch::Tensor not_greater(const torch::Tensor& x, const Y& y) { return (x > y).logical_not(); }
  static torch::Tensor either(const torch::Tensor& p, const torch::Tensor& q) { return p | q; }
  static torch::Tensor sqrt(const torch::Tensor& x) { return x.sqrt(); }
  static torch::Tensor abs(const torch::Tensor& x) { return x.abs(); }
};

// The values and bands of one chunk: E (or D) [s, o, G, n] and err of the same shape.
struct Banded {
  torch::Tensor E, err;
};

// SPEC §2 "Exact": E_k = ||y_k||^2 - 2 C_k with C_k = <s(N), y_k>; |error| <= band (a_k^2 + 2 a_k S_N).
Banded euclid(const torch::Tensor& C, const torch::Tensor& g, const torch::Tensor& a, const torch::Tensor& Sa,
              const torch::Tensor& band) {
  auto ak = a.unsqueeze(1).unsqueeze(1);  // [s, 1, 1, n]
  return {g.unsqueeze(1).unsqueeze(1) - 2 * C, band.view({1, 1, -1, 1}) * ak * (ak + 2 * Sa.unsqueeze(-1))};
}

// SPEC §2b: -q_k and its bound (exact.h's cosine_band), from C_k = <s(N), y_k> [s, o, G, n],
// s(N) [s, o, G, d], a [s, n] and S_N [s, o, G].
Banded cosine(const torch::Tensor& C, const torch::Tensor& Sg, const torch::Tensor& a, const torch::Tensor& Sa,
              const torch::Tensor& f_num, const torch::Tensor& f_norm, int64_t d) {
  auto s2 = (Sg * Sg).sum(-1).unsqueeze(-1);  // [s, o, G, 1]
  auto S = Sa.unsqueeze(-1);                  // [s, o, G, 1]
  const auto norm = cosine_norm<TensorOps>(s2, f_norm.view({1, 1, -1, 1}) * S * S);
  const auto band = cosine_band<TensorOps>(C, a.unsqueeze(1).unsqueeze(1), S, norm, f_num.view({1, 1, -1, 1}),
                                           rounding_gamma(d + 5));
  return {band.value, band.err};
}

// The certain and possible members of both balls from per-token intervals, as exact.h's
// resolve_counts decides them: [s, o, G] each.
struct Counts {
  torch::Tensor k_in, k_out, open;
};
Counts band_counts(const Banded& b, const torch::Tensor& sel) {
  auto lo = b.E - b.err, hi = b.E + b.err;
  auto out = sel.logical_not();
  auto lo_max = lo.masked_fill(out, -kInfinity).amax(-1, true), hi_max = hi.masked_fill(out, -kInfinity).amax(-1, true);
  auto lo_min = lo.masked_fill(sel, kInfinity).amin(-1, true), hi_min = hi.masked_fill(sel, kInfinity).amin(-1, true);
  auto out_c = (out & (hi <= lo_max)).sum(-1), out_p = (out & (lo <= hi_max)).sum(-1);
  auto in_c = (sel & (hi <= lo_min)).sum(-1), in_p = (sel & (lo <= hi_min)).sum(-1);
  return {in_c.to(torch::kFloat64), out_c.to(torch::kFloat64), (out_c != out_p) | (in_c != in_p)};
}

}  // namespace

std::vector<CoreOut> core_tensor(const torch::Tensor& V, const std::vector<TensorGroup>& groups, Distance distance,
                                 int64_t max_chunk_bytes, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats) {
  const int64_t K = V.size(0), T = V.size(1), d = V.size(2);
  const auto dev = V.device();
  const auto f64 = V.options();
  std::vector<CoreOut> outs;
  CoreStats total;
  for (const auto& grp : groups) {
    const int64_t S = grp.alpha.size(0), O = grp.orders.size(1), n = grp.n, G = static_cast<int64_t>(grp.grid.size());
    auto k_in = torch::zeros({S, O, G}, f64), k_out = torch::zeros({S, O, G}, f64);
    auto diag = torch::zeros({S, kDiagnostics, G}, f64), scalars = torch::zeros({S, kScalarMetrics}, f64);
    auto grid_t = torch::tensor(grp.grid, torch::kInt64).to(dev);
    std::vector<double> band_v, f_num_v, f_norm_v;
    for (int64_t N : grp.grid) {
      band_v.push_back(euclid_band_factor(N, d));
      f_num_v.push_back(cosine_num_factor(N, d));
      f_norm_v.push_back(cosine_norm_factor(N, d));
    }
    auto band = torch::tensor(band_v, torch::kFloat64).to(dev), f_num = torch::tensor(f_num_v, torch::kFloat64).to(dev);
    auto f_norm = torch::tensor(f_norm_v, torch::kFloat64).to(dev);
    auto block_t = torch::tensor(grp.block, torch::kInt64).to(dev);
    auto orders = grp.orders.to(dev, /*non_blocking=*/true);
    // One (sample, ordering) pair holds y in order, s(N), and about eight [G, n] tensors.
    const int64_t pair_bytes = 8 * (n * d + G * d + 8 * G * n);
    const int64_t pairs = std::max<int64_t>(1, max_chunk_bytes / pair_bytes);
    const int64_t s_chunk = std::max<int64_t>(1, pairs / O), o_chunk = std::min(O, pairs);

    for (int64_t s0 = 0; s0 < S; s0 += s_chunk) {
      const int64_t s1 = std::min(S, s0 + s_chunk), s = s1 - s0;
      auto A = grp.alpha.narrow(0, s0, s);                                            // [s, n]
      auto Vb = V.index_select(0, block_t.narrow(0, s0, s)).narrow(1, grp.first, n);  // [s, n, d]
      auto Y = A.unsqueeze(-1) * Vb;                                                  // y_k = alpha_k v_k
      auto vnorm = Vb.norm(2, -1);
      auto a = A * vnorm;                                                             // a_k = ||y_k||
      auto g = (Y * Y).sum(-1);                                                       // ||y_k||^2
      auto Yt = Y.transpose(1, 2).unsqueeze(1);                                       // [s, 1, d, n]
      for (int64_t o0 = 0; o0 < O; o0 += o_chunk) {
        const int64_t o = std::min(O, o0 + o_chunk) - o0;
        auto ord = orders.narrow(0, s0, s).narrow(1, o0, o);                          // [s, o, n]
        auto Yo = Y.unsqueeze(1).expand({s, o, n, d}).gather(2, ord.unsqueeze(-1).expand({s, o, n, d}));
        auto Sg = Yo.cumsum(2).index_select(2, grid_t - 1);                           // [s, o, G, d]: s(N)
        auto C = torch::matmul(Sg, Yt);                                               // [s, o, G, n]: <s(N), y_k>
        auto rank = torch::empty_like(ord).scatter_(2, ord, torch::arange(n, ord.options()).expand({s, o, n}));
        auto sel = rank.unsqueeze(2) < grid_t.view({1, 1, -1, 1});                   // [s, o, G, n]: k in I_N
        auto Sa = a.unsqueeze(1).expand({s, o, n}).gather(2, ord).cumsum(2).index_select(2, grid_t - 1);  // S_N
        const Banded b = distance == Distance::Cosine ? cosine(C, Sg, a, Sa, f_num, f_norm, d) : euclid(C, g, a, Sa, band);
        Counts c = band_counts(b, sel);
        total.decisions += s * o * G;
        // The open (sample, ordering, N): exactly, on the host.
        auto open = c.open.nonzero().cpu();  // [m, 3]
        if (open.size(0) > 0) {
          total.banded += open.size(0);
          auto E = b.E.index({open.select(1, 0).to(dev), open.select(1, 1).to(dev), open.select(1, 2).to(dev)}).cpu();
          auto err = b.err.index({open.select(1, 0).to(dev), open.select(1, 1).to(dev), open.select(1, 2).to(dev)}).cpu();
          auto in_mask = torch::where(sel.index({open.select(1, 0).to(dev), open.select(1, 1).to(dev), open.select(1, 2).to(dev)}),
                                      kInfinity, 0.0).to(torch::kFloat64).cpu().contiguous();
          auto A_host = A.cpu().contiguous(), V_host = Vb.cpu().contiguous();
          auto ord_host = ord.cpu().contiguous();
          auto kin_host = c.k_in.cpu(), kout_host = c.k_out.cpu();
          E = E.contiguous(), err = err.contiguous();
          for (int64_t m = 0; m < open.size(0); ++m) {
            const int64_t si = open[m][0].item<int64_t>(), oi = open[m][1].item<int64_t>(), gi = open[m][2].item<int64_t>();
            const ExactSample smp{A_host.data_ptr<double>() + si * n, V_host.data_ptr<double>() + si * n * d, n, d};
            const PendingCounts p{E.data_ptr<double>() + m * n, err.data_ptr<double>() + m * n,
                                  in_mask.data_ptr<double>() + m * n, ord_host.data_ptr<int64_t>() + (si * o + oi) * n,
                                  grp.grid[gi]};
            const BallCounts bc = resolve_counts(smp, p, distance, &total.exact_tokens);
            kin_host[si][oi][gi] = static_cast<double>(bc.k_in);
            kout_host[si][oi][gi] = static_cast<double>(bc.k_out);
          }
          c.k_in = kin_host.to(dev), c.k_out = kout_host.to(dev);
        }
        k_in.narrow(0, s0, s).narrow(1, o0, o).copy_(c.k_in);
        k_out.narrow(0, s0, s).narrow(1, o0, o).copy_(c.k_out);
        if (o0 > 0) continue;
        // SPEC §2 diagnostics of s(N) for ordering 0 (top-N).
        auto s_top = Sg.select(1, 0);                                                 // [s, G, d]
        auto s_norm = s_top.norm(2, -1);
        auto sel_top = sel.select(1, 0);                                              // [s, G, n]
        auto loo = [&](int64_t t) {
          auto in = sel_top.select(2, t);
          return torch::where(in, (s_top - Y.select(1, t).unsqueeze(1)).norm(2, -1), s_norm);
        };
        auto cos_with = [&](int64_t t) {
          auto v = Vb.select(1, t);                                                   // [s, d]
          return safe_cos<TensorOps>((s_top * v.unsqueeze(1)).sum(-1), s_norm, vnorm.select(1, t).unsqueeze(1));
        };
        // diag [S, kDiagnostics, G] holds the curves kS_norm .. kCos_s_vL (core_ordering.h).
        auto dg = diag.narrow(0, s0, s);
        const auto curve = [&](CurveMetric m) { return dg.select(1, m - kS_norm); };  // [s, G]
        curve(kS_norm).copy_(s_norm);
        curve(kS_loo_sink).copy_(loo(0));
        curve(kS_loo_last).copy_(loo(n - 1));
        curve(kCos_s_v0).copy_(cos_with(0));
        curve(kCos_s_vL).copy_(cos_with(n - 1));
      }
      // SPEC §3, §6: rho0, c_sink, c_last, c_rest.
      auto sc = scalars.narrow(0, s0, s);
      if (n > 1) {
        auto dots0 = (Vb.narrow(1, 1, n - 1) * Vb.narrow(1, 0, 1)).sum(-1);
        sc.select(1, kRho0).copy_(safe_cos<TensorOps>(dots0, vnorm.narrow(1, 0, 1), vnorm.narrow(1, 1, n - 1)).mean(-1));
      }
      sc.select(1, kC_sink).copy_(a.select(1, 0));
      sc.select(1, kC_last).copy_(a.select(1, n - 1));
      if (n > 2) sc.select(1, kC_rest).copy_(Y.narrow(1, 1, n - 2).sum(1).norm(2, -1));
    }
    outs.push_back({S, O, G, doubles_of(k_in.cpu()), doubles_of(k_out.cpu()), doubles_of(diag.cpu()),
                    doubles_of(scalars.cpu())});
  }
  if (geometry) {
    auto norms_t = torch::zeros({K, T}, torch::kFloat64), decay_t = torch::zeros({K, std::max<int64_t>(decay_k, 0)}, torch::kFloat64);
    const int64_t chunk = std::max<int64_t>(1, max_chunk_bytes / std::max<int64_t>(1, T * T * 8));
    for (int64_t b0 = 0; b0 < K; b0 += chunk) {
      auto Vc = V.narrow(0, b0, std::min(K, b0 + chunk) - b0);
      auto norms = Vc.norm(2, -1);
      norms_t.narrow(0, b0, Vc.size(0)).copy_(norms);
      if (decay_k <= 0) continue;
      // SPEC §4: cos(v_i, v_{i+lag}) summed over pairs f < i, i + lag < T, per lag, on the device,
      // block by block where the blocks' first keys f differ (SPEC §1: windowed layers).
      auto inv = torch::where(norms > 0, 1.0 / norms.clamp_min(1e-300), torch::zeros_like(norms));  // [k, T]
      for (int64_t r0 = 0; r0 < Vc.size(0);) {
        const int64_t f = geometry->first.empty() ? 0 : geometry->first[b0 + r0];
        int64_t r1 = r0 + 1;
        while (r1 < Vc.size(0) && (geometry->first.empty() ? 0 : geometry->first[b0 + r1]) == f) ++r1;
        auto Vr = Vc.narrow(0, r0, r1 - r0), invr = inv.narrow(0, r0, r1 - r0);
        for (int64_t lag = 1; lag <= decay_k && lag <= T - f - 2; ++lag) {
          auto dots = (Vr.index({Slice(), Slice(f + 1, T - lag)}) * Vr.index({Slice(), Slice(f + 1 + lag, T)})).sum(-1);
          auto scale = invr.index({Slice(), Slice(f + 1, T - lag)}) * invr.index({Slice(), Slice(f + 1 + lag, T)});
          decay_t.narrow(0, b0 + r0, r1 - r0).select(1, lag - 1).copy_((dots * scale).sum(-1));
        }
        r0 = r1;
      }
    }
    geometry->norms = doubles_of(norms_t), geometry->decay_sums = doubles_of(decay_t);
  }
  if (stats) stats->merge(total);
  return outs;
}

std::vector<double> doubles_of(const torch::Tensor& t) {
  auto c = t.to(torch::kCPU, torch::kFloat64).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

}  // namespace geoattn::metrics::detail
