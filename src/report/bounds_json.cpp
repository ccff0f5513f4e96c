#include "geoattn/report/bounds_json.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "geoattn/metrics/metric_names.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
ordered_json number(double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); }

void put_bounds(ordered_json& out, const analysis::BoundsCurves& curves) {
  const auto fields = analysis::bound_curves(curves);
  for (size_t k = 0; k < fields.size(); ++k) {
    ordered_json values = ordered_json::array();
    for (double x : *fields[k]) values.push_back(number(x));
    out[analysis::kBoundsNames[k]] = std::move(values);
  }
}

// The measured means beside the bounds (the four curves the bounds bound).
ordered_json group(ordered_json out, const metrics::GroupStats& measured, const analysis::BoundsMean& bounds) {
  out["samples"] = measured.samples();
  for (int m : {metrics::kP_rmax, metrics::kR_rmin, metrics::kF_rmax, metrics::kF_rmin}) {
    ordered_json values = ordered_json::array();
    for (int64_t g = 0; g < measured.grid_size(); ++g) values.push_back(number(measured.curve(m, g).mean()));
    out[std::string(metrics::kCurveNames[m])] = std::move(values);
  }
  put_bounds(out, bounds.mean());
  return out;
}

ordered_json header(const ordered_json& run_info, const std::vector<int64_t>& grid) {
  ordered_json out = {{"schema", kBoundsSchema}};
  for (const auto& [key, value] : run_info.items()) out[key] = value;
  out["n_grid"] = grid;
  return out;
}
}  // namespace

ordered_json bounds_json(const metrics::Aggregator& measured, const analysis::BoundsTables& bounds,
                         const ordered_json& run_info) {
  ordered_json out = header(run_info, measured.n_grid());
  out["global"] = group(ordered_json::object(), measured.global_stats(), bounds.global);
  ordered_json layers = ordered_json::array(), heads = ordered_json::array();
  for (int64_t l = 0; l < measured.layers(); ++l) {
    layers.push_back(group({{"layer", l}}, measured.layer_stats(l), bounds.per_layer[l]));
    for (int64_t h = 0; h < measured.heads(); ++h)
      heads.push_back(group({{"layer", l}, {"head", h}}, measured.head_stats(l, h), bounds.per_head[l * measured.heads() + h]));
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

}  // namespace geoattn::report
