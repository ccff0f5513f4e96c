#include "geoattn/report/taxonomy_json.h"

#include <array>
#include <cmath>
#include <optional>
#include <map>
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "geoattn/report/run_identity.h"
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

ordered_json interval_or_null(const std::optional<std::array<double, 2>>& ci) {
  return ci && std::isfinite((*ci)[0]) && std::isfinite((*ci)[1]) ? ordered_json::array({(*ci)[0], (*ci)[1]})
                                                                  : ordered_json(nullptr);
}

}  // namespace

std::vector<analysis::TaxonomyInput> taxonomy_inputs(const ordered_json& measure) {
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
  std::vector<analysis::TaxonomyInput> out;
  for (size_t k = 0; k < heads.size(); ++k) {
    const auto& h = heads[k];
    const std::string where = fmt::format("heads[{}]", k);
    analysis::TaxonomyInput in;
    in.layer = need_int(h, where, "layer"), in.head = need_int(h, where, "head");
    if (h.contains("samples") && h["samples"].is_number_integer()) in.samples = h["samples"].get<int64_t>();
    auto& f = in.features;
    f.c_sink = need_number(h, where, "c_sink");
    f.c_last = need_number(h, where, "c_last");
    f.c_rest = need_number(h, where, "c_rest");
    f.n_grid = n_grid;
    f.cos_s_v0 = need_curve(h, where, "cos_s_v0", n_grid.size());
    f.cos_s_vL = need_curve(h, where, "cos_s_vL", n_grid.size());
    // SPEC §6: the slopes' bootstrap intervals, where the run has them.
    const auto interval = [&](const char* key) -> std::optional<std::array<double, 2>> {
      if (!h.contains(key) || h[key].is_null()) return std::nullopt;
      const auto& v = h[key];
      if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
        fail("taxonomy: {}.{} must be [lo, hi] or null, got {}", where, key, v.dump());
      return std::array<double, 2>{v[0].get<double>(), v[1].get<double>()};
    };
    f.slope_cos_v0_ci = interval("cos_s_v0_slope_ci");
    f.slope_cos_vL_ci = interval("cos_s_vL_slope_ci");
    // SPEC §2b: their p-values, which the taxonomy adjusts across heads; a result with intervals
    // and no p-values is from an older geoattn, whose Mixers would go untested.
    const auto p_value = [&](const char* key, bool with_interval) {
      if (!h.contains(key) || h[key].is_null()) {
        if (with_interval)
          fail("taxonomy: {}.{} is missing beside its interval (a result of an older geoattn): run geoattn measure "
               "again, or geoattn merge on its state sidecar",
               where, key);
        return kNaN;
      }
      if (!h[key].is_number()) fail("taxonomy: {}.{} must be a number or null, got {}", where, key, h[key].dump());
      return h[key].get<double>();
    };
    f.slope_cos_v0_p = p_value("cos_s_v0_slope_p", f.slope_cos_v0_ci.has_value());
    f.slope_cos_vL_p = p_value("cos_s_vL_slope_p", f.slope_cos_vL_ci.has_value());
    // SPEC §6's leave-one-out curves and Reset (b)'s mean row, where the result has them.
    const auto optional_curve = [&](const ordered_json& j, const std::string& at, const char* key, size_t size) {
      return j.is_object() && j.contains(key) ? need_curve(j, at, key, size) : std::vector<double>{};
    };
    f.s_norm = optional_curve(h, where, "s_norm", n_grid.size());
    f.s_loo_sink = optional_curve(h, where, "s_loo_sink", n_grid.size());
    f.s_loo_last = optional_curve(h, where, "s_loo_last", n_grid.size());
    if (h.contains("fits") && h["fits"].is_object() && h["fits"].contains("profile")) {
      const auto& profile = h["fits"]["profile"];
      if (profile.is_object() && profile.contains("mean_row") && profile["mean_row"].is_array())
        f.mean_row = optional_curve(profile, where + ".fits.profile", "mean_row", profile["mean_row"].size());
    }
    out.push_back(std::move(in));
  }
  return out;
}

ordered_json to_json(const analysis::Taxonomy& t, const ordered_json& model) {
  const auto counts = [](ordered_json row, const analysis::LabelCounts& c) {
    for (size_t k = 0; k < c.size(); ++k) row[analysis::kHeadLabels[k]] = c[k];
    return row;
  };
  ordered_json heads = ordered_json::array();
  for (const auto& [in, lab] : t.heads) {
    const auto& f = in.features;
    ordered_json features = {{"samples", in.samples ? ordered_json(*in.samples) : ordered_json(nullptr)},
                             {"c_sink", number(f.c_sink)},
                             {"c_last", number(f.c_last)},
                             {"c_rest", number(f.c_rest)},
                             {"mean_cos_vL", number(lab.mean_cos_vL)},
                             {"median_cos_vL_small_n", number(lab.median_cos_vL_small_n)},
                             {"slope_cos_v0", number(lab.slope_cos_v0)},
                             {"slope_cos_vL", number(lab.slope_cos_vL)},
                             {"slope_cos_v0_ci", interval_or_null(f.slope_cos_v0_ci)},
                             {"slope_cos_vL_ci", interval_or_null(f.slope_cos_vL_ci)},
                             {"slope_cos_v0_p", number(f.slope_cos_v0_p)},
                             {"slope_cos_vL_p", number(f.slope_cos_vL_p)},
                             {"slope_cos_v0_q", number(f.slope_cos_v0_q)},
                             {"slope_cos_vL_q", number(f.slope_cos_vL_q)},
                             {"slopes_by", lab.slopes_by_interval ? "interval" : "sign"},
                             {"median_cos_v0_small_n", number(lab.median_cos_v0_small_n)},
                             {"row_entropy", number(lab.row_entropy)},
                             {"drop_sink", number(lab.drop_sink)},
                             {"drop_last", number(lab.drop_last)}};
    ordered_json head = {{"layer", in.layer}, {"head", in.head}, {"label", lab.label}, {"rule", lab.rule}};
    if (lab.label == "Reset") head["reset_branch"] = lab.reset_branch;
    if (lab.label == "Mixer") head["slopes_by"] = lab.slopes_by_interval ? "interval" : "sign";
    if (!lab.flag.empty()) head["flag"] = lab.flag;
    if (lab.label == analysis::kUnlabelled) head["closest"] = lab.closest, head["failed"] = lab.failed;
    head["features"] = std::move(features);
    heads.push_back(std::move(head));
  }
  ordered_json layers = ordered_json::array();
  for (const auto& [layer, c] : t.layers) layers.push_back(counts({{"layer", layer}}, c));
  // SPEC §6: the labels that change when each threshold moves.
  ordered_json sensitivity = ordered_json::array();
  for (const auto& row : t.sensitivity) {
    ordered_json changed = ordered_json::array();
    for (const auto& c : row.changes)
      changed.push_back({{"layer", c.layer}, {"head", c.head}, {"from", c.from}, {"to", c.to}});
    sensitivity.push_back({{"threshold", row.threshold},
                           {"factor", number(row.factor)},
                           {"value", number(row.value)},
                           {"changed", static_cast<int64_t>(row.changes.size())},
                           {"heads", std::move(changed)}});
  }
  return {{"schema", kTaxonomySchema},
          {"model", model},
          {"config", to_json(t.config)},
          {"heads", std::move(heads)},
          {"layers", std::move(layers)},
          {"totals", counts({{"heads", static_cast<int64_t>(t.heads.size())}}, t.totals)},
          {"mixers", {{"by_interval", t.mixers_by_interval}, {"by_sign", t.mixers_by_sign}}},
          // SPEC §2b: the Mixer's slope tests by interval, one family adjusted across heads.
          {"slope_tests",
           {{"tests", t.slope_tests},
            {"method", "Benjamini-Hochberg across every head's two slopes (two-sided Wald p-values, the bootstrap's standard error)"},
            {"fdr", t.config.mixer_slope_fdr}}},
          {"flagged", t.flagged},
          {"sensitivity", std::move(sensitivity)}};
}

namespace {
// The median of xs (NaN when empty).
double median_of(std::vector<double> xs) {
  if (xs.empty()) return kNaN;
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

// One row of the companion table over the heads `members` (indices into kappa_ranges).
ordered_json kappa_row(ordered_json row, const std::vector<size_t>& members, const std::vector<ordered_json>& ranges) {
  std::vector<double> lo, hi;
  ordered_json without = ordered_json::object();
  for (const char* name : {"norms", "decay", "profile", "none stands out"}) without[name] = 0;
  for (const size_t i : members) {
    const auto& r = ranges[i];
    if (r.contains("lo") && r["lo"].is_number()) {
      lo.push_back(r["lo"].get<double>()), hi.push_back(r["hi"].get<double>());
    } else if (r.contains("fails")) {
      auto& n = without[r["fails"]["assumption"].get<std::string>()];
      n = n.get<int64_t>() + 1;
    }
  }
  row["heads"] = members.size();
  row["with_range"] = lo.size();
  row["lo_median"] = number(median_of(lo));
  row["hi_median"] = number(median_of(hi));
  row["without"] = std::move(without);
  return row;
}
}  // namespace

void add_kappa_tables(ordered_json& taxonomy, const std::vector<ordered_json>& kappa_ranges) {
  auto& heads = taxonomy.at("heads");
  if (kappa_ranges.size() != heads.size()) fail("taxonomy: {} kappa ranges for {} heads", kappa_ranges.size(), heads.size());
  std::map<int64_t, std::vector<size_t>> by_layer;
  std::map<std::string, std::vector<size_t>> by_label;
  for (size_t i = 0; i < heads.size(); ++i) {
    heads[i]["kappa_range"] = kappa_ranges[i];
    by_layer[heads[i]["layer"].get<int64_t>()].push_back(i);
    by_label[heads[i]["label"].get<std::string>()].push_back(i);
  }
  ordered_json layers = ordered_json::array(), labels = ordered_json::array();
  for (const auto& [layer, members] : by_layer) layers.push_back(kappa_row({{"layer", layer}}, members, kappa_ranges));
  for (const char* label : analysis::kHeadLabels)
    if (by_label.count(label)) labels.push_back(kappa_row({{"label", label}}, by_label[label], kappa_ranges));
  taxonomy["kappa_by_layer"] = std::move(layers);
  taxonomy["kappa_by_label"] = std::move(labels);
}

ordered_json taxonomy_report(const ordered_json& measure, const analysis::TaxonomyConfig& cfg) {
  auto inputs = taxonomy_inputs(measure);
  ordered_json out = to_json(analysis::taxonomy(std::move(inputs), cfg),
                             measure.contains("model") ? measure.at("model") : ordered_json(nullptr));
  // The kappa each head allows, where the measure has it.
  const auto& heads = measure.at("heads");
  if (!heads.empty() && heads[0].contains("kappa_range")) {
    std::vector<ordered_json> ranges;
    for (const auto& h : heads) {
      if (!h.contains("kappa_range") || !h["kappa_range"].is_object())
        fail("taxonomy: heads[{}] has no kappa_range beside heads that have one", ranges.size());
      ranges.push_back(h["kappa_range"]);
    }
    add_kappa_tables(out, ranges);
  }
  // The run it labels (report/run_identity.h), which the readers of both check.
  if (const auto id = run_id_of(measure)) out = with_run_id(out, *id);
  return out;
}

}  // namespace geoattn::report
