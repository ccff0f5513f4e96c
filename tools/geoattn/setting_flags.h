#pragma once
// The flags of a table of settings (metrics::MetricParams::visit_settings,
// metrics::SinkSettings::visit_settings): each bound to its field, read at the flag, its default
// shown. A command binds a table's flags, or those of some of its entries, with one call.
#include <CLI/CLI.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cli.h"
#include "geoattn/util/argument_names.h"

namespace geoattn::cli {

// A visitor of a table of settings that binds the entries `wanted` takes.
struct FlagBinder {
  CLI::App& cmd;
  std::function<bool(FieldName)> wanted = [](FieldName) { return true; };
  static std::string flag(FieldName name) { return std::string(name.flag); }
  template <typename T>
  void parsed(FieldName name, T& field, const std::string& help) {
    if (wanted(name)) add_read_option(cmd, flag(name), field, help);
  }
  template <typename Field, typename E, size_t N>
  void choice(FieldName name, Field& field, const EnumName<E> (&names)[N], const std::string& help) {
    if (wanted(name)) add_enum_option(cmd, flag(name), field, names, help);
  }
  template <typename T>
  void number(FieldName name, T& field, T low, T high, const std::string& help, LowBound bound = LowBound::Closed) {
    if (wanted(name)) add_number_option(cmd, flag(name), field, low, high, help, bound);
  }
  void list(FieldName name, std::vector<double>& field, const std::string& help) {
    if (wanted(name)) add_number_list_option(cmd, flag(name), field, help);
  }
};

// A visitor of a table of settings that collects their flags.
struct FlagNames {
  std::set<std::string> out;
  template <typename... Rest>
  void parsed(FieldName name, Rest&&...) { out.insert(std::string(name.flag)); }
  template <typename... Rest>
  void choice(FieldName name, Rest&&...) { out.insert(std::string(name.flag)); }
  template <typename... Rest>
  void number(FieldName name, Rest&&...) { out.insert(std::string(name.flag)); }
  template <typename... Rest>
  void list(FieldName name, Rest&&...) { out.insert(std::string(name.flag)); }
};
// The flags of `Settings`' table.
template <typename Settings>
std::set<std::string> setting_flag_names() {
  FlagNames names;
  const Settings defaults;
  Settings::visit_settings(defaults, names);
  return names.out;
}

// Every entry of `Settings`' table as a flag of `cmd`, bound to `settings`.
template <typename Settings>
void add_setting_flags(CLI::App& cmd, Settings& settings) {
  Settings::visit_settings(settings, FlagBinder{cmd});
}

}  // namespace geoattn::cli
