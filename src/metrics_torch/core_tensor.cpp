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
#include "geoattn/metrics/core/metric_names.h"
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

// The grid as an index tensor and its per-N rounding factors (exact.h), on the device.
struct GridFactors {
  torch::Tensor grid, band, f_num, f_norm;  // [G] each
};
GridFactors grid_factors(const std::vector<int64_t>& grid, int64_t d, const torch::Device& dev) {
  std::vector<double> band, f_num, f_norm;
  for (const int64_t N : grid) {
    band.push_back(euclid_band_factor(N, d));
    f_num.push_back(cosine_num_factor(N, d));
    f_norm.push_back(cosine_norm_factor(N, d));
  }
  const auto on = [&](const std::vector<double>& v) { return torch::tensor(v, torch::kFloat64).to(dev); };
  return {torch::tensor(grid, torch::kInt64).to(dev), on(band), on(f_num), on(f_norm)};
}

// A chunk of samples [s0, s0 + s) of a group: their rows and values, y_k = alpha_k v_k and its norms.
struct SampleChunk {
  int64_t s0, s;
  torch::Tensor A;      // [s, n]: alpha
  torch::Tensor Vb;     // [s, n, d]: the values of the sample's block, from its first key
  torch::Tensor vnorm;  // [s, n]: ||v_k||
  torch::Tensor Y;      // [s, n, d]: y_k
  torch::Tensor a;      // [s, n]: a_k = ||y_k||
  torch::Tensor g;      // [s, n]: ||y_k||^2
};
SampleChunk sample_chunk(const torch::Tensor& V, const TensorGroup& grp, const torch::Tensor& block, int64_t s0, int64_t s) {
  SampleChunk c{s0, s};
  c.A = grp.alpha.narrow(0, s0, s);
  c.Vb = V.index_select(0, block.narrow(0, s0, s)).narrow(1, grp.first, grp.n);
  c.Y = c.A.unsqueeze(-1) * c.Vb;
  c.vnorm = c.Vb.norm(2, -1);
  c.a = c.A * c.vnorm;
  c.g = (c.Y * c.Y).sum(-1);
  return c;
}

// The orderings [o0, o0 + o) of a chunk: s(N) at the grid, the selection I_N, the values E_k or
// -q_k with their bands, and the counts where the bands decide them.
struct OrderingChunk {
  torch::Tensor ord;  // [s, o, n]: the orderings
  torch::Tensor Sg;   // [s, o, G, d]: s(N)
  torch::Tensor sel;  // [s, o, G, n]: k in I_N
  Banded b;           // [s, o, G, n]
  Counts counts;      // [s, o, G]
};
OrderingChunk ordering_chunk(const SampleChunk& c, const torch::Tensor& orders, const GridFactors& f, Distance distance,
                             int64_t o0, int64_t o) {
  const int64_t s = c.s, n = c.Y.size(1), d = c.Y.size(2);
  OrderingChunk k;
  k.ord = orders.narrow(0, c.s0, s).narrow(1, o0, o);
  auto Yo = c.Y.unsqueeze(1).expand({s, o, n, d}).gather(2, k.ord.unsqueeze(-1).expand({s, o, n, d}));
  k.Sg = Yo.cumsum(2).index_select(2, f.grid - 1);
  auto C = torch::matmul(k.Sg, c.Y.transpose(1, 2).unsqueeze(1));  // [s, o, G, n]: <s(N), y_k>
  auto rank = torch::empty_like(k.ord).scatter_(2, k.ord, torch::arange(n, k.ord.options()).expand({s, o, n}));
  k.sel = rank.unsqueeze(2) < f.grid.view({1, 1, -1, 1});
  auto Sa = c.a.unsqueeze(1).expand({s, o, n}).gather(2, k.ord).cumsum(2).index_select(2, f.grid - 1);  // S_N [s, o, G]
  k.b = distance == Distance::Cosine ? cosine(C, k.Sg, c.a, Sa, f.f_num, f.f_norm, d) : euclid(C, c.g, c.a, Sa, f.band);
  k.counts = band_counts(k.b, k.sel);
  return k;
}

// The open (sample, ordering, N) of a chunk, counted exactly on the host (exact.h's
// resolve_counts) into its counts.
void resolve_open(const SampleChunk& c, OrderingChunk& k, const std::vector<int64_t>& grid, Distance distance,
                  CoreStats& total) {
  auto open = k.counts.open.nonzero().cpu();  // [m, 3]
  if (open.size(0) == 0) return;
  const auto dev = c.Y.device();
  const int64_t n = c.Y.size(1), d = c.Y.size(2), o = k.ord.size(1);
  total.banded += open.size(0);
  const auto at = [&](const torch::Tensor& t) {
    return t.index({open.select(1, 0).to(dev), open.select(1, 1).to(dev), open.select(1, 2).to(dev)});
  };
  auto E = at(k.b.E).cpu().contiguous(), err = at(k.b.err).cpu().contiguous();
  auto in_mask = torch::where(at(k.sel), kInfinity, 0.0).to(torch::kFloat64).cpu().contiguous();
  auto A_host = c.A.cpu().contiguous(), V_host = c.Vb.cpu().contiguous(), ord_host = k.ord.cpu().contiguous();
  auto kin_host = k.counts.k_in.cpu(), kout_host = k.counts.k_out.cpu();
  for (int64_t m = 0; m < open.size(0); ++m) {
    const int64_t si = open[m][0].item<int64_t>(), oi = open[m][1].item<int64_t>(), gi = open[m][2].item<int64_t>();
    const ExactSample smp{A_host.data_ptr<double>() + si * n, V_host.data_ptr<double>() + si * n * d, n, d};
    const PendingCounts p{E.data_ptr<double>() + m * n, err.data_ptr<double>() + m * n, in_mask.data_ptr<double>() + m * n,
                          ord_host.data_ptr<int64_t>() + (si * o + oi) * n, grid[gi]};
    const BallCounts bc = resolve_counts(smp, p, distance, &total.exact_tokens);
    kin_host[si][oi][gi] = static_cast<double>(bc.k_in);
    kout_host[si][oi][gi] = static_cast<double>(bc.k_out);
  }
  k.counts.k_in = kin_host.to(dev), k.counts.k_out = kout_host.to(dev);
}

// SPEC §2's diagnostics of s(N) for ordering 0 (top-N) into dg [s, kDiagnostics, G], which holds
// the curves kS_norm .. kCos_s_vL (core_ordering.h).
void top_diagnostics(const SampleChunk& c, const OrderingChunk& k, torch::Tensor dg) {
  const int64_t n = c.Y.size(1);
  auto s_top = k.Sg.select(1, 0);  // [s, G, d]
  auto s_norm = s_top.norm(2, -1);
  auto sel_top = k.sel.select(1, 0);  // [s, G, n]
  auto loo = [&](int64_t t) {
    return torch::where(sel_top.select(2, t), (s_top - c.Y.select(1, t).unsqueeze(1)).norm(2, -1), s_norm);
  };
  auto cos_with = [&](int64_t t) {
    auto v = c.Vb.select(1, t);  // [s, d]
    return safe_cos<TensorOps>((s_top * v.unsqueeze(1)).sum(-1), s_norm, c.vnorm.select(1, t).unsqueeze(1));
  };
  const auto curve = [&](CurveMetric m) { return dg.select(1, m - kS_norm); };  // [s, G]
  curve(kS_norm).copy_(s_norm);
  curve(kS_loo_sink).copy_(loo(0));
  curve(kS_loo_last).copy_(loo(n - 1));
  curve(kCos_s_v0).copy_(cos_with(0));
  curve(kCos_s_vL).copy_(cos_with(n - 1));
}

// SPEC §3, §6: rho0, c_sink, c_last, c_rest of a chunk into sc [s, kScalarMetrics].
void chunk_scalars(const SampleChunk& c, torch::Tensor sc) {
  const int64_t n = c.Y.size(1);
  if (n > 1) {
    auto dots0 = (c.Vb.narrow(1, 1, n - 1) * c.Vb.narrow(1, 0, 1)).sum(-1);
    sc.select(1, kRho0).copy_(safe_cos<TensorOps>(dots0, c.vnorm.narrow(1, 0, 1), c.vnorm.narrow(1, 1, n - 1)).mean(-1));
  }
  sc.select(1, kC_sink).copy_(c.a.select(1, 0));
  sc.select(1, kC_last).copy_(c.a.select(1, n - 1));
  if (n > 2) sc.select(1, kC_rest).copy_(c.Y.narrow(1, 1, n - 2).sum(1).norm(2, -1));
}

// One group: every chunk of samples and orderings within max_chunk_bytes.
CoreOut group_tensor(const torch::Tensor& V, const TensorGroup& grp, Distance distance, int64_t max_chunk_bytes,
                     CoreStats& total) {
  const int64_t S = grp.alpha.size(0), O = grp.orders.size(1), n = grp.n, G = std::ssize(grp.grid), d = V.size(2);
  const auto dev = V.device();
  const auto f64 = V.options();
  auto k_in = torch::zeros({S, O, G}, f64), k_out = torch::zeros({S, O, G}, f64);
  auto diag = torch::zeros({S, kDiagnostics, G}, f64), scalars = torch::zeros({S, kScalarMetrics}, f64);
  const GridFactors f = grid_factors(grp.grid, d, dev);
  const auto block = torch::tensor(grp.block, torch::kInt64).to(dev);
  const auto orders = grp.orders.to(dev, /*non_blocking=*/true);
  // One (sample, ordering) pair holds y in order, s(N), and about eight [G, n] tensors.
  const int64_t pair_bytes = 8 * (n * d + G * d + 8 * G * n);
  const int64_t pairs = std::max<int64_t>(1, max_chunk_bytes / pair_bytes);
  const int64_t s_chunk = std::max<int64_t>(1, pairs / O), o_chunk = std::min(O, pairs);
  for (int64_t s0 = 0; s0 < S; s0 += s_chunk) {
    const SampleChunk c = sample_chunk(V, grp, block, s0, std::min(S, s0 + s_chunk) - s0);
    for (int64_t o0 = 0; o0 < O; o0 += o_chunk) {
      const int64_t o = std::min(O, o0 + o_chunk) - o0;
      OrderingChunk k = ordering_chunk(c, orders, f, distance, o0, o);
      total.decisions += c.s * o * G;
      resolve_open(c, k, grp.grid, distance, total);
      k_in.narrow(0, s0, c.s).narrow(1, o0, o).copy_(k.counts.k_in);
      k_out.narrow(0, s0, c.s).narrow(1, o0, o).copy_(k.counts.k_out);
      if (o0 == 0) top_diagnostics(c, k, diag.narrow(0, s0, c.s));
    }
    chunk_scalars(c, scalars.narrow(0, s0, c.s));
  }
  return {S, O, G, doubles_of(k_in.cpu()), doubles_of(k_out.cpu()), doubles_of(diag.cpu()), doubles_of(scalars.cpu())};
}

// SPEC §4's value statistics on the device (the tensor path's own copy of value_geometry.cpp's:
// the values stay where they are, and torch's reductions give their own order): per key
// ||v_i||, and per lag cos(v_i, v_{i+lag}) summed over the pairs f < i, i + lag < T, block by
// block where the blocks' first keys f differ (SPEC §1: windowed layers).
void geometry_tensor(const torch::Tensor& V, int64_t max_chunk_bytes, int64_t decay_k, ValueGeometry& geometry) {
  const int64_t K = V.size(0), T = V.size(1), d = V.size(2);
  // Both on V's device, to the host once at the end (not a round trip per lag).
  auto norms_t = torch::zeros({K, T}, V.options()), decay_t = torch::zeros({K, std::max<int64_t>(decay_k, 0)}, V.options());
  // A chunk of blocks: their values read in place; per lag one [T, d] product a block, and a few
  // [T] arrays (its dots, scales, norms).
  const int64_t chunk = std::max<int64_t>(1, max_chunk_bytes / std::max<int64_t>(1, 8 * T * (d + 6)));
  const auto first = [&](int64_t b) { return geometry.first.empty() ? 0 : geometry.first[b]; };
  for (int64_t b0 = 0; b0 < K; b0 += chunk) {
    auto Vc = V.narrow(0, b0, std::min(K, b0 + chunk) - b0);
    auto norms = Vc.norm(2, -1);
    norms_t.narrow(0, b0, Vc.size(0)).copy_(norms);
    if (decay_k <= 0) continue;
    auto inv = torch::where(norms > 0, 1.0 / norms.clamp_min(1e-300), torch::zeros_like(norms));  // [k, T]
    for (int64_t r0 = 0; r0 < Vc.size(0);) {
      const int64_t f = first(b0 + r0);
      int64_t r1 = r0 + 1;
      while (r1 < Vc.size(0) && first(b0 + r1) == f) ++r1;
      auto Vr = Vc.narrow(0, r0, r1 - r0), invr = inv.narrow(0, r0, r1 - r0);
      for (int64_t lag = 1; lag <= decay_k && lag <= T - f - 2; ++lag) {
        auto dots = (Vr.index({Slice(), Slice(f + 1, T - lag)}) * Vr.index({Slice(), Slice(f + 1 + lag, T)})).sum(-1);
        auto scale = invr.index({Slice(), Slice(f + 1, T - lag)}) * invr.index({Slice(), Slice(f + 1 + lag, T)});
        decay_t.narrow(0, b0 + r0, r1 - r0).select(1, lag - 1).copy_((dots * scale).sum(-1));
      }
      r0 = r1;
    }
  }
  geometry.norms = doubles_of(norms_t), geometry.decay_sums = doubles_of(decay_t);
}

}  // namespace

std::vector<CoreOut> core_tensor(const torch::Tensor& V, const std::vector<TensorGroup>& groups, Distance distance,
                                 int64_t max_chunk_bytes, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats) {
  std::vector<CoreOut> outs;
  CoreStats total;
  for (const auto& grp : groups) outs.push_back(group_tensor(V, grp, distance, max_chunk_bytes, total));
  if (geometry) geometry_tensor(V, max_chunk_bytes, decay_k, *geometry);
  if (stats) stats->merge(total);
  return outs;
}

std::vector<double> doubles_of(const torch::Tensor& t) {
  auto c = t.to(torch::kCPU, torch::kFloat64).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

}  // namespace geoattn::metrics::detail
