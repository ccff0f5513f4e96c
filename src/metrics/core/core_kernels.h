#pragma once
// The fused CPU loops of the metric core (DESIGN.md "The metric core in tensor operations",
// steps 2-4), internal to src/metrics: each compiled for AVX-512 and AVX2 beside the baseline
// (core_kernels_impl.h, once per level), the best the CPU has picked once at the first call, and
// every level callable by itself (kernels_of: the tests run each one the machine has). Pure C++;
// core_ordering.cpp runs them.
//
// For one sample and one ordering, the per-token state over the sample's n tokens:
//   c_k   = sum_{t in I_N} alpha_t (V V^T)_tk, so that <s(N), y_k> = alpha_k c_k,
//   E_k   = g_k - 2 alpha_k c_k, g_k = ||y_k||^2 (SPEC §2 "Exact": D_k - ||s||^2),
//   m_k   = +inf for the selected tokens (k in I_N), -inf for the rest: min(E_k, m_k) is E_k on
//           the selected and -inf elsewhere, max(E_k, m_k) is E_k on the rest and +inf on the
//           selected.
#include <cstdint>
#include <span>

namespace geoattn::metrics::detail {

// What a pass reads besides c, [n] each. With `direct` the state the passes update is E itself:
// a step's row x with weight a (= -2 alpha_t) gives E_k = fma(a, alpha_k x_k, E_k), and g is not
// read (one multiply and two loads a token fewer than E from c: where every N is a grid value,
// and the counting pass evaluates E at every step). Each pass below reads its `c` as E then.
struct TokenState {
  std::span<const double> g, alpha, m;
  bool direct = false;
  // The same selection as m, a bit a token (token k: bit k % 8 of byte k / 8), [ceil(n / 8)]:
  // what the AVX-512 level reads (a mask register a block of 8 tokens).
  std::span<const uint8_t> in;
};

// One step's row of V V^T, added to c with weight a; `next` is the next step's row, fetched
// into the cache meanwhile (the rows of an ordering are scattered over a T x T matrix that does
// not fit in L2, and the hardware prefetcher stops at every 4 KiB page).
struct StepRow {
  double a;
  std::span<const double> x, next;
};

// r_max = max_{k in I_N} E_k and r_min = min_{k not in I_N} E_k.
struct Extremes {
  double r_max, r_min;
};

// The bands of one step's counts: r_max -/+ 2U and r_min -/+ 2U (U the step's rounding band).
struct Thresholds {
  double lo_out, hi_out, lo_in, hi_in;
};

// [K_out certain, K_out possible, K_in certain, K_in possible]: the step's counts where the band
// decides them (certain == possible), else the range the exact resolution narrows.
struct BandCounts {
  int64_t out_certain, out_possible, in_certain, in_possible;
  bool decided() const { return out_certain == out_possible && in_certain == in_possible; }
};

// c += a x
void add_row(double a, std::span<const double> x, std::span<double> c);

// Up to kRowsAtOnce steps' rows in one pass over c: c_k = fma(a_3, x_3k, fma(a_2, x_2k, ...
// fma(a_0, x_0k, c_k))), the same bits as add_row once per row in that order, with c read and
// written once instead of once per row; `next` is fetched meanwhile. With `alpha` (the state is
// E: TokenState::direct), E_k = fma(alpha_k, h_k, E_k), h_k = the rows' sum fused the same way.
inline constexpr int kRowsAtOnce = 4;
struct StepRows {
  int count = 0;
  double a[kRowsAtOnce] = {};
  const double* x[kRowsAtOnce] = {};
  const double* next = nullptr;
  const double* alpha = nullptr;  // [n] where the state holds E (TokenState::direct), else null
};
void add_rows(const StepRows& rows, std::span<double> c);

// The counts of a step with N selected tokens from E and the mask m, for `thresholds`.
BandCounts band_counts(std::span<const double> E, std::span<const double> m, int64_t N, const Thresholds& thresholds);

// c += a x, then E (into `E`) and its extremes: one pass.
Extremes add_row_and_evaluate(const StepRow& row, const TokenState& tokens, std::span<double> c, std::span<double> E);

// c_new = c + a x and the extremes of its E, fused with the band counts of the step before
// (N - 1 selected tokens, `thresholds`), whose E the pass computes again from c, bit for bit:
// one pass instead of two where the grid holds N - 1 and N, and no E array read or written
// (the pass is bound by the cache traffic of its arrays). `t` is the token step N selects (its
// mask already set): the counts are corrected for it.
struct EvaluatedAndCounted {
  Extremes extremes;
  BandCounts previous;
};
EvaluatedAndCounted add_row_evaluate_and_count(const StepRow& row, const TokenState& tokens, std::span<const double> c,
                                               std::span<double> c_new, const Thresholds& thresholds, int64_t N_prev,
                                               int64_t t);

// E_k = g_k - 2 alpha_k c_k, the values every pass computes from c.
void evaluate(const TokenState& tokens, std::span<const double> c, std::span<double> E);

// The per-token bands of exact.h, err_k = factor a_k (a_k + 2 S) into `err`, and the counts
// they decide, as resolve_counts' first stage would find them, but vectorised (heavy-tailed
// rows send many steps here).
BandCounts token_band_counts(std::span<const double> E, std::span<const double> a, std::span<const double> m, int64_t N,
                             double S, double factor, std::span<double> err);

// <x, y>
double dot(std::span<const double> x, std::span<const double> y);
// ||x - a y||
double distance_to_scaled(std::span<const double> x, double a, std::span<const double> y);

// The bootstrap's two loops (bootstrap.cpp), here so that every level of them is callable too:
// the smallest and largest of xs[0..m) into lo, hi and how many are not finite (exact in any order);
int64_t range_of(const double* xs, int64_t m, double* lo, double* hi);
// R[r + j ldr] = sum_u W[r + u ldw] X[u + j ldx] for r < kTileRows, j < kTileCols: each sum over u
// in order, every term fused into it (std::fma), so that every level gives the same bits.
inline constexpr int64_t kTileRows = 8, kTileCols = 8;
void replicate_tile(const double* W, int64_t ldw, const double* X, int64_t ldx, int64_t U, double* R, int64_t ldr);

// The kernels above of one instruction-set level: the functions above call the best level's.
namespace kernel_types {
using AddRow = decltype(&add_row);
using AddRows = decltype(&add_rows);
using BandCountsOf = decltype(&band_counts);
using AddRowAndEvaluate = decltype(&add_row_and_evaluate);
using AddRowEvaluateAndCount = decltype(&add_row_evaluate_and_count);
using Evaluate = decltype(&evaluate);
using TokenBandCounts = decltype(&token_band_counts);
using Dot = decltype(&dot);
using DistanceToScaled = decltype(&distance_to_scaled);
using RangeOf = decltype(&range_of);
using ReplicateTile = decltype(&replicate_tile);
}  // namespace kernel_types
struct Kernels {
  kernel_types::AddRow add_row;
  kernel_types::AddRows add_rows;
  kernel_types::BandCountsOf band_counts;
  kernel_types::AddRowAndEvaluate add_row_and_evaluate;
  kernel_types::AddRowEvaluateAndCount add_row_evaluate_and_count;
  kernel_types::Evaluate evaluate;
  kernel_types::TokenBandCounts token_band_counts;
  kernel_types::Dot dot;
  kernel_types::DistanceToScaled distance_to_scaled;
  kernel_types::RangeOf range_of;
  kernel_types::ReplicateTile replicate_tile;
};
enum class SimdLevel { Baseline, Avx2, Avx512 };
inline constexpr SimdLevel kSimdLevels[] = {SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512};
const char* simd_level_name(SimdLevel level);  // "baseline", "avx2" (x86-64-v3), "avx512" (x86-64-v4)
// The kernels of `level`, or nullptr where this build or this CPU has none.
const Kernels* kernels_of(SimdLevel level);
// The best level this CPU has, picked once.
SimdLevel best_simd_level();

}  // namespace geoattn::metrics::detail
