// geoattn-torch: every command of geoattn, LibTorch linked (binaries.h). Each subcommand is a
// small function in cmd_*.cpp that wires the libraries together.
#include <fmt/format.h>
#include <torch/version.h>

#include "app.h"
#include "geoattn/io/features.h"
#include "geoattn/pipeline_torch/library_threads.h"

int main(int argc, char** argv) {
  geoattn::cli::keep_freed_memory();
  // The process's thread policy, once: geoattn's worker pools take the cores (each command
  // makes one of --threads workers), LibTorch and OpenBLAS one thread each.
  const geoattn::pipeline::LibraryThreads library_threads;
  CLI::App app = geoattn::cli::make_app();
  // The build in one line: the LibTorch it links and its optional parts (io/features.h).
  app.set_version_flag("--version", fmt::format("geoattn 0.1.0 (LibTorch {}.{}.{}; sentencepiece {}; libarchive {})",
                                                TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH,
                                                geoattn::io::kHaveSentencepiece ? "yes" : "no: text comes tokenised",
                                                geoattn::io::kHaveLibarchive ? "yes" : "no: tar shards are refused"));
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
  // What geoattn's own checks did not foresee in LibTorch: said as such, the library's first line kept.
  geoattn::cli::run_app(app, action, argc, argv, [](const std::exception& e) -> std::string {
    const auto* c10 = dynamic_cast<const c10::Error*>(&e);
    if (!c10) return "";
    const std::string msg = c10->what_without_backtrace();
    return "unexpected failure in LibTorch (please report it with the command line): " + msg.substr(0, msg.find('\n'));
  });
}
