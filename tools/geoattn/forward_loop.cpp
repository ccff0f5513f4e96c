#include "forward_loop.h"

#include <torch/version.h>

#include "geoattn/pipeline_torch/measure.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

// The forward's matrix product in `dtype` on `device`, tried on 2 x 2 ones: LibTorch 1.13 has no
// float16 product on the CPU, and that is said here, naming the flag, not in the forward.
void check_dtype_runs(const RunOptions& run, torch::Dtype dtype, const torch::Device& device) {
  try {
    const auto a = torch::ones({2, 2}, torch::TensorOptions().dtype(dtype).device(device));
    (void)torch::addmm(a, a, a);
  } catch (const c10::Error&) {
    fail("--dtype {}: this LibTorch ({}) cannot multiply {} matrices on {}: use fp32 or bf16",
         name_of(arch::kForwardDtypeNames, run.forward_dtype()), TORCH_VERSION, c10::toString(dtype), device.str());
  }
}

ModelRun open_model_run(const std::string& model, const InputOptions& input, const RunOptions& run,
                        const std::string& queries) {
  const torch::Device device = torch_device(run.device);
  const torch::Dtype dtype = torch_dtype(run.forward_dtype());
  check_dtype_runs(run, dtype, device);
  io::Checkpoint checkpoint = io::Checkpoint::open(model);
  auto windows = read_windows(input, checkpoint);
  // Windows of --data hold --ctx tokens; a --text may be shorter.
  const int64_t T = windows.empty() ? input.ctx : static_cast<int64_t>(windows.front().ids.size());
  auto query_positions = parse_queries(queries, T);
  auto decoder = model::Decoder::load(checkpoint, dtype, device);
  return {std::move(checkpoint), std::move(windows), T, std::move(query_positions), std::move(decoder)};
}

pipeline::ModelJob model_job(const ModelRun& r, const JobFlags& f, Clock::time_point start) {
  const auto [shard_i, shard_n] = parse_shard(f.shard);
  if (f.batch < 1) fail("--batch {}: must be at least 1", f.batch);
  std::vector<io::Window> windows = pipeline::shard_windows(r.windows, shard_i, shard_n);
  const int64_t W = static_cast<int64_t>(windows.size());
  if (W == 0) fail("--shard {}: no window falls in this shard (of {} windows)", f.shard, r.windows.size());
  pipeline::ModelJob job{r.checkpoint, r.decoder};
  job.windows = std::move(windows);
  job.data = data_info(f.input, f.shard, W, r.T);
  job.settings = {r.T, f.queries, f.run.forward_dtype()};
  job.batch = f.batch;
  job.device = f.run.device;
  job.quiet = f.quiet;
  job.load_s = seconds_since(start);
  return job;
}

void add_queries_option(CLI::App& cmd, std::string& queries) {
  cmd.add_option("--queries", queries, "query positions: last, all, or i,j,... (negative: from the end)")
      ->capture_default_str();
}

}  // namespace geoattn::cli
