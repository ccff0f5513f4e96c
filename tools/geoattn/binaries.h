#pragma once
// geoattn is two programs, side by side in one folder, reading one table of commands (commands.h):
//   geoattn        what users run: the plain commands (on captures and results: metrics, merge,
//                  taxonomy), --help and --version, without loading LibTorch; the command line of
//                  every other command (a model's: capture, measure, sinks, bounds, inspect, bench)
//                  it hands to geoattn-torch, unchanged (execv);
//   geoattn-torch  every command, LibTorch linked.
#include <string>

namespace geoattn::cli {

inline constexpr const char* kProgram = "geoattn";
inline constexpr const char* kTorchProgram = "geoattn-torch";

// The path of program `name` beside this process's executable.
std::string sibling_program(const std::string& name);

}  // namespace geoattn::cli
