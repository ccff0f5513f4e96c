#pragma once
// Shared by the bounds tests: curves compared value by value.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "geoattn/analysis/bounds.h"

namespace geoattn::testing {

// Every curve of `got` within `tol` of `want` (NaN where both are), and the flags equal.
inline void expect_curves(const analysis::BoundsCurves& got, const analysis::BoundsCurves& want, double tol,
                          const std::string& where) {
  const auto g = analysis::curve_fields(got), w = analysis::curve_fields(want);
  for (size_t k = 0; k < g.size(); ++k) {
    ASSERT_EQ(g[k]->size(), w[k]->size()) << where << " " << analysis::kBoundsNames[k];
    for (size_t i = 0; i < g[k]->size(); ++i) {
      const double x = (*g[k])[i], y = (*w[k])[i];
      if (std::isnan(x) && std::isnan(y)) continue;
      EXPECT_NEAR(x, y, tol) << where << " " << analysis::kBoundsNames[k] << " grid index " << i;
    }
  }
  EXPECT_EQ(got.open, want.open) << where;
  EXPECT_EQ(got.nontrivial, want.nontrivial) << where;
  EXPECT_EQ(got.sink_in, want.sink_in) << where;
}

}  // namespace geoattn::testing
