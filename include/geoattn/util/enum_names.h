#pragma once
// Enum <-> name lookups over one constexpr table per enum: the one way geoattn spells an enum
// in files and flags (no switch ladders that drift from the table).
#include <optional>
#include <string>
#include <string_view>

namespace geoattn {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

// An optional enum's name for "the run decides" (nullopt), on the command line and in Python alike.
inline constexpr const char* kAutoName = "auto";

// The name of `value` in `table`, "?" when the table has no row for it.
template <typename E, size_t N>
constexpr const char* name_of(const EnumName<E> (&table)[N], E value) {
  for (const auto& row : table)
    if (row.value == value) return row.name;
  return "?";
}

// The value named `name` in `table`, if any.
template <typename E, size_t N>
constexpr std::optional<E> value_of(const EnumName<E> (&table)[N], std::string_view name) {
  for (const auto& row : table)
    if (name == row.name) return row.value;
  return std::nullopt;
}

// Every name of `table` for an error message: "a, b or c".
template <typename E, size_t N>
std::string names_of(const EnumName<E> (&table)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + table[i].name;
  return out;
}

}  // namespace geoattn
