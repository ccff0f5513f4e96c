// geoattn metrics: a capture file (geoattn capture's layout, or another tool's) -> the same
// result JSON as measure.
#include <fmt/format.h>

#include <chrono>

#include "cli.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "metric_flags.h"

namespace geoattn::cli {

using Clock = std::chrono::steady_clock;

StageTimes metrics_from_capture(const std::string& capture_path, const MetricFlags& flags, const std::string& out,
                                int threads) {
  const auto start = Clock::now();
  check_output_path(out);
  set_threads(threads);
  StageTimes times;
  const model::CaptureFile capture = model::read_capture_file(capture_path);
  const int64_t W = capture.alpha.size(0), L = capture.alpha.size(1), H = capture.alpha.size(2), T = capture.alpha.size(4);
  const std::vector<int64_t> queries = capture.query_positions();

  // The windows' documents, as geoattn capture records them; a capture without them (another
  // tool's) makes each window its own document.
  std::vector<std::string> docs;
  if (auto it = capture.metadata.find("doc_ids"); it != capture.metadata.end()) {
    const auto ids = parse_json(nullptr, it->second);
    if (ids.is_array() && static_cast<int64_t>(ids.size()) == W)
      for (const auto& id : ids)
        if (id.is_string()) docs.push_back(id.get<std::string>());
    if (static_cast<int64_t>(docs.size()) != W) fail("{}: __metadata__ doc_ids is not a list of {} strings", capture_path, W);
  } else {
    for (int64_t w = 0; w < W; ++w) docs.push_back("window " + std::to_string(w));
  }
  times.load = std::chrono::duration<double>(Clock::now() - start).count();
  const auto keys = window_keys(docs);
  MetricRun run(metric_spec(flags, T, queries), L, H, T);
  for (int64_t w = 0; w < W; ++w) run.add_window(capture.alpha[w], capture.values[w], keys[w], docs[w]);
  times.gram = run.times().gram, times.top = run.times().top, times.controls = run.times().controls;
  times.aggregate = run.times().aggregate;

  auto& run_info = run.state().run_info;
  run_info["model"] = capture_model_info(capture, capture_path);
  run_info["data"] = {{"capture", capture_path}, {"windows", W}, {"tokens", W * T}};
  run_info["settings"] = {{"ctx", T}, {"queries", queries}};
  const auto metric_settings = run.settings();
  for (const auto& [k, v] : metric_settings.items()) run_info["settings"][k] = v;
  const Finalized done = finalize(run.state(), &times);
  run_info["timing"] = {{"seconds_total", std::chrono::duration<double>(Clock::now() - start).count()},
                        {"stages", times.json()}};
  write_results(out, run.state(), done, &times);
  return times;
}

namespace {

struct MetricsOptions {
  std::string capture;
  MetricFlags metric;
  int threads = 0;
  std::string out;
};

void run_metrics(const MetricsOptions& o) { metrics_from_capture(o.capture, o.metric, o.out, o.threads); }

}  // namespace

void add_metrics(CLI::App& app, Action& action) {
  auto o = std::make_shared<MetricsOptions>();
  auto* cmd = app.add_subcommand("metrics", "Top-N Precision/Recall/F of a capture file (geoattn capture layout) -> JSON");
  cmd->add_option("--capture", o->capture, "capture .safetensors: alpha [W,L,H,Q,T], values [W,L,KV,T,d], tokens, queries")
      ->required();
  add_metric_flags(*cmd, o->metric, /*with_seed=*/true);
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd->add_option("--out", o->out, "result JSON (its state sidecar goes beside it)")->required();
  cmd->callback([o, &action] { action = [o] { run_metrics(*o); }; });
}

}  // namespace geoattn::cli
