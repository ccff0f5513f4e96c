#pragma once
// The two runs that end in a measure result, one call each: `measure` (windows of text ->
// forward with capture -> metric run -> result files, resumable) and `metrics` (a capture file
// -> the same). The commands parse flags and call these.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "geoattn/io/windows.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/pipeline/metric_run.h"
#include "geoattn/pipeline/model_job.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/pipeline/stage_times.h"

namespace geoattn::pipeline {

// The windows of shard i of n: by the hash of their document, so that a document (the
// bootstrap's unit) is never split between shards.
std::vector<io::Window> shard_windows(const std::vector<io::Window>& all, int64_t i, int64_t n);

struct MeasureJob {
  ModelJob run;                     // the model and windows; the metric's settings follow the command's
  std::vector<int64_t> queries;     // query positions
  int64_t T = 0;
  MetricSpec metric;
  int64_t checkpoint_every = 50;    // save the state every K windows (0: never); a rerun resumes
};
// Runs the job and writes `out`, its arrays file and its state sidecar. A partial state of the
// same run beside `out` (same model, data and settings) is resumed after its last saved window.
// The metrics, bootstrap and fits run on `pool`.
void measure(WorkerPool& pool, const MeasureJob& job, const std::string& out);

// `metrics`: the windows of a capture file (geoattn capture's layout; without doc_ids each
// window is its own document). `spec_for(T, queries)` builds the metric specification once the
// capture's T and query positions are known.
using SpecFor = std::function<MetricSpec(int64_t T, const std::vector<int64_t>& queries)>;
StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture_path, const SpecFor& spec_for,
                                const std::string& out);

// The same run over a capture already in memory (the Python module's geoattn.metrics), finalized
// and not written: `docs` names each window's document, `source` stands where the file's path
// would ("model.capture", "data.capture"). write_results(out, run.state, run.done) writes what
// metrics_from_capture writes.
struct CaptureMetrics {
  metrics::RunState state;
  Finalized done;
  StageTimes times;
};
CaptureMetrics metrics_of_capture(WorkerPool& pool, const model::CaptureFile& capture, const std::vector<std::string>& docs,
                                  const std::string& source, const SpecFor& spec_for);
// Its two halves: the windows into the run's state and description (`load_s`: the seconds it
// took to read the capture, counted in), then the bootstrap and the fits of that state.
CaptureMetrics capture_windows(WorkerPool& pool, const model::CaptureFile& capture, const std::vector<std::string>& docs,
                               const std::string& source, const SpecFor& spec_for, double load_s = 0);
void finalize_capture(WorkerPool& pool, CaptureMetrics& run);
// The windows' documents as geoattn capture records them (__metadata__ doc_ids); a capture
// without them (another tool's) makes each window its own document.
std::vector<std::string> capture_documents(const model::CaptureFile& capture, const std::string& path);

}  // namespace geoattn::pipeline
