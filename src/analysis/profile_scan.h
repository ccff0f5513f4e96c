#pragma once
// The (T1, T2) searches of fit_profile (internal to src/analysis): for every candidate pair,
// the inner least squares on log-probabilities in closed form from prefix sums, O(1) per pair.
#include <cstdint>
#include <vector>

namespace geoattn::analysis::detail {

// The fitted positions: y[i] = log(mean_row[i]) - offset with weight w[i] = 1, or w[i] = 0
// (position 0, the sink, fitted apart, and zero entries). n = sum w.
struct LogRow {
  std::vector<double> y, w;
  double n = 0, offset = 0;
  int64_t T() const { return static_cast<int64_t>(y.size()); }
};

// Prefix sums: S[k] = sum_{i < k} f(i), so the sum over positions lo..hi is S[hi+1] - S[lo].
struct Prefix {
  std::vector<double> s;
  explicit Prefix(int64_t T) : s(static_cast<size_t>(T + 1), 0.0) {}
  void set(int64_t i, double v) { s[static_cast<size_t>(i + 1)] = s[static_cast<size_t>(i)] + v; }
  double range(int64_t lo, int64_t hi) const {
    return lo > hi ? 0.0 : s[static_cast<size_t>(hi + 1)] - s[static_cast<size_t>(lo)];
  }
};

// The omega-independent sums of a row (weights, y, y^2, i, i^2, i y), computed once per fit.
struct BaseSums {
  Prefix W, Y, YY, I, II, IY;
  double n, sy, syy;
  explicit BaseSums(const LogRow& row);
};

// One candidate: phases, log p_base - offset (P), eta, and the sum of squared log residuals.
struct Phases {
  int64_t T1 = 0, T2 = 0;
  double P = 0, eta = 0, sse = 0;
  bool found = false;
};

// Linearised model (log(1 + eta cos) ~ eta cos) at a fixed omega, P and eta free: every pair
// T1 <= T2 with T1 in t1 and T2 in t2 (both sorted). Pairs whose oscillation is non-empty and
// whose eta has |eta| >= 1 are skipped (the exact model would leave the probabilities).
Phases scan_linearised(const LogRow& row, const BaseSums& base, double omega, const std::vector<int64_t>& t1,
                       const std::vector<int64_t>& t2);

// No oscillation (T1 = T2 = t for every t): plateau then growth, P and eta free. O(T).
Phases scan_plateau_growth(const LogRow& row, const BaseSums& base);

// Exact model at fixed (eta, omega), P free: every pair T1 <= T2 from t1 x t2 (only T1 = T2
// when |eta| >= 1).
Phases scan_exact(const LogRow& row, const BaseSums& base, double eta, double omega, const std::vector<int64_t>& t1,
                  const std::vector<int64_t>& t2);

}  // namespace geoattn::analysis::detail
