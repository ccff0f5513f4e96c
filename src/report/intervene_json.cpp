// The result of geoattn intervene as JSON (intervene_json.h).
#include "geoattn/report/intervene_json.h"

#include "json_number.h"
#include <fmt/format.h>

#include "geoattn/util/error.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
ordered_json interval(const metrics::Interval& ci) {
  if (!std::isfinite(ci[0]) || !std::isfinite(ci[1])) return nullptr;
  return ordered_json::array({ci[0], ci[1]});
}
}  // namespace

ordered_json intervene_json(const ordered_json& model, const ordered_json& data, const ordered_json& settings,
                            const std::vector<InterventionInfo>& interventions, const metrics::LossStats& stats,
                            const metrics::LossReadings& readings) {
  if (interventions.size() != readings.interventions.size())
    fail("internal: {} interventions, {} readings", interventions.size(), readings.interventions.size());
  ordered_json j = {{"schema", kInterveneSchema}, {"model", model}, {"data", data}, {"settings", settings}};
  // SPEC §2b: intervals over documents, adjusted for the interventions' number.
  j["intervals"] = {{"documents", stats.units()},
                    {"replicates", readings.replicates},
                    {"family_ci", readings.family_ci},
                    {"each_ci", readings.each_ci},
                    {"adjustment", "bonferroni over the interventions"},
                    {"intervals", readings.status.intervals}};
  if (!readings.status.why.empty()) j["intervals"]["why"] = readings.status.why;
  const double tokens = stats.interventions() > 0 ? stats.total(0).tokens : 0;
  j["tokens_predicted"] = static_cast<int64_t>(tokens);
  j["loss_plain"] = readings.interventions.empty() ? ordered_json(nullptr) : number(readings.interventions[0].loss_plain);
  ordered_json& list = j["interventions"] = ordered_json::array();
  for (size_t k = 0; k < interventions.size(); ++k) {
    const auto& info = interventions[k];
    const auto& r = readings.interventions[k];
    ordered_json heads = ordered_json::array();
    for (const auto& [l, h] : info.heads) heads.push_back({l, h});
    ordered_json entry = {{"name", info.name}, {"intervention", info.intervention}, {"heads", heads}};
    if (!info.budgets.empty()) entry["budgets"] = info.budgets;  // a budget's N per head, in heads' order
    entry["loss"] = number(r.loss);
    entry["loss_diff"] = number(r.loss_diff);
    entry["loss_diff_ci"] = interval(r.loss_diff_ci);
    entry["kl"] = number(r.kl);
    entry["kl_ci"] = interval(r.kl_ci);
    entry["top1_agreement"] = number(r.top1);
    entry["top1_agreement_ci"] = interval(r.top1_ci);
    entry["kept_fraction"] = number(r.kept_fraction);
    list.push_back(std::move(entry));
  }
  // What geoattn merge adds up: each document's exact sums per intervention (written with the
  // shortest text that reads back as the same double).
  ordered_json ids = ordered_json::array(), sums = ordered_json::array();
  for (int64_t u = 0; u < stats.units(); ++u) {
    ids.push_back(stats.unit_ids()[static_cast<size_t>(u)]);
    ordered_json row = ordered_json::array();
    for (int64_t k = 0; k < stats.interventions(); ++k) row.push_back(stats.at(k, u).values());
    sums.push_back(std::move(row));
  }
  j["per_document"] = {{"fields", metrics::LossSums::kFields}, {"documents", std::move(ids)}, {"sums", std::move(sums)}};
  return j;
}

std::vector<InterventionInfo> interventions_from_json(const ordered_json& j) {
  std::vector<InterventionInfo> out;
  for (const auto& iv : j.at("interventions")) {
    InterventionInfo info{iv.at("name").get<std::string>(), iv.at("intervention").get<std::string>(), {}, {}};
    for (const auto& h : iv.at("heads")) info.heads.emplace_back(h.at(0).get<int64_t>(), h.at(1).get<int64_t>());
    if (iv.contains("budgets")) info.budgets = iv.at("budgets").get<std::vector<int64_t>>();
    out.push_back(std::move(info));
  }
  return out;
}

metrics::LossStats loss_stats_from_json(const ordered_json& j, const std::string& label) {
  const auto bad = [&](const std::string& what) -> void { fail("{}: per_document {}", label, what); };
  const auto* per = j.is_object() && j.contains("per_document") ? &j.at("per_document") : nullptr;
  if (per == nullptr || !per->is_object()) fail("{}: no per_document sums (a result of an older geoattn intervene?)", label);
  const ordered_json fields(metrics::LossSums::kFields);
  if (per->value("fields", ordered_json()) != fields) bad("fields are not " + fields.dump());
  const auto& ids = per->value("documents", ordered_json());
  const auto& sums = per->value("sums", ordered_json());
  const auto K = static_cast<int64_t>(j.value("interventions", ordered_json::array()).size());
  if (!ids.is_array() || !sums.is_array() || ids.size() != sums.size()) bad("documents and sums are not two lists of one length");
  metrics::LossStats stats(K);
  for (size_t u = 0; u < ids.size(); ++u) {
    if (!ids[u].is_string()) bad("documents holds a non-string");
    const int64_t row = stats.unit_row(ids[u].get<std::string>());
    if (row != static_cast<int64_t>(u)) bad("names document " + ids[u].get<std::string>() + " twice");
    if (!sums[u].is_array() || static_cast<int64_t>(sums[u].size()) != K) bad(fmt::format("sums[{}] is not {} interventions", u, K));
    for (int64_t k = 0; k < K; ++k) {
      const auto& v = sums[u][static_cast<size_t>(k)];
      std::array<double, 7> x{};
      if (!v.is_array() || v.size() != x.size()) bad(fmt::format("sums[{}][{}] is not {} numbers", u, k, x.size()));
      for (size_t f = 0; f < x.size(); ++f) {
        if (!v[f].is_number()) bad(fmt::format("sums[{}][{}] holds a non-number", u, k));
        x[f] = v[f].get<double>();
      }
      stats.add(k, row, metrics::LossSums::of(x));
    }
  }
  return stats;
}

}  // namespace geoattn::report
