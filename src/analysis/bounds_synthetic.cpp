// SPEC §5, last bullet: the bounds on a_i and rho generated from assumption parameters
// (Assumptions 1-3), so the theory can be plotted with no model at all.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "geoattn/analysis/bounds.h"
#include "geoattn/util/error.h"
#include "geoattn/util/n_grid.h"
#include "geoattn/util/random.h"

namespace geoattn::analysis {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr const char* kWhat = "assumption parameters";
// A synthetic sample holds the T x T correlation matrix rho (8 T^2 bytes): 2 GiB at this T.
constexpr int64_t kMaxSyntheticT = 16384;

// Keys starting with '_' are comments; any other key not in `known` is an error.
void check_keys(const nlohmann::json& j, const std::string& prefix, const std::set<std::string>& known) {
  if (!j.is_object())
    fail("{}: {} must be a JSON object", kWhat, prefix.empty() ? "the top level" : "'" + prefix.substr(0, prefix.size() - 1) + "'");
  for (const auto& [key, value] : j.items())
    if (!key.empty() && key[0] != '_' && !known.count(key)) fail("{}: unknown key '{}{}'", kWhat, prefix, key);
}

const nlohmann::json& field(const nlohmann::json& j, const std::string& prefix, const std::string& key) {
  if (!j.contains(key)) fail("{}: '{}{}' is missing", kWhat, prefix, key);
  return j.at(key);
}

double number(const nlohmann::json& j, const std::string& prefix, const std::string& key) {
  const auto& v = field(j, prefix, key);
  if (!v.is_number()) fail("{}: '{}{}' must be a number, got {}", kWhat, prefix, key, v.dump());
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail("{}: '{}{}' must be finite", kWhat, prefix, key);
  return x;
}

int64_t integer(const nlohmann::json& j, const std::string& prefix, const std::string& key) {
  const auto& v = field(j, prefix, key);
  if (!v.is_number_integer()) fail("{}: '{}{}' must be an integer, got {}", kWhat, prefix, key, v.dump());
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    fail("{}: '{}{}' is too large", kWhat, prefix, key);
  return v.get<int64_t>();
}

void require(bool ok, const std::string& name, const std::string& rule, double value) {
  if (!ok) fail("{}: '{}' = {} must be {}", kWhat, name, value, rule);
}

// A uniform in (0, 1) from the top 53 bits: ((x >> 11) + 1/2) 2^-53 (never 0 or 1).
double uniform(std::mt19937_64& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; }

// Box-Muller, cosine branch only: portable across standard libraries (std::normal_distribution is not).
double standard_normal(std::mt19937_64& rng) {
  const double u1 = uniform(rng), u2 = uniform(rng);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * kPi * u2);
}
}  // namespace

AssumptionParams params_from_json(const nlohmann::json& j) {
  check_keys(j, "", {"T", "d", "C", "lambda", "cv", "beta", "rho0", "profile", "seed", "samples"});
  AssumptionParams p;
  p.T = integer(j, "", "T");
  require(p.T >= 2 && p.T <= kMaxSyntheticT, "T", fmt::format("in [2, {}] (a sample holds a T x T matrix)", kMaxSyntheticT),
          static_cast<double>(p.T));
  p.d = integer(j, "", "d");
  require(p.d >= 1, "d", ">= 1", static_cast<double>(p.d));
  p.C = number(j, "", "C");
  require(p.C > 0, "C", "> 0", p.C);
  p.lambda = number(j, "", "lambda");
  require(p.lambda > 0, "lambda", "> 0", p.lambda);
  p.cv = number(j, "", "cv");
  require(p.cv >= 0, "cv", ">= 0", p.cv);
  p.beta = number(j, "", "beta");
  require(p.beta >= 0, "beta", ">= 0", p.beta);
  p.rho0 = number(j, "", "rho0");
  require(p.rho0 >= -1 && p.rho0 <= 1, "rho0", "in [-1, 1]", p.rho0);
  const auto& prof = field(j, "", "profile");
  check_keys(prof, "profile.", {"p_sink", "p_base", "eta", "omega", "T1", "T2"});
  p.profile.p_sink = number(prof, "profile.", "p_sink");
  require(p.profile.p_sink >= 0, "profile.p_sink", ">= 0", p.profile.p_sink);
  p.profile.p_base = number(prof, "profile.", "p_base");
  require(p.profile.p_base > 0, "profile.p_base", "> 0", p.profile.p_base);
  p.profile.eta = number(prof, "profile.", "eta");
  p.profile.omega = number(prof, "profile.", "omega");
  p.profile.T1 = integer(prof, "profile.", "T1");
  require(p.profile.T1 >= 0, "profile.T1", ">= 0", static_cast<double>(p.profile.T1));
  p.profile.T2 = integer(prof, "profile.", "T2");
  require(p.profile.T2 >= p.profile.T1 && p.profile.T2 <= p.T - 1, "profile.T2", "in [T1, T-1]",
          static_cast<double>(p.profile.T2));
  // Assumption 3: 1 + eta cos(omega i) >= 0 in the oscillation.
  require(p.profile.T1 == p.profile.T2 || std::abs(p.profile.eta) <= 1, "profile.eta",
          "in [-1, 1] when there is an oscillation (T1 < T2)", p.profile.eta);
  const auto& seed = field(j, "", "seed");
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0))
    fail("{}: 'seed' must be an integer >= 0, got {}", kWhat, seed.dump());
  p.seed = seed.get<uint64_t>();
  p.samples = integer(j, "", "samples");
  require(p.samples >= 1, "samples", ">= 1", static_cast<double>(p.samples));
  return p;
}

nlohmann::ordered_json params_to_json(const AssumptionParams& p) {
  const auto& f = p.profile;
  return {{"T", p.T},       {"d", p.d},       {"C", p.C},       {"lambda", p.lambda},
          {"cv", p.cv},     {"beta", p.beta}, {"rho0", p.rho0},
          {"profile", nlohmann::ordered_json{{"p_sink", f.p_sink}, {"p_base", f.p_base}, {"eta", f.eta},
                                             {"omega", f.omega}, {"T1", f.T1}, {"T2", f.T2}}},
          {"seed", p.seed}, {"samples", p.samples}};
}

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

  // Assumption 2: rho_jk = exp(-beta |j-k|) for j, k > 0, rho_0j = rho0, unit diagonal.
  Eigen::VectorXd decay(n);
  for (int64_t k = 0; k < n; ++k) decay[k] = std::exp(-p.beta * static_cast<double>(k));
  in.rho.resize(n, n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < n; ++k)
      in.rho(j, k) = j == k ? 1.0 : (j == 0 || k == 0) ? p.rho0 : decay[std::abs(j - k)];

  // SPEC §2: I_N = top-N by alpha, ties lower position first.
  in.order.resize(static_cast<size_t>(n));
  std::iota(in.order.begin(), in.order.end(), int64_t{0});
  std::stable_sort(in.order.begin(), in.order.end(), [&](int64_t x, int64_t y) { return alpha[x] > alpha[y]; });
  return in;
}

BoundsCurves synthetic_bounds(const AssumptionParams& p, const std::vector<int64_t>& grid, const BoundsOptions& opt) {
  if (p.samples < 1) fail("{}: samples = {} must be >= 1", kWhat, p.samples);
  BoundsMean mean(static_cast<size_t>(valid_grid_size(grid, p.T)));
  for (int64_t s = 0; s < p.samples; ++s) mean.add(sample_bounds(synthetic_sample(p, static_cast<uint64_t>(s)), grid, opt));
  return mean.mean();
}

}  // namespace geoattn::analysis
