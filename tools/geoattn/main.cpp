// geoattn: geometric analysis of token selection in multi-head attention.
// Each subcommand is a small function in cmd_*.cpp that wires the libraries together.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "cli.h"
#include "geoattn/util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"geoattn: how attention heads separate the tokens they select (top-N Precision/Recall in value space)",
               "geoattn"};
  app.set_version_flag("--version", "geoattn 0.1.0");
  app.require_subcommand(1);
  geoattn::cli::Action action;
  geoattn::cli::add_capture(app, action);
  geoattn::cli::add_inspect(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    action();
    return 0;
  } catch (const geoattn::Error& e) {
    std::fprintf(stderr, "geoattn: error: %s\n", e.what());
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::fprintf(stderr, "geoattn: error: %s\n", msg.substr(0, msg.find('\n')).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geoattn: error: %s\n", e.what());
  }
  return 1;
}
