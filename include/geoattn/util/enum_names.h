#pragma once
// Enum <-> name lookups over one constexpr table per enum: the one way geoattn spells an enum
// in files and flags (no switch ladders that drift from the table).
#include <iterator>
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

// Words as a sentence lists them: "a, b or c" (`last_joint` " or "), "a, b and c" (" and ").
template <typename Words>
std::string listed(const Words& words, std::string_view last_joint) {
  std::string out;
  const size_t n = std::size(words);
  size_t i = 0;
  for (const auto& word : words) {
    if (i > 0) out += i + 1 == n ? last_joint : std::string_view(", ");
    out += word;
    ++i;
  }
  return out;
}

// Every name of `table` for an error message: "a, b or c".
template <typename E, size_t N>
std::string names_of(const EnumName<E> (&table)[N]) {
  std::string_view names[N];
  for (size_t i = 0; i < N; ++i) names[i] = table[i].name;
  return listed(names, " or ");
}

}  // namespace geoattn
