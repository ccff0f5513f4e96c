#include "geoattn/report/taxonomy_json.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "geoattn/report/taxonomy_config_json.h"
#include "geoattn/util/error.h"
#include "geoattn/util/nan.h"
#include "json_number.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
// ---- measure JSON ----

const ordered_json& need(const ordered_json& j, const std::string& where, const char* key) {
  if (!j.is_object() || !j.contains(key)) fail("taxonomy: {} has no '{}'", where, key);
  return j.at(key);
}

int64_t need_int(const ordered_json& j, const std::string& where, const char* key) {
  const auto& v = need(j, where, key);
  if (!v.is_number_integer()) fail("taxonomy: {}.{} must be an integer, got {}", where, key, v.dump());
  return v.get<int64_t>();
}

double need_number(const ordered_json& j, const std::string& where, const char* key) {
  const auto& v = need(j, where, key);
  if (v.is_null()) fail("taxonomy: {}.{} is null (the head has no samples)", where, key);
  if (!v.is_number()) fail("taxonomy: {}.{} must be a number, got {}", where, key, v.dump());
  return v.get<double>();
}

std::vector<double> need_curve(const ordered_json& j, const std::string& where, const char* key, size_t G) {
  const auto& v = need(j, where, key);
  if (!v.is_array() || v.size() != G)
    fail("taxonomy: {}.{} must be an array of {} numbers or nulls (one per n_grid value)", where, key, G);
  std::vector<double> out;
  for (const auto& x : v) {
    if (!x.is_null() && !x.is_number()) fail("taxonomy: {}.{} has a non-number entry {}", where, key, x.dump());
    out.push_back(x.is_null() ? kNaN : x.get<double>());
  }
  return out;
}

}  // namespace

ordered_json taxonomy_report(const ordered_json& measure, const analysis::TaxonomyConfig& cfg) {
  if (!measure.is_object()) fail("taxonomy: the measure result is not a JSON object");
  const auto& grid_json = need(measure, "the measure result", "n_grid");
  if (!grid_json.is_array()) fail("taxonomy: n_grid must be an array of integers");
  std::vector<int64_t> n_grid;
  for (const auto& v : grid_json) {
    if (!v.is_number_integer()) fail("taxonomy: n_grid has a non-integer entry {}", v.dump());
    n_grid.push_back(v.get<int64_t>());
  }
  const auto& heads = need(measure, "the measure result", "heads");
  if (!heads.is_array()) fail("taxonomy: heads must be an array");

  ordered_json out = {{"schema", kTaxonomySchema},
                      {"model", measure.contains("model") ? measure.at("model") : ordered_json(nullptr)},
                      {"config", to_json(cfg)}};
  ordered_json heads_out = ordered_json::array();
  std::map<int64_t, std::map<std::string, int64_t>> per_layer;
  std::map<std::string, int64_t> totals;
  for (size_t k = 0; k < heads.size(); ++k) {
    const auto& h = heads[k];
    const std::string where = fmt::format("heads[{}]", k);
    analysis::HeadFeatures f;
    const int64_t layer = need_int(h, where, "layer"), head = need_int(h, where, "head");
    f.c_sink = need_number(h, where, "c_sink");
    f.c_last = need_number(h, where, "c_last");
    f.c_rest = need_number(h, where, "c_rest");
    f.n_grid = n_grid;
    f.cos_s_v0 = need_curve(h, where, "cos_s_v0", n_grid.size());
    f.cos_s_vL = need_curve(h, where, "cos_s_vL", n_grid.size());
    const analysis::HeadLabel lab = analysis::classify(f, cfg);
    ordered_json features = {{"samples", h.contains("samples") ? ordered_json(h["samples"]) : ordered_json(nullptr)},
                             {"c_sink", number(f.c_sink)},
                             {"c_last", number(f.c_last)},
                             {"c_rest", number(f.c_rest)},
                             {"mean_cos_vL", number(lab.mean_cos_vL)},
                             {"median_cos_vL_small_n", number(lab.median_cos_vL_small_n)},
                             {"slope_cos_v0", number(lab.slope_cos_v0)},
                             {"slope_cos_vL", number(lab.slope_cos_vL)}};
    heads_out.push_back({{"layer", layer}, {"head", head}, {"label", lab.label}, {"rule", lab.rule},
                         {"features", std::move(features)}});
    ++per_layer[layer][lab.label];
    ++totals[lab.label];
  }
  out["heads"] = std::move(heads_out);
  ordered_json layers = ordered_json::array();
  for (auto& [layer, counts] : per_layer) {
    ordered_json row = {{"layer", layer}};
    for (const char* label : analysis::kHeadLabels) row[label] = counts[label];
    layers.push_back(std::move(row));
  }
  out["layers"] = std::move(layers);
  ordered_json tot = {{"heads", static_cast<int64_t>(heads.size())}};
  for (const char* label : analysis::kHeadLabels) tot[label] = totals[label];
  out["totals"] = std::move(tot);
  return out;
}

}  // namespace geoattn::report
