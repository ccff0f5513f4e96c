// Budgets from geometry (budgets.h).
#include "geoattn/analysis/budgets.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "geoattn/util/error.h"
#include "geoattn/util/numbers.h"

namespace geoattn::analysis {

namespace {
constexpr std::array<std::string_view, 4> kCurves = {"P_rmax", "R_rmin", "F_rmax", "F_rmin"};
}  // namespace

BudgetRule BudgetRule::parse(const std::string& text) {
  const auto at = text.find(':');
  const std::string curve = text.substr(0, at);
  const auto target = at == std::string::npos ? std::nullopt : parse_real(text.substr(at + 1));
  if (std::find(kCurves.begin(), kCurves.end(), curve) == kCurves.end() || !target || !(*target > 0 && *target <= 1))
    fail("'{}' is not CURVE:X (CURVE: P_rmax, R_rmin, F_rmax or F_rmin; 0 < X <= 1)", text);
  return {curve, *target};
}

std::string BudgetRule::text() const { return fmt::format("{}:{}", curve, target); }

// SPEC §2's curves, read as a budget (budgets.h): the last N before the mean first falls below
// the target.
int64_t budget_n(const BudgetRule& rule, const std::vector<int64_t>& n_grid, const std::vector<double>& curve) {
  if (curve.size() != n_grid.size()) fail("internal: a curve of {} values over a grid of {}", curve.size(), n_grid.size());
  int64_t n = 0;
  for (size_t g = 0; g < n_grid.size() && std::isfinite(curve[g]) && curve[g] >= rule.target; ++g) n = n_grid[g];
  return n;
}

}  // namespace geoattn::analysis
