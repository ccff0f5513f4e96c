#include "geoattn/report/measure_json.h"

#include <cmath>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "geoattn/report/fits_json.h"
#include "geoattn/util/error.h"

namespace geoattn::report {

using metrics::GroupStats;
using nlohmann::ordered_json;

namespace {
// NaN (and, defensively, inf) print as null.
ordered_json number(double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); }

ordered_json over_grid(const GroupStats& s, const std::function<double(int64_t)>& value) {
  ordered_json out = ordered_json::array();
  for (int64_t g = 0; g < s.grid_size(); ++g) out.push_back(number(value(g)));
  return out;
}

// "samples", then mean and std of every curve (over the grid) and every scalar.
void put_moments(ordered_json& out, const GroupStats& s) {
  out["samples"] = s.samples();
  for (int m = 0; m < metrics::kCurveMetrics; ++m) {
    // An optional curve (the random control) appears when the run measured it.
    if (m >= metrics::kFirstOptionalCurve && (s.grid_size() == 0 || s.curve(m, 0).count() == 0)) continue;
    const std::string name(metrics::kCurveNames[m]);
    out[name] = over_grid(s, [&](int64_t g) { return s.curve(m, g).mean(); });
    out[name + "_std"] = over_grid(s, [&](int64_t g) { return s.curve(m, g).std(); });
  }
  for (int k = 0; k < metrics::kScalarMetrics; ++k) {
    const std::string name(metrics::kScalarNames[k]);
    out[name] = number(s.scalar(k).mean());
    out[name + "_std"] = number(s.scalar(k).std());
  }
}

ordered_json interval(const metrics::Interval& i) {
  return std::isfinite(i[0]) && std::isfinite(i[1]) ? ordered_json::array({i[0], i[1]}) : ordered_json(nullptr);
}

ordered_json intervals(const std::vector<metrics::Interval>& xs) {
  ordered_json out = ordered_json::array();
  for (const auto& i : xs) out.push_back(interval(i));
  return out;
}

// SPEC §2b: the control beside each controlled curve (X_random comes with the moments) and the
// difference of the means; with a bootstrap, the intervals of every mean.
void put_controls_and_intervals(ordered_json& out, const GroupStats& s, const metrics::GroupIntervals* ci) {
  const bool controlled = s.grid_size() > 0 && s.curve(metrics::kFirstOptionalCurve, 0).count() > 0;
  for (int k = 0; controlled && k < metrics::kControlled; ++k)
    out[std::string(metrics::kCurveNames[metrics::kP_rmax + k]) + "_diff"] = over_grid(s, [&](int64_t g) {
      return s.curve(metrics::kP_rmax + k, g).mean() - s.curve(metrics::kFirstOptionalCurve + k, g).mean();
    });
  if (!ci) return;
  for (int m = 0; m < metrics::kCurveMetrics; ++m)
    if (out.contains(std::string(metrics::kCurveNames[m])))
      out[std::string(metrics::kCurveNames[m]) + "_ci"] = intervals(ci->curve[m]);
  for (int k = 0; controlled && k < metrics::kControlled; ++k)
    out[std::string(metrics::kCurveNames[metrics::kP_rmax + k]) + "_diff_ci"] = intervals(ci->diff[k]);
  for (int k = 0; k < metrics::kScalarMetrics; ++k)
    out[std::string(metrics::kScalarNames[k]) + "_ci"] = interval(ci->scalar[k]);
}

// A global or per-layer object: the moments and SPEC §3's corr(R(r_min, N), rho0) per N.
ordered_json group_json(ordered_json out, const GroupStats& s, const metrics::GroupIntervals* ci) {
  put_moments(out, s);
  put_controls_and_intervals(out, s, ci);
  out["sink_recall_corr"] = over_grid(s, [&](int64_t g) { return s.sink_recall_corr(g); });
  if (ci) out["sink_recall_corr_ci"] = intervals(ci->corr);
  return out;
}

ordered_json head_json(int64_t layer, int64_t head, const GroupStats& s, const metrics::GroupIntervals* ci) {
  ordered_json out = {{"layer", layer}, {"head", head}};
  put_moments(out, s);
  put_controls_and_intervals(out, s, ci);
  return out;
}

void check_run_info(const ordered_json& run_info) {
  if (!run_info.is_object()) fail("internal: run_info is not a JSON object");
  for (const char* key : {"schema", "bootstrap", "n_grid", "global", "layers", "heads"})
    if (run_info.contains(key)) fail("internal: run_info uses the reserved key '{}'", key);
}
}  // namespace

ordered_json measure_json(const metrics::Aggregator& agg, const ordered_json& run_info,
                          const metrics::AssumptionStats* assumptions, const metrics::BootstrapResult* boot,
                          const std::vector<ordered_json>* precomputed_fits) {
  check_run_info(run_info);
  ordered_json out = {{"schema", kMeasureSchema}};
  for (const auto& [key, value] : run_info.items()) out[key] = value;
  if (boot)
    out["bootstrap"] = {{"replicates", boot->replicates}, {"seed", boot->seed}, {"level", metrics::boot_level_name(boot->level)},
                        {"unit", run_info.contains("settings") ? run_info["settings"].value("/bootstrap/unit"_json_pointer, "document")
                                                               : "document"},
                        {"units", boot->units}, {"percentiles", {2.5, 97.5}}};
  out["n_grid"] = agg.n_grid();
  out["global"] = group_json(ordered_json::object(), agg.global_stats(), boot ? &boot->global : nullptr);
  const bool with_fits = assumptions && !assumptions->empty();
  if (with_fits && (assumptions->layers() != agg.layers() || assumptions->heads() != agg.heads()))
    fail("internal: assumption stats {}x{} for metrics {}x{}", assumptions->layers(), assumptions->heads(), agg.layers(),
         agg.heads());
  std::vector<ordered_json> fits =
      !with_fits ? std::vector<ordered_json>{} : precomputed_fits ? *precomputed_fits : fits_json(*assumptions);
  ordered_json layers = ordered_json::array(), heads = ordered_json::array();
  for (int64_t l = 0; l < agg.layers(); ++l) {
    layers.push_back(group_json({{"layer", l}}, agg.layer_stats(l), boot && !boot->layers.empty() ? &boot->layers[l] : nullptr));
    for (int64_t h = 0; h < agg.heads(); ++h) {
      const size_t i = static_cast<size_t>(l * agg.heads() + h);
      heads.push_back(head_json(l, h, agg.head_stats(l, h), boot && !boot->heads.empty() ? &boot->heads[i] : nullptr));
      if (with_fits) heads.back()["fits"] = std::move(fits[l * agg.heads() + h]);
    }
  }
  out["layers"] = std::move(layers);
  out["heads"] = std::move(heads);
  return out;
}

}  // namespace geoattn::report
