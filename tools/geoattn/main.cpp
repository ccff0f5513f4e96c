// geoattn-torch: every command of geoattn (commands.h), LibTorch linked (binaries.h). Each
// command is a small function in cmd_*.cpp that wires the libraries together.
#include <c10/util/Exception.h>

#include "app.h"
#include "commands.h"
#include "geoattn/pipeline_torch/library_threads.h"

namespace {

// Every command, each with its add_<name> (commands.h).
constexpr geoattn::cli::Command kCommands[] = {GEOATTN_COMMANDS(GEOATTN_COMMAND_WITH_TORCH)};

}  // namespace

int main(int argc, char** argv) {
  if (const auto* chosen = argc >= 2 ? geoattn::cli::find_command(kCommands, argv[1]) : nullptr;
      chosen && chosen->needs == geoattn::cli::Needs::Python)
    geoattn::cli::hand_to_package(*chosen, argc, argv);
  geoattn::cli::keep_freed_memory();
  // The process's thread policy, once: geoattn's worker pools take the cores (each command
  // makes one of --threads workers), LibTorch and OpenBLAS one thread each.
  const geoattn::pipeline::LibraryThreads library_threads;
  CLI::App app = geoattn::cli::make_app();
  app.set_version_flag("--version", geoattn::cli::version_line(kCommands));
  geoattn::cli::Action action;
  geoattn::cli::add_commands(app, action, kCommands);
  // What geoattn's own checks did not foresee in LibTorch: said as such, the library's first line kept.
  geoattn::cli::run_app(app, action, argc, argv, [](const std::exception& e) -> std::string {
    const auto* c10 = dynamic_cast<const c10::Error*>(&e);
    if (!c10) return "";
    const std::string msg = c10->what_without_backtrace();
    return "unexpected failure in LibTorch (please report it with the command line): " + msg.substr(0, msg.find('\n'));
  });
}
