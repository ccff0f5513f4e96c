#include "forward_loop.h"

#include <limits>

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
                        const pipeline::Queries& queries) {
  const torch::Device device = torch_device(run.device);
  const torch::Dtype dtype = torch_dtype(run.forward_dtype());
  check_dtype_runs(run, dtype, device);
  io::Checkpoint checkpoint = io::Checkpoint::open(model);
  auto windows = read_windows(input, checkpoint);
  // Windows of --data hold --ctx tokens; a --text may be shorter.
  const int64_t T = windows.empty() ? input.ctx : static_cast<int64_t>(windows.front().ids.size());
  std::vector<int64_t> query_positions;
  try {
    query_positions = queries.at(T);
  } catch (const Error& e) {
    fail("--queries: {}", e.what());
  }
  auto decoder = model::Decoder::load(checkpoint, dtype, device);
  return {std::move(checkpoint), std::move(windows), T, std::move(query_positions), std::move(decoder)};
}

metrics::DataInfo window_data(const InputOptions& in, const std::vector<io::Window>& windows, int64_t T,
                              const std::string& shard) {
  const auto W = static_cast<int64_t>(windows.size());
  metrics::DataInfo data{metrics::WindowData{in.data, in.window, in.offset, in.seed, in.max_windows, shard}, W, W * T,
                         std::nullopt, std::nullopt};
  data.per_file = pipeline::windows_per_file(in.data, windows);
  return data;
}

pipeline::ModelJob model_job(const ModelRun& r, const JobFlags& f, Clock::time_point start) {
  const pipeline::Shard& shard = f.loop.shard;
  std::vector<io::Window> windows = pipeline::shard_windows(r.windows, shard.i, shard.n);
  const int64_t W = static_cast<int64_t>(windows.size());
  if (W == 0) fail("--shard {}: no window falls in this shard (of {} windows)", shard.text(), r.windows.size());
  pipeline::ModelJob job{r.checkpoint, r.decoder};
  job.windows = std::move(windows);
  const InputOptions& in = f.input;
  job.data = window_data(in, job.windows, r.T, shard.text());
  job.settings = {r.T, f.loop.queries.text(), f.run.forward_dtype()};
  job.batch = f.loop.batch;
  job.device = f.run.device;
  job.quiet = f.quiet;
  job.load_s = seconds_since(start);
  return job;
}

void add_loop_flags(CLI::App& cmd, LoopFlags& f, std::initializer_list<LoopFlag> which, const char* queries_help) {
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  for (const LoopFlag flag : which) switch (flag) {
      case LoopFlag::Queries:
        add_read_option(cmd, "--queries", f.queries, queries_help);
        break;
      case LoopFlag::Batch:
        add_number_option(cmd, "--batch", f.batch, int64_t{1}, kMost, "windows per forward");
        break;
      case LoopFlag::Shard:
        add_read_option(cmd, "--shard", f.shard, "i/n: this job's share of the windows (by document), for merge");
        break;
      case LoopFlag::Checkpoint:
        add_number_option(cmd, "--checkpoint-every", f.checkpoint.every, int64_t{0}, kMost,
                          "save the state every K windows; a rerun with the same arguments resumes, once every file it "
                          "read is found unchanged (0: off)");
        cmd.add_flag("--restart", f.checkpoint.restart, "start over: a partial state beside --out is not resumed");
        break;
    }
}

}  // namespace geoattn::cli
