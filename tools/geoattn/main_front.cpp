// geoattn: what users run (binaries.h). The commands on captures and results run here, in plain
// C++, without LibTorch in the process; every other command line goes to geoattn-torch as it is.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app.h"
#include "binaries.h"

namespace {

// The commands this program runs itself.
bool runs_here(const std::string& command) { return command == "metrics" || command == "merge" || command == "taxonomy"; }

[[noreturn]] void hand_to_torch_program(int argc, char** argv) {
  std::string path = geoattn::cli::sibling_program(geoattn::cli::kTorchProgram);
  std::vector<char*> args(argv, argv + argc);
  args[0] = path.data();
  args.push_back(nullptr);
  execv(path.c_str(), args.data());
  std::fprintf(stderr, "geoattn: error: %s cannot be started (%s): it runs every command but metrics, merge and taxonomy\n",
               path.c_str(), std::strerror(errno));
  std::_Exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !runs_here(argv[1])) hand_to_torch_program(argc, argv);
  geoattn::cli::keep_freed_memory();
  CLI::App app = geoattn::cli::make_app();
  geoattn::cli::Action action;
  geoattn::cli::add_metrics(app, action);
  geoattn::cli::add_merge(app, action);
  geoattn::cli::add_taxonomy(app, action);
  geoattn::cli::run_app(app, action, argc, argv);
}
