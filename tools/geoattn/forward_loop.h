#pragma once
// What a model-running command sets up from its flags before the window loop
// (pipeline/window_loop.h).
#include <functional>
#include <vector>

#include <torch/torch.h>

#include "cli.h"
#include "geoattn/io/windows.h"
#include "geoattn/model/decoder.h"
#include "geoattn/pipeline/window_loop.h"

namespace geoattn::cli {

using pipeline::forward_windows;
using pipeline::ForwardTimes;

// What a model-running command sets up from its flags: the checkpoint, the windows of
// the shards, the query positions at T = --ctx, and the decoder on its device.
struct ModelRun {
  io::Checkpoint checkpoint;
  std::vector<io::Window> windows;
  int64_t T;
  std::vector<int64_t> queries;
  model::Decoder decoder;
};
ModelRun open_model_run(const std::string& model, const InputOptions& input, const RunOptions& run,
                        const std::string& queries);

}  // namespace geoattn::cli
