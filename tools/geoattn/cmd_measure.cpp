// geoattn measure: windows from shards -> forward with capture -> metric core -> aggregates -> JSON.
#include <fmt/format.h>

#include <sys/resource.h>

#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "geoattn/report/state_file.h"
#include "cli.h"
#include "forward_loop.h"
#include "metric_flags.h"
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
  std::string shard = "0/1";
  int64_t checkpoint_every = 50;
  MetricFlags metric;
  RunOptions run;
  std::string out;
  bool quiet = false;
};

nlohmann::ordered_json data_info(const MeasureOptions& o, int64_t windows, int64_t T) {
  return {{"files", o.input.data},      {"mode", o.input.window}, {"offset", o.input.offset},
          {"seed", o.input.seed},       {"max_windows", o.input.max_windows}, {"shard", o.shard},
          {"windows", windows},         {"tokens", windows * T}};
}

nlohmann::ordered_json settings_info(const MeasureOptions& o, const MetricRun& run) {
  nlohmann::ordered_json s = {{"ctx", o.input.ctx}, {"queries", o.queries}, {"dtype", effective_dtype(o.run)}};
  const auto metric_settings = run.settings();
  for (const auto& [k, v] : metric_settings.items()) s[k] = v;
  return s;
}

// The process's peak resident memory so far (Linux reports ru_maxrss in KiB).
int64_t peak_rss_bytes() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// --shard i/n: "i/n" -> {i, n}; windows go to shards by their document, so that a document
// (the bootstrap's unit) is never split between shards.
std::pair<int64_t, int64_t> parse_shard(const std::string& spec) {
  int64_t i = -1, n = -1;
  char slash = 0, extra = 0;
  if (std::sscanf(spec.c_str(), "%" SCNd64 "%c%" SCNd64 "%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 ||
      i < 0 || i >= n)
    fail("--shard {}: expected i/n with 0 <= i < n", spec);
  return {i, n};
}

std::vector<io::Window> shard_windows(const std::vector<io::Window>& all, int64_t i, int64_t n) {
  std::vector<io::Window> out;
  for (const auto& w : all)
    if (static_cast<int64_t>(io::document_hash(0x5eed, w.doc_id) % static_cast<uint64_t>(n)) == i) out.push_back(w);
  return out;
}

// What must match for a saved partial run to be resumed: everything but the progress and timing.
nlohmann::ordered_json resume_identity(const nlohmann::ordered_json& run_info) {
  nlohmann::ordered_json id = {{"model", run_info.at("model")}, {"settings", run_info.at("settings")}};
  auto data = run_info.at("data");
  for (const char* k : {"windows_done", "complete"}) data.erase(k);
  id["data"] = data;
  return id;
}

void run_measure(const MeasureOptions& o) {
  const auto start = Clock::now();
  check_output_path(o.out);
  MeasureOptions flags = o;
  flags.metric.seed = o.input.seed;  // one --seed: windows, controls, bootstrap
  const auto [shard_i, shard_n] = parse_shard(o.shard);
  if (o.checkpoint_every < 0) fail("--checkpoint-every {}: must be 0 (off) or more", o.checkpoint_every);
  const ModelRun r = open_model_run(o.model, o.input, o.run, o.queries);
  const double load_s = seconds_since(start);
  const io::Checkpoint& checkpoint = r.checkpoint;
  const model::Decoder& decoder = r.decoder;
  const std::vector<io::Window> windows = shard_windows(r.windows, shard_i, shard_n);
  const std::vector<int64_t>& queries = r.queries;
  const int64_t T = r.T;
  const int64_t W = static_cast<int64_t>(windows.size());
  const auto& c = checkpoint.config;
  if (W == 0) fail("--shard {}: no window falls in this shard (of {} windows)", o.shard, r.windows.size());

  MetricRun run(metric_spec(flags.metric, T, queries), c.n_layers, c.n_heads, T);
  auto& state = run.state();
  auto& run_info = state.run_info;
  run_info["model"] = model_info(checkpoint);
  run_info["data"] = data_info(o, W, T);
  run_info["settings"] = settings_info(flags, run);

  // Resume: a partial state of the same run beside --out continues where it stopped.
  const std::string state_file = state_path(o.out);
  int64_t done = 0;
  if (std::filesystem::exists(state_file)) {
    metrics::RunState saved = report::load_run_state(state_file);
    const auto& d = saved.run_info.value("data", nlohmann::ordered_json::object());
    if (!d.value("complete", true) && resume_identity(saved.run_info) == resume_identity(run_info)) {
      done = d.value("windows_done", int64_t(0));
      if (done < 0 || done > W) fail("{}: {} windows done of {}", state_file, done, W);
      saved.run_info = run_info;
      state = std::move(saved);
      if (!o.quiet) fmt::print(stderr, "resuming {} after {} of {} windows\n", o.out, done, W);
    }
  }
  auto save_partial = [&](int64_t windows_done) {
    run_info["data"]["windows_done"] = windows_done;
    run_info["data"]["complete"] = false;
    report::save_run_state(state_file, state);
  };

  const auto keys = window_keys(doc_ids(windows));
  const std::vector<io::Window> todo(windows.begin() + done, windows.end());
  const char* kill_after = std::getenv("GEOATTN_TEST_KILL_AFTER_WINDOWS");  // tests of resume
  const auto times = forward_windows(decoder, c.n_layers, todo, queries, o.batch, "measure", o.quiet,
                                     [&](int64_t t, const torch::Tensor& alpha, const torch::Tensor& values) {
                                       const int64_t w = done + t;
                                       run.add_window(alpha, values, keys[w], windows[w].doc_id);
                                       if (o.checkpoint_every > 0 && (w + 1) % o.checkpoint_every == 0 && w + 1 < W)
                                         save_partial(w + 1);
                                       if (kill_after && w + 1 == std::atoll(kill_after)) std::raise(SIGKILL);
                                     });
  const double forward_s = times.forward_s, metrics_s = times.visit_s, ran = static_cast<double>(W - done);

  StageTimes stages = run.times();
  stages.load = load_s, stages.forward = forward_s;
  const Finalized finalized = finalize(state, &stages);
  const double total_s = seconds_since(start);
  run_info["data"].erase("windows_done");
  run_info["data"]["complete"] = true;
  run_info["timing"] = {{"device", o.run.device},
                        {"batch", o.batch},
                        {"resumed_after_windows", done},
                        {"seconds_total", total_s},
                        {"seconds_forward_and_capture", forward_s},
                        {"seconds_metrics", metrics_s},
                        {"seconds_window_loop", times.wall_s},
                        {"windows_per_second", ran / std::max(1e-9, times.wall_s)},
                        {"tokens_per_second", ran * T / std::max(1e-9, times.wall_s)},
                        {"share_outside_forward", std::max(0.0, times.wall_s - forward_s) / std::max(1e-9, times.wall_s)},
                        {"peak_rss_bytes", peak_rss_bytes()},
                        {"stages", stages.json()}};
  write_results(o.out, state, finalized, &stages);
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
  cmd->add_option("--shard", o->shard, "i/n: this job's share of the windows (by document), for merge")->capture_default_str();
  cmd->add_option("--checkpoint-every", o->checkpoint_every,
                  "save the aggregates every K windows; a rerun with the same arguments resumes (0: off)")
      ->capture_default_str();
  add_metric_flags(*cmd, o->metric, /*with_seed=*/false);  // --seed is the input's
  add_run_options(*cmd, o->run);
  cmd->add_option("--out", o->out, "result JSON (its state sidecar goes beside it: X.state.safetensors)")->required();
  cmd->add_flag("--quiet", o->quiet, "no progress line");
  cmd->callback([o, &action] { action = [o] { run_measure(*o); }; });
}

}  // namespace geoattn::cli
