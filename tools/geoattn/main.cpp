// geoattn: geometric analysis of token selection in multi-head attention.
// Each subcommand is a small function in cmd_*.cpp that wires the libraries together.
#include <CLI/CLI.hpp>

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <torch/version.h>

#include "cli.h"
#include "geoattn/io/features.h"
#include "geoattn/pipeline/library_threads.h"
#include "geoattn/util/error.h"

// LibTorch's CPU forward allocates and frees tens of MB per layer (the [heads, T, T] scores).
// glibc would hand each block back to the kernel and fault it in again next layer: that was
// 2/3 of stories260K's forward time at T = 1024. Keep freed memory for reuse instead, in one
// arena for every thread: with an arena per thread, what the worker pool, the window loop and
// the sidecar's writer allocate came from fresh pages (a quarter of `metrics`' page faults).
static void keep_freed_memory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 512 << 20);
  mallopt(M_ARENA_MAX, 1);
}

// Every result file is closed and in place (or none was written): leave without the static
// destructors, which in Debian's LibTorch unregister every operator kernel one by one (0.1-0.2 s).
[[noreturn]] static void leave(int code) {
  std::fflush(nullptr);
  std::_Exit(code);
}

// No flag takes an empty text: "--threads ''" would read as 0, "--config ''" as no config.
static void refuse_empty_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options())
    if (option->get_type_size() != 0)
      option->check(CLI::Validator([](std::string& text) { return text.empty() ? std::string("an empty value") : ""; },
                                   "", "not empty"));
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

int main(int argc, char** argv) {
  keep_freed_memory();
  // The process's thread policy, once: geoattn's worker pools take the cores (each command
  // makes one of --threads workers), LibTorch and OpenBLAS one thread each.
  const geoattn::pipeline::LibraryThreads library_threads;
  CLI::App app{"geoattn: how attention heads separate the tokens they select (top-N Precision/Recall in value space)",
               "geoattn"};
  // The build in one line: the LibTorch it links and its optional parts (io/features.h).
  app.set_version_flag("--version", fmt::format("geoattn 0.1.0 (LibTorch {}.{}.{}; sentencepiece {}; libarchive {})",
                                                TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH,
                                                geoattn::io::kHaveSentencepiece ? "yes" : "no: text comes tokenised",
                                                geoattn::io::kHaveLibarchive ? "yes" : "no: tar shards are refused"));
  app.require_subcommand(1);
  geoattn::cli::Action action;
  geoattn::cli::add_capture(app, action);
  geoattn::cli::add_inspect(app, action);
  geoattn::cli::add_measure(app, action);
  geoattn::cli::add_metrics(app, action);
  geoattn::cli::add_merge(app, action);
  geoattn::cli::add_bounds(app, action);
  geoattn::cli::add_taxonomy(app, action);
  geoattn::cli::add_sinks(app, action);
  geoattn::cli::add_bench(app, action);
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
    leave(0);
  } catch (const geoattn::Error& e) {
    std::fprintf(stderr, "geoattn: error: %s\n", e.what());
  } catch (const c10::Error& e) {
    // What geoattn's own checks did not foresee: said as such, the library's first line kept.
    std::string msg = e.what_without_backtrace();
    std::fprintf(stderr, "geoattn: error: unexpected failure in LibTorch (please report it with the command line): %s\n",
                 msg.substr(0, msg.find('\n')).c_str());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "geoattn: error: out of memory (a smaller --ctx, --batch, --bootstrap or grid needs less)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geoattn: error: unexpected failure (please report it with the command line): %s\n", e.what());
  }
  leave(1);
}
