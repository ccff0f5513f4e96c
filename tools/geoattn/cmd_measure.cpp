// geoattn measure: windows from shards -> forward with capture -> metric core -> aggregates -> JSON.
#include <fmt/format.h>

#include <chrono>

#include "cli.h"
#include "forward_loop.h"
#include "metric_run.h"
#include "geoattn/metrics/grid.h"
#include "geoattn/metrics/selection.h"
#include "geoattn/metrics/window_assumptions.h"
#include "geoattn/metrics/window_metrics.h"
#include "geoattn/model/decoder.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct MeasureOptions {
  std::string model;
  InputOptions input;
  std::string queries = "last";
  int64_t batch = 1;
  MetricFlags metric;
  RunOptions run;
  std::string out;
  bool quiet = false;
};

nlohmann::ordered_json data_info(const MeasureOptions& o, int64_t windows, int64_t T) {
  return {{"files", o.input.data},      {"mode", o.input.window}, {"offset", o.input.offset},
          {"seed", o.input.seed},       {"max_windows", o.input.max_windows},
          {"windows", windows},         {"tokens", windows * T}};
}

nlohmann::ordered_json settings_info(const MeasureOptions& o, const MetricRun& run) {
  nlohmann::ordered_json s = {{"ctx", o.input.ctx}, {"queries", o.queries}, {"dtype", o.run.dtype}};
  const auto metric_settings = run.settings();
  for (const auto& [k, v] : metric_settings.items()) s[k] = v;
  return s;
}

void run_measure(const MeasureOptions& o) {
  const auto start = Clock::now();
  check_output_path(o.out);
  MeasureOptions flags = o;
  flags.metric.seed = o.input.seed;  // one --seed: windows, controls, bootstrap
  const ModelRun r = open_model_run(o.model, o.input, o.run, o.queries, o.metric.n);
  const io::Checkpoint& checkpoint = r.checkpoint;
  const model::Decoder& decoder = r.decoder;
  const std::vector<io::Window>& windows = r.windows;
  const std::vector<int64_t>& queries = r.queries;
  const int64_t T = r.T;
  const int64_t W = static_cast<int64_t>(windows.size());
  const auto& c = checkpoint.config;

  MetricRun run(flags.metric, c.n_layers, c.n_heads, T, queries);
  const auto keys = window_keys(doc_ids(windows));
  const auto times = forward_windows(decoder, c.n_layers, windows, queries, o.batch, "measure", o.quiet,
                                     [&](int64_t w, const torch::Tensor& alpha, const torch::Tensor& values) {
                                       run.add_window(alpha, values, keys[w], windows[w].doc_id);
                                     });
  auto& state = run.state();
  const double forward_s = times.forward_s, metrics_s = times.visit_s;

  const double total_s = seconds_since(start);
  auto& run_info = state.run_info;
  run_info["model"] = model_info(checkpoint);
  run_info["data"] = data_info(o, W, T);
  run_info["settings"] = settings_info(flags, run);
  run_info["timing"] = {{"device", o.run.device},
                        {"batch", o.batch},
                        {"seconds_total", total_s},
                        {"seconds_forward_and_capture", forward_s},
                        {"seconds_metrics", metrics_s},
                        {"windows_per_second", W / std::max(1e-9, forward_s + metrics_s)},
                        {"tokens_per_second", W * T / std::max(1e-9, forward_s + metrics_s)},
                        {"share_outside_forward", metrics_s / std::max(1e-9, forward_s + metrics_s)}};
  write_results(o.out, state);
  if (!o.quiet)
    fmt::print(stderr, "wrote {} ({} windows, {} samples per window, {:.1f}s: forward {:.1f}s, metrics {:.1f}s)\n", o.out,
               W, c.n_layers * c.n_heads * static_cast<int64_t>(queries.size()), total_s, forward_s, metrics_s);
}

}  // namespace

void add_measure(CLI::App& app, Action& action) {
  auto o = std::make_shared<MeasureOptions>();
  auto* cmd = app.add_subcommand("measure", "Top-N Precision/Recall/F for every head over a text shard -> JSON");
  cmd->add_option("--model", o->model, "Hugging Face checkpoint folder")->required();
  add_input_options(*cmd, o->input, /*data_required=*/true);
  cmd->add_option("--queries", o->queries, "query positions: last, all, or i,j,... (negative: from the end)")
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "windows per forward")->capture_default_str();
  add_metric_flags(*cmd, o->metric, /*with_seed=*/false);  // --seed is the input's
  add_run_options(*cmd, o->run);
  cmd->add_option("--out", o->out, "result JSON (its state sidecar goes beside it: X.state.safetensors)")->required();
  cmd->add_flag("--quiet", o->quiet, "no progress line");
  cmd->callback([o, &action] { action = [o] { run_measure(*o); }; });
}

}  // namespace geoattn::cli
