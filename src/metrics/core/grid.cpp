#include "geoattn/metrics/core/grid.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <numeric>
#include <string_view>

#include "geoattn/util/error.h"

namespace geoattn::metrics {

namespace {
int64_t parse_value(std::string_view text) {
  // The whole item one plain integer: no space, no sign of +, nothing else (util/numbers.h).
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    fail("N grid: '{}' is not a number (expected all, default, or a list like 1:16,24,32)", echoed(std::string(text)));
  return v;
}

// One item of a list: "N" or the inclusive range "a:b" (SPEC §2).
std::pair<int64_t, int64_t> parse_item(std::string_view item) {
  const auto colon = item.find(':');
  if (colon == std::string_view::npos) {
    const int64_t v = parse_value(item);
    return {v, v};
  }
  const int64_t a = parse_value(item.substr(0, colon)), b = parse_value(item.substr(colon + 1));
  if (a > b) fail("N grid: range '{}' starts above its end", echoed(std::string(item)));
  return {a, b};
}

std::vector<std::pair<int64_t, int64_t>> parse_items(std::string_view spec) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t start = 0;;) {
    const auto comma = spec.find(',', start);
    out.push_back(parse_item(spec.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}
}  // namespace

NGrid NGrid::parse(const std::string& text) {
  NGrid grid;
  grid.text_ = text;
  if (text != "all" && text != "default") grid.ranges_ = parse_items(text);
  return grid;
}

std::vector<int64_t> NGrid::at(int64_t T) const {
  if (T < 1) fail("N grid: the window length {} must be at least 1", T);
  std::vector<int64_t> grid;
  if (text_ == "all") {
    grid.resize(static_cast<size_t>(T));
    std::iota(grid.begin(), grid.end(), int64_t{1});
    return grid;
  }
  const bool cut = text_ == "default";  // SPEC §2: the default grid cut at T, with T itself always included
  const auto ranges = cut ? parse_items(kDefaultGrid) : ranges_;
  for (const auto& [a, b] : ranges)
    for (const int64_t v : {a, b})
      if (!cut && (v < 1 || v > T)) fail("N grid: {} is outside 1..{} (the window length)", v, T);
  for (const auto& [a, b] : ranges)
    for (int64_t v = a; v <= std::min(b, T); ++v) grid.push_back(v);
  if (cut) grid.push_back(T);
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

std::vector<int64_t> parse_n_grid(const std::string& spec, int64_t T) {
  if (T < 1) fail("N grid: the window length {} must be at least 1", T);
  return NGrid::parse(spec).at(T);
}

}  // namespace geoattn::metrics
