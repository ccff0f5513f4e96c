#include "commands.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "geoattn/io/features.h"
#include "geoattn/util/enum_names.h"

#ifndef GEOATTN_TORCH_VERSION
#error "GEOATTN_TORCH_VERSION: the LibTorch of geoattn-torch, from tools/CMakeLists.txt"
#endif

namespace geoattn::cli {

const Command* find_command(std::span<const Command> commands, const std::string& name) {
  for (const Command& c : commands)
    if (name == c.name) return &c;
  return nullptr;
}

void add_commands(CLI::App& app, Action& action, std::span<const Command> commands) {
  for (const Command& c : commands) {
    CLI::App* cmd = app.add_subcommand(c.name, c.description);
    if (c.add)
      c.add(*cmd, action);
    else
      cmd->allow_extras()->prefix_command();  // listed only: its command line goes to another program
    if (c.needs == Needs::Python) cmd->group(kPythonGroup);
  }
}

void hand_to_package(const Command& command, int argc, char** argv) {
  std::string program = fmt::format("geoattn-{}", command.name);
  std::vector<char*> args{program.data()};
  args.insert(args.end(), argv + 2, argv + argc);
  args.push_back(nullptr);
  execvp(program.c_str(), args.data());
  std::fprintf(stderr,
               "geoattn: error: geoattn %s runs %s, of the Python package, and it cannot be started (%s): "
               "pip install './python[figures]' puts it on PATH, or from geoattn's checkout run "
               "PYTHONPATH=python python3 -m geoattn.%s (numpy needed)\n",
               command.name, program.c_str(), std::strerror(errno), command.name);
  std::_Exit(1);
}

std::string plain_command_names(std::span<const Command> commands) {
  std::vector<std::string_view> names;
  for (const Command& c : commands)
    if (c.needs == Needs::Plain) names.push_back(c.name);
  return listed(names, " and ");
}

std::string version_line(std::span<const Command> commands) {
  const std::string torch = GEOATTN_TORCH_VERSION;
  return fmt::format("geoattn 0.1.0 (LibTorch {}; sentencepiece {}; libarchive {})",
                     torch.empty() ? "none: this build runs " + plain_command_names(commands) + " alone" : torch,
                     io::kHaveSentencepiece ? "yes" : "no: text comes tokenised",
                     io::kHaveLibarchive ? "yes" : "no: tar shards are refused");
}

}  // namespace geoattn::cli
