#pragma once
// The (T1, T2) searches of fit_profile (internal to src/analysis): for every pair, the inner
// least squares on log-probabilities in closed form from prefix sums, O(1) per pair.
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

// One candidate: phases, log p_base - offset (P), eta, and the sum of squared log residuals.
struct Phases {
  int64_t T1 = 0, T2 = 0;
  double P = 0, eta = 0, sse = 0;
  bool found = false;
};

// Linearised model (log(1 + eta cos) ~ eta cos) at a fixed omega, P and eta free: every pair
// T1 <= T2 with both in `cands` (sorted). Pairs whose oscillation is non-empty and whose
// eta has |eta| >= 1 are skipped (the exact model would leave the probabilities).
Phases scan_linearised(const LogRow& row, double omega, const std::vector<int64_t>& cands);

// Exact model at fixed (eta, omega), P free: every pair 0 <= T1 <= T2 <= T-1 (only T1 = T2
// when |eta| >= 1).
Phases scan_exact(const LogRow& row, double eta, double omega);

}  // namespace geoattn::analysis::detail
