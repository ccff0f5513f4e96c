// The metric core on CPU: one Gram matrix V V^T per value block (a KV head), shared by every
// head that reads the block, every query and every ordering; each ordering is one pass of
// fused loops over it (DESIGN.md "The metric core in tensor operations", steps 2-4).
//
// For one sample (alpha [n], block Gram VV) and one ordering pi, selecting token t = pi(N-1)
// at step N adds one row: c_k += alpha_t VV[t, k], so that c_k = sum_{t in I_N} alpha_t VV_tk
// and <s(N), y_k> = alpha_k c_k. At a grid N:
//   E_k = ||y_k||^2 - 2 <s(N), y_k> = g_k - 2 alpha_k c_k                 (SPEC §2, "Exact")
//   r_max = max_{k in I_N} E_k, r_min = min_{k not in I_N} E_k,
//   K_out = #{k not in I_N : E_k <= r_max}, K_in = #{k in I_N : E_k <= r_min},
// each count decided within the rounding band of exact.h, the rest by resolve_counts.
// O(n^2) per ordering, no d factor; the d factor is paid once per block, in the Gram product.
//
// Threads take whole blocks: a worker computes its block's Gram matrix (single-threaded BLAS)
// into a buffer of its own and runs every ordering of every sample of the block while the
// matrix is in its cache; from DRAM each ordering would cost several times more.
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core.h"
#include "geoattn/metrics/metric_names.h"
#include "geoattn/util/blas_threads.h"
#include "geoattn/util/error.h"
#include "geoattn/util/parallel.h"
#include "geoattn/util/simd.h"
#include "geoattn/util/stopwatch.h"


namespace geoattn::metrics::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kUnit = 0x1p-53;

// ---- the fused loops --------------------------------------------------------------------
// m_k = +inf for the selected tokens (k in I_N), -inf for the rest: min(E_k, m_k) is E_k on
// the selected and -inf elsewhere, max(E_k, m_k) is E_k on the rest and +inf on the selected.

// The next step's Gram row is fetched a block at a time while this step's block is evaluated:
// the rows of an ordering are scattered over a T x T matrix that does not fit in L2, and the
// hardware prefetcher stops at every 4 KiB page.
constexpr int64_t kPrefetchBlock = 256;

[[gnu::always_inline]] inline void prefetch_block(const double* next, int64_t k0, int64_t k1) {
  for (int64_t k = k0; k < k1; k += 8) __builtin_prefetch(next + k, 0, 2);
}

// c += a x
GEOATTN_SIMD_CLONES void add_row(double a, const double* x, double* c, int64_t n) {
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) c[k] += a * x[k];
}

// c += a x, fetching `next` (the next step's row) meanwhile
GEOATTN_SIMD_CLONES void add_row_prefetching(double a, const double* x, const double* next, double* c, int64_t n) {
  for (int64_t k0 = 0; k0 < n; k0 += kPrefetchBlock) {
    const int64_t k1 = std::min(n, k0 + kPrefetchBlock);
    prefetch_block(next, k0, k1);
#pragma omp simd
    for (int64_t k = k0; k < k1; ++k) c[k] += a * x[k];
  }
}

// [K_out certain, K_out possible, K_in certain, K_in possible] for the thresholds
// [r_max - 2U, r_max + 2U, r_min - 2U, r_min + 2U]; N the number of selected tokens.
GEOATTN_SIMD_CLONES void band_counts(const double* E, const double* m, int64_t n, int64_t N, const double* thresholds,
                                     int64_t* counts) {
  const double lo_out = thresholds[0], hi_out = thresholds[1], lo_in = thresholds[2], hi_in = thresholds[3];
  int64_t oc = 0, op = 0, ic = 0, ip = 0;
#pragma omp simd reduction(+ : oc, op, ic, ip)
  for (int64_t k = 0; k < n; ++k) {
    const double rest = E[k] > m[k] ? E[k] : m[k], sel = E[k] < m[k] ? E[k] : m[k];
    oc += rest <= lo_out;
    op += rest <= hi_out;
    ic += sel > lo_in;  // the selected outside the r_min ball, for certain / possibly
    ip += sel > hi_in;
  }
  counts[0] = oc, counts[1] = op, counts[2] = N - ic, counts[3] = N - ip;
}

// c += a x, then E_k = g_k - 2 alpha_k c_k, r_max = max over the selected, r_min over the rest.
// With kCount, fused with the band counts of step N - 1 (band_counts on E_prev with
// `thresholds`): one pass instead of two where the grid holds N - 1 and N. The mask is step
// N's, so the caller corrects the counts for t_N, unselected at N - 1.
template <bool kCount>
[[gnu::always_inline]] inline void evaluate_pass(double a, const double* x, const double* next, double* c,
                                                 const double* g, const double* alpha, const double* m, int64_t n,
                                                 const double* E_prev, const double* thresholds, double* E,
                                                 double* extremes, int64_t* counts) {
  const double lo_out = kCount ? thresholds[0] : 0, hi_out = kCount ? thresholds[1] : 0;
  const double lo_in = kCount ? thresholds[2] : 0, hi_in = kCount ? thresholds[3] : 0;
  double hi = -kInf, lo = kInf;
  int64_t oc = 0, op = 0, ic = 0, ip = 0;
  for (int64_t k0 = 0; k0 < n; k0 += kPrefetchBlock) {
    const int64_t k1 = std::min(n, k0 + kPrefetchBlock);
    prefetch_block(next, k0, k1);
#pragma omp simd reduction(max : hi) reduction(min : lo) reduction(+ : oc, op, ic, ip)
  for (int64_t k = k0; k < k1; ++k) {
    if constexpr (kCount) {
      const double rest_prev = E_prev[k] > m[k] ? E_prev[k] : m[k], sel_prev = E_prev[k] < m[k] ? E_prev[k] : m[k];
      oc += rest_prev <= lo_out;
      op += rest_prev <= hi_out;
      ic += sel_prev > lo_in;
      ip += sel_prev > hi_in;
    }
    const double ck = c[k] + a * x[k];
    c[k] = ck;
    const double e = g[k] - 2 * (alpha[k] * ck);
    E[k] = e;
    const double sel = e < m[k] ? e : m[k], rest = e > m[k] ? e : m[k];
    hi = sel > hi ? sel : hi;
    lo = rest < lo ? rest : lo;
  }
  }
  extremes[0] = hi;
  extremes[1] = lo;
  if constexpr (kCount) counts[0] = oc, counts[1] = op, counts[2] = ic, counts[3] = ip;
}

GEOATTN_SIMD_CLONES void add_row_and_evaluate(double a, const double* x, const double* next, double* c, const double* g,
                                              const double* alpha, const double* m, int64_t n, double* E,
                                              double* extremes) {
  evaluate_pass<false>(a, x, next, c, g, alpha, m, n, nullptr, nullptr, E, extremes, nullptr);
}

GEOATTN_SIMD_CLONES void add_row_evaluate_and_count(double a, const double* x, const double* next, double* c,
                                                    const double* g, const double* alpha, const double* m, int64_t n,
                                                    const double* E_prev, const double* thresholds, double* E,
                                                    double* extremes, int64_t* counts) {
  evaluate_pass<true>(a, x, next, c, g, alpha, m, n, E_prev, thresholds, E, extremes, counts);
}

// The per-token bands of exact.h, err_k = factor a_k (a_k + 2 S), and the counts they
// decide: [K_out certain, possible, K_in certain, possible], as resolve_counts' first stage
// would find them, but vectorised (heavy-tailed rows send many steps here).
GEOATTN_SIMD_CLONES void token_band_counts(const double* E, const double* a, const double* m, int64_t n, int64_t N,
                                           double S, double factor, double* err, int64_t* counts) {
  double lo_max = -kInf, hi_max = -kInf, lo_min = kInf, hi_min = kInf;
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
    oc += hi_rest <= lo_max;  // surely in the r_max ball
    op += lo_rest <= hi_max;  // possibly in it
    ic += hi_sel > lo_min;    // the selected possibly outside the r_min ball
    ip += lo_sel > hi_min;    // surely outside it
  }
  counts[0] = oc, counts[1] = op, counts[2] = N - ic, counts[3] = N - ip;
}

GEOATTN_SIMD_CLONES double dot(const double* x, const double* y, int64_t d) {
  double acc = 0;
#pragma omp simd reduction(+ : acc)
  for (int64_t m = 0; m < d; ++m) acc += x[m] * y[m];
  return acc;
}

// ||x - a y||
GEOATTN_SIMD_CLONES double distance_to_scaled(const double* x, double a, const double* y, int64_t d) {
  double acc = 0;
#pragma omp simd reduction(+ : acc)
  for (int64_t m = 0; m < d; ++m) {
    const double r = x[m] - a * y[m];
    acc += r * r;
  }
  return std::sqrt(acc);
}

// ---- one ordering of one sample -----------------------------------------------------------

struct Scratch {
  std::vector<double> c, E, E_next, err, a, g, m, s;
  void fit(int64_t n, int64_t d) {
    for (auto* v : {&c, &E, &E_next, &err, &a, &g, &m}) v->resize(static_cast<size_t>(n));
    s.resize(static_cast<size_t>(d));
  }
};

struct Sample {
  const double* gram;   // the block's V V^T, row stride ld
  int64_t ld;
  const double* V;      // the block's values [T, d]
  const double* Vt;     // the same transposed, [d, T] (row stride ld)
  const double* sq;     // [T] ||v_k||^2
  const double* norms;  // [T] ||v_k||
  const double* alpha;  // [n]
  int64_t n, d;
  // How c_k = <s(N), v_k> is kept: a row of V V^T added per step (O(n) a step), or computed
  // from s(N) at the grid's N only (O(n d) a grid point): the cheaper of the two.
  bool prefix;
};

struct Outputs {
  double* k_in;     // [G]
  double* k_out;    // [G]
  double* diag;     // [kDiagnostics][G], or null (orderings of the control)
  double* scalars;  // [kScalarMetrics], or null
};

// cos(x, y) from <x, y> and the norms, 0 where either vector is zero (SPEC §3).
double safe_cos(double dot, double nx, double ny) { return nx > 0 && ny > 0 ? dot / (nx * ny) : 0.0; }

// SPEC §2 diagnostics of s(N) (ordering 0 only), from s in coordinates.
void diagnostics(const Sample& smp, const double* s, bool sink_in, bool last_in, int64_t G, int64_t gi, double* diag) {
  const int64_t d = smp.d, L = smp.n - 1;
  const double* v0 = smp.V;
  const double* vL = smp.V + L * d;
  const double s_norm = std::sqrt(dot(s, s, d));
  // ||s - y_t|| where token t is selected, else ||s||.
  auto loo = [&](bool in, const double* v, double alpha) { return in ? distance_to_scaled(s, alpha, v, d) : s_norm; };
  diag[0 * G + gi] = s_norm;
  diag[1 * G + gi] = loo(sink_in, v0, smp.alpha[0]);
  diag[2 * G + gi] = loo(last_in, vL, smp.alpha[L]);
  diag[3 * G + gi] = safe_cos(dot(s, v0, d), s_norm, smp.norms[0]);
  diag[4 * G + gi] = safe_cos(dot(s, vL, d), s_norm, smp.norms[L]);
}

// SPEC §3, §6: rho0 = mean_{j>=1} cos(v_0, v_j), c_sink, c_last, c_rest.
void sample_scalars(const Sample& smp, double* out, Scratch& sc) {
  const int64_t n = smp.n, d = smp.d, L = n - 1;
  double rho0 = 0;
  for (int64_t j = 1; j < n; ++j) rho0 += safe_cos(dot(smp.V, smp.V + j * d, d), smp.norms[0], smp.norms[j]);
  out[kRho0] = n > 1 ? rho0 / static_cast<double>(n - 1) : 0.0;
  out[kC_sink] = smp.alpha[0] * smp.norms[0];
  out[kC_last] = smp.alpha[L] * smp.norms[L];
  std::fill(sc.s.begin(), sc.s.end(), 0.0);
  for (int64_t i = 1; i < L; ++i) add_row(smp.alpha[i], smp.V + i * d, sc.s.data(), d);
  out[kC_rest] = n > 2 ? std::sqrt(dot(sc.s.data(), sc.s.data(), d)) : 0.0;
}

// The cosine distance (SPEC §2b) at one N. D_k = 1 - q_k, q_k = <s, y_k> / (||s|| a_k + eps),
// is compared as -q_k (the same order; 1 - q would round away every difference below 1e-16,
// and tails of tiny y_k differ far below that). -q_k and a bound on its rounding, from
// <s, y_k> = alpha_k c_k (error <= f_num a_k S) and ||s||^2 (error <= f_norm S^2). Where ||s||
// is lost in rounding every bound is infinite (exact resolution).
void cosine_values(const Sample& smp, double s2, double S, int64_t N, Scratch& sc) {
  const int64_t n = smp.n;
  const double f_num = cosine_num_factor(N, smp.d), sigma2 = cosine_norm_factor(N, smp.d) * S * S;
  const double g_norm = rounding_gamma(smp.d + 5);
  const bool lost = !(s2 > 4 * sigma2);
  const double ns = lost ? 0.0 : std::sqrt(s2);
  const double ds = lost ? 0.0 : sigma2 / ns + kUnit * ns;  // |fl(||s||) - ||s|||
  for (int64_t k = 0; k < n; ++k) {
    const double a = sc.a[k], num = smp.alpha[k] * sc.c[k];
    const double den = ns * a + kCosineEps, q = num / den;
    sc.E[k] = -q;
    // |den_hat - den| <= a ds + ||s|| |a_hat - a| + rounding; then |q_hat - q|.
    const double dden = 1.01 * (a * ds + ns * a * g_norm) + 2 * kUnit * den, den_lo = den - dden;
    sc.err[k] = a == 0 ? 0.0  // y_k = 0: q_k = 0 exactly
                : lost || !(den_lo > 0)
                    ? kInf
                    : 2 * (f_num * a * S / den_lo + std::abs(num) * dden / (den_lo * den) + 2 * kUnit * std::abs(q));
  }
}

// The Euclidean band of step N: the thresholds r_max -/+ 2U, r_min -/+ 2U, with one band U
// for every token (a_max); the per-token bands only where it leaves a count open.
void euclid_thresholds(int64_t N, int64_t d, double S, double a_max, const double* extremes, double* thresholds) {
  const double U = euclid_band_factor(N, d) * a_max * (a_max + 2 * S);
  thresholds[0] = extremes[0] - 2 * U, thresholds[1] = extremes[0] + 2 * U;
  thresholds[2] = extremes[1] - 2 * U, thresholds[3] = extremes[1] + 2 * U;
}

// The counts of step N from band_counts' [K_out certain, possible, K_in certain, possible];
// E and the mask m as of step N. Exact where the band leaves a count open.
BallCounts euclid_counts(const Sample& smp, const int64_t* order, int64_t N, double S, const int64_t* c,
                         const double* E, Scratch& sc, CoreStats& stats) {
  ++stats.decisions;
  if (c[0] == c[1] && c[2] == c[3]) return {c[2], c[0]};
  ++stats.banded;
  int64_t t[4];
  token_band_counts(E, sc.a.data(), sc.m.data(), smp.n, N, S, euclid_band_factor(N, smp.d), sc.err.data(), t);
  if (t[0] == t[1] && t[2] == t[3]) return {t[2], t[0]};
  const PendingCounts pending{E, sc.err.data(), sc.m.data(), order, N};
  return resolve_counts(ExactSample{smp.alpha, smp.V, smp.n, smp.d}, pending, Distance::Euclidean, &stats.exact_tokens);
}

// The cosine counts of step N, once c holds step N (always through the per-token bands).
BallCounts cosine_counts(const Sample& smp, const int64_t* order, int64_t N, double S, double s2, Scratch& sc,
                         CoreStats& stats) {
  ++stats.decisions;
  cosine_values(smp, s2, S, N, sc);
  const PendingCounts pending{sc.E.data(), sc.err.data(), sc.m.data(), order, N};
  return resolve_counts(ExactSample{smp.alpha, smp.V, smp.n, smp.d}, pending, Distance::Cosine, &stats.exact_tokens);
}

void run_ordering(const Sample& smp, const int64_t* order, const std::vector<int64_t>& grid, Distance distance,
                  const Outputs& out, Scratch& sc, CoreStats& stats) {
  const int64_t n = smp.n, d = smp.d, G = static_cast<int64_t>(grid.size());
  sc.fit(n, d);
  double a_max = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double alpha = smp.alpha[k];
    sc.a[k] = alpha * smp.norms[k];                        // a_k = ||y_k||
    sc.g[k] = alpha * (alpha * smp.sq[k]);  // ||y_k||^2
    sc.c[k] = 0;
    sc.m[k] = -kInf;
    a_max = std::max(a_max, sc.a[k]);
  }
  const bool top = out.diag != nullptr, cosine = distance == Distance::Cosine;
  std::fill(sc.s.begin(), sc.s.end(), 0.0);
  double S = 0, s2 = 0, extremes[2] = {0, 0};
  bool sink_in = false, last_in = false;
  // A Euclidean grid N whose band counts ride on the next step's pass (consecutive grid values).
  struct Deferred {
    bool active = false;
    int64_t N = 0, gi = 0;
    double S = 0, thresholds[4] = {0, 0, 0, 0};
  } deferred;
  auto store = [&](int64_t gi, const BallCounts& bc) {
    out.k_in[gi] = static_cast<double>(bc.k_in);
    out.k_out[gi] = static_cast<double>(bc.k_out);
  };
  int64_t gi = 0;
  for (int64_t N = 1; N <= n && gi < G; ++N) {
    const int64_t t = order[N - 1];
    const double at = smp.alpha[t];
    const double* row = smp.gram + t * smp.ld;
    const double* next = N < n && !smp.prefix ? smp.gram + order[N] * smp.ld : row;  // the next step's row
    // ||s(N)||^2 = ||s(N-1)||^2 + 2 <s(N-1), y_t> + ||y_t||^2 (cosine, the Gram way)
    if (cosine && !smp.prefix) s2 += 2 * (at * sc.c[t]) + sc.g[t];
    S += sc.a[t];
    sc.m[t] = kInf;
    if (top || smp.prefix) {
      const double* vt = smp.V + t * d;
      for (int64_t m = 0; m < d; ++m) sc.s[m] += at * vt[m];  // s(N) in coordinates
    }
    if (top) {
      sink_in |= t == 0;
      last_in |= t == n - 1;
    }
    if (N != grid[gi]) {
      if (at != 0 && !smp.prefix) add_row_prefetching(at, row, next, sc.c.data(), n);
      continue;
    }
    double step = at;  // the row to add to c in the evaluating pass
    if (smp.prefix) {
      // c_k = <s(N), v_k>, one axpy per coordinate over the transposed values; s2 from s.
      std::fill(sc.c.begin(), sc.c.end(), 0.0);
      for (int64_t m = 0; m < d; ++m) add_row(sc.s[m], smp.Vt + m * smp.ld, sc.c.data(), n);
      if (cosine) s2 = dot(sc.s.data(), sc.s.data(), d);
      step = 0, row = sc.c.data();  // c + 0 c = c: the same passes, nothing added
    }
    if (deferred.active) {
      // Step N's values and step N - 1's counts in one pass; t was not selected at N - 1.
      int64_t c[4];
      add_row_evaluate_and_count(step, row, next, sc.c.data(), sc.g.data(), smp.alpha, sc.m.data(), n, sc.E.data(),
                                 deferred.thresholds, sc.E_next.data(), extremes, c);
      const double e = sc.E[t];
      c[0] += e <= deferred.thresholds[0], c[1] += e <= deferred.thresholds[1];
      c[2] -= e > deferred.thresholds[2], c[3] -= e > deferred.thresholds[3];
      c[2] = deferred.N - c[2], c[3] = deferred.N - c[3];
      sc.m[t] = -kInf;  // step N - 1's mask for the exact resolution
      store(deferred.gi, euclid_counts(smp, order, deferred.N, deferred.S, c, sc.E.data(), sc, stats));
      sc.m[t] = kInf;
      std::swap(sc.E, sc.E_next);
      deferred.active = false;
    } else {
      add_row_and_evaluate(step, row, next, sc.c.data(), sc.g.data(), smp.alpha, sc.m.data(), n, sc.E.data(), extremes);
    }
    if (cosine) {
      store(gi, cosine_counts(smp, order, N, S, s2, sc, stats));
    } else {
      double thresholds[4];
      euclid_thresholds(N, d, S, a_max, extremes, thresholds);
      if (gi + 1 < G && grid[gi + 1] == N + 1) {
        deferred.active = true, deferred.N = N, deferred.gi = gi, deferred.S = S;
        std::copy(thresholds, thresholds + 4, deferred.thresholds);
      } else {
        int64_t c[4];
        band_counts(sc.E.data(), sc.m.data(), n, N, thresholds, c);
        store(gi, euclid_counts(smp, order, N, S, c, sc.E.data(), sc, stats));
      }
    }
    if (top) diagnostics(smp, sc.s.data(), sink_in, last_in, G, gi, out.diag);
    ++gi;
  }
  if (out.scalars) sample_scalars(smp, out.scalars, sc);
}

// ---- blocks and tasks ---------------------------------------------------------------------

// A worker's Gram buffer, kept from one call to the next: a fresh one per window costs about
// as much in page faults as the product itself.
double* gram_buffer(int64_t elements) {
  thread_local std::vector<double> buffer;
  if (static_cast<int64_t>(buffer.size()) < elements) {
    buffer = std::vector<double>();
    buffer.resize(static_cast<size_t>(elements));
  }
  return buffer.data();
}

struct Task {
  size_t group;
  int64_t sample, ordering;
};

class Runner {
 public:
  Runner(const torch::Tensor& V, const std::vector<CoreGroup>& groups, Distance distance, int64_t decay_k,
         ValueGeometry* geometry, std::vector<CoreOut>& outs)
      : V_(V), groups_(groups), distance_(distance), decay_k_(decay_k), geometry_(geometry), outs_(outs),
        by_block_(static_cast<size_t>(V.size(0))) {
    for (size_t g = 0; g < groups.size(); ++g)
      for (int64_t i = 0; i < groups[g].alpha.size(0); ++i)
        for (int64_t o = 0; o < groups[g].orders.size(1); ++o) by_block_[groups[g].block[i]].push_back({g, i, o});
  }

  int64_t tasks_of(int64_t b) const { return static_cast<int64_t>(by_block_[b].size()); }

  // The block's Gram matrix into `gram` (T x T) where an ordering of the block needs it, its
  // values transposed into `Vt` (d x T) and ||v_k|| into `norms` (T); the SPEC §4 statistics.
  // In a worker: BLAS only, no threaded LibTorch op.
  void prepare(int64_t b, double* gram, double* Vt, double* sq, double* norms, CoreStats& st) const {
    const auto t0 = Clock::now();
    c10::InferenceMode inference;  // thread-local: the caller's does not reach a worker
    const int64_t T = V_.size(1), d = V_.size(2);
    const bool with_gram = needs_gram(b);
    if (with_gram) {
      auto v = V_.select(0, b);
      auto out = torch::from_blob(gram, {T, T}, torch::kFloat64);
      torch::mm_out(out, v, v.t());  // the only O(T^2 d) step
    }
    const double* vb = V_.data_ptr<double>() + b * T * d;
    for (int64_t k = 0; k < T; ++k) {
      sq[k] = dot(vb + k * d, vb + k * d, d);
      norms[k] = std::sqrt(sq[k]);
      for (int64_t m = 0; m < d; ++m) Vt[m * T + k] = vb[k * d + m];
    }
    if (geometry_) {
      std::copy(norms, norms + T, geometry_->norms.data_ptr<double>() + b * T);
      // SPEC §4 from the Gram matrix's diagonals while it is in cache; blocks without one are
      // done together afterwards (value_decay_sums: per-lag ops on one block cost more than the lags).
      if (decay_k_ > 0 && with_gram)
        geometry_->decay_sums[b].copy_(decay_sums(gram_lag_dots(torch::from_blob(gram, {1, T, T}, torch::kFloat64)),
                                                  torch::from_blob(norms, {1, T}, torch::kFloat64), decay_k_)[0]);
    }
    st.gram_s += seconds_since(t0);
  }

  // Whether some ordering of block b adds Gram rows (see Sample::prefix).
  bool needs_gram(int64_t b) const {
    for (const Task& tk : by_block_[b])
      if (!uses_prefix(groups_[tk.group])) return true;
    return false;
  }
  // O(n) a step (n^2 an ordering) against O(n d) a grid point (G n d an ordering).
  bool uses_prefix(const CoreGroup& grp) const { return static_cast<int64_t>(grp.grid.size()) * V_.size(2) <= grp.n; }

  void run(int64_t b, int64_t task, const double* gram, const double* Vt, const double* sq, const double* norms,
           Scratch& sc, CoreStats& st) const {
    const auto t0 = Clock::now();
    const int64_t T = V_.size(1), d = V_.size(2);
    const Task& tk = by_block_[b][task];
    const CoreGroup& grp = groups_[tk.group];
    CoreOut& out = outs_[tk.group];
    const int64_t n = grp.n, O = grp.orders.size(1), G = static_cast<int64_t>(grp.grid.size());
    const bool prefix = uses_prefix(grp);
    const Sample smp{gram, T, V_.data_ptr<double>() + b * T * d, Vt, sq, norms,
                     grp.alpha.data_ptr<double>() + tk.sample * n, n, d, prefix};
    const int64_t slot = tk.sample * O + tk.ordering;
    const bool top = tk.ordering == 0;
    const Outputs o{out.k_in.data_ptr<double>() + slot * G, out.k_out.data_ptr<double>() + slot * G,
                    top ? out.diag.data_ptr<double>() + tk.sample * kDiagnostics * G : nullptr,
                    top ? out.scalars.data_ptr<double>() + tk.sample * kScalarMetrics : nullptr};
    run_ordering(smp, grp.orders.data_ptr<int64_t>() + slot * n, grp.grid, distance_, o, sc, st);
    (top ? st.top_s : st.controls_s) += seconds_since(t0);
  }

 private:
  const torch::Tensor& V_;
  const std::vector<CoreGroup>& groups_;
  Distance distance_;
  int64_t decay_k_;
  ValueGeometry* geometry_;
  std::vector<CoreOut>& outs_;
  std::vector<std::vector<Task>> by_block_;
};

}  // namespace

std::vector<CoreOut> core_cpu(const torch::Tensor& V, const std::vector<CoreGroup>& groups, Distance distance,
                              int64_t /*max_chunk_bytes: one Gram matrix per worker*/, int64_t decay_k,
                              ValueGeometry* geometry, CoreStats* stats) {
  const int64_t K = V.size(0), T = V.size(1);
  std::vector<CoreOut> outs;
  for (const auto& grp : groups) {
    const int64_t S = grp.alpha.size(0), O = grp.orders.size(1), G = static_cast<int64_t>(grp.grid.size());
    auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    outs.push_back({torch::zeros({S, O, G}, f64), torch::zeros({S, O, G}, f64), torch::zeros({S, kDiagnostics, G}, f64),
                    torch::zeros({S, kScalarMetrics}, f64)});
  }
  if (geometry) *geometry = {torch::zeros({K, T}, torch::kFloat64), torch::zeros({K, std::max<int64_t>(decay_k, 0)}, torch::kFloat64)};
  const Runner runner(V, groups, distance, decay_k, geometry, outs);
  const auto start = Clock::now();
  CoreStats total;
  const int threads = worker_threads();
  if (K >= threads) {
    // Workers take whole blocks, each with single-threaded BLAS.
    std::vector<CoreStats> per_block(static_cast<size_t>(K));
    SingleThreadedBlas single;
    parallel_for(K, threads, [&](int64_t b0, int64_t b1, int) {
      Scratch sc;
      std::vector<double> sq(static_cast<size_t>(T)), norms(static_cast<size_t>(T)), Vt(static_cast<size_t>(T * V.size(2)));
      double* gram = gram_buffer(T * T);
      for (int64_t b = b0; b < b1; ++b) {
        runner.prepare(b, gram, Vt.data(), sq.data(), norms.data(), per_block[b]);
        for (int64_t t = 0; t < runner.tasks_of(b); ++t)
          runner.run(b, t, gram, Vt.data(), sq.data(), norms.data(), sc, per_block[b]);
      }
    });
    for (const auto& st : per_block) total.merge(st);
  } else {
    // Fewer blocks than workers: the Gram product threaded by BLAS, the tasks by the workers.
    double* gram = gram_buffer(T * T);
    std::vector<double> sq(static_cast<size_t>(T)), norms(static_cast<size_t>(T)), Vt(static_cast<size_t>(T * V.size(2)));
    for (int64_t b = 0; b < K; ++b) {
      runner.prepare(b, gram, Vt.data(), sq.data(), norms.data(), total);
      std::vector<CoreStats> per_task(static_cast<size_t>(runner.tasks_of(b)));
      parallel_for(runner.tasks_of(b), threads, [&](int64_t t0, int64_t t1, int) {
        Scratch sc;
        for (int64_t t = t0; t < t1; ++t) runner.run(b, t, gram, Vt.data(), sq.data(), norms.data(), sc, per_task[t]);
      });
      for (const auto& st : per_task) total.merge(st);
    }
  }
  if (geometry && decay_k > 0) {
    std::vector<int64_t> rest;
    for (int64_t b = 0; b < K; ++b)
      if (!runner.needs_gram(b)) rest.push_back(b);
    if (!rest.empty()) {
      const auto t0 = Clock::now();
      auto idx = torch::tensor(rest, torch::kInt64);
      geometry->decay_sums.index_copy_(
          0, idx, decay_sums(value_lag_dots(V.index_select(0, idx)), geometry->norms.index_select(0, idx), decay_k));
      total.gram_s += seconds_since(t0);
    }
  }
  // Wall time, split between the stages in proportion to their CPU time.
  const double wall = seconds_since(start), cpu = total.gram_s + total.top_s + total.controls_s;
  if (cpu > 0) {
    total.gram_s *= wall / cpu, total.top_s *= wall / cpu, total.controls_s *= wall / cpu;
  }
  if (stats) stats->merge(total);
  return outs;
}

torch::Tensor decay_sums(const LagDots& dots, const torch::Tensor& norms, int64_t decay_k) {
  using torch::indexing::Slice;
  const int64_t k = norms.size(0), T = norms.size(1);
  auto out = torch::zeros({k, decay_k}, norms.options());
  auto inv = torch::where(norms > 0, 1.0 / norms.clamp_min(1e-300), torch::zeros_like(norms));  // [k, T]
  for (int64_t lag = 1; lag <= decay_k && lag <= T - 2; ++lag) {
    // SPEC §4: cos(v_i, v_{i+lag}) = <v_i, v_{i+lag}> / (||v_i|| ||v_{i+lag}||), pairs 0 < i, i + lag < T
    auto scale = inv.index({Slice(), Slice(1, T - lag)}) * inv.index({Slice(), Slice(1 + lag, T)});  // [k, T-lag-1]
    out.select(1, lag - 1).copy_((dots(lag) * scale).sum(-1));
  }
  return out;
}

LagDots value_lag_dots(const torch::Tensor& V) {
  return [V](int64_t lag) {
    using torch::indexing::Slice;
    const int64_t T = V.size(1);
    return (V.index({Slice(), Slice(1, T - lag)}) * V.index({Slice(), Slice(1 + lag, T)})).sum(-1);
  };
}

LagDots gram_lag_dots(const torch::Tensor& gram) {
  return [gram](int64_t lag) { return gram.diagonal(lag, 1, 2).narrow(1, 1, gram.size(1) - lag - 1); };
}

}  // namespace geoattn::metrics::detail
