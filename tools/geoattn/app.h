#pragma once
// What geoattn's two programs share around their commands (binaries.h): the process's memory
// policy, the command line parsed (usage errors in one line, exit 2), the command run, its
// errors said in one line (exit 1), and the exit without static destructors.
#include <CLI/CLI.hpp>

#include <exception>
#include <functional>
#include <string>

#include "cli.h"

namespace geoattn::cli {

// glibc's malloc keeps freed memory for reuse, in one arena (app.cpp says why).
void keep_freed_memory();

// `app` with its commands added (their action into `action`): parses argv, runs the action and
// leaves the process. `describe` may name an unexpected exception its own way (LibTorch's).
using DescribeError = std::function<std::string(const std::exception&)>;
[[noreturn]] void run_app(CLI::App& app, Action& action, int argc, char** argv, const DescribeError& describe = {});

// The app every command hangs from: its name and description (the --version flag is the
// program's own).
CLI::App make_app();

}  // namespace geoattn::cli
