#include "geoattn/pipeline/queries.h"

#include <algorithm>

#include "geoattn/util/error.h"
#include "geoattn/util/numbers.h"

namespace geoattn::pipeline {

Queries Queries::parse(const std::string& text) {
  Queries q;
  q.text_ = text;
  if (text == "last" || text == "all") return q;
  const auto list = parse_list(text, [](const std::string& item) { return parse_integer<int64_t>(item); });
  if (!list)
    fail("'{}' is not last, all or a list of positions like 0,5,-1 (negative: from the end; no spaces, no empty item)",
         echoed(text));
  q.list_ = *list;
  return q;
}

std::vector<int64_t> Queries::at(int64_t T) const {
  std::vector<int64_t> out;
  if (text_ == "last") return {T - 1};
  if (all()) {
    for (int64_t i = 0; i < T; ++i) out.push_back(i);
    return out;
  }
  for (const int64_t q : list_) {
    const int64_t p = q < 0 ? T + q : q;
    if (p < 0 || p >= T) fail("position {} is outside the window 0..{}", q, T - 1);
    out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace geoattn::pipeline
