#include "geoattn/metrics/grid.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <numeric>
#include <string_view>

#include "geoattn/util/error.h"

namespace geoattn::metrics {

namespace {
int64_t parse_value(std::string_view text, int64_t T) {
  // The whole item one plain integer: no space, no sign of +, nothing else (util/numbers.h).
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    fail("N grid: '{}' is not a number (expected all, default, or a list like 1:16,24,32)", echoed(std::string(text)));
  if (v < 1 || v > T) fail("N grid: {} is outside 1..{} (the window length)", v, T);
  return v;
}

// One item of a list: "N" or the inclusive range "a:b" (SPEC §2).
void add_item(std::string_view item, int64_t T, std::vector<int64_t>& out) {
  const auto colon = item.find(':');
  if (colon == std::string_view::npos) {
    out.push_back(parse_value(item, T));
    return;
  }
  const int64_t a = parse_value(item.substr(0, colon), T), b = parse_value(item.substr(colon + 1), T);
  if (a > b) fail("N grid: range '{}' starts above its end", echoed(std::string(item)));
  for (int64_t v = a; v <= b; ++v) out.push_back(v);
}

std::vector<int64_t> parse_list(std::string_view spec, int64_t T) {
  std::vector<int64_t> out;
  for (size_t start = 0;;) {
    const auto comma = spec.find(',', start);
    add_item(spec.substr(start, comma - start), T, out);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}
}  // namespace

std::vector<int64_t> parse_n_grid(const std::string& spec_text, int64_t T) {
  if (T < 1) fail("N grid: the window length {} must be at least 1", T);
  const std::string_view spec = spec_text;
  std::vector<int64_t> grid;
  if (spec == "all") {
    grid.resize(static_cast<size_t>(T));
    std::iota(grid.begin(), grid.end(), int64_t{1});
  } else if (spec == "default") {
    // SPEC §2: the default grid cut at T, with T itself always included.
    grid = parse_list(kDefaultGrid, std::numeric_limits<int64_t>::max());
    grid.erase(std::remove_if(grid.begin(), grid.end(), [T](int64_t n) { return n > T; }), grid.end());
    grid.push_back(T);
  } else {
    grid = parse_list(spec, T);
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

}  // namespace geoattn::metrics
