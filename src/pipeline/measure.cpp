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
bool same_identity(const metrics::MeasureInfo& a, const metrics::MeasureInfo& b) {
  const auto data = [](metrics::DataInfo d) {
    d.windows_done.reset(), d.complete.reset();
    return d;
  };
  return a.model == b.model && a.command == b.command && a.method == b.method && data(a.data) == data(b.data);
}

// A saved partial state of the same run: how many windows it holds (0: none to resume).
int64_t resume(const std::string& state_file, const std::string& out, int64_t W, bool quiet, metrics::RunState& state) {
  if (!std::filesystem::exists(state_file)) return 0;
  metrics::RunState saved = report::load_run_state(state_file);
  const auto& d = saved.run_info.data;
  if (d.complete.value_or(true) || !same_identity(saved.run_info, state.run_info)) return 0;
  const int64_t done = d.windows_done.value_or(0);
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
  const ModelJob& m = job.run;
  const auto& c = m.checkpoint.config;
  const int64_t W = static_cast<int64_t>(m.windows.size()), T = job.T;
  MetricRun run(pool, job.metric, c.n_layers, c.n_heads, T);
  auto& state = run.state();
  auto& run_info = state.run_info;
  run_info.model = model_info(m.checkpoint);
  run_info.data = m.data;
  run_info.command = m.settings;
  run_info.method = run.settings();

  const std::string state_file = state_path(out);
  const int64_t done = resume(state_file, out, W, m.quiet, state);
  auto save_partial = [&](int64_t windows_done) {
    run_info.data.windows_done = windows_done;
    run_info.data.complete = false;
    report::save_run_state(state_file, state);
  };

  const auto keys = window_keys(doc_ids(m.windows));
  const std::vector<io::Window> todo(m.windows.begin() + done, m.windows.end());
  const char* kill_after = std::getenv("GEOATTN_TEST_KILL_AFTER_WINDOWS");  // tests of resume
  const auto times = forward_windows(m.decoder, c.n_layers, todo, job.queries, m.batch, "measure", m.quiet,
                                     [&](int64_t t, const CapturedWindow& c) {
                                       const int64_t w = done + t;
                                       run.add_window(c.alpha, c.values, keys[w], m.windows[w].doc_id);
                                       if (job.checkpoint_every > 0 && (w + 1) % job.checkpoint_every == 0 && w + 1 < W)
                                         save_partial(w + 1);
                                       if (kill_after && w + 1 == std::atoll(kill_after)) std::raise(SIGKILL);
                                     });

  StageTimes stages = run.times();
  stages.load = m.load_s, stages.forward = times.forward_s;
  run_info.data.windows_done.reset();
  run_info.data.complete = true;
  // The run's timing so far: once for the state sidecar (the windows), once for the JSON (all).
  double total_s = 0;
  auto note_timing = [&] {
    total_s = m.load_s + seconds_since(start);
    auto& timing = run_info.timing = forward_timing(m, times, total_s, W - done, T);
    timing.resumed_after_windows = done;
    timing.seconds_metrics = times.visit_s;
    timing.seconds_window_loop = times.wall_s;
    timing.share_outside_forward = std::max(0.0, times.wall_s - times.forward_s) / std::max(1e-9, times.wall_s);
    timing.stages = stages.seconds();
  };
  note_timing();
  SidecarWrite sidecar(out, state);  // the state is final: written while the bootstrap and the fits run
  const Finalized finalized = finalize(pool, state, &stages);
  note_timing();
  write_results(out, state, finalized, sidecar, &stages);
  if (!m.quiet)
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

CaptureMetrics capture_windows(WorkerPool& pool, const model::CaptureFile& capture, const std::vector<std::string>& docs,
                               const std::string& source, const SpecFor& spec_for, double load_s) {
  const auto start = Clock::now();
  const int64_t W = capture.alpha.size(0), L = capture.alpha.size(1), H = capture.alpha.size(2), T = capture.alpha.size(4);
  if (static_cast<int64_t>(docs.size()) != W) fail("{}: {} documents for {} windows", source, docs.size(), W);
  const std::vector<int64_t> queries = capture.query_positions();
  const auto keys = window_keys(docs);
  MetricRun run(pool, spec_for(T, queries), L, H, T);
  for (int64_t w = 0; w < W; ++w) run.add_window(capture.alpha[w], capture.values[w], keys[w], docs[w]);
  const metrics::MetricSettings settings = run.settings();
  CaptureMetrics out{std::move(run.state()), {}, {}};
  out.times.load = load_s;
  out.times.gram = run.times().gram, out.times.top = run.times().top, out.times.controls = run.times().controls;
  out.times.aggregate = run.times().aggregate;

  auto& run_info = out.state.run_info;
  run_info.model = capture_model_info(capture, source);
  run_info.data = capture_data(source, W, T);
  run_info.command = {T, queries, std::nullopt};
  run_info.method = settings;
  run_info.timing.seconds_total = load_s + seconds_since(start);
  run_info.timing.stages = out.times.seconds();
  return out;
}

void finalize_capture(WorkerPool& pool, CaptureMetrics& run) {
  const auto start = Clock::now();
  run.done = finalize(pool, run.state, &run.times);
  auto& timing = run.state.run_info.timing;
  timing.seconds_total = timing.seconds_total.value_or(0) + seconds_since(start);
  timing.stages = run.times.seconds();
}

CaptureMetrics metrics_of_capture(WorkerPool& pool, const model::CaptureFile& capture, const std::vector<std::string>& docs,
                                  const std::string& source, const SpecFor& spec_for) {
  CaptureMetrics run = capture_windows(pool, capture, docs, source, spec_for);
  finalize_capture(pool, run);
  return run;
}

StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture_path, const SpecFor& spec_for,
                                const std::string& out) {
  const auto start = Clock::now();
  const model::CaptureFile capture = model::read_capture_file(capture_path);
  CaptureMetrics run = capture_windows(pool, capture, capture_documents(capture, capture_path), capture_path, spec_for,
                                       seconds_since(start));
  SidecarWrite sidecar(out, run.state);  // the state is final: written while the bootstrap and the fits run
  finalize_capture(pool, run);
  write_results(out, run.state, run.done, sidecar, &run.times);
  return run.times;
}

}  // namespace geoattn::pipeline
