// The result of geoattn intervene as JSON (intervene_json.h).
#include "geoattn/report/intervene_json.h"

#include "json_number.h"
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
  return j;
}

}  // namespace geoattn::report
