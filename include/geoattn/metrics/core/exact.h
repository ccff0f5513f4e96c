#pragma once
// Exact decisions for the closed balls of SPEC §2 ("Exact"). The metric core evaluates
// E_k = ||y_k||^2 - 2 <s(N), y_k> in float64 and knows a bound on its rounding error; a
// comparison that the bound cannot decide is settled here, from the sample's own alpha and v:
//   - Euclidean: in exact arithmetic (WideSum, a fixed-point accumulator over the whole double
//     range), so K_in and K_out are those of exact arithmetic, exact ties included;
//   - cosine: s(N) summed exactly, then D_k - 1 = -<s, y_k> / (||s|| ||y_k|| + eps) in binary128
//     (113-bit) arithmetic: the square roots make an exact decision impossible, and identical
//     inputs still give identical values. (D_k itself would round every difference below 1e-16
//     away against the 1.)
// The constants and rounding bounds of both evaluations of the metric core are defined here once.
// Pure C++ (no LibTorch).
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "geoattn/util/enum_names.h"

namespace geoattn::metrics {

enum class Distance { Euclidean, Cosine };
inline constexpr EnumName<Distance> kDistanceNames[] = {{Distance::Euclidean, "euclidean"}, {Distance::Cosine, "cosine"}};

// SPEC §2b's cosine distance: 1 - <x, y> / (||x|| ||y|| + kCosineEps).
constexpr double kCosineEps = 1e-12;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// What the result JSON records as settings.comparisons.
constexpr const char* kComparisons =
    "exact: E_k = D_k - ||s||^2 in float64 within a proven rounding band; exact arithmetic (cosine: binary128 "
    "from an exactly summed s(N)) where the band leaves a comparison open (SPEC §2)";

// u, the unit roundoff of float64.
constexpr double kUnit = 0x1p-53;

// gamma_m = m u / (1 - m u), u = 2^-53: the bound on the relative error of m roundings
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Lemma 3.1).
double rounding_gamma(int64_t m);

// SPEC §2 "Exact", the one rounding bound of the Euclidean evaluation: for a sample with
// head_dim d at N selected tokens, both evaluations of the metric core (the fused CPU loop
// over the Gram matrix and the prefix-sum product of the tensor path) satisfy
//   |fl(E_k) - E_k| <= gamma_{2N+d+6} (a_k^2 + 2 a_k S_N),
// a_k = ||y_k|| = alpha_k ||v_k||, S_N = sum_{t in I_N} a_t. This returns twice that factor:
// the band used for decisions, covering the rounding of a_k, S_N and of the comparisons.
double euclid_band_factor(int64_t N, int64_t d);

// The same for the cosine distance (its bound also needs ||s(N)||: see exact.cpp).
double cosine_num_factor(int64_t N, int64_t d);   // |fl(<s, y_k>) - <s, y_k>| <= f a_k S_N
double cosine_norm_factor(int64_t N, int64_t d);  // |fl(||s||^2) - ||s||^2| <= f S_N^2

// The formulas below serve both evaluations: X = double with ScalarOps (the fused CPU loops),
// X = torch::Tensor with the tensor path's ops (core_tensor.cpp), elementwise and broadcasting.
// Ops: select(c, a, x) (c ? a : x, a a constant), equal(x, y), not_greater(x, y) (!(x > y): true
// for NaN), either(p, q), sqrt, abs.
struct ScalarOps {
  static double select(bool c, double a, double x) { return c ? a : x; }
  static bool equal(double x, double y) { return x == y; }
  static bool not_greater(double x, double y) { return !(x > y); }
  static bool either(bool p, bool q) { return p || q; }
  static double sqrt(double x) { return std::sqrt(x); }
  static double abs(double x) { return std::abs(x); }
};

// SPEC §3: cos(x, y) from <x, y> and the norms, 0 where either vector is zero.
template <typename Ops = ScalarOps, typename X>
X safe_cos(const X& dot, const X& nx, const X& ny) {
  const X den = nx * ny;
  return Ops::select(Ops::not_greater(den, 0.0), 0.0, dot / den);
}

// SPEC §2b: ||s(N)|| from s2 = fl(||s||^2), whose error is at most sigma2 = f_norm S_N^2, and a
// bound ds on the error of ns; `lost` where ||s|| is lost in rounding (then ns = ds = 0, and
// every token's bound below is infinite: exact resolution).
template <typename X, typename B>
struct CosineNorm {
  X ns, ds;
  B lost;
};
template <typename Ops = ScalarOps, typename X>
auto cosine_norm(const X& s2, const X& sigma2) {
  const auto lost = Ops::not_greater(s2, 4 * sigma2);
  const X ns = Ops::select(lost, 0.0, Ops::sqrt(s2));
  const X ds = Ops::select(lost, 0.0, sigma2 / ns + kUnit * ns);  // |fl(||s||) - ||s|||
  return CosineNorm<X, decltype(lost)>{ns, ds, lost};
}

// SPEC §2b, the cosine distance at one N: D_k = 1 - q_k, q_k = <s, y_k> / (||s|| a_k + eps), is
// compared as -q_k (the same order; 1 - q would round away every difference below 1e-16, and
// tails of tiny y_k differ far below that). From num = fl(<s, y_k>) (error <= f_num a_k S_N),
// a = fl(a_k) and the norm above: value = -q_k and err, a bound on its rounding (0 where
// y_k = 0: q_k = 0 exactly). g_norm = rounding_gamma(d + 5) bounds the relative error of a_k.
template <typename X>
struct CosineBand {
  X value, err;
};
template <typename Ops = ScalarOps, typename X, typename B>
CosineBand<X> cosine_band(const X& num, const X& a, const X& S, const CosineNorm<X, B>& norm, const X& f_num,
                          double g_norm) {
  const X den = norm.ns * a + kCosineEps, q = num / den;
  // |den_hat - den| <= a ds + ||s|| |a_hat - a| + rounding; then |q_hat - q|.
  const X dden = 1.01 * (a * norm.ds + norm.ns * a * g_norm) + 2 * kUnit * den, den_lo = den - dden;
  const X err = 2 * (f_num * a * S / den_lo + Ops::abs(num) * dden / (den_lo * den) + 2 * kUnit * Ops::abs(q));
  const X banded = Ops::select(Ops::either(norm.lost, Ops::not_greater(den_lo, 0.0)), kInfinity, err);
  return {-q, Ops::select(Ops::equal(a, 0.0), 0.0, banded)};
}

// An exact sum of doubles and of products of doubles: fixed point over the whole range of
// double products, 32-bit digits held in int64 so that adds need no carries.
class WideSum {
 public:
  static constexpr int kDigits = 144;
  static constexpr int kMinExp = -2400;  // the weight of digit 0 is 2^kMinExp

  void add(double x) { add_scaled(x, 0); }
  void add_scaled(double x, int shift);                  // += x 2^shift
  void add_product(double a, double b, int shift = 0);   // += a b 2^shift, exactly
  // += x * y, x exact in `this` convention (digits), y a double: for s_m y_k (exact.cpp).
  void add_product_of(const WideSum& x, double y);
  void subtract(const WideSum& other);
  int sign() const;           // -1, 0, 1 of the exact value
  __float128 to_f128() const; // the value rounded to binary128 (relative error <= 2^-112)

 private:
  void normalize();  // carries: every digit but the top in [0, 2^32)
  std::array<int64_t, kDigits> d_{};
  int64_t adds_ = 0;
};

// A sample as the exact resolution needs it: alpha [n], values [n, d] row-major (float64;
// y = alpha v is exact when both came from float32, and kept as a double-double otherwise).
struct ExactSample {
  const double* alpha;
  const double* values;
  int64_t n, d;
};

// One (sample, ordering, N) whose fast evaluation left some comparisons undecided.
struct PendingCounts {
  const double* E;        // [n] the fast evaluation of E_k (Euclidean) or D_k - 1 (cosine)
  const double* err;      // [n] bounds on |E_hat_k - E_k|
  const double* selected; // [n] > 0 where k is in I_N, <= 0 elsewhere (the fused loops' mask)
  const int64_t* order;   // [n] the ordering; I_N = order[0..N)
  int64_t N;
};

struct BallCounts {
  int64_t k_in = 0, k_out = 0;
};

// SPEC §2's K_in = #{i in I_N : D_i <= r_min^2} and K_out = #{j not in I_N : D_j <= r_max^2},
// decided with the bands first and exactly (see above) where the bands overlap.
// `resolved_exactly` (optional) counts the tokens that needed the exact evaluation.
BallCounts resolve_counts(const ExactSample& sample, const PendingCounts& p, Distance distance,
                          int64_t* resolved_exactly = nullptr);

}  // namespace geoattn::metrics
