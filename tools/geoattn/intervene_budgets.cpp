// geoattn intervene --budget-from (intervene_budgets.h).
#include "intervene_budgets.h"

#include <cmath>
#include <limits>

#include "geoattn/io/model_info.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

BudgetSource BudgetSource::read(const std::string& path, const arch::ModelConfig& config) {
  nlohmann::ordered_json doc;
  try {
    doc = report::read_measure(path);
  } catch (const Error& e) {
    fail("--budget-from {}: not a measure result whose curves can be read ({})", path, e.what());
  }
  // Of this model: every fact describe_model() states of it, as the result states it.
  const auto& theirs = doc.value("model", nlohmann::ordered_json::object());
  const nlohmann::ordered_json described = io::describe_model(config);
  for (const auto& [key, ours] : described.items())
    if (!theirs.contains(key) || theirs.at(key) != ours)
      fail("--budget-from {}: a result of another model ({} {}, this model's {})", path, key,
           theirs.contains(key) ? theirs.at(key).dump() : "absent", ours.dump());
  return {path, std::move(doc)};
}

std::vector<int64_t> BudgetSource::budgets(const analysis::BudgetRule& rule,
                                           const std::vector<std::pair<int64_t, int64_t>>& heads, int64_t T) const {
  const auto n_grid = doc.at("n_grid").get<std::vector<int64_t>>();
  const auto& all = doc.at("heads");
  const int64_t per_layer = doc.at("model").at("heads").get<int64_t>();
  std::vector<int64_t> out;
  for (const auto& [l, h] : heads) {
    const auto& head = all.at(static_cast<size_t>(l * per_layer + h));
    std::vector<double> curve;
    for (const auto& x : head.at(rule.curve))
      curve.push_back(x.is_null() ? std::numeric_limits<double>::quiet_NaN() : x.get<double>());
    const int64_t n = analysis::budget_n(rule, n_grid, curve);
    if (n < 1) fail("--budget-from {}: head {}.{} has no sample of {} to choose a budget from", path, l, h, rule.curve);
    if (n > T)
      fail("--budget-from {}: head {}.{}'s budget under {} is {} keys, above the window's {} (--ctx)", path, l, h,
           rule.text(), n, T);
    out.push_back(n);
  }
  return out;
}

}  // namespace geoattn::cli
