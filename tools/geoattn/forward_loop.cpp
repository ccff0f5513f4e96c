#include "forward_loop.h"

#include "geoattn/model/capture.h"
#include "geoattn/util/error.h"
#include "geoattn/util/progress.h"

namespace geoattn::cli {

ModelRun open_model_run(const std::string& model, const InputOptions& input, const RunOptions& run,
                        const std::string& queries) {
  const torch::Device device = resolve_device(run.device);
  const torch::Dtype dtype = resolve_dtype(effective_dtype(run));
  io::Checkpoint checkpoint = io::Checkpoint::open(model);
  auto windows = read_windows(input, checkpoint);
  const int64_t T = input.ctx;
  auto query_positions = parse_queries(queries, T);
  auto decoder = model::Decoder::load(checkpoint, dtype, device);
  return {std::move(checkpoint), std::move(windows), T, std::move(query_positions), std::move(decoder)};
}

}  // namespace geoattn::cli
