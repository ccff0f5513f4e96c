#pragma once
// The result of `geoattn taxonomy` (SPEC §6): the measure result's per-head features read,
// classified by analysis/taxonomy.h, and written as JSON. Pure C++.
#include <nlohmann/json.hpp>

#include <vector>

#include "geoattn/analysis/taxonomy.h"

namespace geoattn::report {

constexpr const char* kTaxonomySchema = "geoattn.taxonomy/1";

// The `geoattn taxonomy` result from a measure result with its arrays inline
// (report::read_measure, which also checks the schema):
//   {"schema": "geoattn.taxonomy/1", "model": <copied, null if absent>, "config": {...},
//    "heads": [{"layer", "head", "label", "rule", "features": {"samples", "c_sink", "c_last",
//               "c_rest", "mean_cos_vL", "median_cos_vL_small_n", "slope_cos_v0",
//               "slope_cos_vL"}}],
//    "layers": [{"layer", "Retriever", "Mixer", "Reset"}],   // counts, layers ascending
//    "totals": {"heads", "Retriever", "Mixer", "Reset"}}
// NaN features print as null. geoattn::Error (one line) on a
// missing or mistyped field (named with its head index), curves whose length differs from
// n_grid, or a head whose c_sink/c_last/c_rest is null (it has no samples).
nlohmann::ordered_json taxonomy_report(const nlohmann::ordered_json& measure, const analysis::TaxonomyConfig& cfg);

// Its two halves: the heads of a measure result as SPEC §6 reads them (the checks above), and a
// classified taxonomy as that JSON, with `model` copied.
std::vector<analysis::TaxonomyInput> taxonomy_inputs(const nlohmann::ordered_json& measure);
nlohmann::ordered_json to_json(const analysis::Taxonomy& taxonomy, const nlohmann::ordered_json& model);
// The kappa range's companion table: with each head's "kappa_range" (the measure
// result's, in the taxonomy's head order), every head gets it and the taxonomy gets
// "kappa_by_layer" and "kappa_by_label": per layer and per label the heads with a range, the
// medians of their lo and hi, and the heads without one by the assumption named.
void add_kappa_tables(nlohmann::ordered_json& taxonomy, const std::vector<nlohmann::ordered_json>& kappa_ranges);

}  // namespace geoattn::report
