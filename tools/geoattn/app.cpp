#include "app.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>
#include <vector>

#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/input_files.h"
#include "geoattn/util/utf8.h"

namespace geoattn::cli {

// LibTorch's CPU forward allocates and frees tens of MB per layer (the [heads, T, T] scores).
// glibc would hand each block back to the kernel and fault it in again next layer: that was
// 2/3 of stories260K's forward time at T = 1024. Keep freed memory for reuse instead, in one
// arena for every thread: with an arena per thread, what the worker pool, the window loop and
// the sidecar's writer allocate came from fresh pages (a quarter of `metrics`' page faults).
void keep_freed_memory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 512 << 20);
  mallopt(M_ARENA_MAX, 1);
}

namespace {

// Every result file is closed and in place (or none was written): leave without the static
// destructors, which in Debian's LibTorch unregister every operator kernel one by one (0.1-0.2 s).
[[noreturn]] void leave(int code) {
  std::fflush(nullptr);
  release_held_outputs();
  std::_Exit(code);
}

// No flag takes an empty text: "--threads ''" would read as 0, "--config ''" as no config.
void refuse_empty_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options())
    if (option->get_type_size() != 0)
      option->check(CLI::Validator([](std::string& text) { return text.empty() ? std::string("an empty value") : ""; },
                                   "", "not empty"));
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

// The subcommands the command line chose, outermost first: {capture}, {bench, metrics}.
std::vector<const CLI::App*> chosen_commands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* cmd = &app;;) {
    const auto subs = cmd->get_subcommands();
    if (subs.empty()) return out;
    cmd = subs.front();
    out.push_back(cmd);
  }
}

// Every value given goes into a result's JSON (paths, texts, lists), which must be UTF-8: a
// value with another byte (a file name is any bytes on Linux) is refused naming its flag, before
// anything runs, by every command alike.
void refuse_non_utf8(const CLI::App& app) {
  for (const CLI::App* cmd : chosen_commands(app))
    for (const CLI::Option* option : cmd->get_options())
      for (const std::string& value : option->results())
        if (const size_t bad = first_invalid_utf8(value); bad != std::string_view::npos)
          fail("{}: the value given is not valid UTF-8 (byte {} of it, 0x{:02X}): geoattn records its arguments in "
               "JSON, which must be UTF-8; rename the file", option->get_name(), bad,
               static_cast<unsigned char>(value[bad]));
}

// What out of memory says: the flags of the chosen command that size its memory.
std::string out_of_memory(const CLI::App& app) {
  const auto commands = chosen_commands(app);
  std::vector<std::string> flags;
  if (!commands.empty())
    for (const char* flag : {"--ctx", "--batch", "--controls", "--bootstrap", "--n"})
      if (commands.back()->get_option_no_throw(flag) != nullptr) flags.push_back(flag);
  if (flags.empty()) return "out of memory";
  const std::string last = flags.back();
  flags.pop_back();
  return fmt::format("out of memory (a smaller {}{}{} needs less)", fmt::join(flags, ", "), flags.empty() ? "" : " or ", last);
}

}  // namespace

CLI::App make_app() {
  return CLI::App{"geoattn: how attention heads separate the tokens they select (top-N Precision/Recall in value space)",
                  "geoattn"};
}

namespace {

// The tests of the output guard learn what a run reads from the run itself: with
// GEOATTN_TEST_INPUTS_LOG=FILE, the inputs it recorded (input_files.h), one per line.
void log_inputs_for_tests() {
  const char* log = std::getenv("GEOATTN_TEST_INPUTS_LOG");
  if (!log) return;
  if (FILE* f = std::fopen(log, "a")) {  // appended: a tool that runs geoattn logs both
    for (const std::string& path : inputs_read()) std::fprintf(f, "%s\n", path.c_str());
    std::fclose(f);
  }
}

}  // namespace

void run_app(CLI::App& app, Action& action, int argc, char** argv, const DescribeError& describe) {
  // One process, one run: every file it reads is an input no output may replace, and a signal
  // takes the temporary files of its writes with it.
  record_inputs();
  remove_temporary_files_on_signals();
  app.require_subcommand(1);
  refuse_empty_values(app);
  // Usage errors are one line too, and exit 2 (--help and --version exit 0).
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("geoattn: error: ") + e.what() + " (see --help)\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    leave(app.exit(e) == 0 ? 0 : 2);
  }
  try {
    refuse_non_utf8(app);
    action();
    log_inputs_for_tests();
    leave(0);
  } catch (const geoattn::Error& e) {
    std::fprintf(stderr, "geoattn: error: %s\n", e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "geoattn: error: %s\n", out_of_memory(app).c_str());
  } catch (const std::exception& e) {
    const std::string said = describe ? describe(e) : "";
    if (!said.empty()) {
      std::fprintf(stderr, "geoattn: error: %s\n", said.c_str());
    } else {
      std::fprintf(stderr, "geoattn: error: unexpected failure (please report it with the command line): %s\n", e.what());
    }
  }
  leave(1);
}

}  // namespace geoattn::cli
