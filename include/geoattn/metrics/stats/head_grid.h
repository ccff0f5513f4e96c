#pragma once
// The (layer, head) grid a statistic is kept over. A default-constructed grid is empty: the
// statistic was not asked for. Pure C++.
#include <cstdint>
#include <vector>

namespace geoattn::metrics {

class HeadGrid {
 public:
  HeadGrid() = default;
  HeadGrid(int64_t layers, int64_t heads) : layers_(layers), heads_(heads) {}

  bool empty() const { return layers_ == 0; }
  int64_t layers() const { return layers_; }
  int64_t heads() const { return heads_; }
  bool same_grid(const HeadGrid& other) const { return layers_ == other.layers_ && heads_ == other.heads_; }
  // The (layer, head) slots (layer * heads + head) a group reads: one head; a layer's (head =
  // -1); every one (layer = head = -1). geoattn::Error naming `what` outside the grid.
  std::vector<int64_t> group_slots(int64_t layer, int64_t head, const char* what) const;
  // The group's counts per grid index from per-slot counts [slots, G]: their sum over its slots.
  std::vector<int64_t> group_counts(const std::vector<int64_t>& counts, int64_t G, int64_t layer, int64_t head,
                                    const char* what) const;

 protected:
  int64_t layers_ = 0, heads_ = 0;
};

}  // namespace geoattn::metrics
