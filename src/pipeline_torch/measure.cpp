#include "geoattn/pipeline_torch/measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "geoattn/io/windows.h"
#include "geoattn/metrics_torch/window_bounds_torch.h"
#include "geoattn/metrics_torch/window_metrics_torch.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/pipeline/resume.h"
#include "geoattn/pipeline_torch/window_loop.h"
#include "geoattn/report/state_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

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
  MetricSpec spec = job.metric;
  spec.layer_windows = c.layer_windows();  // SPEC §1: the model's windows, per layer
  MetricRun run(pool, spec, c.n_layers, c.n_heads, T);
  auto& state = run.state();
  auto& run_info = state.run_info;
  run_info.model = model_info(m.checkpoint);
  run_info.data = m.data;
  run_info.command = m.settings;
  run_info.method = run.settings();

  const std::string state_file = state_path(out);
  const int64_t done = resume(state_file, out, W, job.checkpoint, m.quiet, state, report::load_run_state);
  InputFingerprints inputs;
  auto save_partial = [&](int64_t windows_done) {
    run_info.data.windows_done = windows_done;
    run_info.data.complete = false;
    run_info.data.inputs = inputs.now();
    report::save_run_state(state_file, state);
  };

  const auto docs = doc_ids(m.windows);
  const auto keys = window_keys(docs);
  run.expect_windows(keys, docs);
  const std::vector<io::Window> todo(m.windows.begin() + done, m.windows.end());
  const auto times = forward_windows(m.decoder, c.n_layers, todo, job.queries, m.batch, "measure", m.quiet,
                                     [&](int64_t t, const CapturedWindow& c) {
                                       const int64_t w = done + t;
                                       add_window(run, c.alpha, c.values, keys[w], m.windows[w].doc_id);
                                       if (checkpoint_due(job.checkpoint.every, w + 1, W)) save_partial(w + 1);
                                       killed_for_tests(w + 1);
                                     });

  StageTimes stages = run.times();
  stages.load = m.load_s, stages.forward = times.forward_s;
  run_info.data.windows_done.reset();
  run_info.data.inputs.clear();
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
  const Finalized finalized = finalize(pool, state, &stages, m.quiet);
  note_timing();
  write_results(out, state, finalized, sidecar, &stages, &pool);
  if (!m.quiet)
    fmt::print(stderr, "{}\n",
               end_line(out, W, c.n_layers * c.n_heads * static_cast<int64_t>(job.queries.size()), total_s, stages,
                        finalized));
}

void add_window(MetricRun& run, const torch::Tensor& alpha, const torch::Tensor& values, uint64_t key,
                const std::string& doc) {
  const auto& queries = run.spec().queries;
  const auto options = run.options();
  const auto m = metrics::window_metrics(run.pool(), alpha, values, queries, run.spec().grid, key, options);
  // SPEC §4's row, the last query's: only it comes to the host (none when the run has no last query).
  const auto rows = metrics::last_query_rows(alpha, queries);
  if (!rows.defined()) run.add_window(m, io::FloatView{}, {}, key, doc);
  else run.add_window(m, model::float_view(rows), {alpha.size(3) - 1}, key, doc);
  // SPEC §5's bounds of the same samples: the CPU core's, made beside the metrics, else where
  // alpha and v lie (the tensor path on a GPU).
  run.add_window_envelopes(
      [&](metrics::EnvelopeStats& envelopes, metrics::KappaStats* scan, int64_t row) {
        if (!m.bounds.curves.empty()) return metrics::add_sample_bounds(m.bounds, envelopes, scan, row);
        metrics::add_window_bounds(run.pool(), alpha, values, queries, run.spec().grid, options.windows, envelopes, scan,
                                   row, {options.selection.tensor_path, options.selection.max_chunk_bytes});
      },
      key, doc);
  // SPEC §5's predicted envelopes on the host, from alpha's rows there (small beside the values).
  if (!run.state().predicted.empty())
    run.add_window_predicted(model::float_view(alpha.to(torch::kCPU).contiguous()), m, values.size(3));
}

CaptureMetrics metrics_of_capture(WorkerPool& pool, const model::CaptureFile& capture, const std::vector<std::string>& docs,
                                  const std::string& source, const SpecFor& spec_for) {
  const CaptureShape shape{capture.alpha.sizes().vec(), capture.values.sizes().vec(), capture.query_positions(),
                           capture.metadata};
  CaptureMetrics run = capture_windows(
      pool, shape,
      [&](MetricRun& r, int64_t w, uint64_t key, const std::string& doc) {
        add_window(r, capture.alpha[w], capture.values[w], key, doc);
      },
      docs, source, spec_for,
      [&](const std::vector<int64_t>& windows, const std::string& name) {
        model::check_layer_windows(capture.alpha, capture.query_positions(), windows, "alpha", name);
      });
  finalize_capture(pool, run);
  return run;
}

}  // namespace geoattn::pipeline
