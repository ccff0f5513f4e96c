#pragma once
// What a model-running command sets up from its flags before the window loop
// (pipeline_torch/window_loop.h).
#include <functional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "cli_torch.h"
#include "geoattn/io/windows.h"
#include "geoattn/model/decoder.h"
#include "geoattn/pipeline_torch/model_job.h"
#include "geoattn/pipeline_torch/window_loop.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::cli {

using pipeline::forward_windows;
using pipeline::ForwardTimes;

// What a model-running command sets up from its flags: the checkpoint, the windows of
// the shards, the query positions at their length T (--ctx, or a shorter --text), and the
// decoder on its device in its dtype.
struct ModelRun {
  io::Checkpoint checkpoint;
  std::vector<io::Window> windows;
  int64_t T;
  std::vector<int64_t> queries;
  model::Decoder decoder;
};
ModelRun open_model_run(const std::string& model, const InputOptions& input, const RunOptions& run,
                        const std::string& queries);

// The job a model-running command (measure, sinks) hands the pipeline: the windows of --shard
// (geoattn::Error naming the flag when none falls in it), their "data", the command's own
// settings (ctx, `queries` as the flag gave them, dtype), --batch (at least 1), --device,
// --quiet, and the seconds since `start` as the load time.
struct JobFlags {
  const InputOptions& input;
  const RunOptions& run;
  const std::string& shard;
  const std::string& queries;
  int64_t batch = 1;
  bool quiet = false;
};
pipeline::ModelJob model_job(const ModelRun& r, const JobFlags& flags, Clock::time_point start);

// --queries: last, all, or i,j,... (negative: from the end).
void add_queries_option(CLI::App& cmd, std::string& queries);

}  // namespace geoattn::cli
