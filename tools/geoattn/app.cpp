#include "app.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/input_files.h"

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
  if (FILE* f = std::fopen(log, "w")) {
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
    action();
    log_inputs_for_tests();
    leave(0);
  } catch (const geoattn::Error& e) {
    std::fprintf(stderr, "geoattn: error: %s\n", e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "geoattn: error: out of memory (a smaller --ctx, --batch, --bootstrap or grid needs less)\n");
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
