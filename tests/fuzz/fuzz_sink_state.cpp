// libFuzzer target: the state sidecar that `geoattn sinks` writes and `geoattn merge` reads
// (report/sink_state_file.h, load_sink_state), then what merge does with it: the result JSON with the
// run's own rule and sweep (sinks_report(run), as pipeline_torch/sinks.cpp writes it), a
// save/load/save round trip, and a merge with itself.
#include "fuzz_util.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/report/sink_state_file.h"
#include "geoattn/report/sinks_json.h"

using namespace geoattn;
using namespace geoattn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ScratchDir& dir = scratch();
  const std::string path = dir.write("run.state.safetensors", data, size);
  expect_ok_or_error([&] {
    const metrics::SinkRun run = report::load_sink_state(path);
    require(report::is_sink_state(path), "a loaded sinks state is a sinks state");
    report::sinks_report(run).dump(1);
    // save -> load -> save writes the same bytes (the sidecar is exact).
    const std::string once = dir / "once.state.safetensors", twice = dir / "twice.state.safetensors";
    report::save_sink_state(once, run);
    report::save_sink_state(twice, report::load_sink_state(once));
    require(read_file(once) == read_file(twice), "a saved state loads and saves back to the same bytes");
    // As merge_sinks with a copy of the same shard: the same run, every count doubled.
    require(report::same_run(run.run_info, run.run_info, nullptr), "a run is the same run as itself");
    metrics::SinkRun doubled = run;
    doubled.stats.merge(run.stats);
    require(doubled.stats.windows() == 2 * run.stats.windows(), "a merge adds the windows");
    report::sinks_report(doubled).dump(1);
  });
  return 0;
}
