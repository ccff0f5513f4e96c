#include "commands.h"

#include <fmt/format.h>

#include "geoattn/io/features.h"

#ifndef GEOATTN_TORCH_VERSION
#error "GEOATTN_TORCH_VERSION: the LibTorch of geoattn-torch, from tools/CMakeLists.txt"
#endif

namespace geoattn::cli {

void add_commands(CLI::App& app, Action& action, const Command* commands, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const Command& c = commands[i];
    CLI::App* cmd = app.add_subcommand(c.name, c.description);
    if (c.add)
      c.add(*cmd, action);
    else
      cmd->allow_extras()->prefix_command();  // listed only: its command line goes to the other program
  }
}

std::string version_line() {
  const std::string torch = GEOATTN_TORCH_VERSION;
  return fmt::format("geoattn 0.1.0 (LibTorch {}; sentencepiece {}; libarchive {})",
                     torch.empty() ? "none: this build runs metrics, merge and taxonomy alone" : torch,
                     io::kHaveSentencepiece ? "yes" : "no: text comes tokenised",
                     io::kHaveLibarchive ? "yes" : "no: tar shards are refused");
}

}  // namespace geoattn::cli
