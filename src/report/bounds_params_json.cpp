// The assumption parameters of `geoattn bounds --params` <-> JSON (analysis/bounds.h).
#include "geoattn/report/bounds_params_json.h"

#include <cmath>
#include <set>
#include <string>

#include <fmt/format.h>

#include "geoattn/util/error.h"

namespace geoattn::report {

namespace {
constexpr const char* kWhat = "assumption parameters";

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

}  // namespace

analysis::AssumptionParams params_from_json(const nlohmann::json& j) {
  check_keys(j, "", {"T", "d", "C", "lambda", "cv", "beta", "rho0", "profile", "seed", "samples"});
  analysis::AssumptionParams p;
  p.T = integer(j, "", "T");
  require(p.T >= 2 && p.T <= analysis::kMaxSyntheticT, "T", fmt::format("in [2, {}] (a sample holds a T x T matrix)", analysis::kMaxSyntheticT),
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
  require(p.samples >= 1 && p.samples <= analysis::kMaxSyntheticSamples, "samples",
          fmt::format("in 1..{}", analysis::kMaxSyntheticSamples), static_cast<double>(p.samples));
  return p;
}

nlohmann::ordered_json params_to_json(const analysis::AssumptionParams& p) {
  const auto& f = p.profile;
  return {{"T", p.T},       {"d", p.d},       {"C", p.C},       {"lambda", p.lambda},
          {"cv", p.cv},     {"beta", p.beta}, {"rho0", p.rho0},
          {"profile", nlohmann::ordered_json{{"p_sink", f.p_sink}, {"p_base", f.p_base}, {"eta", f.eta},
                                             {"omega", f.omega}, {"T1", f.T1}, {"T2", f.T2}}},
          {"seed", p.seed}, {"samples", p.samples}};
}

}  // namespace geoattn::report
