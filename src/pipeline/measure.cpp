#include "geoattn/pipeline/measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>

#include "geoattn/io/windows.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/pipeline/window_loop.h"
#include "geoattn/report/state_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

namespace {

// What must match for a saved partial run to be resumed: everything but the progress and timing.
nlohmann::ordered_json resume_identity(const nlohmann::ordered_json& run_info) {
  nlohmann::ordered_json id = {{"model", run_info.at("model")}, {"settings", run_info.at("settings")}};
  auto data = run_info.at("data");
  for (const char* k : {"windows_done", "complete"}) data.erase(k);
  id["data"] = data;
  return id;
}

// The "settings" of a run: the command's own, then the metric run's.
nlohmann::ordered_json settings_of(nlohmann::ordered_json own, const MetricRun& run) {
  const nlohmann::ordered_json metric = run.settings();  // items() of a temporary would dangle
  for (const auto& [k, v] : metric.items()) own[k] = v;
  return own;
}

// A saved partial state of the same run: how many windows it holds (0: none to resume).
int64_t resume(const std::string& state_file, const std::string& out, int64_t W, bool quiet, metrics::RunState& state) {
  if (!std::filesystem::exists(state_file)) return 0;
  metrics::RunState saved = report::load_run_state(state_file);
  const auto& d = saved.run_info.value("data", nlohmann::ordered_json::object());
  if (d.value("complete", true) || resume_identity(saved.run_info) != resume_identity(state.run_info)) return 0;
  const int64_t done = d.value("windows_done", int64_t(0));
  if (done < 0 || done > W) fail("{}: {} windows done of {}", state_file, done, W);
  saved.run_info = state.run_info;
  state = std::move(saved);
  if (!quiet) fmt::print(stderr, "resuming {} after {} of {} windows\n", out, done, W);
  return done;
}

}  // namespace

std::vector<io::Window> shard_windows(const std::vector<io::Window>& all, int64_t i, int64_t n) {
  std::vector<io::Window> out;
  for (const auto& w : all)
    if (static_cast<int64_t>(io::document_hash(0x5eed, w.doc_id) % static_cast<uint64_t>(n)) == i) out.push_back(w);
  return out;
}

void measure(WorkerPool& pool, const MeasureJob& job, const std::string& out) {
  const auto start = Clock::now();
  const auto& c = job.checkpoint.config;
  const int64_t W = static_cast<int64_t>(job.windows.size()), T = job.T;
  MetricRun run(pool, job.metric, c.n_layers, c.n_heads, T);
  auto& state = run.state();
  auto& run_info = state.run_info;
  run_info["model"] = model_info(job.checkpoint);
  run_info["data"] = job.data;
  run_info["settings"] = settings_of(job.settings, run);

  const std::string state_file = state_path(out);
  const int64_t done = resume(state_file, out, W, job.quiet, state);
  auto save_partial = [&](int64_t windows_done) {
    run_info["data"]["windows_done"] = windows_done;
    run_info["data"]["complete"] = false;
    report::save_run_state(state_file, state);
  };

  const auto keys = window_keys(doc_ids(job.windows));
  const std::vector<io::Window> todo(job.windows.begin() + done, job.windows.end());
  const char* kill_after = std::getenv("GEOATTN_TEST_KILL_AFTER_WINDOWS");  // tests of resume
  const auto times = forward_windows(job.decoder, c.n_layers, todo, job.queries, job.batch, "measure", job.quiet,
                                     [&](int64_t t, const CapturedWindow& c) {
                                       const int64_t w = done + t;
                                       run.add_window(c.alpha, c.values, keys[w], job.windows[w].doc_id);
                                       if (job.checkpoint_every > 0 && (w + 1) % job.checkpoint_every == 0 && w + 1 < W)
                                         save_partial(w + 1);
                                       if (kill_after && w + 1 == std::atoll(kill_after)) std::raise(SIGKILL);
                                     });
  const double ran = static_cast<double>(W - done), loop_s = std::max(1e-9, times.wall_s);

  StageTimes stages = run.times();
  stages.load = job.load_s, stages.forward = times.forward_s;
  const Finalized finalized = finalize(pool, state, &stages);
  const double total_s = job.load_s + seconds_since(start);
  run_info["data"].erase("windows_done");
  run_info["data"]["complete"] = true;
  run_info["timing"] = {{"device", job.device},
                        {"batch", job.batch},
                        {"resumed_after_windows", done},
                        {"seconds_total", total_s},
                        {"seconds_forward_and_capture", times.forward_s},
                        {"seconds_metrics", times.visit_s},
                        {"seconds_window_loop", times.wall_s},
                        {"windows_per_second", ran / loop_s},
                        {"tokens_per_second", ran * T / loop_s},
                        {"share_outside_forward", std::max(0.0, times.wall_s - times.forward_s) / loop_s},
                        {"peak_rss_bytes", peak_rss_bytes()},
                        {"stages", stages.json()}};
  write_results(out, state, finalized, &stages);
  if (!job.quiet)
    fmt::print(stderr, "wrote {} ({} windows, {} samples per window, {:.1f}s: forward {:.1f}s, metrics {:.1f}s)\n", out,
               W, c.n_layers * c.n_heads * static_cast<int64_t>(job.queries.size()), total_s, times.forward_s,
               times.visit_s);
}

// The windows' documents, as geoattn capture records them in __metadata__ doc_ids; a capture
// without them (another tool's) makes each window its own document.
std::vector<std::string> capture_documents(const model::CaptureFile& capture, const std::string& path) {
  const int64_t W = capture.alpha.size(0);
  std::vector<std::string> docs;
  if (auto it = capture.metadata.find("doc_ids"); it != capture.metadata.end()) {
    const auto ids = parse_json(nullptr, it->second);
    if (ids.is_array() && static_cast<int64_t>(ids.size()) == W)
      for (const auto& id : ids)
        if (id.is_string()) docs.push_back(id.get<std::string>());
    if (static_cast<int64_t>(docs.size()) != W) fail("{}: __metadata__ doc_ids is not a list of {} strings", path, W);
  } else {
    for (int64_t w = 0; w < W; ++w) docs.push_back("window " + std::to_string(w));
  }
  return docs;
}

CaptureMetrics metrics_of_capture(WorkerPool& pool, const model::CaptureFile& capture, const std::vector<std::string>& docs,
                                  const std::string& source, const SpecFor& spec_for) {
  const auto start = Clock::now();
  const int64_t W = capture.alpha.size(0), L = capture.alpha.size(1), H = capture.alpha.size(2), T = capture.alpha.size(4);
  if (static_cast<int64_t>(docs.size()) != W) fail("{}: {} documents for {} windows", source, docs.size(), W);
  const std::vector<int64_t> queries = capture.query_positions();
  const auto keys = window_keys(docs);
  MetricRun run(pool, spec_for(T, queries), L, H, T);
  for (int64_t w = 0; w < W; ++w) run.add_window(capture.alpha[w], capture.values[w], keys[w], docs[w]);
  const nlohmann::ordered_json settings = settings_of({{"ctx", T}, {"queries", queries}}, run);
  CaptureMetrics out{std::move(run.state()), {}, {}};
  out.times.gram = run.times().gram, out.times.top = run.times().top, out.times.controls = run.times().controls;
  out.times.aggregate = run.times().aggregate;

  auto& run_info = out.state.run_info;
  run_info["model"] = capture_model_info(capture, source);
  run_info["data"] = {{"capture", source}, {"windows", W}, {"tokens", W * T}};
  run_info["settings"] = settings;
  out.done = finalize(pool, out.state, &out.times);
  run_info["timing"] = {{"seconds_total", seconds_since(start)}, {"stages", out.times.json()}};
  return out;
}

StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture_path, const SpecFor& spec_for,
                                const std::string& out) {
  const auto start = Clock::now();
  const model::CaptureFile capture = model::read_capture_file(capture_path);
  const double load_s = seconds_since(start);
  CaptureMetrics run = metrics_of_capture(pool, capture, capture_documents(capture, capture_path), capture_path, spec_for);
  run.times.load = load_s;
  run.state.run_info["timing"] = {{"seconds_total", seconds_since(start)}, {"stages", run.times.json()}};
  write_results(out, run.state, run.done, &run.times);
  return run.times;
}

}  // namespace geoattn::pipeline
