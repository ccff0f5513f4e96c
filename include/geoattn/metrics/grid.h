#pragma once
// The N grid of SPEC §2: "all" is 1..T; a list like "1:16,24,32" (ranges a:b inclusive);
// the default is 1:16,24,32,48,64,96,128,192,256,384,512,768,1024 cut at T, with T always
// included. Pure C++.
#include <cstdint>
#include <string>
#include <vector>

namespace geoattn::metrics {

constexpr const char* kDefaultGrid = "1:16,24,32,48,64,96,128,192,256,384,512,768,1024";

// Sorted, unique values in 1..T. "default" gives the default grid cut at T plus T; an empty text
// or an empty item is refused, as a space is (no item is trimmed).
// geoattn::Error on a value outside 1..T, a bad range or a bad token.
std::vector<int64_t> parse_n_grid(const std::string& spec, int64_t T);

}  // namespace geoattn::metrics
