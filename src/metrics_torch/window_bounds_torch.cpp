// SPEC §5's per-sample bounds in tensor ops (window_bounds_torch.h): analysis/bounds.cpp's
// incremental quantities as scans over the selection order (ranks), at the grid's N only.
#include "geoattn/metrics_torch/window_bounds_torch.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core_tensor.h"
#include "geoattn/arch/config.h"
#include "geoattn/metrics/core/window_bounds.h"
#include "geoattn/metrics_torch/selection.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "geoattn/util/error.h"
#include "geoattn/util/n_grid.h"

namespace geoattn::metrics {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// out[r] = max_{r' >= r} x[r'] along `dim`.
torch::Tensor suffix_max(const torch::Tensor& x, int64_t dim) {
  return std::get<0>(torch::cummax(x.flip(dim), dim)).flip(dim);
}

// SPEC §5 / eq. 10: mu_ij = (a_j^2 - a_i^2) - 2 a_j M_j + 2 a_i M_i (bounds_formulas.h's order of operations).
torch::Tensor mu_of(const torch::Tensor& a_i, const torch::Tensor& a_j, const torch::Tensor& M_i, const torch::Tensor& M_j) {
  return (a_j * a_j - a_i * a_i) - 2 * a_j * M_j + 2 * a_i * M_i;
}

// SPEC §5 / eq. 9 (bounds_formulas.h's p_of_mu, pair_p): 1/2 for mu <= 0; 0 where sigma = 0 (xi =
// +inf) or where exp underflows; else phi(xi) xi / (xi^2 + 1) with xi = mu / sigma.
torch::Tensor p_of_mu(const torch::Tensor& mu, const torch::Tensor& sigma) {
  const auto xi = mu / sigma;
  const auto x2 = xi * xi;
  auto p = analysis::kInvSqrt2Pi * torch::exp(-0.5 * xi * xi) * xi / (x2 + 1);
  p.masked_fill_(x2.le(analysis::kPairPZeroPast).logical_not(), 0.0);
  return p.masked_fill_(mu.gt(0).logical_not(), 0.5);
}

// SPEC §5 / Thm 1-2: the Chernoff tail e^{-kappa d (margin/B)^2} where margin > 0, else 1; 0 where B = 0.
torch::Tensor tail(const torch::Tensor& margin, const torch::Tensor& B, double kappa, int64_t d) {
  const auto r = margin / B;
  auto t = torch::exp(-kappa * static_cast<double>(d) * r * r);
  t.masked_fill_(B.le(0), 0.0);
  return t.masked_fill_(margin.gt(0).logical_not(), 1.0);
}

// Bytes of the working tensors of one sample of n tokens (value vectors of d) at G grid values:
// rho by rank [n, n]; its per-step maxima, their running and suffix maxima ([n, G + 2], four at
// the peak); the unit vectors by rank and their weighted prefix sums ([n, d] each); the [G, n]
// arrays of the upper bounds.
int64_t sample_bytes(int64_t n, int64_t d, int64_t G) {
  return 8 * (n * n + 4 * n * (G + 2) + 2 * n * d + 24 * G * n) + 1;
}

}  // namespace

std::vector<std::vector<analysis::BoundsCurves>> tensor_sample_bounds(const torch::Tensor& a, const torch::Tensor& U,
                                                                      const torch::Tensor& order, int64_t d,
                                                                      const std::vector<int64_t>& grid,
                                                                      std::span<const double> kappas) {
  c10::InferenceMode inference;
  check_n_grid(grid, "bounds");
  if (a.dim() != 2 || U.dim() != 3 || order.sizes() != a.sizes())
    fail("bounds: a must be [S, n], U [S, n, d'] and order [S, n]");
  const int64_t S = a.size(0), n = a.size(1), G = std::ssize(grid);
  if (U.size(0) != S || U.size(1) != n) fail("bounds: U must be [S, n, d'] for a [S, n]");
  if (grid.back() > n) fail("bounds: N = {} is past the sample's {} tokens", grid.back(), n);
  if (kappas.empty()) fail("bounds: no kappa");
  const auto dev = a.device();
  const auto Nt = torch::tensor(grid, torch::kInt64).to(dev);  // [G]
  const auto Nd = Nt.to(torch::kFloat64);                      // [G]
  const auto last = Nt - 1;                                    // [G]: the rank of I_N's last token
  const auto next = Nt.clamp_max(n - 1);                       // [G]: the first out rank (unread at N = n)
  const auto sink = order.eq(0);                               // [S, n] by rank
  const auto a_r = a.gather(1, order);                         // [S, n]: a by rank
  const auto U_r = U.gather(1, order.unsqueeze(2).expand({S, n, U.size(2)}));  // [S, n, d']: u by rank
  // SPEC §5 / eq. 7: S_in, a_in_min, a_in_max over I_N \ {0}, scans by rank (the sink a blank).
  const auto a_ns = a_r.masked_fill(sink, 0.0);
  const auto S_in = a_ns.cumsum(1).index_select(1, last);                            // [S, G]
  const auto sink_in = sink.to(torch::kInt64).cumsum(1).index_select(1, last).gt(0);  // [S, G]
  const auto no_in = Nt.unsqueeze(0).sub(sink_in.to(torch::kInt64)).le(0);          // [S, G]: I_N \ {0} empty
  const auto a_in_min =
      std::get<0>(torch::cummin(a_r.masked_fill(sink, kInf), 1)).index_select(1, last).masked_fill(no_in, 0.0);
  const auto a_in_max =
      std::get<0>(torch::cummax(a_r.masked_fill(sink, -kInf), 1)).index_select(1, last).masked_fill(no_in, 0.0);
  // SPEC §5 / eq. 7: a_out_max = max_{j not in I_N} a_j, a suffix max by rank.
  const auto a_out_max = suffix_max(a_r, 1).index_select(1, next);  // [S, G]
  torch::Tensor rho_out;
  {
    // SPEC §5 / eq. 7: rho_out = max_{j not in I_N, k in I_N \ {0}} rho_jk, from rho by rank on
    // both sides (one product of the unit vectors by rank: rho_{order[r], order[c]}): per row (a
    // rank j) the max over each grid step's in-ranks (the columns c with N_{g-1} <= c < N_g; the
    // sink's column to a step of its own, G + 1, never read), a running max over the steps
    // (c < N_g), then a suffix max over the rows (j >= N_g).
    const auto by_rank = torch::bmm(U_r, U_r.transpose(1, 2));  // [S, n, n]
    const auto step = torch::searchsorted(Nt, torch::arange(n, Nt.options()), false, /*right=*/true)  // [n]: #{N <= c}
                          .unsqueeze(0).expand({S, n}).masked_fill(sink, G + 1);                    // [S, n]
    const auto steps = torch::full({S, n, G + 2}, -kInf, by_rank.options())
                           .scatter_reduce_(2, step.unsqueeze(1).expand({S, n, n}), by_rank, "amax");
    const auto in_max = std::get<0>(torch::cummax(steps.narrow(2, 0, G), 2));  // [S, n, G]
    rho_out = suffix_max(in_max, 1).gather(1, next.view({1, 1, G}).expand({S, 1, G})).squeeze(1).masked_fill(no_in, 0.0);
  }
  // SPEC §5 / eq. 11: M_j = sum_{l in I_N \ {0}} a_l rho_lj = <sum_{l in I_N \ {0}} a_l u_l, u_j>:
  // the weighted unit vectors' prefix sums by rank at the grid's N, then one product.
  const auto W = (U_r * a_ns.unsqueeze(2)).cumsum(1).index_select(1, last);  // [S, G, d']
  const auto M = torch::bmm(W, U.transpose(1, 2));                            // [S, G, n] over tokens j
  // SPEC §5 / eq. 8: Delta = a_in_min^2 - 2 a_out_max S_in rho_out, B = a_in_max + a_out_max + S_in;
  // appendix eq. 29: Delta0 = a_0^2 - (S_in rho_out)^2.
  const auto Delta = a_in_min * a_in_min - 2 * a_out_max * S_in * rho_out;  // [S, G]
  const auto a0 = a.select(1, 0).unsqueeze(1);
  const auto Delta0 = a0 * a0 - (S_in * rho_out) * (S_in * rho_out);
  const auto B = a_in_max + a_out_max + S_in;

  // The upper bounds (bounds.cpp's upper()): with c_j = a_j^2 - 2 a_j M_j and e_i = 2 a_i M_i - a_i^2,
  // mu_ij = c_j + e_i; max_j p_ij is at the first out-token in (c_j, j) order, or beside the peak.
  const auto rank = torch::empty_like(order).scatter_(1, order, torch::arange(n, order.options()).expand({S, n}));
  const auto in = rank.unsqueeze(1).lt(Nt.view({1, G, 1}));  // [S, G, n]: i in I_N
  const auto a_t = a.unsqueeze(1);                            // [S, 1, n]
  const auto c = (a * a).unsqueeze(1) - 2 * a_t * M;          // [S, G, n]
  auto [sorted_c, sorted_j] = torch::sort(c.masked_fill(in, kInf), /*stable=*/true, 2, false);  // in-tokens last
  const auto first = sorted_j.narrow(2, 0, 1);  // [S, G, 1]: the first out-token, the lower j on a tie
  const auto c_first = sorted_c.narrow(2, 0, 1);
  const auto a_of = [&](const torch::Tensor& j) { return a.gather(1, j.flatten(1)).view_as(j); };
  const auto mu_first = mu_of(a_t, a_of(first), M, M.gather(2, first));  // [S, G, n] over i
  const auto e = 2 * a_t * M - a_t * a_t;
  const auto m_out = (n - Nt).view({1, G, 1});
  // SPEC §5, kappa -> 0+: P_up0 = 1 - [exists i, j: mu_ij <= 0] / (2 (N+1)),
  // R_up0 = (1/N) sum_i (1 - (1/2) [exists j: mu_ij <= 0]).
  const auto reached = (mu_first.gt(0).logical_not() & in).sum(2).to(torch::kFloat64);  // [S, G]
  auto P_up0 = 1 - reached.gt(0).to(torch::kFloat64) * 0.5 / (Nd + 1);
  auto R_up0 = (Nd - 0.5 * reached) / Nd;
  // SPEC §5: N = 1 and N = q+1 give P = R = 1 identically; the flags are those of an open N.
  const auto closed = (Nt.eq(1) | Nt.eq(n)).unsqueeze(0).expand({S, G});
  P_up0.masked_fill_(closed, 1.0), R_up0.masked_fill_(closed, 1.0);
  const auto open = closed.logical_not();
  const auto nontrivial = open & Delta.gt(0);  // SPEC §5: the lower bounds say more than N/(q+1) and 0
  const auto n_out = n - Nd;

  std::vector<torch::Tensor> per_kappa;  // [S, 4, G] each: P_lo, P_up, R_lo, R_up
  for (const double kappa : kappas) {
    if (!(kappa > 0) || !std::isfinite(kappa)) fail("bounds: kappa = {} must be a finite number > 0", kappa);
    // SPEC §5 / eq. 10: sigma = B / sqrt(2 kappa d).
    const auto sigma = (B / std::sqrt(2 * kappa * static_cast<double>(d))).unsqueeze(2);  // [S, G, 1]
    auto best = p_of_mu(mu_first, sigma);  // [S, G, n]
    const auto c_peak = analysis::pair_p_mode() * sigma - e;
    const auto search = best.lt(0.5) & sigma.gt(0) & c_peak.gt(c_first) & in;
    const auto at = torch::searchsorted(sorted_c, c_peak);  // the first out-token with c_j >= c_peak
    const auto p_at = [&](const torch::Tensor& idx, const torch::Tensor& valid) {
      const auto j = sorted_j.gather(2, idx.clamp(0, n - 1));
      return p_of_mu(mu_of(a_t, a_of(j), M, M.gather(2, j)), sigma).masked_fill_(valid.logical_not(), 0.0);
    };
    best = torch::where(search, torch::maximum(best, torch::maximum(p_at(at, at.lt(m_out)), p_at(at - 1, at.gt(1)))), best);
    // SPEC §5 / eq. 13: P_up = 1 - max_{i in I_N, j not in I_N} p_ij / (N+1);
    // eq. 15: R_up = (1/N) sum_{i in I_N} (1 - max_{j not in I_N} p_ij).
    const auto P_up = 1 - best.masked_fill(in.logical_not(), 0.0).amax(2) / (Nd + 1);
    const auto R_up = (1 - best).masked_fill_(in.logical_not(), 0.0).sum(2) / Nd;
    // SPEC §5 / Thm 1 eq. 12, Thm 2 eq. 14 (bounds_formulas.h's lower_bounds).
    const auto t = tail(Delta, B, kappa, d), t0 = tail(Delta0, B, kappa, d);
    const auto union_sum = n_out * t + (n_out / Nd * t0).masked_fill_(sink_in.logical_not(), 0.0);
    const auto P_lo = torch::maximum(Nd / static_cast<double>(n), 1.0 / (1.0 + union_sum));
    const auto R_lo = (1.0 - union_sum).clamp_min(0.0);
    per_kappa.push_back(torch::stack({P_lo, P_up, R_lo, R_up}, 1).masked_fill_(closed.unsqueeze(1), 1.0));
  }

  // To the host: [K, S, 4, G] bounds, [S, 5, G] the kappa-free ones and the flags.
  const auto bounds = detail::doubles_of(torch::stack(per_kappa));
  const auto free = detail::doubles_of(torch::stack(
      {P_up0, R_up0, open.to(torch::kFloat64), nontrivial.to(torch::kFloat64), sink_in.to(torch::kFloat64)}, 1));
  std::vector<std::vector<analysis::BoundsCurves>> out(static_cast<size_t>(S),
                                                       std::vector<analysis::BoundsCurves>(kappas.size()));
  for (int64_t s = 0; s < S; ++s)
    for (size_t k = 0; k < kappas.size(); ++k)
      for (int64_t g = 0; g < G; ++g) {
        const auto at = [&](int64_t curve) { return bounds[((static_cast<int64_t>(k) * S + s) * 4 + curve) * G + g]; };
        const auto fr = [&](int64_t curve) { return free[(s * 5 + curve) * G + g]; };
        analysis::append_bounds(out[s][k], at(0), at(1), at(2), at(3), fr(0), fr(1), fr(2) != 0, fr(3) != 0, fr(4) != 0);
      }
  return out;
}

void add_window_bounds(WorkerPool& pool, const torch::Tensor& alpha, const torch::Tensor& values,
                       const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, const LayerWindows& windows,
                       EnvelopeStats& envelopes, KappaStats* scan, int64_t scan_row, const BoundsPath& path) {
  if (alpha.dim() != 4 || values.dim() != 4) fail("bounds: alpha must be [L, H, Q, T] and values [L, KV, T, d]");
  if (!alpha.is_cuda() && !path.tensor_path) {
    const auto A = alpha.contiguous(), V = values.contiguous();
    add_window_bounds(pool, model::float_view(A), model::float_view(V), queries, grid, windows, envelopes, scan, scan_row);
    return;
  }
  c10::InferenceMode inference;
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2);
  const int64_t KV = values.size(1), d = values.size(3);
  const std::vector<double> kappas = window_kappas(envelopes, scan, L, H, Q, queries);
  const auto kv_of = torch::tensor(arch::kv_heads_of(H, KV), torch::kInt64).to(values.device());  // [H]
  // The (query, layer) pairs in for_each_query_layer's order; a run of consecutive layers whose
  // query sees the same keys (every layer, without windowed ones) goes at once, in blocks of
  // layers whose samples fit the chunk (or a layer's heads in chunks, where one layer's do not).
  struct Pair {
    int64_t qi, l;
    QueryKeys keys;
    std::vector<int64_t> valid;
  };
  std::vector<Pair> pairs;
  for_each_query_layer(queries, L, grid, windows, [&](int64_t qi, int64_t l, QueryKeys keys, const std::vector<int64_t>& valid) {
    pairs.push_back({qi, l, keys, valid});
  });
  for (size_t p0 = 0; p0 < pairs.size();) {
    const auto& [qi, l0, keys, valid] = pairs[p0];
    const int64_t n = keys.n, first = keys.first;  // SPEC §1: tokens first..q
    const int64_t per_chunk = std::clamp<int64_t>(path.max_chunk_bytes / sample_bytes(n, d, std::ssize(valid)), 1, L * H);
    size_t p1 = p0 + 1;
    while (p1 < pairs.size() && pairs[p1].qi == qi && pairs[p1].l == pairs[p1 - 1].l + 1 && pairs[p1].keys.first == first &&
           pairs[p1].keys.n == n && static_cast<int64_t>(p1 - p0) < std::max<int64_t>(1, per_chunk / H))
      ++p1;
    const int64_t Lb = static_cast<int64_t>(p1 - p0), S = Lb * H;  // layers l0 .. l0 + Lb - 1, samples (l - l0) H + h
    // Per KV head: ||v_i|| and the unit vectors u_i = v_i / ||v_i|| (0 for a zero vector: rho =
    // cos(v_j, v_k) is then 0, SPEC §3's convention).
    const auto V = values.narrow(0, l0, Lb).narrow(2, first, n).to(torch::kFloat64).reshape({Lb * KV, n, d});
    const auto norms = (V * V).sum(2).sqrt();  // [Lb KV, n]
    const auto U = (V / norms.unsqueeze(2)).masked_fill_(norms.eq(0).unsqueeze(2), 0.0);  // [Lb KV, n, d]
    const auto A = alpha.narrow(0, l0, Lb).select(2, qi).narrow(2, first, n).to(torch::kFloat64).reshape({S, n});
    const auto order = top_n_order(A);  // [S, n]: the metric core's I_N
    const auto kv = (torch::arange(Lb, kv_of.options()).unsqueeze(1) * KV + kv_of.unsqueeze(0)).reshape({S});  // [S]
    const auto a = A * norms.index_select(0, kv);  // [S, n]: a_i = alpha_i ||v_i||
    for (int64_t s0 = 0; s0 < S; s0 += per_chunk) {
      const int64_t s1 = std::min(S, s0 + per_chunk);
      const auto curves = tensor_sample_bounds(a.slice(0, s0, s1), U.index_select(0, kv.slice(0, s0, s1)),
                                               order.slice(0, s0, s1), d, valid, kappas);
      for (int64_t s = s0; s < s1; ++s) {
        const int64_t l = l0 + s / H, h = s % H;
        envelopes.add(l, h, curves[s - s0][0]);
        if (scan) scan->add(scan_row, l, h, std::span<const analysis::BoundsCurves>(curves[s - s0]).subspan(1));
      }
    }
    p0 = p1;
  }
}

}  // namespace geoattn::metrics
