#pragma once
// Budgets from geometry (geoattn intervene's budget:RULE): each head's own number of keys kept,
// chosen from its measured curves (SPEC §2). Pure C++ (no LibTorch).
//
// RULE is CURVE:X: the largest N of the grid up to which the head's mean CURVE (P_rmax, R_rmin,
// F_rmax or F_rmin) stays at least X, 0 < X <= 1: the N before its first fall below X. Every
// curve is 1 at N = 1 and again at N = T, where the top-N is every key (SPEC §2), so the budget
// is how far the head's selection stays that separable from the rest before it first is not;
// a head whose curve never falls below X keeps every key (T).
#include <cstdint>
#include <string>
#include <vector>

namespace geoattn::analysis {

struct BudgetRule {
  std::string curve;  // P_rmax, R_rmin, F_rmax or F_rmin
  double target = 1;  // X
  // "CURVE:X"; geoattn::Error naming the text otherwise.
  static BudgetRule parse(const std::string& text);
  std::string text() const;
};

// One head's budget: `curve` over `n_grid` (ascending; NaN where no sample reached N, which
// ends the walk); 0 where not even the first N qualifies (no sample at all).
int64_t budget_n(const BudgetRule& rule, const std::vector<int64_t>& n_grid, const std::vector<double>& curve);

}  // namespace geoattn::analysis
