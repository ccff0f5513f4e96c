#include "geoattn/report/bounds_json.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "geoattn/util/error.h"

#include "geoattn/metrics/core/metric_names.h"
#include "json_number.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
void put_bounds(ordered_json& out, const analysis::BoundsCurves& curves) {
  const auto fields = analysis::curve_fields(curves);
  for (size_t k = 0; k < fields.size(); ++k) {
    ordered_json values = ordered_json::array();
    for (double x : *fields[k]) values.push_back(number(x));
    out[analysis::kBoundsNames[k]] = std::move(values);
  }
}

// The measured means beside the bounds (the four curves the bounds bound).
ordered_json group(ordered_json out, const metrics::GroupStats& measured, const analysis::BoundsCurves& bounds) {
  out["samples"] = measured.samples();
  for (int m : {metrics::kP_rmax, metrics::kR_rmin, metrics::kF_rmax, metrics::kF_rmin}) {
    ordered_json values = ordered_json::array();
    for (int64_t g = 0; g < measured.grid_size(); ++g) values.push_back(number(measured.curve(m, g).mean()));
    out[std::string(metrics::kCurveNames[m])] = std::move(values);
  }
  put_bounds(out, bounds);
  return out;
}

ordered_json header(const ordered_json& run_info, const std::vector<int64_t>& grid) {
  ordered_json out = {{"schema", kBoundsSchema}};
  for (const auto& [key, value] : run_info.items()) out[key] = value;
  out["n_grid"] = grid;
  return out;
}
}  // namespace

ordered_json bounds_json(const metrics::Aggregator& measured, const metrics::EnvelopeStats& bounds,
                         const ordered_json& run_info) {
  ordered_json out = header(run_info, measured.n_grid());
  const metrics::Aggregator::Groups groups = measured.groups();  // each merged once
  out["global"] = group(ordered_json::object(), groups.global, bounds.mean(-1, -1));
  ordered_json layers = ordered_json::array(), heads = ordered_json::array();
  for (int64_t l = 0; l < measured.layers(); ++l) {
    layers.push_back(group({{"layer", l}}, groups.layers[static_cast<size_t>(l)], bounds.mean(l, -1)));
    for (int64_t h = 0; h < measured.heads(); ++h)
      heads.push_back(group({{"layer", l}, {"head", h}}, measured.head_stats(l, h), bounds.mean(l, h)));
  }
  out["layers"] = std::move(layers);
  out["heads"] = std::move(heads);
  return out;
}

ordered_json synthetic_bounds_json(const std::vector<int64_t>& grid, const analysis::BoundsCurves& curves,
                                   const ordered_json& run_info) {
  ordered_json out = header(run_info, grid);
  put_bounds(out["bounds"], curves);
  return out;
}

// The assumption parameters of one head of a measure JSON (its fits, SPEC §4).
nlohmann::json params_of_head(const nlohmann::ordered_json& measure, const std::string& label, int64_t layer, int64_t head) {
  for (const auto& h : measure.at("heads")) {
    if (h.at("layer") != layer || h.at("head") != head) continue;
    if (!h.contains("fits")) fail("{}: head ({}, {}) has no fits (the run had no last query)", label, layer, head);
    const auto& f = h.at("fits");
    for (const char* part : {"norms", "decay", "profile"})
      if (!f.at(part).at("ok").get<bool>())
        fail("{}: head ({}, {}): the {} fit failed: {}", label, layer, head, part, f.at(part).value("why", "?"));
    const auto& p = f.at("profile");
    return {{"T", measure.at("settings").at("ctx")},
            {"d", measure.at("model").at("head_dim")},
            {"C", f.at("norms").at("C")},
            {"lambda", f.at("norms").at("lambda")},
            {"cv", f.at("norms").at("cv")},
            {"beta", f.at("decay").at("beta")},
            {"rho0", h.at("rho0")},
            {"profile",
             {{"p_sink", p.at("p_sink")}, {"p_base", p.at("p_base")}, {"eta", p.at("eta")}, {"omega", p.at("omega")},
              {"T1", p.at("T1")}, {"T2", p.at("T2")}}},
            {"seed", 0},
            {"samples", 8}};
  }
  fail("{}: no head ({}, {}) in this measure JSON", label, layer, head);
}

}  // namespace geoattn::report
