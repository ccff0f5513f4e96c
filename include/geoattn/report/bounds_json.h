#pragma once
// The result JSON of `geoattn bounds` (SPEC §5). Pure C++.
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "geoattn/analysis/bounds.h"
#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/stats/envelope_stats.h"

namespace geoattn::report {

constexpr const char* kBoundsSchema = "geoattn.bounds/1";

// From measurements: {"schema", <run_info keys>, "n_grid", "global", "layers", "heads"}; each
// group holds "samples", the measured means "P_rmax", "R_rmin", "F_rmax", "F_rmin" and the
// means of the per-sample bounds "P_lo", "P_up", "R_lo", "R_up", "F_rmax_lo", "F_rmax_up",
// "F_rmin_lo", "F_rmin_up" over n_grid (null where no sample reached N).
nlohmann::ordered_json bounds_json(const metrics::Aggregator& measured, const metrics::EnvelopeStats& bounds,
                                   const nlohmann::ordered_json& run_info);

// From parameters: {"schema", <run_info keys>, "n_grid", "bounds": {the eight curves}}.
nlohmann::ordered_json synthetic_bounds_json(const std::vector<int64_t>& grid, const analysis::BoundsCurves& curves,
                                             const nlohmann::ordered_json& run_info);

// The assumption parameters (analysis::params_from_json's JSON) of head (layer, head) of a
// measure result: its fits (SPEC §4), T, d and rho0. geoattn::Error naming `label` where the
// head is missing, has no fits or a failed one; nlohmann's exceptions on a missing field.
nlohmann::json params_of_head(const nlohmann::ordered_json& measure, const std::string& label, int64_t layer, int64_t head);

}  // namespace geoattn::report
