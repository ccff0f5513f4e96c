// geoattn: what users run (binaries.h). The plain commands of the table (commands.h) run here,
// without LibTorch in the process, and so do --help and --version; the command line of any other
// command goes to geoattn-torch as it is.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app.h"
#include "binaries.h"
#include "commands.h"

namespace {

// Every command, with the add_<name> of the plain ones (commands.h).
constexpr geoattn::cli::Command kCommands[] = {GEOATTN_COMMANDS(GEOATTN_COMMAND_WITHOUT_TORCH)};

[[noreturn]] void hand_to_torch_program(int argc, char** argv) {
  std::string path = geoattn::cli::sibling_program(geoattn::cli::kTorchProgram);
  std::vector<char*> args(argv, argv + argc);
  args[0] = path.data();
  args.push_back(nullptr);
  execv(path.c_str(), args.data());
  std::fprintf(stderr, "geoattn: error: %s cannot be started (%s): it runs every command but %s\n", path.c_str(),
               std::strerror(errno), geoattn::cli::plain_command_names(kCommands).c_str());
  std::_Exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const geoattn::cli::Command* chosen = argc >= 2 ? geoattn::cli::find_command(kCommands, argv[1]) : nullptr;
  if (chosen && chosen->needs == geoattn::cli::Needs::Python) geoattn::cli::hand_to_package(*chosen, argc, argv);
  if (chosen && !chosen->add) hand_to_torch_program(argc, argv);
  geoattn::cli::keep_freed_memory();
  CLI::App app = geoattn::cli::make_app();
  app.set_version_flag("--version", geoattn::cli::version_line(kCommands));
  geoattn::cli::Action action;
  geoattn::cli::add_commands(app, action, kCommands);
  geoattn::cli::run_app(app, action, argc, argv);
}
