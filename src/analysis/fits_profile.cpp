// Assumption 3 (paper sect. 3.3, SPEC §4): the four-phase attention profile, fitted by
// least squares on log-probabilities with (T1, T2) chosen by search (see fits.h).
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include <fmt/format.h>
#include <unsupported/Eigen/FFT>

#include "geoattn/analysis/fits.h"
#include "geoattn/util/error.h"
#include "least_squares.h"
#include "profile_scan.h"

namespace geoattn::analysis {

using detail::BaseSums;
using detail::LogRow;
using detail::Phases;

namespace {

// A lattice of (T1, T2) candidates: 0, s, 2s, ... and T-1.
std::vector<int64_t> lattice(int64_t T, int64_t step) {
  std::vector<int64_t> out;
  for (int64_t t = 0; t < T - 1; t += step) out.push_back(t);
  out.push_back(T - 1);
  return out;
}

// Every position within `radius` of `center`, inside 0..T-1.
std::vector<int64_t> around(int64_t center, int64_t radius, int64_t T) {
  std::vector<int64_t> out;
  for (int64_t t = std::max<int64_t>(0, center - radius); t <= std::min(T - 1, center + radius); ++t) out.push_back(t);
  return out;
}

// Coarse to fine over (T1, T2): the lattice of step ceil(T/64), then every pair within one step
// of its best. `scan(t1, t2)` is one of the closed-form scans of profile_scan.h.
template <typename Scan>
Phases coarse_to_fine(int64_t T, const Scan& scan) {
  const int64_t step = std::max<int64_t>(1, (T + 63) / 64);
  const Phases coarse = scan(lattice(T, step), lattice(T, step));
  if (!coarse.found || step == 1) return coarse;
  const Phases fine = scan(around(coarse.T1, step, T), around(coarse.T2, step, T));
  return fine.found && fine.sse <= coarse.sse ? fine : coarse;
}

// Stage 1 of fits.h: candidate frequencies. The fit without oscillation (plateau, then growth)
// leaves residuals r_i on 1..T2; the peaks of their periodogram |sum_i r_i e^{-i omega i}|^2 on a
// grid of 2T values in (0, pi] (one FFT of 4T points, zero-padded) are the omegas worth trying.
std::vector<double> candidate_omegas(const LogRow& row, const BaseSums& base, size_t count) {
  const int64_t T = row.T(), n_fft = 4 * T;
  const Phases flat = detail::scan_plateau_growth(row, base);
  std::vector<double> r(static_cast<size_t>(n_fft), 0.0);
  for (int64_t i = 1; i <= flat.T2; ++i)
    if (row.w[static_cast<size_t>(i)] > 0) r[static_cast<size_t>(i)] = row.y[static_cast<size_t>(i)] - flat.P;
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> spectrum;
  fft.fwd(spectrum, r);
  // Frequency index k is omega = 2 pi k / (4T) = pi k / (2T), k = 1..2T.
  std::vector<std::pair<double, int64_t>> peaks;
  auto power = [&](int64_t k) { return std::norm(spectrum[static_cast<size_t>(k)]); };
  for (int64_t k = 1; k <= 2 * T; ++k) {
    const double p = power(k);
    if (p >= power(k - 1) && (k == 2 * T || p >= power(k + 1))) peaks.emplace_back(-p, k);
  }
  std::sort(peaks.begin(), peaks.end());
  std::vector<double> omegas;
  for (size_t i = 0; i < std::min(count, peaks.size()); ++i)
    omegas.push_back(std::numbers::pi * static_cast<double>(peaks[i].second) / static_cast<double>(2 * T));
  return omegas;
}

// Stage 2 of fits.h: at each candidate omega, (T1, T2) coarse to fine with the linearised model.
std::pair<Phases, double> linearised_search(const LogRow& row, const BaseSums& base) {
  const int64_t T = row.T();
  Phases best = detail::scan_plateau_growth(row, base);  // T1 = T2: no oscillation at all
  double best_omega = 0;
  for (double omega : candidate_omegas(row, base, 6)) {
    const Phases p = coarse_to_fine(T, [&](const std::vector<int64_t>& t1, const std::vector<int64_t>& t2) {
      return detail::scan_linearised(row, base, omega, t1, t2);
    });
    if (p.found && (!best.found || p.sse < best.sse)) best = p, best_omega = omega;
  }
  return {best, best_omega};
}

// Stage 3, first half: (P, eta, omega) by Levenberg-Marquardt with the exact log-model at
// fixed (T1, T2). Without an oscillation the model is linear in (P, eta) and omega is
// irrelevant; the closed form of scan_linearised over the single pair is then exact.
void refine_at(const LogRow& row, const BaseSums& base, Phases& ph, double& omega) {
  if (ph.T1 == ph.T2) {
    const Phases p = detail::scan_linearised(row, base, omega, {ph.T1}, {ph.T1});
    if (p.found) ph = p;
    return;
  }
  std::vector<int64_t> idx;
  for (int64_t i = 1; i < row.T(); ++i)
    if (row.w[static_cast<size_t>(i)] > 0) idx.push_back(i);
  const auto m = static_cast<Eigen::Index>(idx.size());
  const int64_t T1 = ph.T1, T2 = ph.T2;
  auto model = [&](const Eigen::VectorXd& x, Eigen::VectorXd& r, Eigen::MatrixXd& J) {
    const double P = x[0], eta = x[1], om = x[2];
    if (!(std::abs(eta) < 1)) return false;  // the oscillation would leave the probabilities
    r.resize(m);
    J.setZero(m, 3);
    for (Eigen::Index k = 0; k < m; ++k) {
      const int64_t i = idx[static_cast<size_t>(k)];
      const double xi = static_cast<double>(i), y = row.y[static_cast<size_t>(i)];
      J(k, 0) = 1;
      if (i <= T1) {
        r[k] = P - y;  // Assumption 3, plateau: log p_base
      } else if (i <= T2) {
        // Assumption 3, oscillation: log p_base + log(1 + eta cos(omega i))
        const double c = std::cos(om * xi), u = 1 + eta * c;
        r[k] = P + std::log(u) - y;
        J(k, 1) = c / u;
        J(k, 2) = -eta * xi * std::sin(om * xi) / u;
      } else {
        r[k] = P + eta * static_cast<double>(i - T2) - y;  // Assumption 3, growth: log p_base + eta (i - T2)
        J(k, 1) = static_cast<double>(i - T2);
      }
    }
    return true;
  };
  Eigen::VectorXd x(3);
  x << ph.P, std::clamp(ph.eta, -0.95, 0.95), omega;
  double cost = 0;
  x = detail::levenberg_marquardt(model, x, 200, &cost);
  ph.P = x[0], ph.eta = x[1], ph.sse = cost;
  omega = x[2];
}

// omega and 2 pi - omega (and -omega) give the same cos(omega i) at integer i: fold to [0, pi].
double fold_omega(double omega) {
  double w = std::fmod(std::abs(omega), 2 * std::numbers::pi);
  return w > std::numbers::pi ? 2 * std::numbers::pi - w : w;
}

ProfileFit failed(ProfileFit fit, std::string why) {
  fit.status = {false, std::move(why)};
  return fit;
}
}  // namespace

bool oscillation_identified(int64_t fitted, int64_t span, double omega) {
  // kFitTests, profile: >= kMinOscillation fitted positions and a full period 2 pi / omega.
  return fitted >= kMinOscillation && omega > 0 && static_cast<double>(span) * omega >= 2 * std::numbers::pi;
}

FitStatus profile_identified(const ProfileFit& fit, const std::vector<double>& mean_row) {
  // kFitTests, profile: no oscillation, or one that oscillation_identified accepts.
  if (fit.T1 == fit.T2) return {};
  int64_t n = 0;
  for (int64_t i = std::max<int64_t>(fit.T1 + 1, 1); i <= fit.T2 && i < std::ssize(mean_row); ++i)
    if (mean_row[static_cast<size_t>(i)] > 0) ++n;
  if (oscillation_identified(n, fit.T2 - fit.T1, fit.omega)) return {};
  const double period = fit.omega > 0 ? 2 * std::numbers::pi / fit.omega : INFINITY;
  return {false, fmt::format("profile identifiability: the oscillation phase T1 = {} < i <= T2 = {} holds {} fitted "
                             "position(s) and {:.3g} period(s) of 2 pi / omega = {:.4g}; omega and eta need >= {} and "
                             ">= 1",
                             fit.T1, fit.T2, n, static_cast<double>(fit.T2 - fit.T1) / period, period,
                             kMinOscillation), false};
}

ProfileFit fit_profile(const std::vector<double>& mean_row) {
  const auto T = static_cast<int64_t>(mean_row.size());
  ProfileFit fit;
  fit.T1 = fit.T2 = std::max<int64_t>(T - 1, 0);
  for (int64_t i = 0; i < T; ++i) {
    const double p = mean_row[static_cast<size_t>(i)];
    if (!std::isfinite(p) || p < 0)
      return failed(fit, fmt::format("mean attention at position {} is {}, not a finite probability >= 0", i, p));
  }
  if (T >= 1) fit.p_sink = mean_row[0];  // Assumption 3: alpha_0 = p_sink, fitted exactly
  LogRow row;
  row.y.assign(static_cast<size_t>(std::max<int64_t>(T, 0)), 0.0);
  row.w.assign(row.y.size(), 0.0);
  double sum_p = 0, lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 1; i < T; ++i) {
    const double p = mean_row[static_cast<size_t>(i)];
    if (p > 0) {
      row.y[static_cast<size_t>(i)] = std::log(p), row.w[static_cast<size_t>(i)] = 1;
      row.n += 1, sum_p += p, lo = std::min(lo, p), hi = std::max(hi, p);
    } else {
      ++fit.skipped;
    }
  }
  if (row.n > 0) fit.p_base = sum_p / row.n;
  if (T < 4) return failed(fit, fmt::format("the attention row has {} position(s); the profile needs T >= 4", T));
  if (row.n < 4)
    return failed(fit, fmt::format("only {} position(s) after the sink have attention > 0; the profile needs 4",
                                   static_cast<int64_t>(row.n)));
  if (lo == hi)
    return failed(fit, fmt::format("attention is constant ({}) over the {} fitted positions after the sink: eta, "
                                   "omega, T1, T2 are not identifiable",
                                   lo, static_cast<int64_t>(row.n)));
  // Centre the logs (better conditioned sums); P is log p_base - offset.
  for (int64_t i = 1; i < T; ++i)
    if (row.w[static_cast<size_t>(i)] > 0) row.offset += row.y[static_cast<size_t>(i)] / row.n;
  for (int64_t i = 1; i < T; ++i)
    if (row.w[static_cast<size_t>(i)] > 0) row.y[static_cast<size_t>(i)] -= row.offset;

  const BaseSums base(row);
  auto [ph, omega] = linearised_search(row, base);
  // Stage 3: alternate the exact refinement at fixed (T1, T2) and the exact search at
  // fixed (eta, omega) until the phases stop moving; each step can only lower the SSE.
  for (int pass = 0; pass < 10; ++pass) {
    refine_at(row, base, ph, omega);
    const double eta = ph.eta, w = omega;  // a copy: clang before 16 captures no structured binding
    const Phases next = coarse_to_fine(row.T(), [&](const std::vector<int64_t>& t1, const std::vector<int64_t>& t2) {
      return detail::scan_exact(row, base, eta, w, t1, t2);
    });
    if (!next.found || next.sse >= ph.sse || (next.T1 == ph.T1 && next.T2 == ph.T2)) break;
    ph = next;
  }
  fit.T1 = ph.T1, fit.T2 = ph.T2, fit.eta = ph.eta;
  fit.omega = ph.T1 == ph.T2 ? 0.0 : fold_omega(omega);
  fit.p_base = std::exp(ph.P + row.offset);
  // fits.h: error = RMSE of the log residuals over the fitted positions i >= 1.
  double sse = 0;
  for (int64_t i = 1; i < T; ++i) {
    if (row.w[static_cast<size_t>(i)] == 0) continue;
    const double e = std::log(mean_row[static_cast<size_t>(i)]) - std::log(profile_value(fit, i, T));
    sse += e * e;
  }
  fit.error = std::sqrt(sse / row.n);
  if (!std::isfinite(fit.error) || !std::isfinite(fit.p_base))
    return failed(fit, "the profile fit did not converge to finite values");
  fit.status = profile_identified(fit, mean_row);
  return fit;
}

double profile_value(const ProfileFit& fit, int64_t i, int64_t T) {
  if (!(0 <= fit.T1 && fit.T1 <= fit.T2 && fit.T2 < T))
    fail("profile: need 0 <= T1 <= T2 < T, got T1 = {}, T2 = {}, T = {}", fit.T1, fit.T2, T);
  if (i < 0 || i >= T) fail("profile: position {} is outside 0..{}", i, T - 1);
  // Assumption 3 (paper sect. 3.3), the four phases.
  if (i == 0) return fit.p_sink;
  if (i <= fit.T1) return fit.p_base;
  if (i <= fit.T2) return fit.p_base * (1 + fit.eta * std::cos(fit.omega * static_cast<double>(i)));
  return fit.p_base * std::exp(fit.eta * static_cast<double>(i - fit.T2));
}

}  // namespace geoattn::analysis
