#pragma once
// The scalar formulas of SPEC §5, shared by the incremental sample_bounds and the direct
// bounds_terms (internal to src/analysis).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "geoattn/analysis/bounds.h"

namespace geoattn::analysis::detail {

// geoattn::Error unless the sample and options are valid (see sample_bounds in bounds.h).
void check_input(const BoundsInput& in, const BoundsOptions& opt);
void check_input(const BoundsView& in, const BoundsOptions& opt);

// SPEC §5 / Thm 1-2: the Chernoff tail e^{-kappa d (margin/B)^2} if margin > 0, else 1.
// B = 0 with a positive margin is the limit: 0.
inline double tail(double margin, double B, double kappa, int64_t d) {
  if (!(margin > 0)) return 1.0;
  if (B <= 0) return 0.0;
  const double r = margin / B;
  return std::exp(-kappa * static_cast<double>(d) * r * r);
}

// SPEC §5 / eq. 10: mu_ij = (a_j^2 - a_i^2) - 2 a_j M_j + 2 a_i M_i.
inline double mu_ij(double a_i, double a_j, double M_i, double M_j) {
  return (a_j * a_j - a_i * a_i) - 2 * a_j * M_j + 2 * a_i * M_i;
}

// SPEC §5 / eq. 9: p_ij = pair_p(mu_ij / sigma); sigma = 0 (B = 0) reads xi = +inf for mu > 0.
inline double p_of_mu(double mu, double sigma) {
  if (!(mu > 0)) return 0.5;
  if (sigma <= 0) return 0.0;
  return pair_p(mu / sigma);
}

// Corollary 1: F = 2x / (1 + x).
inline double f_of(double x) { return 2 * x / (1 + x); }

struct Lower {
  double t = 1, t0 = 1, P_lo = 1, R_lo = 1;
};

// SPEC §5 / Thm 1 eq. 12, Thm 2 eq. 14 with Delta0 of appendix eq. 29; n = q+1 tokens.
inline Lower lower_bounds(double Delta, double Delta0, double B, int64_t N, int64_t n, bool sink_in,
                          const BoundsOptions& opt, int64_t d) {
  Lower lo;
  lo.t = tail(Delta, B, opt.kappa, d);
  lo.t0 = tail(Delta0, B, opt.kappa, d);
  const double n_out = static_cast<double>(n - N), Nd = static_cast<double>(N);
  // SPEC §5: the sink term (n_out/N) t0 counts only when 0 in I_N.
  const double union_sum = n_out * lo.t + (sink_in ? n_out / Nd * lo.t0 : 0.0);
  // SPEC §5: P_lo = max(N/(q+1), 1 / (1 + n_out t + [0 in I_N] (n_out/N) t0)).
  lo.P_lo = std::max(Nd / static_cast<double>(n), 1.0 / (1.0 + union_sum));
  // SPEC §5: R_lo = max(0, 1 - n_out t - [0 in I_N] (n_out/N) t0).
  lo.R_lo = std::max(0.0, 1.0 - union_sum);
  return lo;
}

}  // namespace geoattn::analysis::detail
