#pragma once
// What every run of a model over windows of text shares (measure, sinks): the model, this
// shard's windows, how the result describes them, and how the forward runs. tools/geoattn
// builds it once from the flags (forward_loop.h, model_job).
#include <cstdint>
#include <vector>

#include "geoattn/arch/device.h"
#include "geoattn/io/checkpoint.h"
#include "geoattn/io/windows.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/model/decoder.h"
#include "geoattn/pipeline_torch/window_loop.h"

namespace geoattn::pipeline {

struct ModelJob {
  const io::Checkpoint& checkpoint;
  const model::Decoder& decoder;
  std::vector<io::Window> windows;    // this shard's
  metrics::DataInfo data;             // the result's "data"
  metrics::CommandSettings settings;  // the command's own settings (ctx, queries, dtype)
  int64_t batch = 1;                  // windows per forward
  arch::Device device;                // recorded in "timing"
  bool quiet = false;                 // no progress line
  double load_s = 0;                  // time spent opening the model and reading the windows
};

// The "timing" every such run records: device, batch, seconds_total (`total_s`), the forward's
// seconds, windows and tokens (`windows` of T tokens run) per second of the window loop, and the
// peak resident memory.
metrics::Timing forward_timing(const ModelJob& job, const ForwardTimes& times, double total_s, int64_t windows, int64_t T);

}  // namespace geoattn::pipeline
