// Assumption 2 (paper sect. 3.2, SPEC §4): c(k) = exp(-beta k) by nonlinear least squares.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "geoattn/analysis/fits.h"
#include "least_squares.h"

namespace geoattn::analysis {

namespace {
// SPEC §4: the least-squares objective sum_k (c(k) - exp(-beta k))^2; with `stop`, the partial
// sum at the first k where it passes `stop` (adding squares never lowers a float sum, so the
// whole sum passes it too: the same answer to sse(...) <= stop, for less).
double sse(const std::vector<double>& c, double beta, double stop = std::numeric_limits<double>::infinity()) {
  double s = 0;
  for (size_t k = 1; k <= c.size() && s <= stop; ++k) {
    const double e = c[k - 1] - std::exp(-beta * static_cast<double>(k));
    s += e * e;
  }
  return s;
}

// The same sum with exp(-beta k) read from `exps` [K] (one row of ProbeGrid): the same bits.
double sse(const std::vector<double>& c, const double* exps, double stop) {
  double s = 0;
  for (size_t k = 1; k <= c.size() && s <= stop; ++k) {
    const double e = c[k - 1] - exps[k - 1];
    s += e * e;
  }
  return s;
}

// Point g of `points` log-spaced over [1e-6, kBetaMax].
double log_spaced(int points, int g) {
  const double lo = std::log(1e-6), hi = std::log(kBetaMax);
  return std::exp(lo + (hi - lo) * g / (points - 1));
}

// The betas of a log-spaced grid and exp(-beta k), k = 1..K, for each: the same for every head,
// so made once per thread, grid and K (the same std::exp of the same argument as sse takes).
struct ProbeGrid {
  int points;
  size_t K;
  std::vector<double> betas, exps;  // [points], [points, K]
  ProbeGrid(int points_, size_t K_) : points(points_), K(K_) {
    for (int g = 0; g < points; ++g) {
      betas.push_back(log_spaced(points, g));
      for (size_t k = 1; k <= K; ++k) exps.push_back(std::exp(-betas.back() * static_cast<double>(k)));
    }
  }
  const double* row(int g) const { return exps.data() + static_cast<size_t>(g) * K; }
};

// Up to this K the grids are kept (2000 x 256 doubles, 4 MB a thread); past it sse takes exp.
constexpr size_t kProbeGridMaxK = 256;

const ProbeGrid* probe_grid(int points, size_t K) {
  if (K > kProbeGridMaxK) return nullptr;
  thread_local std::deque<ProbeGrid> grids;  // a deque: references stay valid as it grows
  for (const ProbeGrid& grid : grids)
    if (grid.points == points && grid.K == K) return &grid;
  return &grids.emplace_back(points, K);
}

// SPEC §4: mae = mean_k |c(k) - exp(-beta k)|.
double mae(const std::vector<double>& c, double beta) {
  double s = 0;
  for (size_t k = 1; k <= c.size(); ++k) s += std::abs(c[k - 1] - std::exp(-beta * static_cast<double>(k)));
  return s / static_cast<double>(c.size());
}

// The best of beta = 0 and a log-spaced grid over [1e-6, kBetaMax]: a start inside the
// right basin for the polish.
double grid_start(const std::vector<double>& c) {
  constexpr int kPoints = 400;
  const ProbeGrid* grid = probe_grid(kPoints, c.size());
  double best = 0, best_sse = sse(c, 0);
  for (int g = 0; g < kPoints; ++g) {
    const double beta = grid ? grid->betas[g] : log_spaced(kPoints, g);
    // stops once past best_sse: not the best then
    const double s = grid ? sse(c, grid->row(g), best_sse) : sse(c, beta, best_sse);
    if (s < best_sse) best = beta, best_sse = s;
  }
  return best;
}

// Gauss-Newton/LM polish of beta, kept in [0, kBetaMax].
double polish(const std::vector<double>& c, double beta0) {
  const auto K = static_cast<Eigen::Index>(c.size());
  auto model = [&](const Eigen::VectorXd& x, Eigen::VectorXd& r, Eigen::MatrixXd& J) {
    const double beta = x[0];
    if (!(beta >= 0 && beta <= kBetaMax)) return false;
    r.resize(K);
    J.resize(K, 1);
    for (Eigen::Index k = 1; k <= K; ++k) {
      const double e = std::exp(-beta * static_cast<double>(k));
      r[k - 1] = c[static_cast<size_t>(k - 1)] - e;  // residual c(k) - exp(-beta k)
      J(k - 1, 0) = static_cast<double>(k) * e;        // d r / d beta
    }
    return true;
  };
  Eigen::VectorXd x(1);
  x[0] = beta0;
  return detail::levenberg_marquardt(model, x)[0];
}
}  // namespace

FitStatus decay_identified(const std::vector<double>& c, double beta) {
  // kFitTests, decay: the profile interval {beta' : SSE(beta') <= SSE_min + sigma^2}, sigma^2 =
  // the residual variance SSE_min / (K - 1), at least kDecayResolution^2, inside
  // [beta / kDecayBand, beta kDecayBand].
  const double K = static_cast<double>(c.size());
  const double sse_min = sse(c, beta);
  const double sigma2 = std::max(sse_min / (K - 1), kDecayResolution * kDecayResolution), bound = sse_min + sigma2;
  const double lo = beta / kDecayBand, hi = beta * kDecayBand;
  // The extent of the set over the probes (beta itself is in it).
  double low = beta, high = beta;
  const auto probe = [&](double p, double s) {
    if (s <= bound) low = std::min(low, p), high = std::max(high, p);
  };
  for (const double p : {0.0, kBetaMax, lo, std::min(hi, kBetaMax)}) probe(p, sse(c, p, bound));
  constexpr int kPoints = 2000;
  const ProbeGrid* grid = probe_grid(kPoints, c.size());
  for (int g = 0; g < kPoints; ++g) {
    const double p = grid ? grid->betas[g] : log_spaced(kPoints, g);
    probe(p, grid ? sse(c, grid->row(g), bound) : sse(c, p, bound));
  }
  if (low >= lo && high <= hi) return {};
  return {false, fmt::format("decay identifiability: SSE(beta') <= SSE_min + sigma^2 = {:.3g} + {:.3g} for beta' from "
                             "{:.4g} to {:.4g}, not within a factor {} of beta = {:.4g} (K = {}): c(k) does not pin beta down",
                             sse_min, sigma2, low, high, kDecayBand, beta, c.size()), false};
}

DecayFit fit_decay(const std::vector<double>& c) {
  DecayFit fit;
  if (c.size() < 2) {
    fit.status = {false, fmt::format("c(k) has {} lag(s); fitting a decay needs K >= 2", c.size())};
    return fit;
  }
  for (size_t k = 1; k <= c.size(); ++k)
    if (!std::isfinite(c[k - 1])) {
      fit.status = {false, fmt::format("c({}) is {}, not a finite number", k, c[k - 1])};
      return fit;
    }
  const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
  // With c(k) <= 0 everywhere the objective falls all the way to beta = infinity.
  fit.beta = *hi <= 0 ? kBetaMax : polish(c, grid_start(c));
  fit.mae = mae(c, fit.beta);
  if (*lo == *hi)
    fit.status = {false, fmt::format("c(k) is constant ({}) over k = 1..{}: there is no decay to fit", *lo, c.size())};
  else if (fit.beta <= 0)
    fit.status = {false, "c(k) does not fall with k: the best beta is 0, the edge of beta >= 0"};
  else if (fit.beta >= kBetaMax)
    fit.status = {false, fmt::format("c(k) <= 0 at every lag: beta is unbounded, reported at the cap {}", kBetaMax)};
  else
    fit.status = decay_identified(c, fit.beta);
  return fit;
}

}  // namespace geoattn::analysis
