#include "geoattn/report/fits_json.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "geoattn/analysis/fits.h"
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

ordered_json head_fits(const metrics::AssumptionStats& stats, int64_t l, int64_t h) {
  ordered_json out = {{"windows", stats.windows(l, h)}};
  // SPEC §4, Assumption 1: C, lambda, cv.
  const auto mean_norm = stats.mean_norm(l, h);
  const auto norms = analysis::fit_norms(mean_norm, stats.mean_cv(l, h));
  const auto& ns = norms.status;
  out["norms"] = {{"C", fitted(norms.C, ns)}, {"lambda", fitted(norms.lambda, ns)}, {"cv", fitted(norms.cv, ns)},
                  {"mean_norm", numbers(mean_norm)}};
  put_status(out["norms"], norms.status);
  // SPEC §4, Assumption 2: c(k) = exp(-beta k).
  // c(k) is defined for the lags that had pairs (k <= T - 2); K may reach past them.
  const auto c = stats.decay(l, h);
  const auto defined = std::find_if(c.begin(), c.end(), [](double x) { return !std::isfinite(x); });
  const auto decay = analysis::fit_decay(std::vector<double>(c.begin(), defined));
  out["decay"] = {{"beta", fitted(decay.beta, decay.status)}, {"mae", fitted(decay.mae, decay.status)}, {"c", numbers(c)}};
  put_status(out["decay"], decay.status);
  // SPEC §4, Assumption 3: the four-phase profile of the mean attention row.
  const auto row = stats.mean_row(l, h);
  const auto p = analysis::fit_profile(row);
  const auto& ps = p.status;
  out["profile"] = {{"p_sink", fitted(p.p_sink, ps)}, {"p_base", fitted(p.p_base, ps)}, {"eta", fitted(p.eta, ps)},
                    {"omega", fitted(p.omega, ps)},   {"T1", fitted(p.T1, ps)},         {"T2", fitted(p.T2, ps)},
                    {"error", fitted(p.error, ps)},   {"skipped", p.skipped},           {"mean_row", numbers(row)}};
  put_status(out["profile"], p.status);
  return out;
}
}  // namespace

std::vector<ordered_json> fits_json(WorkerPool& pool, const metrics::AssumptionStats& stats) {
  const int64_t n = stats.layers() * stats.heads();
  std::vector<ordered_json> out(static_cast<size_t>(n));
  pool.parallel_for(n, [&](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) out[i] = head_fits(stats, i / stats.heads(), i % stats.heads());
  });
  return out;
}

}  // namespace geoattn::report
