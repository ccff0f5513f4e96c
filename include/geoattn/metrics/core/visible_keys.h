#pragma once
// SPEC §1: which keys are a sample's tokens on a layer with a sliding window. One definition,
// used by the metric core (both paths), the bounds and the fits. Pure C++.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "geoattn/util/enum_names.h"

namespace geoattn::metrics {

// SPEC §1: on a layer with window W, the query's tokens are the keys it sees (Visible, the
// default), or every key 0..q with those outside the window counted as alpha = 0 (Causal, the
// older convention, a recorded setting).
enum class WindowTokens { Visible, Causal };
inline constexpr EnumName<WindowTokens> kWindowTokensNames[] = {{WindowTokens::Visible, "visible"},
                                                                {WindowTokens::Causal, "causal"}};

// A sample's tokens: keys first..first + n - 1 of its window, the last of them the query q.
// Local position 0 (the sink of SPEC §2's diagnostics, rho0's v_0, the fits' position 0) is
// key `first`.
struct QueryKeys {
  int64_t first = 0, n = 0;
};

// SPEC §1: query q's tokens on a layer with window `window` (0: the layer has none).
inline QueryKeys query_keys(int64_t q, int64_t window, WindowTokens tokens) {
  // n = min(q + 1, W) keys, q - n + 1 .. q, where the layer has a window and its keys are the visible ones.
  const int64_t first = tokens == WindowTokens::Visible && window > 0 ? std::max<int64_t>(0, q - window + 1) : 0;
  return {first, q + 1 - first};
}

// The layers' windows as a metric run sees them: per layer, 0 or W (empty: no layer has one).
struct LayerWindows {
  std::vector<int64_t> windows;  // [L] or empty
  WindowTokens tokens = WindowTokens::Visible;
  int64_t of(int64_t layer) const { return windows.empty() ? 0 : windows[static_cast<size_t>(layer)]; }
  QueryKeys keys(int64_t q, int64_t layer) const { return query_keys(q, of(layer), tokens); }
  // Whether any layer's samples are cut to fewer keys than q + 1 for some q < T.
  bool cuts(int64_t T) const {
    if (tokens != WindowTokens::Visible) return false;
    for (const int64_t w : windows)
      if (w > 0 && w < T) return true;
    return false;
  }
};

}  // namespace geoattn::metrics
