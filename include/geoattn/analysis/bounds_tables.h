#pragma once
// Means of per-sample bounds (SPEC §5: the envelopes are means of per-sample bounds) per
// (layer, head), per layer and over all heads. Pure C++.
#include <array>
#include <cstdint>
#include <vector>

#include "geoattn/analysis/bounds.h"

namespace geoattn::analysis {

// The curves of a BoundsCurves with their JSON names, in one table.
constexpr std::array<const char*, 8> kBoundsNames = {"P_lo",      "P_up",      "R_lo",      "R_up",
                                                     "F_rmax_lo", "F_rmax_up", "F_rmin_lo", "F_rmin_up"};
inline std::array<const std::vector<double>*, 8> bound_curves(const BoundsCurves& c) {
  return {&c.P_lo, &c.P_up, &c.R_lo, &c.R_up, &c.F_rmax_lo, &c.F_rmax_up, &c.F_rmin_lo, &c.F_rmin_up};
}

struct BoundsTables {
  BoundsTables(int64_t layers, int64_t heads, size_t grid_size)
      : layers(layers), heads(heads), per_head(layers * heads, BoundsMean(grid_size)),
        per_layer(layers, BoundsMean(grid_size)), global(grid_size) {}

  void add(int64_t layer, int64_t head, const BoundsCurves& c) {
    per_head[layer * heads + head].add(c);
    per_layer[layer].add(c);
    global.add(c);
  }

  int64_t layers, heads;
  std::vector<BoundsMean> per_head;   // [layer * heads + head]
  std::vector<BoundsMean> per_layer;  // [layer]
  BoundsMean global;
};

}  // namespace geoattn::analysis
