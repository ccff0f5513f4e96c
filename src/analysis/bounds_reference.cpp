// SPEC §5 at one N, straight from the definitions: the reference for sample_bounds and the
// place to check the formulas by hand (bounds_terms in bounds.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "bounds_formulas.h"
#include "geoattn/analysis/bounds.h"
#include "geoattn/util/error.h"

namespace geoattn::analysis {

BoundsTerms bounds_terms(const BoundsInput& in, int64_t N, const BoundsOptions& opt) {
  detail::check_input(in, opt);
  const auto n = static_cast<int64_t>(in.a.size());
  if (N < 1 || N > n) fail("bounds: N = {} is outside 1..{}", N, n);
  BoundsTerms t;
  t.N = N;
  t.n_out = n - N;  // SPEC §5: n_out = (q+1) - N
  std::vector<char> is_in(static_cast<size_t>(n), 0);
  for (int64_t k = 0; k < N; ++k) is_in[static_cast<size_t>(in.order[static_cast<size_t>(k)])] = 1;
  t.in.assign(in.order.begin(), in.order.begin() + N);
  for (int64_t j = 0; j < n; ++j)
    if (!is_in[static_cast<size_t>(j)]) t.out.push_back(j);
  t.sink_in = is_in[0] != 0;

  // SPEC §5 / eq. 7, 26 over I_N \ {0} (empty: all 0, see bounds.h).
  std::vector<int64_t> in_ns;
  for (const int64_t k : t.in)
    if (k != 0) in_ns.push_back(k);
  for (const int64_t k : in_ns) t.S_in += in.a[k];
  if (!in_ns.empty()) {
    t.a_in_min = std::numeric_limits<double>::infinity();
    for (const int64_t k : in_ns) t.a_in_min = std::min(t.a_in_min, in.a[k]), t.a_in_max = std::max(t.a_in_max, in.a[k]);
  }
  for (const int64_t j : t.out) t.a_out_max = std::max(t.a_out_max, in.a[j]);
  if (!in_ns.empty() && !t.out.empty()) {
    t.rho_out = -std::numeric_limits<double>::infinity();
    for (const int64_t j : t.out)
      for (const int64_t k : in_ns) t.rho_out = std::max(t.rho_out, in.rho(j, k));
  }
  // SPEC §5 / eq. 8: Delta = a_in_min^2 - 2 a_out_max S_in rho_out.
  t.Delta = t.a_in_min * t.a_in_min - 2 * t.a_out_max * t.S_in * t.rho_out;
  // SPEC §5 / appendix eq. 29: Delta0 = a_0^2 - (S_in rho_out)^2.
  t.Delta0 = in.a[0] * in.a[0] - (t.S_in * t.rho_out) * (t.S_in * t.rho_out);
  // SPEC §5 / eq. 8: B = a_in_max + a_out_max + S_in.
  t.B = t.a_in_max + t.a_out_max + t.S_in;
  const detail::Lower lo = detail::lower_bounds(t.Delta, t.Delta0, t.B, N, n, t.sink_in, opt, in.d);
  t.t = lo.t, t.t0 = lo.t0;

  // SPEC §5 / eq. 11: M_j = sum_{l in I_N \ {0}} a_l rho_lj.
  t.M = Eigen::VectorXd::Zero(n);
  for (int64_t j = 0; j < n; ++j)
    for (const int64_t l : in_ns) t.M[j] += in.a[l] * in.rho(l, j);
  // SPEC §5 / eq. 10: sigma = B / sqrt(2 kappa d); mu_ij; p_ij of eq. 9.
  t.sigma = t.B / std::sqrt(2 * opt.kappa * static_cast<double>(in.d));
  const auto rows = static_cast<Eigen::Index>(t.in.size()), cols = static_cast<Eigen::Index>(t.out.size());
  t.mu.resize(rows, cols);
  t.p.resize(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c) {
      const int64_t i = t.in[static_cast<size_t>(r)], j = t.out[static_cast<size_t>(c)];
      t.mu(r, c) = detail::mu_ij(in.a[i], in.a[j], t.M[i], t.M[j]);
      t.p(r, c) = detail::p_of_mu(t.mu(r, c), t.sigma);
    }
  // SPEC §5: N = 1 and N = q+1 make every bound 1.
  if (N == 1 || N == n) return t;
  t.P_lo = lo.P_lo, t.R_lo = lo.R_lo;
  // SPEC §5 / eq. 13: P_up = 1 - max_{i,j} p_ij / (N+1).
  t.P_up = 1 - t.p.maxCoeff() / static_cast<double>(N + 1);
  // SPEC §5 / eq. 15: R_up = (1/N) sum_i (1 - max_j p_ij).
  t.R_up = (1.0 - t.p.rowwise().maxCoeff().array()).sum() / static_cast<double>(N);
  // SPEC §5, kappa -> 0+: p_ij -> (1/2) [mu_ij <= 0], so
  // P_up0 = 1 - [exists i, j: mu_ij <= 0] / (2 (N+1)), R_up0 = (1/N) sum_i (1 - (1/2) [exists j: mu_ij <= 0]).
  const Eigen::Array<bool, Eigen::Dynamic, 1> reached = (t.mu.array() <= 0).rowwise().any();
  t.P_up0 = 1 - (reached.any() ? 0.5 : 0.0) / static_cast<double>(N + 1);
  t.R_up0 = (1.0 - 0.5 * reached.cast<double>()).sum() / static_cast<double>(N);
  return t;
}

}  // namespace geoattn::analysis
