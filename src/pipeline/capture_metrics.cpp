#include "geoattn/pipeline/capture_metrics.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "geoattn/io/capture_checks.h"
#include "geoattn/io/capture_view.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

std::vector<std::string> capture_documents(const std::map<std::string, std::string>& metadata, int64_t W,
                                           const std::string& path) {
  std::vector<std::string> docs;
  if (auto it = metadata.find("doc_ids"); it != metadata.end()) {
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

std::vector<int64_t> capture_layer_windows(const std::map<std::string, std::string>& metadata, int64_t L,
                                           const std::string& path) {
  const auto it = metadata.find("layer_attention");
  if (it == metadata.end()) return {};
  std::vector<int64_t> windows;
  const auto layers = parse_json(nullptr, it->second);
  // Each window a JSON integer: 8.5 or "8" is no window (nlohmann would read 8.5 as 8).
  const auto window = [](const nlohmann::json& layer) {
    return layer.is_object() && layer.contains("window") && layer["window"].is_number_integer();
  };
  if (!layers.is_array() || !std::all_of(layers.begin(), layers.end(), window))
    fail("{}: __metadata__ layer_attention is not a list of {{\"window\": W}} with integer windows W", path);
  for (const auto& layer : layers) windows.push_back(layer["window"].get<int64_t>());
  if (std::ssize(windows) != L) fail("{}: __metadata__ layer_attention has {} layers, the capture {}", path, windows.size(), L);
  for (const int64_t w : windows)
    if (w < 0) fail("{}: __metadata__ layer_attention has a window of {}", path, w);
  return windows;
}

CaptureMetrics capture_windows(WorkerPool& pool, const CaptureShape& shape, const AddCaptureWindow& add_window,
                               const std::vector<std::string>& docs, const std::string& source, const SpecFor& spec_for,
                               const CheckWindows& check_windows, double load_s) {
  const auto start = Clock::now();
  const int64_t W = shape.alpha.at(0), L = shape.alpha.at(1), H = shape.alpha.at(2), T = shape.alpha.at(4);
  if (static_cast<int64_t>(docs.size()) != W) fail("{}: {} documents for {} windows", source, docs.size(), W);
  const auto keys = window_keys(docs);
  MetricSpec spec = spec_for(T, shape.queries);
  const bool given = !spec.layer_windows.empty();
  if (!given) spec.layer_windows = capture_layer_windows(shape.metadata, L, source);
  check_windows(spec.layer_windows, given ? "the layer windows given" : "__metadata__ layer_attention");
  MetricRun run(pool, spec, L, H, T);
  run.expect_windows(keys, docs);
  for (int64_t w = 0; w < W; ++w) add_window(run, w, keys[w], docs[w]);
  const metrics::MetricRecord settings = run.settings();
  CaptureMetrics out{std::move(run.state()), {}, {}};
  out.times = run.times();  // every stage of the windows, the envelopes included
  out.times.load = load_s;

  auto& run_info = out.state.run_info;
  run_info.model = capture_model_info(shape.alpha, shape.values, shape.metadata, source);
  run_info.data = capture_data(source, W, T);
  run_info.command = {T, shape.queries, std::nullopt};
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

StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture_path, const SpecFor& spec_for,
                                const std::string& out, bool quiet) {
  const auto start = Clock::now();
  const io::CaptureView capture(capture_path, &pool);  // mapped and checked; the windows read in place
  const CaptureShape shape{capture.alpha().shape, capture.values().shape, capture.queries(), capture.metadata()};
  CaptureMetrics run = capture_windows(
      pool, shape,
      [&](MetricRun& r, int64_t w, uint64_t key, const std::string& doc) {
        try {
          r.add_window(capture.alpha_window(w), capture.values_window(w), key, doc);
        } catch (const Error& e) {  // what the file's numbers make (values too large for a metric): the file named
          fail("{}: window {}: {}", capture_path, w, e.what());
        }
      },
      capture_documents(capture.metadata(), capture.windows(), capture_path), capture_path, spec_for,
      [&](const std::vector<int64_t>& windows, const std::string& name) {
        io::check_layer_windows(capture.alpha(), capture.queries(), windows, capture_path + ": alpha", name);
      },
      seconds_since(start));
  SidecarWrite sidecar(out, run.state);  // the state is final: written while the bootstrap and the fits run
  finalize_capture(pool, run);
  write_results(out, run.state, run.done, sidecar, &run.times, &pool);
  if (!quiet)
    fmt::print(stderr, "{}\n",
               end_line(out, shape.alpha.at(0), shape.alpha.at(1) * shape.alpha.at(2) * std::ssize(shape.queries),
                        seconds_since(start), run.times, run.done));
  return run.times;
}

}  // namespace geoattn::pipeline
