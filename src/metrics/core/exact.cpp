// Exact decisions for the closed balls of SPEC §2 (see exact.h).
#include "geoattn/metrics/core/exact.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "geoattn/util/error.h"

namespace geoattn::metrics {

namespace {
// x 2^e in binary128, exactly (power-of-two steps that stay inside its range).
__float128 ldexp_f128(__float128 x, int e) {
  const __float128 up = 18446744073709551616.0;  // 2^64
  const __float128 down = 1 / up;
  for (; e >= 64; e -= 64) x *= up;
  for (; e <= -64; e += 64) x *= down;
  return x * static_cast<__float128>(std::ldexp(1.0, e));
}

// sqrt in binary128: the long double root refined by two Newton steps (64 -> 113+ bits).
__float128 sqrt_f128(__float128 x) {
  if (!(x > 0)) return 0;
  __float128 r = static_cast<__float128>(std::sqrt(static_cast<long double>(x)));
  for (int i = 0; i < 2; ++i) r = (r + x / r) / 2;
  return r;
}

// y = alpha v as an exact double-double hi + lo (lo = 0 when alpha and v came from float32).
struct Split {
  double hi, lo;
};
Split product(double a, double b) {
  const double hi = a * b;
  return {hi, std::fma(a, b, -hi)};
}
}  // namespace

double rounding_gamma(int64_t m) {
  const double mu = static_cast<double>(m) * kUnit;
  return mu / (1 - mu);
}

// The proofs behind these factors are in SPEC §2 ("Exact") and DESIGN.md; in short, with
// A_m = sum_{t in I_N} |y_tm| and sum_m A_m |y_km| <= a_k S_N (Cauchy-Schwarz):
//   tensor path: s(N) by a prefix sum (gamma_{N-1} A_m), <s, y_k> by a product (gamma_d), y
//   rounded once: |fl(E_k) - E_k| <= gamma_{N+d+3} (a_k^2 + 2 a_k S_N);
//   fused path: V V^T by a product (gamma_d ||v_t|| ||v_k||), c_k = sum_t alpha_t (V V^T)_tk
//   (2 roundings a step), alpha_k c_k, alpha_k^2 (V V^T)_kk: gamma_{2N+d+3} (a_k^2 + 2 a_k S_N);
//   the same where c is made from s(N') at a grid value N' (core_ordering.h, OrderingPlan): s(N')
//   summed in coordinates (at most 2 roundings a step: gamma_{2N'} A_m), d products fused into c
//   (gamma_d), then the rows of the later steps as above: within gamma_{2N+d+3} again;
//   fused path, the state E itself (core_kernels.h, TokenState::direct): E_k starts at
//   g_k = alpha_k^2 ||v_k||^2 (gamma_{d+2}) and takes one term per step or per group of up to 4
//   steps, -2 alpha_k sum_t alpha_t (V V^T)_tk (gamma_d, then at most 4 roundings: alpha_k times
//   one row, or the group's rows summed, times alpha_k inside the fma), its magnitude at most
//   2 a_k sum_t a_t; at most N + 1 terms summed in turn: gamma_{N+d+4} (a_k^2 + 2 a_k S_N).
// gamma_{2N+d+6} covers all three; the factor 2 covers the rounding of the computed a_k and S_N
// (relative gamma_{N+d+4}) and of the comparisons made with the bands.
double euclid_band_factor(int64_t N, int64_t d) { return 2 * rounding_gamma(2 * N + d + 6); }

// <s, y_k> carries the Euclidean bound's cross term: gamma_{2N+d+6} a_k S_N.
double cosine_num_factor(int64_t N, int64_t d) { return rounding_gamma(2 * N + d + 6); }
// ||s||^2: incrementally (fused: each step adds 2 <s, y_t> + ||y_t||^2, whose errors sum to
// gamma_{2N+d+2} S_N^2, plus N roundings of partial sums <= S_N^2) or from the prefix sums
// (tensor: gamma_{2N+d+3} S_N^2): gamma_{3N+d+8} S_N^2 covers both.
double cosine_norm_factor(int64_t N, int64_t d) { return rounding_gamma(3 * N + d + 8); }

// ---- WideSum ----------------------------------------------------------------------------

void WideSum::add_scaled(double x, int shift) {
  if (x == 0) return;
  if (!std::isfinite(x)) fail("metrics: a non-finite value in an exact sum");
  int e = 0;
  const double f = std::frexp(x, &e);  // x = f 2^e, 0.5 <= |f| < 1
  const auto m = static_cast<int64_t>(std::ldexp(f, 53));  // exact, |m| < 2^53
  const int p = e - 53 + shift - kMinExp;                   // the weight of m's lowest bit
  if (p < 0 || p + 53 + 64 > kDigits * 32) fail("metrics: an exact sum left its range (2^{})", e + shift);
  const int i = p >> 5, s = p & 31;
  const unsigned __int128 v = static_cast<unsigned __int128>(static_cast<uint64_t>(m < 0 ? -m : m)) << s;  // < 2^85
  const auto d0 = static_cast<int64_t>(static_cast<uint64_t>(v) & 0xFFFFFFFFu);
  const auto d1 = static_cast<int64_t>(static_cast<uint64_t>(v >> 32) & 0xFFFFFFFFu);
  const auto d2 = static_cast<int64_t>(static_cast<uint64_t>(v >> 64));
  if (m < 0) {
    d_[i] -= d0, d_[i + 1] -= d1, d_[i + 2] -= d2;
  } else {
    d_[i] += d0, d_[i + 1] += d1, d_[i + 2] += d2;
  }
  // Each add moves a digit by < 2^32: 2^30 of them keep every digit inside int64.
  if (++adds_ >= (int64_t{1} << 30)) normalize();
}

void WideSum::add_product(double a, double b, int shift) {
  if (a == 0 || b == 0) return;
  int ea = 0, eb = 0;
  const double fa = std::frexp(a, &ea), fb = std::frexp(b, &eb);
  // fa fb in [1/4, 1): its two-product is exact, with no underflow or overflow.
  const Split p = product(fa, fb);
  add_scaled(p.hi, ea + eb + shift);
  add_scaled(p.lo, ea + eb + shift);
}

void WideSum::normalize() {
  for (int i = 0; i + 1 < kDigits; ++i) {
    const int64_t carry = d_[i] >> 32;  // floor(d / 2^32)
    d_[i] -= carry * 4294967296LL;
    d_[i + 1] += carry;
  }
  adds_ = 0;
}

void WideSum::subtract(const WideSum& other) {
  if (adds_ + other.adds_ + 1 >= (int64_t{1} << 30)) normalize();
  WideSum o = other;
  if (o.adds_ > 0) o.normalize();
  for (int i = 0; i < kDigits; ++i) d_[i] -= o.d_[i];
  adds_ += 1;
}

int WideSum::sign() const {
  WideSum w = *this;
  w.normalize();
  if (w.d_[kDigits - 1] != 0) return w.d_[kDigits - 1] < 0 ? -1 : 1;
  for (int i = kDigits - 2; i >= 0; --i)
    if (w.d_[i] != 0) return 1;
  return 0;
}

namespace {
// |x| with nonnegative digits, and the sign of x.
std::pair<WideSum, int> magnitude(const WideSum& x) {
  const int s = x.sign();
  WideSum m;
  if (s >= 0) {
    m = x;
  } else {
    m.subtract(x);  // 0 - x
  }
  return {m, s};
}
}  // namespace

__float128 WideSum::to_f128() const {
  auto [m, s] = magnitude(*this);
  m.normalize();
  int top = kDigits - 1;
  while (top >= 0 && m.d_[top] == 0) --top;
  if (top < 0) return 0;
  // Five digits (160 bits) past the first nonzero one are more than binary128 holds.
  const int last = std::max(0, top - 5);
  __float128 r = 0;
  for (int i = top; i >= last; --i) r = r * 4294967296.0 + static_cast<__float128>(m.d_[i]);
  r = ldexp_f128(r, 32 * last + kMinExp);
  return s < 0 ? -r : r;
}

void WideSum::add_product_of(const WideSum& x, double y) {
  if (y == 0) return;
  auto [m, s] = magnitude(x);
  m.normalize();
  if (s < 0) y = -y;
  for (int i = 0; i < kDigits; ++i)
    if (m.d_[i] != 0) add_product(static_cast<double>(m.d_[i]), y, 32 * i + kMinExp);
}

// ---- resolve_counts ---------------------------------------------------------------------

namespace {

// The exact (Euclidean) or binary128 (cosine) value of E_k / D_k for the tokens that need it,
// from s(N) summed exactly over I_N.
class ExactEvaluator {
 public:
  ExactEvaluator(const ExactSample& smp, const int64_t* order, int64_t N, Distance distance)
      : smp_(smp), distance_(distance), s_(static_cast<size_t>(smp.d)) {
    const int64_t d = smp.d;
    for (int64_t j = 0; j < N; ++j) {
      const int64_t t = order[j];
      for (int64_t m = 0; m < d; ++m) {
        const Split y = product(smp.alpha[t], smp.values[t * d + m]);
        s_[m].add(y.hi);
        s_[m].add(y.lo);
      }
    }
    if (distance == Distance::Cosine) {
      s128_.resize(static_cast<size_t>(d));
      __float128 s2 = 0;
      for (int64_t m = 0; m < d; ++m) {
        s128_[m] = s_[m].to_f128();
        s2 += s128_[m] * s128_[m];
      }
      s_norm_ = sqrt_f128(s2);
    }
    euclid_.resize(static_cast<size_t>(smp.n));
    cosine_.resize(static_cast<size_t>(smp.n));
  }

  // sign(X_j - X_i) of the exact values.
  int compare(int64_t j, int64_t i) {
    if (distance_ == Distance::Cosine) {
      const __float128 a = cosine(j), b = cosine(i);
      return a < b ? -1 : a > b ? 1 : 0;
    }
    WideSum diff = euclid(j);
    diff.subtract(euclid(i));
    return diff.sign();
  }
  int64_t evaluated() const { return evaluated_; }

 private:
  // SPEC §2: E_k = ||y_k||^2 - 2 <s, y_k>, exactly.
  const WideSum& euclid(int64_t k) {
    auto& slot = euclid_[k];
    if (slot) return *slot;
    ++evaluated_;
    WideSum w;
    const int64_t d = smp_.d;
    for (int64_t m = 0; m < d; ++m) {
      const Split y = product(smp_.alpha[k], smp_.values[k * d + m]);
      w.add_product(y.hi, y.hi);
      w.add_product(y.hi, 2 * y.lo);
      w.add_product(y.lo, y.lo);
      w.add_product_of(s_[m], -2 * y.hi);
      w.add_product_of(s_[m], -2 * y.lo);
    }
    return slot.emplace(w);
  }

  // SPEC §2b: D_k = 1 - q_k, q_k = <s, y_k> / (||s|| ||y_k|| + eps), compared as -q_k (the same
  // order, without rounding q_k against 1), in binary128.
  __float128 cosine(int64_t k) {
    auto& slot = cosine_[k];
    if (slot) return *slot;
    ++evaluated_;
    const int64_t d = smp_.d;
    __float128 dot = 0, y2 = 0;
    for (int64_t m = 0; m < d; ++m) {
      const Split y = product(smp_.alpha[k], smp_.values[k * d + m]);
      const __float128 yk = static_cast<__float128>(y.hi) + static_cast<__float128>(y.lo);
      dot += s128_[m] * yk;
      y2 += yk * yk;
    }
    return slot.emplace(-(dot / (s_norm_ * sqrt_f128(y2) + static_cast<__float128>(kCosineEps))));
  }

  const ExactSample& smp_;
  Distance distance_;
  std::vector<WideSum> s_;
  std::vector<__float128> s128_;
  __float128 s_norm_ = 0;
  std::vector<std::optional<WideSum>> euclid_;
  std::vector<std::optional<__float128>> cosine_;
  int64_t evaluated_ = 0;
};

}  // namespace

BallCounts resolve_counts(const ExactSample& smp, const PendingCounts& p, Distance distance, int64_t* resolved_exactly) {
  const int64_t n = smp.n;
  // Where the true extremes can be: r_max in [lo_max, hi_max], r_min in [lo_min, hi_min].
  double lo_max = -kInfinity, hi_max = -kInfinity, lo_min = kInfinity, hi_min = kInfinity;
  for (int64_t k = 0; k < n; ++k) {
    const double lo = p.E[k] - p.err[k], hi = p.E[k] + p.err[k];
    if (p.selected[k] > 0) {
      lo_max = std::max(lo_max, lo), hi_max = std::max(hi_max, hi);
    } else {
      lo_min = std::min(lo_min, lo), hi_min = std::min(hi_min, hi);
    }
  }
  BallCounts c;
  std::vector<int64_t> open_out, open_in, cand_max, cand_min;
  for (int64_t k = 0; k < n; ++k) {
    const double lo = p.E[k] - p.err[k], hi = p.E[k] + p.err[k];
    if (p.selected[k] > 0) {
      // K_in: D_k <= r_min^2 for certain, for certain not, or open.
      if (hi <= lo_min) ++c.k_in;
      else if (!(lo > hi_min)) open_in.push_back(k);
      if (hi >= lo_max) cand_max.push_back(k);  // may hold r_max
    } else {
      if (hi <= lo_max) ++c.k_out;
      else if (!(lo > hi_max)) open_out.push_back(k);
      if (lo <= hi_min) cand_min.push_back(k);  // may hold r_min
    }
  }
  if (open_in.empty() && open_out.empty()) return c;

  ExactEvaluator exact(smp, p.order, p.N, distance);
  if (!open_out.empty()) {
    int64_t arg = cand_max.front();
    for (int64_t k : cand_max)
      if (exact.compare(k, arg) > 0) arg = k;
    for (int64_t j : open_out) c.k_out += exact.compare(j, arg) <= 0;
  }
  if (!open_in.empty()) {
    if (cand_min.empty()) {
      c.k_in += static_cast<int64_t>(open_in.size());  // N = n: no r_min, every token is in
    } else {
      int64_t arg = cand_min.front();
      for (int64_t k : cand_min)
        if (exact.compare(k, arg) < 0) arg = k;
      for (int64_t i : open_in) c.k_in += exact.compare(i, arg) <= 0;
    }
  }
  if (resolved_exactly) *resolved_exactly += exact.evaluated();
  return c;
}

}  // namespace geoattn::metrics
