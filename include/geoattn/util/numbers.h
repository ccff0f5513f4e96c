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

// `text` as a finite double (strtod's syntax, the whole text), or nullopt.
inline std::optional<double> parse_real(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// The machine's physical memory in bytes.
int64_t physical_memory_bytes();

// Fails (geoattn::Error, "<what> need N GiB, more than this machine's M GiB") when `bytes`
// (a double: products of sizes overflow no int64) exceed the machine's physical memory.
void check_fits_memory(double bytes, const std::string& what);

}  // namespace geoattn
