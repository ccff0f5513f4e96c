#include "geoattn/pipeline_torch/sinks.h"

#include <fmt/format.h>

#include <set>

#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics_torch/sink_window.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/pipeline/resume.h"
#include "geoattn/pipeline_torch/window_loop.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/report/sink_state_file.h"
#include "geoattn/report/sinks_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

namespace {

metrics::SinkStats empty_stats(int64_t L, int64_t H, int64_t KV, int64_t T, const SinkSettings& s) {
  return metrics::SinkStats({L, H, KV, T, static_cast<int64_t>(s.taus.size()), s.residual}, s.eps);
}

// The texts of every token that is an anchor somewhere.
std::map<int64_t, std::string> anchor_texts(const metrics::SinkStats& stats,
                                            const std::function<std::string(int64_t)>& text_of) {
  std::map<int64_t, std::string> out;
  if (!text_of) return out;
  const auto& shape = stats.shape();
  for (int64_t l = 0; l < shape.layers; ++l)
    for (int64_t h = -1; h < shape.heads; ++h)
      for (int64_t rank = 0; rank < 2; ++rank)
        for (const auto& [key, n] : stats.anchors(l, h, rank))
          if (!out.count(key.second)) out[key.second] = text_of(key.second);
  return out;
}

}  // namespace

void sinks(const SinksJob& job, const std::string& out) {
  const auto start = Clock::now();
  const ModelJob& m = job.run;
  const auto& c = m.checkpoint.config;
  const int64_t W = static_cast<int64_t>(m.windows.size()), T = static_cast<int64_t>(m.windows.at(0).ids.size());
  metrics::SinkRun run{empty_stats(c.n_layers, c.n_heads, c.n_kv_heads, T, job.sinks), {}, {}};
  run.run_info = {model_info(m.checkpoint), m.data, m.settings, job.sinks, {}};
  // A partial state of the same run beside `out` (resume.h): its windows are not run again.
  const std::string state_file = state_path(out);
  const int64_t done = resume(state_file, out, W, job.checkpoint, m.quiet, run, report::load_sink_state);
  InputFingerprints inputs;
  std::vector<int64_t> all(T);
  for (int64_t t = 0; t < T; ++t) all[t] = t;
  const std::vector<io::Window> todo(m.windows.begin() + done, m.windows.end());
  const auto times = forward_windows(
      m.decoder, c.n_layers, todo, all, m.batch, "sinks", m.quiet,
      [&](int64_t t, const CapturedWindow& cw) {
        const int64_t w = done + t;
        run.stats.add(metrics::sink_window(cw.alpha, cw.values, cw.resid_pre, job.sinks.taus, job.sinks.convention), m.windows[w].ids);
        if (checkpoint_due(job.checkpoint.every, w + 1, W)) {
          run.run_info.data.windows_done = w + 1, run.run_info.data.complete = false;
          run.run_info.data.inputs = inputs.now();
          report::save_sink_state(state_file, run);
        }
        killed_for_tests(w + 1);
      },
      job.sinks.residual);
  run.token_text = anchor_texts(run.stats, job.token_text);
  run.run_info.data.windows_done.reset(), run.run_info.data.complete.reset(), run.run_info.data.inputs.clear();
  run.run_info.timing = forward_timing(m, times, m.load_s + seconds_since(start), W - done, T);
  run.run_info.timing.seconds_sinks = times.visit_s;
  if (done > 0) run.run_info.timing.resumed_after_windows = done;
  write_sinks(out, run);
  if (!m.quiet)
    fmt::print(stderr, "wrote {} ({} windows of {} tokens, {:.1f}s: forward {:.1f}s, sinks {:.1f}s)\n", out, W, T,
               m.load_s + seconds_since(start), times.forward_s, times.visit_s);
}

metrics::SinkRun sinks_of_capture(const model::CaptureFile& capture, const torch::Tensor& resid, const std::string& source,
                                 const SinkSettings& settings) {
  const auto start = Clock::now();
  const int64_t W = capture.alpha.size(0), L = capture.alpha.size(1), H = capture.alpha.size(2),
                T = capture.alpha.size(4), KV = capture.values.size(2);
  if (static_cast<int64_t>(capture.query_positions().size()) != T)
    fail("{}: sinks needs every query position (geoattn capture --queries all); this capture has {} of {}", source,
         capture.query_positions().size(), T);
  if (resid.defined() != settings.residual) fail("{}: the residual stream is {}", source, settings.residual ? "missing" : "not asked for");
  metrics::SinkRun run{empty_stats(L, H, KV, T, settings), {}, {}};
  const auto tokens = capture.tokens.contiguous();
  for (int64_t w = 0; w < W; ++w)
    run.stats.add(metrics::sink_window(capture.alpha[w], capture.values[w], resid.defined() ? resid[w] : torch::Tensor(),
                                       settings.taus, settings.convention),
                  std::span<const int64_t>(tokens.data_ptr<int64_t>() + w * T, static_cast<size_t>(T)));
  run.run_info = {capture_model_info(capture.alpha.sizes().vec(), capture.values.sizes().vec(), capture.metadata, source), capture_data(source, W, T), {T, "all", std::nullopt}, settings, {}};
  run.run_info.timing.seconds_total = seconds_since(start);
  run.run_info.timing.peak_rss_bytes = peak_rss_bytes();
  return run;
}

void sinks_from_capture(const std::string& capture_path, const SinkSettings& settings, const std::string& out) {
  write_sinks(out, sinks_of_capture(model::read_capture_file(capture_path), torch::Tensor(), capture_path, settings));
}

}  // namespace geoattn::pipeline
