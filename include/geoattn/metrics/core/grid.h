#pragma once
// The N grid of SPEC §2: "all" is 1..T; a list like "1:16,24,32" (ranges a:b inclusive);
// the default is 1:16,24,32,48,64,96,128,192,256,384,512,768,1024 cut at T, with T always
// included. Pure C++.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace geoattn::metrics {

constexpr const char* kDefaultGrid = "1:16,24,32,48,64,96,128,192,256,384,512,768,1024";

// The N grid as the user wrote it, read once where it is given (a flag, a Python argument):
// "default", "all", or a list of N and ranges a:b. Its values wait for the window length T.
class NGrid {
 public:
  // An empty text or an empty item is refused, as a space is (no item is trimmed), and so are a
  // bad token and a range that starts above its end: geoattn::Error "N grid: ...", naming no flag.
  static NGrid parse(const std::string& text);
  // Sorted, unique values in 1..T ("default": the default grid cut at T, plus T); geoattn::Error
  // on a value outside 1..T or a T below 1.
  std::vector<int64_t> at(int64_t T) const;
  // The text it was read from (what a run records as its "n").
  const std::string& text() const { return text_; }

 private:
  std::string text_ = "default";
  std::vector<std::pair<int64_t, int64_t>> ranges_;  // a list's items, a:b inclusive (N: N:N)
};

// NGrid::parse(spec).at(T), the window length checked first.
std::vector<int64_t> parse_n_grid(const std::string& spec, int64_t T);

}  // namespace geoattn::metrics
