#pragma once
// One check, two spellings of what it names: the library checks an argument once, and names it
// as its caller spells it: "--decay-k" on the command line, "decay_k" in Python.
#include <string>
#include <string_view>

namespace geoattn {

enum class ArgumentStyle { Flag, Python };

// A setting's names: its Python argument and its command-line flag (they differ: Python's
// `bootstrap_level` is `--bootstrap-level`, `profile_positions` is `--profile`), and the key a
// result's "settings" records it under where that is not its Python name (`bootstrap_level` is
// "level" inside "bootstrap").
// A number setting's lower bound: reached (low <= x) or not (low < x, as kappa > 0).
enum class LowBound { Closed, Open };

// `recorded_in`: the object of "settings" it is recorded inside ("bootstrap"), empty at the top
// level, kNotRecorded for a setting that changes no number (the working memory); `also_in`: a
// second object that records it too (the seed, in "controls" besides "bootstrap"); `absent`: what
// a result that omits it meant, as its flag takes it (files from before the setting; empty: its
// default); `left_out_at_default`: recorded only off its default (which such files meant).
inline constexpr std::string_view kNotRecorded = "-";
struct FieldName {
  std::string_view python, flag, recorded_as = {}, recorded_in = {}, also_in = {}, absent = {};
  bool left_out_at_default = false;
  std::string key() const { return std::string(python); }
  std::string record_key() const { return std::string(recorded_as.empty() ? python : recorded_as); }
  // Where a result records it: "n", "bootstrap.level"; empty when it is not recorded.
  std::string record_path() const {
    if (recorded_in == kNotRecorded) return "";
    return recorded_in.empty() ? record_key() : std::string(recorded_in) + "." + record_key();
  }
};
inline std::string argument_name(ArgumentStyle style, FieldName field) {
  return std::string(style == ArgumentStyle::Python ? field.python : field.flag);
}

// `name` (Python's spelling, snake_case) as `style` spells it.
inline std::string argument_name(ArgumentStyle style, std::string_view name) {
  if (style == ArgumentStyle::Python) return std::string(name);
  std::string flag = "--";
  for (char c : name) flag += c == '_' ? '-' : c;
  return flag;
}

}  // namespace geoattn
