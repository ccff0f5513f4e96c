#pragma once
// Every command of geoattn, once, in the order --help lists them (as git.c's commands[]): its
// name, what it does, and where it runs. Both programs (binaries.h) read this one table:
// geoattn-torch adds every command; geoattn adds the plain ones, lists the others in its --help
// and hands their command lines to geoattn-torch. --help and --version each answers itself.
#include <CLI/CLI.hpp>

#include <span>
#include <string>

#include "cli.h"
#include "command_table.h"  // GEOATTN_COMMANDS: the table itself

namespace geoattn::cli {

// Where a command runs: Plain in geoattn itself (captures and results, no LibTorch), Torch in
// geoattn-torch (it runs a model or LibTorch's kernels), Python in the Python package's
// geoattn-<name> found on PATH (as git runs git-<name>): geoattn report ... is geoattn-report ...
enum class Needs { Plain, Torch, Python };

// The --help group of the Python commands.
inline constexpr const char* kPythonGroup = "Subcommands of the Python package (geoattn-NAME, docs/python-tools.md)";

// add_<name>(cmd, action): the flags of command `cmd` (named and described from the table), and
// its action into `action` once they are parsed (none for a Python command).
#define GEOATTN_DECLARE_ADD_Plain(name) void add_##name(CLI::App& cmd, Action& action);
#define GEOATTN_DECLARE_ADD_Torch(name) void add_##name(CLI::App& cmd, Action& action);
#define GEOATTN_DECLARE_ADD_Python(name)
#define GEOATTN_DECLARE_ADD(name, needs, description) GEOATTN_DECLARE_ADD_##needs(name)
GEOATTN_COMMANDS(GEOATTN_DECLARE_ADD)
#undef GEOATTN_DECLARE_ADD

struct Command {
  const char* name;
  Needs needs;
  const char* description;
  void (*add)(CLI::App& cmd, Action& action);  // nullptr: the command runs in another program
};

// A program's entry of the table: with its add_<name> where the program links it (every command
// with LibTorch; the plain ones without).
#define GEOATTN_TORCH_ADD_Plain(name) &::geoattn::cli::add_##name
#define GEOATTN_TORCH_ADD_Torch(name) &::geoattn::cli::add_##name
#define GEOATTN_TORCH_ADD_Python(name) nullptr
#define GEOATTN_COMMAND_WITH_TORCH(name, needs, description) \
  ::geoattn::cli::Command{#name, ::geoattn::cli::Needs::needs, description, GEOATTN_TORCH_ADD_##needs(name)},
#define GEOATTN_ADD_Plain(name) &::geoattn::cli::add_##name
#define GEOATTN_ADD_Torch(name) nullptr
#define GEOATTN_ADD_Python(name) nullptr
#define GEOATTN_COMMAND_WITHOUT_TORCH(name, needs, description) \
  ::geoattn::cli::Command{#name, ::geoattn::cli::Needs::needs, description, GEOATTN_ADD_##needs(name)},

// A Python command's command line, handed to geoattn-<name> on PATH (execvp) with the arguments
// after the command's name; one line on stderr and exit 1 when there is none.
[[noreturn]] void hand_to_package(const Command& command, int argc, char** argv);

// The command named `name` in `commands`, or nullptr.
const Command* find_command(std::span<const Command> commands, const std::string& name);

// Every command of the table as a subcommand of `app`; one without its add here is listed (its
// description) and takes whatever follows it, for the other program.
void add_commands(CLI::App& app, Action& action, std::span<const Command> commands);

// The plain commands' names, "metrics, merge and taxonomy".
std::string plain_command_names(std::span<const Command> commands);

// --version: the build in one line, the same from both programs: the LibTorch geoattn-torch
// links (GEOATTN_TORCH_VERSION, from CMake), or that only the plain commands of `commands` run,
// and the optional parts (io/features.h).
std::string version_line(std::span<const Command> commands);

}  // namespace geoattn::cli
