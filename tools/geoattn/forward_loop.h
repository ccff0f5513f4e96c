#pragma once
// What a model-running command sets up from its flags before the window loop
// (pipeline_torch/window_loop.h).
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "cli_torch.h"
#include "geoattn/io/windows.h"
#include "geoattn/model/decoder.h"
#include "geoattn/pipeline/queries.h"
#include "geoattn/pipeline/resume.h"
#include "geoattn/pipeline/shard_set.h"
#include "geoattn/pipeline_torch/model_job.h"
#include "geoattn/pipeline_torch/window_loop.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::cli {

using pipeline::forward_windows;
using pipeline::ForwardTimes;

// The flags of the window loop, each defined once for the commands that take it (LoopFlag):
// measure all four; sinks the shard, the batch, the checkpoints and the queries (all);
// bounds the queries and the batch; capture the queries.
struct LoopFlags {
  pipeline::Queries queries;           // --queries: last, all or i,j,... (read once: pipeline/queries.h)
  int64_t batch = 1;                   // --batch: windows per forward
  pipeline::Shard shard;               // --shard i/n: this job's share of the windows (pipeline/shard_set.h)
  pipeline::Checkpointing checkpoint;  // --checkpoint-every K, --restart (pipeline/resume.h)
};
enum class LoopFlag { Queries, Batch, Shard, Checkpoint };
inline constexpr const char* kQueriesHelp = "query positions: last, all, or i,j,... (negative: from the end)";
void add_loop_flags(CLI::App& cmd, LoopFlags& flags, std::initializer_list<LoopFlag> which,
                    const char* queries_help = kQueriesHelp);

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
                        const pipeline::Queries& queries);

// The "data" of `windows` (SPEC §7), cut from --data by `in` and taken by shard `shard` ("i/n"),
// with how many each shard file gave.
metrics::DataInfo window_data(const InputOptions& in, const std::vector<io::Window>& windows, int64_t T,
                              const std::string& shard);

// The job a model-running command (measure, sinks) hands the pipeline: the windows of --shard
// (geoattn::Error naming the flag when none falls in it), their "data", the command's own
// settings (ctx, --queries as given, dtype), --batch, --device, --quiet, and the seconds since
// `start` as the load time.
struct JobFlags {
  const InputOptions& input;
  const RunOptions& run;
  const LoopFlags& loop;
  bool quiet = false;
};
pipeline::ModelJob model_job(const ModelRun& r, const JobFlags& flags, Clock::time_point start);

}  // namespace geoattn::cli
