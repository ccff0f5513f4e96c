#pragma once
// Numbers as a user types them, read strictly: the whole text is one decimal number of the
// type's range (no sign wrap, no saturation, no empty text as 0), and the sizes a run is about to
// allocate held against the machine's memory before the allocation.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>
#include <algorithm>

namespace geoattn {

// `text` as an integer of T, or nullopt: empty, not all digits (a leading '-' for signed T only),
// or outside T's range ("-1" is no uint64_t; "99999999999999999999" no int64_t).
template <typename T>
std::optional<T> parse_integer(const std::string& text) {
  static_assert(std::is_integral_v<T>);
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, 10);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Whether `text` is one plain decimal number: an optional sign, digits with at most one '.'
// (a digit on either side), an optional exponent (e/E, optional sign, digits); nothing else:
// no space, no hex float ("0x1p0"), no "inf" or "nan", no empty text.
inline bool is_plain_decimal(const std::string& text) {
  size_t i = 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - from;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

// `text` as a finite double, or nullopt: the whole text one plain decimal (is_plain_decimal).
inline std::optional<double> parse_real(const std::string& text) {
  if (!is_plain_decimal(text)) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A comma-separated list of `parse`'s items ("0.1,0.2"), or nullopt: an empty item anywhere (a
// leading, trailing or doubled comma) or an item `parse` refuses.
template <typename Parse>
auto parse_list(const std::string& text, Parse parse) -> std::optional<std::vector<typename decltype(parse(text))::value_type>> {
  std::vector<typename decltype(parse(text))::value_type> out;
  for (size_t at = 0;;) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const auto item = parse(text.substr(at, comma - at));
    if (!item) return std::nullopt;
    out.push_back(*item);
    if (comma == text.size()) return out;
    at = comma + 1;
  }
}

// The machine's physical memory in bytes.
int64_t physical_memory_bytes();

// The memory the machine could give now (/proc/meminfo MemAvailable; else the physical memory).
int64_t available_memory_bytes();

// Fails (geoattn::Error, "<what> need N GiB, more than this machine's M GiB of available memory")
// when `bytes` (a double: products of sizes overflow no int64) exceed the available memory.
void check_fits_memory(double bytes, const std::string& what);

}  // namespace geoattn
