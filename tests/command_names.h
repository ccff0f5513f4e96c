#pragma once
// The commands of geoattn as its one table lists them (tools/geoattn/command_table.h), so that a
// test of every command covers a command added later without a line here.
#include <string>
#include <string_view>
#include <vector>

#include "../tools/geoattn/command_table.h"

namespace geoattn::testing {

// The commands geoattn or geoattn-torch runs itself (Plain and Torch), in the table's order; the
// Python ones run in the package's geoattn-NAME.
inline std::vector<std::string> cpp_command_names() {
  std::vector<std::string> out;
#define GEOATTN_TEST_COMMAND(name, needs, description) \
  if (std::string_view(#needs) != "Python") out.push_back(#name);
  GEOATTN_COMMANDS(GEOATTN_TEST_COMMAND)
#undef GEOATTN_TEST_COMMAND
  return out;
}

}  // namespace geoattn::testing
