// SPEC §5, last bullet: the bounds on a_i and rho generated from assumption parameters
// (Assumptions 1-3), so the theory can be plotted with no model at all.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>
#include <string>

#include <fmt/format.h>

#include "geoattn/analysis/bounds.h"
#include "geoattn/util/error.h"
#include "geoattn/util/progress.h"
#include "geoattn/util/n_grid.h"
#include "geoattn/util/random.h"

namespace geoattn::analysis {

namespace {
constexpr const char* kWhat = "assumption parameters";
// A uniform in (0, 1) from the top 53 bits: ((x >> 11) + 1/2) 2^-53 (never 0 or 1).
double uniform(std::mt19937_64& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; }

// Box-Muller, cosine branch only: portable across standard libraries (std::normal_distribution is not).
double standard_normal(std::mt19937_64& rng) {
  const double u1 = uniform(rng), u2 = uniform(rng);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}
}  // namespace

BoundsInput synthetic_sample(const AssumptionParams& p, uint64_t sample_index) {
  const int64_t n = p.T;
  if (n < 1) fail("{}: T = {} must be >= 1", kWhat, n);
  BoundsInput in;
  in.d = p.d;
  // Assumption 3: alpha_i from the profile, normalised to a probability row.
  Eigen::VectorXd alpha(n);
  for (int64_t i = 0; i < n; ++i) {
    alpha[i] = profile_value(p.profile, i, n);
    if (!(alpha[i] >= 0) || !std::isfinite(alpha[i]))
      fail("{}: the profile gives alpha_{} = {}, not a probability", kWhat, i, alpha[i]);
  }
  const double total = alpha.sum();
  if (!(total > 0)) fail("{}: the profile sums to {}, so it cannot be normalised", kWhat, total);
  alpha /= total;

  // Assumption 1: ||v_0|| = lambda C; ||v_i|| = C g_i, g_i log-normal with mean 1 and cv (bounds.h).
  std::mt19937_64 rng(splitmix64(p.seed ^ splitmix64(sample_index)));
  const double s = std::sqrt(std::log1p(p.cv * p.cv));
  Eigen::VectorXd norm(n);
  norm[0] = p.lambda * p.C;
  for (int64_t i = 1; i < n; ++i) norm[i] = p.C * std::exp(s * standard_normal(rng) - 0.5 * s * s);
  // SPEC §2: a_i = alpha_i ||v_i||.
  in.a = alpha.cwiseProduct(norm);

  in.rho = assumption_rho(n, p.beta, p.rho0);  // Assumption 2

  // SPEC §2: I_N = top-N by alpha, ties lower position first.
  in.order.resize(static_cast<size_t>(n));
  std::iota(in.order.begin(), in.order.end(), int64_t{0});
  std::stable_sort(in.order.begin(), in.order.end(), [&](int64_t x, int64_t y) { return alpha[x] > alpha[y]; });
  return in;
}

// SPEC §5 (Assumption 2): rho_jk = exp(-beta |j-k|) for j, k > 0, rho_0j = rho_j0 = rho0, unit diagonal.
void assumption_rho(Eigen::Ref<Eigen::MatrixXd> rho, double beta, double rho0) {
  const int64_t n = rho.rows();
  if (rho.cols() != n) fail("assumption rho: {} x {} is not square", rho.rows(), rho.cols());
  std::vector<double> decay(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) decay[k] = std::exp(-beta * static_cast<double>(k));
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < n; ++j) rho(j, k) = j == k ? 1.0 : (j == 0 || k == 0) ? rho0 : decay[std::abs(j - k)];
}

Eigen::MatrixXd assumption_rho(int64_t n, double beta, double rho0) {
  Eigen::MatrixXd rho(n, n);
  assumption_rho(rho, beta, rho0);
  return rho;
}

BoundsCurves synthetic_bounds(const AssumptionParams& p, const std::vector<int64_t>& grid, const BoundsOptions& opt,
                              bool quiet) {
  if (p.samples < 1 || p.samples > kMaxSyntheticSamples)
    fail("{}: samples = {} must be in 1..{}", kWhat, p.samples, kMaxSyntheticSamples);
  BoundsMean mean(static_cast<size_t>(valid_grid_size(grid, p.T)));
  Progress progress("bounds: synthetic samples", p.samples, quiet, Progress::kRedrawSeconds, "samples");
  for (int64_t s = 0; s < p.samples; ++s) {
    mean.add(sample_bounds(synthetic_sample(p, static_cast<uint64_t>(s)), grid, opt));
    progress.update(s + 1, s + 1);  // the rate in samples a second (each of T tokens)
  }
  progress.finish();
  return mean.mean();
}

}  // namespace geoattn::analysis
