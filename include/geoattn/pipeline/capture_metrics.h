#pragma once
// `geoattn metrics`: the windows of a capture -> the metric run -> the result files, in plain
// C++ (the capture read where it lies, io/capture_view.h; no LibTorch). The Python module runs
// the same over tensors (measure.h: metrics_of_capture).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "geoattn/pipeline/metric_run.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/pipeline/stage_times.h"

namespace geoattn::pipeline {

// `spec_for(T, queries)` builds the metric specification once the capture's T and query
// positions are known.
using SpecFor = std::function<MetricSpec(int64_t T, const std::vector<int64_t>& queries)>;

// A capture file (geoattn capture's layout; without doc_ids each window is its own document)
// -> the result JSON `out`, its arrays file and its state sidecar; the stages' times. Unless
// `quiet`, the run's last line (end_line) on stderr.
StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture_path, const SpecFor& spec_for,
                                const std::string& out, bool quiet = true);

// A run over a capture, finalized and not written: write_results(out, run.state, run.done)
// writes what metrics_from_capture writes.
struct CaptureMetrics {
  metrics::RunState state;
  Finalized done;
  StageTimes times;
};
// A capture's shapes and __metadata__: alpha [W, L, H, Q, T], values [W, L, KV, T, d].
struct CaptureShape {
  std::vector<int64_t> alpha, values, queries;
  std::map<std::string, std::string> metadata;
};
// Its two halves: the windows into the run's state and description (add_window(run, w, key,
// doc) adds window w; `docs` names each window's document, `source` stands where the file's path
// would; check_windows(windows, name) refuses rows with weight outside the layers' windows
// (io::check_layer_windows), `name` saying where the windows come from; `load_s`: the seconds it
// took to read the capture, counted in), then the bootstrap and the fits of that state.
using AddCaptureWindow = std::function<void(MetricRun& run, int64_t w, uint64_t key, const std::string& doc)>;
using CheckWindows = std::function<void(const std::vector<int64_t>& windows, const std::string& name)>;
CaptureMetrics capture_windows(WorkerPool& pool, const CaptureShape& shape, const AddCaptureWindow& add_window,
                               const std::vector<std::string>& docs, const std::string& source, const SpecFor& spec_for,
                               const CheckWindows& check_windows, double load_s = 0);
void finalize_capture(WorkerPool& pool, CaptureMetrics& run);
// SPEC §1: the layers' windows as geoattn capture records them (__metadata__ layer_attention,
// the model's description); a capture without it (another tool's): none, every layer's tokens
// 0..q. geoattn::Error naming `path` on a malformed list or one of another length than L.
std::vector<int64_t> capture_layer_windows(const std::map<std::string, std::string>& metadata, int64_t L,
                                           const std::string& path);
// The windows' documents as geoattn capture records them (__metadata__ doc_ids); a capture
// without them (another tool's) makes each of its W windows its own document.
std::vector<std::string> capture_documents(const std::map<std::string, std::string>& metadata, int64_t W,
                                           const std::string& path);

}  // namespace geoattn::pipeline
