// The head taxonomy of SPEC §6 (paper sect. 4.2): features -> Retriever / Reset / Mixer.
#include "geoattn/analysis/taxonomy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "geoattn/util/error.h"

namespace geoattn::analysis {

using nlohmann::ordered_json;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double mean(const std::vector<double>& x) {
  if (x.empty()) return kNaN;
  double s = 0;
  for (const double v : x) s += v;
  return s / static_cast<double>(x.size());
}

double median(std::vector<double> x) {
  if (x.empty()) return kNaN;
  std::sort(x.begin(), x.end());
  const size_t m = x.size() / 2;
  return x.size() % 2 ? x[m] : 0.5 * (x[m - 1] + x[m]);
}

// taxonomy.h: least-squares slope of y against ln(N) over the defined entries.
double slope_vs_log_n(const std::vector<int64_t>& n_grid, const std::vector<double>& y) {
  std::vector<double> xs, ys;
  for (size_t g = 0; g < y.size(); ++g)
    if (std::isfinite(y[g]) && n_grid[g] >= 1) xs.push_back(std::log(static_cast<double>(n_grid[g]))), ys.push_back(y[g]);
  const double mx = mean(xs), my = mean(ys);
  double sxx = 0, sxy = 0;
  for (size_t k = 0; k < xs.size(); ++k) sxx += (xs[k] - mx) * (xs[k] - mx), sxy += (xs[k] - mx) * (ys[k] - my);
  return sxx > 0 ? sxy / sxx : kNaN;
}

ordered_json number(double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); }

// ---- config JSON ----

void read_cos(const nlohmann::json& v, const std::string& key, double& out) {
  if (!v.is_number()) fail("taxonomy config: '{}' must be a number, got {}", key, v.dump());
  out = v.get<double>();
  if (!(out >= -1 && out <= 1)) fail("taxonomy config: '{}' = {} must be a cosine in [-1, 1]", key, out);
}

// ---- measure JSON ----

const nlohmann::json& need(const nlohmann::json& j, const std::string& where, const char* key) {
  if (!j.is_object() || !j.contains(key)) fail("taxonomy: {} has no '{}'", where, key);
  return j.at(key);
}

int64_t need_int(const nlohmann::json& j, const std::string& where, const char* key) {
  const auto& v = need(j, where, key);
  if (!v.is_number_integer()) fail("taxonomy: {}.{} must be an integer, got {}", where, key, v.dump());
  return v.get<int64_t>();
}

double need_number(const nlohmann::json& j, const std::string& where, const char* key) {
  const auto& v = need(j, where, key);
  if (v.is_null()) fail("taxonomy: {}.{} is null (the head has no samples)", where, key);
  if (!v.is_number()) fail("taxonomy: {}.{} must be a number, got {}", where, key, v.dump());
  return v.get<double>();
}

std::vector<double> need_curve(const nlohmann::json& j, const std::string& where, const char* key, size_t G) {
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

constexpr const char* kLabels[] = {"Retriever", "Mixer", "Reset"};
}  // namespace

TaxonomyConfig TaxonomyConfig::from_json(const nlohmann::json& j) {
  if (!j.is_object()) fail("taxonomy config: expected a JSON object, got {}", j.type_name());
  TaxonomyConfig c;
  for (const auto& [key, v] : j.items()) {
    if (!key.empty() && key[0] == '_') continue;  // a comment
    if (key == "retriever_cos_vL_min") {
      read_cos(v, key, c.retriever_cos_vL_min);
    } else if (key == "reset_cos_vL_max") {
      read_cos(v, key, c.reset_cos_vL_max);
    } else if (key == "reset_sink_ratio") {
      if (!v.is_number()) fail("taxonomy config: '{}' must be a number, got {}", key, v.dump());
      c.reset_sink_ratio = v.get<double>();
      if (!(c.reset_sink_ratio >= 0) || !std::isfinite(c.reset_sink_ratio))
        fail("taxonomy config: '{}' = {} must be a finite number >= 0", key, c.reset_sink_ratio);
    } else if (key == "reset_n_max") {
      if (!v.is_number_integer()) fail("taxonomy config: '{}' must be an integer, got {}", key, v.dump());
      c.reset_n_max = v.get<int64_t>();
      if (c.reset_n_max < 1) fail("taxonomy config: '{}' = {} must be >= 1", key, c.reset_n_max);
    } else {
      fail("taxonomy config: unknown key '{}' (known: retriever_cos_vL_min, reset_sink_ratio, "
           "reset_cos_vL_max, reset_n_max)",
           key);
    }
  }
  return c;
}

ordered_json TaxonomyConfig::to_json() const {
  return {{"retriever_cos_vL_min", retriever_cos_vL_min},
          {"reset_sink_ratio", reset_sink_ratio},
          {"reset_cos_vL_max", reset_cos_vL_max},
          {"reset_n_max", reset_n_max}};
}

HeadLabel classify(const HeadFeatures& f, const TaxonomyConfig& cfg) {
  if (f.cos_s_v0.size() != f.n_grid.size() || f.cos_s_vL.size() != f.n_grid.size())
    fail("taxonomy: the cosine curves have {} and {} entries for {} grid values", f.cos_s_v0.size(),
         f.cos_s_vL.size(), f.n_grid.size());
  HeadLabel h;
  std::vector<double> all_vL, small_vL;
  for (size_t g = 0; g < f.n_grid.size(); ++g) {
    if (!std::isfinite(f.cos_s_vL[g])) continue;
    all_vL.push_back(f.cos_s_vL[g]);
    if (f.n_grid[g] <= cfg.reset_n_max) small_vL.push_back(f.cos_s_vL[g]);
  }
  h.mean_cos_vL = mean(all_vL);               // SPEC §6: mean over N of cos(s, v_L)
  h.median_cos_vL_small_n = median(small_vL);  // SPEC §6: median over N <= 64 of cos(s, v_L)
  h.slope_cos_v0 = slope_vs_log_n(f.n_grid, f.cos_s_v0);
  h.slope_cos_vL = slope_vs_log_n(f.n_grid, f.cos_s_vL);

  // SPEC §6 Retriever: c_last is the largest of the three and mean_N cos(s, v_L) >= 0.5.
  const bool last_largest = f.c_last >= f.c_sink && f.c_last >= f.c_rest;
  if (last_largest && h.mean_cos_vL >= cfg.retriever_cos_vL_min) {
    h.label = "Retriever";
    h.rule = fmt::format("Retriever: c_last {:.4g} is the largest (c_sink {:.4g}, c_rest {:.4g}) and mean cos(s, v_L) "
                         "{:.4g} >= {:.4g}",
                         f.c_last, f.c_sink, f.c_rest, h.mean_cos_vL, cfg.retriever_cos_vL_min);
    return h;
  }
  // SPEC §6 Reset: c_sink >= 0.8 max(c_last, c_rest) and median_{N <= 64} cos(s, v_L) < 0.3.
  const double other = std::max(f.c_last, f.c_rest);
  if (f.c_sink >= cfg.reset_sink_ratio * other && h.median_cos_vL_small_n < cfg.reset_cos_vL_max) {
    h.label = "Reset";
    h.rule = fmt::format("Reset: c_sink {:.4g} >= {:.4g} x max(c_last, c_rest) {:.4g} and median cos(s, v_L) over "
                         "N <= {} is {:.4g} < {:.4g}",
                         f.c_sink, cfg.reset_sink_ratio, other, cfg.reset_n_max, h.median_cos_vL_small_n,
                         cfg.reset_cos_vL_max);
    return h;
  }
  // SPEC §6 Mixer: every other head.
  h.label = "Mixer";
  h.rule = fmt::format("Mixer: not Retriever (c_last {:.4g} {} largest, mean cos(s, v_L) {:.4g} vs {:.4g}) and not "
                       "Reset (c_sink {:.4g} vs {:.4g} x {:.4g}, median cos(s, v_L) over N <= {} {:.4g} vs {:.4g})",
                       f.c_last, last_largest ? "is" : "is not", h.mean_cos_vL, cfg.retriever_cos_vL_min, f.c_sink,
                       cfg.reset_sink_ratio, other, cfg.reset_n_max, h.median_cos_vL_small_n, cfg.reset_cos_vL_max);
  return h;
}

ordered_json taxonomy_report(const nlohmann::json& measure, const TaxonomyConfig& cfg) {
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
                      {"model", measure.contains("model") ? ordered_json(measure["model"]) : ordered_json(nullptr)},
                      {"config", cfg.to_json()}};
  ordered_json heads_out = ordered_json::array();
  std::map<int64_t, std::map<std::string, int64_t>> per_layer;
  std::map<std::string, int64_t> totals;
  for (size_t k = 0; k < heads.size(); ++k) {
    const auto& h = heads[k];
    const std::string where = fmt::format("heads[{}]", k);
    HeadFeatures f;
    const int64_t layer = need_int(h, where, "layer"), head = need_int(h, where, "head");
    f.c_sink = need_number(h, where, "c_sink");
    f.c_last = need_number(h, where, "c_last");
    f.c_rest = need_number(h, where, "c_rest");
    f.n_grid = n_grid;
    f.cos_s_v0 = need_curve(h, where, "cos_s_v0", n_grid.size());
    f.cos_s_vL = need_curve(h, where, "cos_s_vL", n_grid.size());
    const HeadLabel lab = classify(f, cfg);
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
    for (const char* label : kLabels) row[label] = counts[label];
    layers.push_back(std::move(row));
  }
  out["layers"] = std::move(layers);
  ordered_json tot = {{"heads", static_cast<int64_t>(heads.size())}};
  for (const char* label : kLabels) tot[label] = totals[label];
  out["totals"] = std::move(tot);
  return out;
}

}  // namespace geoattn::analysis
