#pragma once
// `geoattn sinks` (SPEC §9), one call per source: windows of text -> forward with every query
// (and the residual stream when asked) -> metrics_torch/sink_window per window -> SinkStats -> the
// result JSON and its state sidecar; or the windows of a capture file with every query; or the
// states of shards, merged.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/model/capture_file.h"
#include "geoattn/pipeline/resume.h"
#include "geoattn/pipeline/sink_files.h"
#include "geoattn/pipeline_torch/model_job.h"
#include "geoattn/report/sinks_json.h"

namespace geoattn::pipeline {

struct SinksJob {
  ModelJob run;                              // the model and windows; the sinks' settings follow the command's
  SinkSettings sinks;
  std::function<std::string(int64_t)> token_text;  // an anchor token's text
  Checkpointing checkpoint;                  // --checkpoint-every, --restart (resume.h)
};
// Runs the job and writes `out` and its state sidecar. A partial state of the same run beside
// `out` (same model, data and settings) is resumed after its last saved window.
void sinks(const SinksJob& job, const std::string& out);

// The windows of a capture file with every query position (geoattn capture --queries all).
void sinks_from_capture(const std::string& capture_path, const SinkSettings& settings, const std::string& out);
// The same over a capture in memory (the Python module's geoattn.sinks), not written; `resid`
// [W, L, T, D] or undefined (settings.residual says which), `source` stands for the file's path.
metrics::SinkRun sinks_of_capture(const model::CaptureFile& capture, const torch::Tensor& resid, const std::string& source,
                                 const SinkSettings& settings);

}  // namespace geoattn::pipeline
