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
#include "geoattn/pipeline/capture_metrics.h"
#include "geoattn/pipeline/metric_run.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/pipeline/resume.h"
#include "geoattn/pipeline/stage_times.h"
#include "geoattn/pipeline_torch/model_job.h"

namespace geoattn::pipeline {

// The windows of shard i of n: by the hash of their document, so that a document (the
// bootstrap's unit) is never split between shards.
std::vector<io::Window> shard_windows(const std::vector<io::Window>& all, int64_t i, int64_t n);

struct MeasureJob {
  ModelJob run;                     // the model and windows; the metric's settings follow the command's
  std::vector<int64_t> queries;     // query positions
  int64_t T = 0;
  MetricSpec metric;
  Checkpointing checkpoint;         // --checkpoint-every, --restart (resume.h)
};
// Runs the job and writes `out`, its arrays file and its state sidecar. A partial state of the
// same run beside `out` (same model, data and settings) is resumed after its last saved window.
// The metrics, bootstrap and fits run on `pool`.
void measure(WorkerPool& pool, const MeasureJob& job, const std::string& out);

// A window of tensors into a metric run: window_metrics_torch.h (the CPU core over their storage,
// or the tensor path on CUDA), then the run's aggregation.
void add_window(MetricRun& run, const torch::Tensor& alpha, const torch::Tensor& values, uint64_t key,
                const std::string& doc);

// capture_metrics.h's run over a capture in memory (the Python module's geoattn.metrics), finalized
// and not written: `docs` names each window's document, `source` stands where the file's path
// would ("model.capture", "data.capture").
CaptureMetrics metrics_of_capture(WorkerPool& pool, const model::CaptureFile& capture, const std::vector<std::string>& docs,
                                  const std::string& source, const SpecFor& spec_for);

}  // namespace geoattn::pipeline
