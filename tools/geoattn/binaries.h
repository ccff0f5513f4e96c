#pragma once
// geoattn is two programs, side by side in one folder:
//   geoattn        what users run: the commands on captures and results (metrics, merge,
//                  taxonomy) in plain C++, without loading LibTorch; every other command line
//                  (a model's: capture, measure, sinks, bounds, inspect, bench; --help, --version)
//                  it hands to geoattn-torch, unchanged (execv);
//   geoattn-torch  every command, LibTorch linked.
#include <string>

namespace geoattn::cli {

inline constexpr const char* kProgram = "geoattn";
inline constexpr const char* kTorchProgram = "geoattn-torch";

// The path of program `name` beside this process's executable.
std::string sibling_program(const std::string& name);

}  // namespace geoattn::cli
