// libFuzzer target: the state sidecar that `geoattn sinks` writes and `geoattn merge` reads
// (report/sinks_json.h, load_sink_state), then what merge does with it (pipeline/sinks.cpp,
// write_sinks, here without LibTorch): the frame config and its sweep from the run's rule, the
// result JSON (sinks_report), a save/load/save round trip, and a merge with itself.
#include <fstream>
#include <iterator>

#include "fuzz_util.h"
#include "geoattn/analysis/frames.h"
#include "geoattn/metrics/aggregate.h"
#include "geoattn/report/sinks_json.h"

using namespace geoattn;
using namespace geoattn::fuzz;

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// As write_sinks: the rule's config and sweep, the result JSON, dumped.
void report_of(const report::SinkRun& run) {
  const auto& settings = run.run_info.at("settings");
  const auto& rule = settings.at("rule");
  const analysis::FrameConfig cfg = analysis::FrameConfig::from_json(rule);
  const auto sweep = analysis::sweep_configs(rule, cfg);
  const auto json = report::sinks_report(run, cfg, sweep, settings.at("profile_positions").get<int64_t>());
  const auto text = json.dump(1);
  (void)text;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ScratchDir& dir = scratch();
  const std::string path = dir.write("run.state.safetensors", data, size);
  expect_ok_or_error([&] {
    const report::SinkRun run = report::load_sink_state(path);
    require(report::is_sink_state(path), "a loaded sinks state is a sinks state");
    report_of(run);
    // save -> load -> save writes the same bytes (the sidecar is exact).
    const std::string once = dir / "once.state.safetensors", twice = dir / "twice.state.safetensors";
    report::save_sink_state(once, run);
    report::save_sink_state(twice, report::load_sink_state(once));
    require(read_file(once) == read_file(twice), "a saved state loads and saves back to the same bytes");
    // As merge_sinks with a copy of the same shard: the same run, every count doubled.
    require(metrics::same_run(run.run_info, run.run_info, nullptr), "a run is the same run as itself");
    report::SinkRun doubled = run;
    doubled.stats.merge(run.stats);
    require(doubled.stats.windows() == 2 * run.stats.windows(), "a merge adds the windows");
    report_of(doubled);
  });
  return 0;
}
