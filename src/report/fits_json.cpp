#include "geoattn/report/fits_json.h"

#include <nlohmann/json.hpp>

#include "json_number.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
ordered_json numbers(const std::vector<double>& xs) {
  ordered_json out = ordered_json::array();
  for (double x : xs) out.push_back(number(x));
  return out;
}

// A fitted parameter: null where the fit failed (its numbers are whatever the search stopped at).
ordered_json fitted(double x, const analysis::FitStatus& status) { return status.ok ? number(x) : ordered_json(nullptr); }
ordered_json fitted(int64_t x, const analysis::FitStatus& status) { return status.ok ? ordered_json(x) : ordered_json(nullptr); }

void put_status(ordered_json& out, const analysis::FitStatus& status) {
  out["ok"] = status.ok;
  if (!status.ok) out["why"] = status.why;
}
}  // namespace

ordered_json to_json(const metrics::HeadFits& f, const FitArrays& put_array) {
  ordered_json out = {{"windows", f.windows}};
  const auto& n = f.norms;
  out["norms"] = {{"C", fitted(n.C, n.status)}, {"lambda", fitted(n.lambda, n.status)}, {"cv", fitted(n.cv, n.status)}};
  put_array(out["norms"], "norms", "mean_norm", f.mean_norm);
  put_status(out["norms"], n.status);
  const auto& d = f.decay;
  out["decay"] = {{"beta", fitted(d.beta, d.status)}, {"mae", fitted(d.mae, d.status)}};
  put_array(out["decay"], "decay", "c", f.c);
  put_status(out["decay"], d.status);
  const auto& p = f.profile;
  const auto& ps = p.status;
  out["profile"] = {{"p_sink", fitted(p.p_sink, ps)}, {"p_base", fitted(p.p_base, ps)}, {"eta", fitted(p.eta, ps)},
                    {"omega", fitted(p.omega, ps)},   {"T1", fitted(p.T1, ps)},         {"T2", fitted(p.T2, ps)},
                    {"error", fitted(p.error, ps)},   {"skipped", p.skipped}};
  put_array(out["profile"], "profile", "mean_row", f.mean_row);
  put_status(out["profile"], ps);
  return out;
}

ordered_json to_json(const metrics::HeadFits& f) {
  return to_json(f, [](ordered_json& part, const char*, const char* key, const std::vector<double>& values) {
    part[key] = numbers(values);
  });
}

ordered_json fit_tests_json() {
  ordered_json out = ordered_json::object();
  for (const auto& test : analysis::kFitTests) out[std::string(test.fit)] = std::string(test.sentence);
  return out;
}

}  // namespace geoattn::report
