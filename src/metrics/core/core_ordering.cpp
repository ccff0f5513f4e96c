// One ordering of one sample (core_ordering.h). For sample alpha [n] over a block's Gram matrix
// VV and ordering pi, selecting token t = pi(N-1) at step N adds one row: c_k += alpha_t VV[t, k],
// so that c_k = sum_{t in I_N} alpha_t VV_tk and <s(N), y_k> = alpha_k c_k. At a grid N:
//   E_k = ||y_k||^2 - 2 <s(N), y_k> = g_k - 2 alpha_k c_k                 (SPEC §2, "Exact")
//   r_max = max_{k in I_N} E_k, r_min = min_{k not in I_N} E_k,
//   K_out = #{k not in I_N : E_k <= r_max}, K_in = #{k in I_N : E_k <= r_min},
// each count decided within the rounding band of exact.h, the rest by resolve_counts. Where most
// steps are grid values (`--n all`), the state is E itself (E_k += -2 alpha_k alpha_t VV[t, k]
// a step, core_kernels.h's TokenState::direct), which the counting pass reads instead of computing.
// Where a grid value comes 2d or more steps after the one before, c can be made again there from
// s(N) instead, c_k = <s(N), v_k> (OrderingPlan says where). O(n^2) per ordering at most, no d
// factor; the d factor is paid once per block, in the Gram product.
#include "geoattn/metrics/core/detail/core_ordering.h"

#include <algorithm>
#include <cmath>

#include "geoattn/metrics/core/detail/core.h"
#include "core_kernels.h"

namespace geoattn::metrics::detail {

namespace {

void fit(OrderingScratch& sc, int64_t n, int64_t d) {
  for (auto* v : {&sc.c, &sc.c_next, &sc.E, &sc.err, &sc.a, &sc.g, &sc.m}) v->resize(static_cast<size_t>(n));
  sc.in.assign(static_cast<size_t>((n + 7) / 8), 0);
  sc.s.resize(static_cast<size_t>(d));
}

// Token t joins I_N, in both forms of the mask (core_kernels.h: m, and its bits `in`).
void select_token(OrderingScratch& sc, int64_t t) {
  sc.m[t] = kInfinity;
  sc.in[t >> 3] = static_cast<uint8_t>(sc.in[t >> 3] | 1u << (t & 7));
}

// SPEC §2 diagnostics of s(N) at grid index gi (ordering 0 only), from s in coordinates.
void diagnostics(const Sample& smp, std::span<const double> s, bool sink_in, bool last_in, int64_t G, int64_t gi,
                 std::span<double> diag) {
  const int64_t d = smp.block.d, L = smp.n() - 1;
  const auto v0 = smp.block.V.row(0, d), vL = smp.block.V.row(L, d);
  const double s_norm = std::sqrt(dot(s, s));
  // ||s - y_t|| where token t is selected, else ||s||.
  auto loo = [&](bool in, std::span<const double> v, double alpha) { return in ? distance_to_scaled(s, alpha, v) : s_norm; };
  diag[0 * G + gi] = s_norm;
  diag[1 * G + gi] = loo(sink_in, v0, smp.alpha[0]);
  diag[2 * G + gi] = loo(last_in, vL, smp.alpha[L]);
  diag[3 * G + gi] = safe_cos(dot(s, v0), s_norm, smp.block.norms[0]);
  diag[4 * G + gi] = safe_cos(dot(s, vL), s_norm, smp.block.norms[L]);
}

// SPEC §3, §6: rho0 = mean_{j>=1} cos(v_0, v_j), c_sink, c_last, c_rest.
void sample_scalars(const Sample& smp, std::span<double> out, OrderingScratch& sc) {
  const int64_t n = smp.n(), d = smp.block.d, L = n - 1;
  const auto& V = smp.block.V;
  const auto& norms = smp.block.norms;
  double rho0 = 0;
  for (int64_t j = 1; j < n; ++j) rho0 += safe_cos(dot(V.row(0, d), V.row(j, d)), norms[0], norms[j]);
  out[kRho0] = n > 1 ? rho0 / static_cast<double>(n - 1) : 0.0;
  out[kC_sink] = smp.alpha[0] * norms[0];
  out[kC_last] = smp.alpha[L] * norms[L];
  std::fill(sc.s.begin(), sc.s.end(), 0.0);
  for (int64_t i = 1; i < L; ++i) add_row(smp.alpha[i], V.row(i, d), sc.s);
  out[kC_rest] = n > 2 ? std::sqrt(dot(sc.s, sc.s)) : 0.0;
}

// The cosine distance (SPEC §2b) at one N: -q_k into E and its bound into err (exact.h's
// cosine_band), from <s, y_k> = alpha_k c_k and ||s||^2 = s2.
void cosine_values(const Sample& smp, double s2, double S, int64_t N, OrderingScratch& sc) {
  const int64_t n = smp.n(), d = smp.block.d;
  const double f_num = cosine_num_factor(N, d), g_norm = rounding_gamma(d + 5);
  const auto norm = cosine_norm(s2, cosine_norm_factor(N, d) * S * S);
  for (int64_t k = 0; k < n; ++k) {
    const auto band = cosine_band(smp.alpha[k] * sc.c[k], sc.a[k], S, norm, f_num, g_norm);
    sc.E[k] = band.value;
    sc.err[k] = band.err;
  }
}

// The Euclidean band of step N: the thresholds r_max -/+ 2U, r_min -/+ 2U, with one band U
// for every token (a_max); the per-token bands only where it leaves a count open.
Thresholds euclid_thresholds(int64_t N, int64_t d, double S, double a_max, const Extremes& x) {
  const double U = euclid_band_factor(N, d) * a_max * (a_max + 2 * S);
  return {x.r_max - 2 * U, x.r_max + 2 * U, x.r_min - 2 * U, x.r_min + 2 * U};
}

// c_k = <s(N), v_k> = sum_m s_m V^T[m, k]: d rows of V^T added to zeros, kRowsAtOnce a pass
// over c (add_rows: the bits of add_row once per row, in m's order).
void make_c(const Block& blk, std::span<const double> s, std::span<double> c) {
  const auto n = static_cast<int64_t>(c.size()), d = blk.d;
  std::fill(c.begin(), c.end(), 0.0);
  StepRows rows;
  for (int64_t m = 0; m < d; ++m) {
    rows.a[rows.count] = s[m], rows.x[rows.count] = blk.Vt.row(m, n).data();
    if (++rows.count == kRowsAtOnce || m + 1 == d) {
      rows.next = blk.Vt.row(std::min(m + 1, d - 1), n).data();
      add_rows(rows, c);
      rows.count = 0;
    }
  }
}

ExactSample exact_sample(const Sample& smp) { return {smp.alpha.data(), smp.block.V.data, smp.n(), smp.block.d}; }

// The counts of step N from band_counts' bands; E and the mask m as of step N. Exact where the
// band leaves a count open.
BallCounts euclid_counts(const Sample& smp, std::span<const int64_t> order, int64_t N, double S, const BandCounts& c,
                         std::span<const double> E, OrderingScratch& sc, CoreStats& stats) {
  ++stats.decisions;
  if (c.decided()) return {c.in_certain, c.out_certain};
  ++stats.banded;
  const BandCounts t = token_band_counts(E, sc.a, sc.m, N, S, euclid_band_factor(N, smp.block.d), sc.err);
  if (t.decided()) return {t.in_certain, t.out_certain};
  const PendingCounts pending{E.data(), sc.err.data(), sc.m.data(), order.data(), N};
  return resolve_counts(exact_sample(smp), pending, Distance::Euclidean, &stats.exact_tokens);
}

// The cosine counts of step N, once c holds step N (always through the per-token bands).
BallCounts cosine_counts(const Sample& smp, std::span<const int64_t> order, int64_t N, double S, double s2,
                         OrderingScratch& sc, CoreStats& stats) {
  ++stats.decisions;
  cosine_values(smp, s2, S, N, sc);
  const PendingCounts pending{sc.E.data(), sc.err.data(), sc.m.data(), order.data(), N};
  return resolve_counts(exact_sample(smp), pending, Distance::Cosine, &stats.exact_tokens);
}

}  // namespace

OrderingPlan OrderingPlan::of(const std::vector<int64_t>& grid, int64_t n, int64_t d, Distance distance) {
  OrderingPlan plan;
  const auto G = static_cast<int64_t>(grid.size());
  const bool cosine = distance == Distance::Cosine;
  const bool prefix = plan.prefix = per_grid_value_cheaper(G, d, n);
  // SPEC §2: at N = n every token is selected, so K_out = 0 and K_in = n (R = P = 1, as
  // resolve_counts finds it too). Where the grid holds n, the steps after the grid value before
  // it add no Gram row (s(N), for the diagnostics, still takes every token in order).
  const auto whole = std::find(grid.begin(), grid.end(), n);
  plan.last_counted = whole == grid.end() ? n : whole == grid.begin() ? 0 : *(whole - 1);
  // Where most steps are grid values (SPEC §2's `all`), the state is E itself, E_k += -2 alpha_t
  // alpha_k VV[t, k] a step (core_kernels.h, TokenState::direct): no E computed from c at each
  // step. Elsewhere it is c, and E is computed from it at the grid's N only.
  plan.direct = !cosine && !prefix && 2 * G >= plan.last_counted;
  // A grid value `gap` steps after the one before: gap Gram rows added to c, or c made again from
  // d rows of V^T times s(N) (exact.cpp: either way within the same rounding bound); the latter
  // where it reads at most half the rows (gap >= 2d), and where the d-vector s(N), kept a step at
  // a time up to the last such value (a control ordering keeps it for nothing else), costs less
  // than the rows saved. Not on the direct state (E, not c), nor with the cosine distance over the
  // Gram matrix (its ||s||^2 reads c at every step).
  plan.remade.assign(static_cast<size_t>(G), 0);
  int64_t rows_saved = 0;
  for (int64_t gi = 0; gi < G && grid[gi] <= plan.last_counted; ++gi) {
    const int64_t gap = grid[gi] - (gi == 0 ? 0 : grid[gi - 1]);
    plan.remade[gi] = prefix || (!plan.direct && !cosine && gap >= 2 * d);
    if (!plan.remade[gi]) continue;
    plan.last_remade = grid[gi];
    rows_saved += gap - d;
  }
  if (!prefix && rows_saved * n <= 2 * plan.last_remade * d) {
    std::fill(plan.remade.begin(), plan.remade.end(), 0);
    plan.last_remade = 0;
  }
  return plan;
}

void run_ordering(const Sample& smp, std::span<const int64_t> order, const std::vector<int64_t>& grid,
                  Distance distance, const OrderingOutputs& out, OrderingScratch& sc, CoreStats& stats) {
  const Block& blk = smp.block;
  const OrderingPlan& plan = smp.plan;
  const int64_t n = smp.n(), d = blk.d, G = static_cast<int64_t>(grid.size()), last_counted = plan.last_counted;
  const bool direct = plan.direct;
  fit(sc, n, d);
  double a_max = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double alpha = smp.alpha[k];
    sc.a[k] = alpha * blk.norms[k];       // a_k = ||y_k||
    sc.g[k] = alpha * (alpha * blk.sq[k]);  // ||y_k||^2
    sc.m[k] = -kInfinity;
    a_max = std::max(a_max, sc.a[k]);
  }
  const bool top = !out.diag.empty(), cosine = distance == Distance::Cosine;
  std::fill(sc.s.begin(), sc.s.end(), 0.0);
  double S = 0, s2 = 0;
  Extremes extremes{0, 0};
  bool sink_in = false, last_in = false;
  // A Euclidean grid N whose band counts ride on the next step's pass (consecutive grid values),
  // which computes step N's E again from c.
  struct Deferred {
    bool active = false;
    int64_t N = 0, gi = 0;
    double S = 0;
    Thresholds thresholds{};
  } deferred;
  auto store = [&](int64_t gi, const BallCounts& bc) {
    out.k_in[gi] = static_cast<double>(bc.k_in);
    out.k_out[gi] = static_cast<double>(bc.k_out);
  };
  for (int64_t k = 0; k < n; ++k) sc.c[k] = direct ? sc.g[k] : 0.0;
  const double weight = direct ? -2.0 : 1.0;  // a step's row enters the state as weight alpha_t VV[t, :]
  const TokenState tokens{sc.g, smp.alpha, sc.m, direct, sc.in};
  StepRows pending;  // steps' rows not yet added to c
  if (direct) pending.alpha = smp.alpha.data();
  const auto flush = [&](const double* next) {
    if (pending.count == 0) return;
    pending.next = next;
    add_rows(pending, sc.c);
    pending.count = 0;
  };
  int64_t gi = 0;
  for (int64_t N = 1; N <= n && gi < G; ++N) {
    const int64_t t = order[N - 1];
    const double at = smp.alpha[t];
    // Step N's Gram row and the next step's (c made from s(N) at grid[gi]: c itself, added with
    // weight 0 below).
    const bool remade = plan.remade[gi] != 0;
    const auto row = remade || plan.prefix ? std::span<const double>(sc.c) : blk.gram.row(t, n);
    const auto next = N < n && !plan.prefix ? blk.gram.row(order[N], n) : row;
    // ||s(N)||^2 = ||s(N-1)||^2 + 2 <s(N-1), y_t> + ||y_t||^2 (cosine, the Gram way)
    if (cosine && !plan.prefix) s2 += 2 * (at * sc.c[t]) + sc.g[t];
    S += sc.a[t];
    select_token(sc, t);
    // s(N) in coordinates: for the diagnostics (top-N, summed as before: their bits), or to make c
    // from (fused, a pass of add_row)
    if (top) {
      const auto vt = blk.V.row(t, d);
      for (int64_t m = 0; m < d; ++m) sc.s[m] += at * vt[m];
    } else if (N <= plan.last_remade) {
      add_row(at, blk.V.row(t, d), sc.s);
    }
    if (top) {
      sink_in |= t == 0;
      last_in |= t == n - 1;
    }
    if (N > last_counted) {
      if (N < n) continue;
      store(gi, {n, 0});  // N = n
      if (top) diagnostics(smp, sc.s, sink_in, last_in, G, gi, out.diag);
      ++gi;
      continue;
    }
    if (N != grid[gi]) {
      // A step between grid values adds its row with the next ones, up to kRowsAtOnce at a time
      // (one at a time with the cosine distance: s2 reads c at every step).
      if (at != 0 && !remade) {
        pending.a[pending.count] = weight * at, pending.x[pending.count] = row.data();
        if (++pending.count == kRowsAtOnce || cosine) flush(next.data());
      }
      continue;
    }
    flush(row.data());  // c as of step N - 1, for the evaluating pass
    double step = weight * at;  // the row's weight in the evaluating pass
    if (remade) {
      // c_k = <s(N), v_k> from the transposed values; s2 from s.
      make_c(blk, sc.s, sc.c);
      if (cosine) s2 = dot(sc.s, sc.s);
      step = 0;  // c + 0 c = c: the same passes, nothing added
    }
    bool E_stored = true;  // step N's E in sc.E (the fused pass keeps it in c alone)
    if (deferred.active) {
      // Step N's c and extremes and step N - 1's counts in one pass, c into c_next; with the state
      // E itself, in place where step N - 1's E can be taken back within its band (a buffer fewer
      // through L1: bench metrics' control orderings 0.41-0.43 s where 0.44-0.45 s). Taken back,
      // E'_k = fma(-a, alpha_k x_k, E_k) with the pass's own product adds at most u/(1-u) (|E_k| +
      // |E'_k|) <= gamma_2 (1 + gamma) (2 + a_t / S_{N-1}) (a_k^2 + 2 a_k S_{N-1}) to the direct
      // state's gamma_{N+d+3} (a_k^2 + 2 a_k S_{N-1}) (exact.cpp; E_k moves by at most 2 a_t a_k a
      // step). Where 2 a_t <= (N - 4) S_{N-1}, that is within gamma_{N+d+3} + gamma_{N+1} <=
      // gamma_{2N+d+4}, the half of step N - 1's band that bounds E's error (exact.h), its factor 2
      // kept for the rest. Elsewhere (small N, a token far heavier than those before it) the two
      // buffers: a band at S_N there sent 60,000 tokens a window of stories260K's measure to exact
      // arithmetic, where none.
      const bool in_place = direct && 2 * sc.a[t] <= static_cast<double>(N - 4) * deferred.S;
      const auto pass = add_row_evaluate_and_count({step, row, next}, tokens, sc.c, in_place ? sc.c : sc.c_next,
                                                   deferred.thresholds, deferred.N, t);
      extremes = pass.extremes;
      // Step N - 1's E, as the pass had it: in sc.c (direct, two buffers) or into sc.E.
      if (!pass.previous.decided()) {
        if (in_place) {
          for (int64_t k = 0; k < n; ++k) sc.E[k] = std::fma(-step, smp.alpha[k] * row[k], sc.c[k]);
        } else if (!direct) {
          evaluate(tokens, sc.c, sc.E);
        }
      }
      sc.m[t] = -kInfinity;  // step N - 1's mask for the exact resolution
      store(deferred.gi, euclid_counts(smp, order, deferred.N, deferred.S, pass.previous,
                                       direct && !in_place ? sc.c : sc.E, sc, stats));
      sc.m[t] = kInfinity;
      if (!in_place) std::swap(sc.c, sc.c_next);
      deferred.active = false;
      E_stored = false;
    } else {
      extremes = add_row_and_evaluate({step, row, next}, tokens, sc.c, sc.E);
    }
    if (cosine) {
      store(gi, cosine_counts(smp, order, N, S, s2, sc, stats));
    } else {
      const Thresholds thresholds = euclid_thresholds(N, d, S, a_max, extremes);
      // (Not where the next grid value makes c again before its pass: the fused pass takes step
      // N's E from c.)
      if (gi + 1 < G && grid[gi + 1] == N + 1 && N + 1 <= last_counted && !plan.remade[gi + 1]) {
        deferred = {true, N, gi, S, thresholds};
      } else {
        if (!E_stored && !direct) evaluate(tokens, sc.c, sc.E);
        const std::span<const double> E = direct ? sc.c : sc.E;
        store(gi, euclid_counts(smp, order, N, S, band_counts(E, sc.m, N, thresholds), E, sc, stats));
      }
    }
    if (top) diagnostics(smp, sc.s, sink_in, last_in, G, gi, out.diag);
    ++gi;
  }
  if (!out.scalars.empty()) sample_scalars(smp, out.scalars, sc);
}

}  // namespace geoattn::metrics::detail
