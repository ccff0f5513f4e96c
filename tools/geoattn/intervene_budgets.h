#pragma once
// geoattn intervene --budget-from: each head's budget (analysis/budgets.h) from the curves of a
// measure result of the same model.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/analysis/budgets.h"
#include "geoattn/arch/config.h"

namespace geoattn::cli {

struct BudgetSource {
  std::string path;
  nlohmann::ordered_json doc;  // the result, its arrays inline (report::read_measure)
  // The result at `path`, which must be a measure result of the model `config` describes;
  // geoattn::Error naming --budget-from and the file otherwise.
  static BudgetSource read(const std::string& path, const arch::ModelConfig& config);
  // Each of `heads`' budget under `rule`; geoattn::Error naming the file and the head where it
  // has no sample, or where its budget is above the window's T keys.
  std::vector<int64_t> budgets(const analysis::BudgetRule& rule, const std::vector<std::pair<int64_t, int64_t>>& heads,
                               int64_t T) const;
};

}  // namespace geoattn::cli
