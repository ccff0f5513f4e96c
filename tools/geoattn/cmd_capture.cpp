// geoattn capture: forward with the attn.pattern and attn.v capture points -> capture file.
#include <fmt/format.h>

#include "cli_torch.h"
#include "commands.h"
#include "forward_loop.h"
#include "metric_flags.h"
#include "geoattn/io/model_info.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/model/decoder.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

struct CaptureOptions {
  std::string model;
  InputOptions input;
  LoopFlags loop;  // --queries
  model::RowsDtype pattern_dtype = model::RowsDtype::Float32;
  RunOptions run;
  std::string out;
  bool quiet = false;
};

std::map<std::string, std::string> capture_metadata(const io::Checkpoint& ck, const CaptureOptions& o,
                                                    const std::vector<io::Window>& windows) {
  auto meta = io::describe_model_strings(ck.config);
  meta.insert({{"format", "geoattn-capture-1"},
               {"doc_ids", nlohmann::json(doc_ids(windows)).dump()},
               {"model", ck.dir},
               {"dtype", name_of(arch::kForwardDtypeNames, o.run.forward_dtype())},
               {"device", arch::device_name(o.run.device)},
               {"pattern_dtype", name_of(model::kRowsDtypeNames, o.pattern_dtype)}});
  return meta;
}

void run_capture(const CaptureOptions& o) {
  std::vector<std::string> inputs = o.input.data;
  inputs.push_back(o.model);
  check_outputs_of(o.out, inputs);
  const ModelRun r = open_model_run(o.model, o.input, o.run, o.loop.queries);
  const auto& [checkpoint, windows, T, queries, decoder] = r;
  for (const auto& w : windows)
    if (static_cast<int64_t>(w.ids.size()) != T) fail("internal: windows of different lengths");

  std::vector<torch::Tensor> alpha, values, tokens;
  forward_windows(
      decoder, checkpoint.config.n_layers, windows, queries, /*batch=*/1, "capture", o.quiet,
      [&](int64_t w, const pipeline::CapturedWindow& c) {
        // Rows stop at their query: positions after it are exactly zero by the causal mask.
        alpha.push_back(c.alpha.unsqueeze(0).to(torch::kCPU, torch::kFloat32));
        values.push_back(c.values.unsqueeze(0).to(torch::kCPU, torch::kFloat32));
        tokens.push_back(torch::tensor(windows[w].ids, torch::kInt64).unsqueeze(0));
      },
      /*resid_pre=*/false, o.pattern_dtype);
  model::write_capture_file(o.out, model::CaptureFile{torch::cat(alpha), torch::cat(values), torch::cat(tokens),
                                                torch::tensor(queries, torch::kInt64), capture_metadata(checkpoint, o, windows)});
  if (!o.quiet)
    fmt::print(stderr, "wrote {}: {} windows x {} layers x {} heads x {} queries, T = {}\n", o.out, windows.size(),
               checkpoint.config.n_layers, checkpoint.config.n_heads, queries.size(), T);
}

void capture_flags(CLI::App& cmd, CaptureOptions& o) {
  cmd.add_option("--model", o.model, "Hugging Face checkpoint folder (config.json, *.safetensors, tokenizer.model)")
      ->required();
  add_loop_flags(cmd, o.loop, {LoopFlag::Queries});
  add_input_options(cmd, o.input, /*data_only=*/false);
  add_enum_option(cmd, "--pattern-dtype", o.pattern_dtype, model::kRowsDtypeNames,
                  "how alpha rows are rounded: float32 (geoattn's convention: softmax of float32 scores from the run "
                  "dtype's q and k) or run (upstream eager's: scores in the run dtype, softmax in float32, rounded to "
                  "the run dtype; equal to float32 in a float32 run)");
  add_run_options(cmd, o.run);
  add_output_options(cmd, o.out, o.quiet, "output .safetensors");
}

}  // namespace

void add_capture(CLI::App& cmd, Action& action) { bind_command(cmd, action, capture_flags, run_capture); }

}  // namespace geoattn::cli
