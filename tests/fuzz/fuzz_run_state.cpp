// libFuzzer target: the state sidecar that `geoattn merge` reads (metrics/stats/run_state.h,
// load_run_state), then what merge does with it: same_run, RunState::merge, the bootstrap and
// the result JSON (report/measure_json.h), and a save/load/save round trip.
#include <algorithm>
#include <optional>

#include "geoattn/report/state_file.h"
#include "fuzz_util.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/stats/run_state.h"
#include "geoattn/metrics/finalize/head_fits.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/report/run_info_json.h"

using namespace geoattn;
using namespace geoattn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ScratchDir& dir = scratch();
  const std::string path = dir.write("run.state.safetensors", data, size);
  expect_ok_or_error([&] {
    const metrics::RunState state = report::load_run_state(path);
    require(report::same_run(state.run_info, state.run_info, nullptr), "a run is the same run as itself");
    std::optional<metrics::BootstrapResult> boot;
    WorkerPool pool(1);  // the fuzzer's own thread alone
    if (!state.units.empty()) {
      // As pipeline/results.cpp (finalize): the replicates and seed come from the run's settings
      // (load_run_state checked them); a few replicates are enough here.
      const auto& b = state.run_info.method.params;
      boot = metrics::bootstrap(pool, state.units, std::min<int64_t>(b.bootstrap, 3), b.seed);
    }
    const auto fits = state.assumptions.empty() ? std::vector<metrics::HeadFits>{} : metrics::fit_heads(pool, state.assumptions);
    const auto result = report::measure_json(state.metrics, report::to_json(state.run_info), &fits, boot ? &*boot : nullptr);
    const auto text = result.dump(1);
    (void)text;
    // save -> load -> save writes the same bytes (the sidecar is exact).
    const std::string once = dir / "once.state.safetensors", twice = dir / "twice.state.safetensors";
    report::save_run_state(once, state);
    report::save_run_state(twice, report::load_run_state(once));
    require(read_file(once) == read_file(twice), "a saved state loads and saves back to the same bytes");
    // Merging a run with itself: a bootstrap run refuses (its documents are in both).
    metrics::RunState doubled = state;
    doubled.merge(state);
    require(state.units.empty(), "a run with per-document sums cannot merge with itself");
  });
  return 0;
}
