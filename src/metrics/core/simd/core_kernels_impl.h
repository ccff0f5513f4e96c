// The metric core's fused loops (core_kernels.h), written once and compiled once per
// instruction set: core_kernels_{avx512,avx2,baseline}.cpp each define GEOATTN_KERNEL_LEVEL (a
// namespace name) and include this file under their -march. Each kernel is one pass over the
// tokens with `omp simd` reductions (vectorisation only: no OpenMP runtime), but for the
// AVX-512 level's evaluating passes, in intrinsics (evaluate_pass: the selection as mask registers).
//
// The same bits from every level: every product added to a sum is fused into it with std::fma
// (one rounding), and every sum of products takes the order lane_sum writes down, not the one the
// vector width would pick. The max, min and count reductions are exact in any order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include "../core_kernels.h"
#include "geoattn/metrics/core/exact.h"

#ifndef GEOATTN_KERNEL_LEVEL
#error "core_kernels_impl.h is included by core_kernels_<level>.cpp, which names the level"
#endif

namespace geoattn::metrics::detail::GEOATTN_KERNEL_LEVEL {

namespace {

// The next row is fetched a block at a time while this step's block is evaluated.
constexpr int64_t kPrefetchBlock = 256;

[[gnu::always_inline]] inline void prefetch_block(const double* next, int64_t k0, int64_t k1) {
  for (int64_t k = k0; k < k1; k += 8) __builtin_prefetch(next + k, 0, 2);
}

int64_t size_of(std::span<const double> x) { return static_cast<int64_t>(x.size()); }

// A count's step in the vectorised loops (band_counts, token_band_counts, and the fused pass
// below AVX-512), written for the level's code: with AVX-512 as a select, which GCC makes one add
// under the comparison's mask (`n += cond` took a masked move of a constant and a subtraction);
// without mask registers as `n + cond` (a compare's all-ones subtracted; the select took blends
// there, 31 instructions a block of 4 where 23).
[[gnu::always_inline]] inline int64_t count_if(bool cond, int64_t n) {
#ifdef __AVX512F__
  return cond ? n + 1 : n;
#else
  return n + cond;
#endif
}

// The order of a sum of n terms, the same on every CPU: lane j of kLanes takes the terms
// k = j (mod kLanes) in turn, each fused into it by `term(k, lane)`; the terms after the last
// whole kLanes go to lane 0; then the lanes are added in order to 0. (The order GCC's AVX-512
// clone of an `omp simd reduction(+)` loop took, written down: its AVX2 clone took 4 lanes and
// the baseline 2, and the last bits of each s(N) diagnostic and value norm moved with them.)
constexpr int64_t kLanes = 8;

template <class Term>
[[gnu::always_inline]] inline double lane_sum(int64_t n, Term term) {
  double lane[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
#pragma omp simd
    for (int64_t j = 0; j < kLanes; ++j) lane[j] = term(k + j, lane[j]);
  for (; k < n; ++k) lane[0] = term(k, lane[0]);
  double acc = 0;
  for (int64_t j = 0; j < kLanes; ++j) acc += lane[j];
  return acc;
}

// SPEC §2 "Exact": E_k = ||y_k||^2 - 2 <s(N), y_k> = g_k - 2 alpha_k c_k, the same rounding in
// every pass (2 alpha c is exact, so a fused multiply-subtract rounds as the two operations do).
[[gnu::always_inline]] inline double energy(double g, double alpha, double c) { return g - 2 * (alpha * c); }

// c_new = c + a x, E_k from it, r_max = max over the selected, r_min over the rest (E stored
// where E is given). With kCount, fused with the band counts of step N - 1 on E recomputed from
// the old c with `th`: [K_out certain, possible, the selected outside the r_min ball for certain,
// possibly]. The mask is step N's, so the caller corrects the counts for t_N, unselected at N - 1.
// With kDirect the state holds E itself (TokenState::direct): E_new = fma(a, alpha_k x_k, E), a = -2 alpha_t,
// and g is not read; c_new and E are then the same array or E is null.
#ifdef __AVX512F__
// The AVX-512 level: the selection read into a mask register from TokenState::in (a byte a block
// of 8 tokens, where m takes 64 bytes), the counts compares under it, the extremes a max and a
// min under it, and the next row fetched a line a block (a burst of 32 lines a 256 tokens stalled
// the loop on the prefetches). The pass is bound by the traffic between L1 and L2 (c, c_new,
// alpha, x and m: 40 bytes a token, more than the 32 KiB of L1 at n = 1024): the control
// orderings of `bench metrics --envelopes off` took 0.39-0.44 s where 0.56-0.62 s (docs/performance.md).
// The same values: E from the same fused operations, the counts and extremes from the same
// comparisons (E is finite, so min(E, +inf) is E and max(E, -inf) is E).
template <bool kCount, bool kDirect>
[[gnu::always_inline]] inline Extremes evaluate_pass(const StepRow& row, const TokenState& tokens, const double* c,
                                                     double* c_new, double* E, const Thresholds& th, int64_t* counts) {
  const __m512d a = _mm512_set1_pd(row.a), two = _mm512_set1_pd(2.0);
  const double* x = row.x.data();
  const double* next = row.next.data();
  const double *g = tokens.g.data(), *alpha = tokens.alpha.data();
  const uint8_t* in_bits = tokens.in.data();
  const int64_t n = static_cast<int64_t>(tokens.alpha.size());
  const __m512d lo_out = _mm512_set1_pd(th.lo_out), hi_out = _mm512_set1_pd(th.hi_out);
  const __m512d lo_in = _mm512_set1_pd(th.lo_in), hi_in = _mm512_set1_pd(th.hi_in);
  __m512d hi = _mm512_set1_pd(-kInfinity), lo = _mm512_set1_pd(kInfinity);
  int64_t oc = 0, op = 0, ic = 0, ip = 0;
  // The 8 tokens from k, those of `valid` (the last block's tail) read and written.
  const auto block = [&](int64_t k, __mmask8 valid) [[gnu::always_inline]] {
    const __mmask8 in = static_cast<__mmask8>(in_bits[k >> 3] & valid), out = static_cast<__mmask8>(~in & valid);
    const __m512d ck_old = _mm512_maskz_loadu_pd(valid, c + k);
    const __m512d alpha_k = _mm512_maskz_loadu_pd(valid, alpha + k), x_k = _mm512_maskz_loadu_pd(valid, x + k);
    // E_k = g_k - 2 (alpha_k c_k), one rounding (2 alpha c is exact)
    const auto energy_of = [&](__m512d ck) { return _mm512_fnmadd_pd(two, _mm512_mul_pd(alpha_k, ck), _mm512_maskz_loadu_pd(valid, g + k)); };
    if constexpr (kCount) {
      const __m512d e_prev = kDirect ? ck_old : energy_of(ck_old);
      oc += __builtin_popcount(_mm512_mask_cmp_pd_mask(out, e_prev, lo_out, _CMP_LE_OQ));
      op += __builtin_popcount(_mm512_mask_cmp_pd_mask(out, e_prev, hi_out, _CMP_LE_OQ));
      ic += __builtin_popcount(_mm512_mask_cmp_pd_mask(in, e_prev, lo_in, _CMP_GT_OQ));
      ip += __builtin_popcount(_mm512_mask_cmp_pd_mask(in, e_prev, hi_in, _CMP_GT_OQ));
    }
    const __m512d ck = kDirect ? _mm512_fmadd_pd(a, _mm512_mul_pd(alpha_k, x_k), ck_old) : _mm512_fmadd_pd(a, x_k, ck_old);
    _mm512_mask_storeu_pd(c_new + k, valid, ck);
    const __m512d e = kDirect ? ck : energy_of(ck);
    if constexpr (!kCount && !kDirect) _mm512_mask_storeu_pd(E + k, valid, e);
    hi = _mm512_mask_max_pd(hi, in, e, hi);   // e > hi ? e : hi, on the selected
    lo = _mm512_mask_min_pd(lo, out, e, lo);  // e < lo ? e : lo, on the rest
  };
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    __builtin_prefetch(next + k, 0, 2);
    block(k, 0xFF);
  }
  if (k < n) block(k, static_cast<__mmask8>((1u << (n - k)) - 1));
  if constexpr (kCount) counts[0] = oc, counts[1] = op, counts[2] = ic, counts[3] = ip;
  return {_mm512_reduce_max_pd(hi), _mm512_reduce_min_pd(lo)};
}
#else
// The other levels: the mask m, min(E, m) and max(E, m) (core_kernels.h).
template <bool kCount, bool kDirect>
[[gnu::always_inline]] inline Extremes evaluate_pass(const StepRow& row, const TokenState& tokens, const double* c,
                                                     double* c_new, double* E, const Thresholds& th, int64_t* counts) {
  const double a = row.a;
  const double* x = row.x.data();
  const double* next = row.next.data();
  const double *g = tokens.g.data(), *alpha = tokens.alpha.data(), *m = tokens.m.data();
  const int64_t n = static_cast<int64_t>(tokens.alpha.size());
  const double lo_out = kCount ? th.lo_out : 0, hi_out = kCount ? th.hi_out : 0;
  const double lo_in = kCount ? th.lo_in : 0, hi_in = kCount ? th.hi_in : 0;
  double hi = -kInfinity, lo = kInfinity;
  int64_t oc = 0, op = 0, ic = 0, ip = 0;
  for (int64_t k0 = 0; k0 < n; k0 += kPrefetchBlock) {
    const int64_t k1 = std::min(n, k0 + kPrefetchBlock);
    prefetch_block(next, k0, k1);
#pragma omp simd reduction(max : hi) reduction(min : lo) reduction(+ : oc, op, ic, ip)
    for (int64_t k = k0; k < k1; ++k) {
      const double ck_old = c[k], mk = m[k];
      if constexpr (kCount) {
        const double e_prev = kDirect ? ck_old : energy(g[k], alpha[k], ck_old);
        const double rest_prev = e_prev > mk ? e_prev : mk, sel_prev = e_prev < mk ? e_prev : mk;
        oc = count_if(rest_prev <= lo_out, oc);
        op = count_if(rest_prev <= hi_out, op);
        ic = count_if(sel_prev > lo_in, ic);
        ip = count_if(sel_prev > hi_in, ip);
      }
      const double ck = kDirect ? std::fma(a, alpha[k] * x[k], ck_old) : std::fma(a, x[k], ck_old);
      c_new[k] = ck;
      const double e = kDirect ? ck : energy(g[k], alpha[k], ck);
      if constexpr (!kCount && !kDirect) E[k] = e;
      const double sel = e < mk ? e : mk, rest = e > mk ? e : mk;
      hi = sel > hi ? sel : hi;
      lo = rest < lo ? rest : lo;
    }
  }
  if constexpr (kCount) counts[0] = oc, counts[1] = op, counts[2] = ic, counts[3] = ip;
  return {hi, lo};
}

#endif

}  // namespace

void add_row(double a, std::span<const double> x_, std::span<double> c_) {
  const double* x = x_.data();
  double* c = c_.data();
  const int64_t n = static_cast<int64_t>(c_.size());
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) c[k] = std::fma(a, x[k], c[k]);
}

void add_rows(const StepRows& rows, std::span<double> c_) {
  double* c = c_.data();
  const int64_t n = static_cast<int64_t>(c_.size());
  const double* x0 = rows.x[0];
  const double a0 = rows.a[0];
  // One loop per count, each row's fma in order (rows.count >= 1).
  const double* alpha = rows.alpha;
  const auto pass = [&]<int R, bool kDirect>() {
    for (int64_t k0 = 0; k0 < n; k0 += kPrefetchBlock) {
      const int64_t k1 = std::min(n, k0 + kPrefetchBlock);
      prefetch_block(rows.next, k0, k1);
#pragma omp simd
      for (int64_t k = k0; k < k1; ++k) {
        if constexpr (kDirect) {
          // E_k += alpha_k (a_0 x_0k + ... + a_{R-1} x_{R-1}k), the rows' sum first.
          double h = a0 * x0[k];
          if constexpr (R > 1) h = std::fma(rows.a[1], rows.x[1][k], h);
          if constexpr (R > 2) h = std::fma(rows.a[2], rows.x[2][k], h);
          if constexpr (R > 3) h = std::fma(rows.a[3], rows.x[3][k], h);
          c[k] = std::fma(alpha[k], h, c[k]);
        } else {
          double v = std::fma(a0, x0[k], c[k]);
          if constexpr (R > 1) v = std::fma(rows.a[1], rows.x[1][k], v);
          if constexpr (R > 2) v = std::fma(rows.a[2], rows.x[2][k], v);
          if constexpr (R > 3) v = std::fma(rows.a[3], rows.x[3][k], v);
          c[k] = v;
        }
      }
    }
  };
  static_assert(kRowsAtOnce == 4);
  const auto run = [&]<bool kDirect>() {
    switch (rows.count) {
      case 1: pass.template operator()<1, kDirect>(); break;
      case 2: pass.template operator()<2, kDirect>(); break;
      case 3: pass.template operator()<3, kDirect>(); break;
      default: pass.template operator()<4, kDirect>(); break;
    }
  };
  if (alpha) run.template operator()<true>();
  else run.template operator()<false>();
}

BandCounts band_counts(std::span<const double> E_, std::span<const double> m_, int64_t N,
                                           const Thresholds& th) {
  const double *E = E_.data(), *m = m_.data();
  const int64_t n = size_of(E_);
  const double lo_out = th.lo_out, hi_out = th.hi_out, lo_in = th.lo_in, hi_in = th.hi_in;
  int64_t oc = 0, op = 0, ic = 0, ip = 0;
#pragma omp simd reduction(+ : oc, op, ic, ip)
  for (int64_t k = 0; k < n; ++k) {
    const double rest = E[k] > m[k] ? E[k] : m[k], sel = E[k] < m[k] ? E[k] : m[k];
    oc = count_if(rest <= lo_out, oc);
    op = count_if(rest <= hi_out, op);
    ic = count_if(sel > lo_in, ic);  // the selected outside the r_min ball, for certain / possibly
    ip = count_if(sel > hi_in, ip);
  }
  return {oc, op, N - ic, N - ip};
}

Extremes add_row_and_evaluate(const StepRow& row, const TokenState& tokens, std::span<double> c,
                                                  std::span<double> E) {
  if (tokens.direct) return evaluate_pass<false, true>(row, tokens, c.data(), c.data(), nullptr, Thresholds{}, nullptr);
  return evaluate_pass<false, false>(row, tokens, c.data(), c.data(), E.data(), Thresholds{}, nullptr);
}

EvaluatedAndCounted add_row_evaluate_and_count(const StepRow& row, const TokenState& tokens,
                                                                   std::span<const double> c_old, std::span<double> c_new,
                                                                   const Thresholds& th, int64_t N_prev, int64_t t) {
  // t was not selected at N - 1: counted there among the rest, not the selected (its E read
  // before the pass, which may write c_new over c_old).
  const double e = tokens.direct ? c_old[t] : energy(tokens.g[t], tokens.alpha[t], c_old[t]);
  int64_t c[4];
  const Extremes extremes = tokens.direct
                               ? evaluate_pass<true, true>(row, tokens, c_old.data(), c_new.data(), nullptr, th, c)
                               : evaluate_pass<true, false>(row, tokens, c_old.data(), c_new.data(), nullptr, th, c);
  c[0] += e <= th.lo_out, c[1] += e <= th.hi_out;
  c[2] -= e > th.lo_in, c[3] -= e > th.hi_in;
  return {extremes, {c[0], c[1], N_prev - c[2], N_prev - c[3]}};
}

void evaluate(const TokenState& tokens, std::span<const double> c_, std::span<double> E_) {
  const double *g = tokens.g.data(), *alpha = tokens.alpha.data(), *c = c_.data();
  double* E = E_.data();
  const int64_t n = size_of(c_);
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) E[k] = energy(g[k], alpha[k], c[k]);
}

BandCounts token_band_counts(std::span<const double> E_, std::span<const double> a_,
                                                 std::span<const double> m_, int64_t N, double S, double factor,
                                                 std::span<double> err_) {
  const double *E = E_.data(), *a = a_.data(), *m = m_.data();
  double* err = err_.data();
  const int64_t n = size_of(E_);
  double lo_max = -kInfinity, hi_max = -kInfinity, lo_min = kInfinity, hi_min = kInfinity;
#pragma omp simd reduction(max : lo_max, hi_max) reduction(min : lo_min, hi_min)
  for (int64_t k = 0; k < n; ++k) {
    const double e = factor * a[k] * (a[k] + 2 * S);
    err[k] = e;
    const double lo = E[k] - e, hi = E[k] + e;
    const double lo_sel = lo < m[k] ? lo : m[k], hi_sel = hi < m[k] ? hi : m[k];      // -inf unless selected
    const double lo_rest = lo > m[k] ? lo : m[k], hi_rest = hi > m[k] ? hi : m[k];  // +inf unless not
    lo_max = lo_sel > lo_max ? lo_sel : lo_max;
    hi_max = hi_sel > hi_max ? hi_sel : hi_max;
    lo_min = lo_rest < lo_min ? lo_rest : lo_min;
    hi_min = hi_rest < hi_min ? hi_rest : hi_min;
  }
  int64_t oc = 0, op = 0, ic = 0, ip = 0;
#pragma omp simd reduction(+ : oc, op, ic, ip)
  for (int64_t k = 0; k < n; ++k) {
    const double lo = E[k] - err[k], hi = E[k] + err[k];
    const double hi_rest = hi > m[k] ? hi : m[k], lo_rest = lo > m[k] ? lo : m[k];
    const double hi_sel = hi < m[k] ? hi : m[k], lo_sel = lo < m[k] ? lo : m[k];
    oc = count_if(hi_rest <= lo_max, oc);  // surely in the r_max ball
    op = count_if(lo_rest <= hi_max, op);  // possibly in it
    ic = count_if(hi_sel > lo_min, ic);    // the selected possibly outside the r_min ball
    ip = count_if(lo_sel > hi_min, ip);    // surely outside it
  }
  return {oc, op, N - ic, N - ip};
}

double dot(std::span<const double> x_, std::span<const double> y_) {
  const double *x = x_.data(), *y = y_.data();
  return lane_sum(size_of(x_), [&](int64_t m, double acc) { return std::fma(x[m], y[m], acc); });
}

double distance_to_scaled(std::span<const double> x_, double a, std::span<const double> y_) {
  const double *x = x_.data(), *y = y_.data();
  return std::sqrt(lane_sum(size_of(x_), [&](int64_t m, double acc) {
    const double r = std::fma(-a, y[m], x[m]);  // x - a y, one rounding
    return std::fma(r, r, acc);
  }));
}

int64_t range_of(const double* xs, int64_t m, double* lo, double* hi) {
  double lo_x = std::numeric_limits<double>::infinity(), hi_x = -std::numeric_limits<double>::infinity();
  int64_t bad = 0;
#pragma omp simd reduction(min : lo_x) reduction(max : hi_x) reduction(+ : bad)
  for (int64_t i = 0; i < m; ++i) {
    const double x = xs[i];
    bad += !(x - x == 0);  // NaN for a NaN or an infinity
    lo_x = x < lo_x ? x : lo_x;
    hi_x = x > hi_x ? x : hi_x;
  }
  *lo = lo_x, *hi = hi_x;
  return bad;
}

void replicate_tile(const double* W, int64_t ldw, const double* X, int64_t ldx, int64_t U, double* R, int64_t ldr) {
  double sums[kTileCols][kTileRows] = {};
  for (int64_t u = 0; u < U; ++u) {
    const double* w = W + u * ldw;
    for (int64_t j = 0; j < kTileCols; ++j) {
      const double x = X[u + j * ldx];
#pragma omp simd
      for (int64_t r = 0; r < kTileRows; ++r) sums[j][r] = std::fma(w[r], x, sums[j][r]);
    }
  }
  for (int64_t j = 0; j < kTileCols; ++j)
    for (int64_t r = 0; r < kTileRows; ++r) R[r + j * ldr] = sums[j][r];
}

// This level's table (core_kernels.h: kernels_of).
extern const Kernels kernels;
const Kernels kernels = {add_row,  add_rows,          band_counts, add_row_and_evaluate, add_row_evaluate_and_count,
                         evaluate, token_band_counts, dot,         distance_to_scaled,   range_of,
                         replicate_tile};

}  // namespace geoattn::metrics::detail::GEOATTN_KERNEL_LEVEL
