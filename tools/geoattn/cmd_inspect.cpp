// geoattn inspect: what a checkpoint is, what it costs, and whether every byte of it is sound.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "geoattn/io/model_info.h"
#include "geoattn/io/tokenizer.h"
#include "geoattn/arch/config.h"
#include "geoattn/metrics/run/metric_params.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::cli {

namespace {

struct InspectOptions {
  std::string model;
  std::optional<int64_t> ctx;  // nullopt: 1024, or the model's positions when fewer
  bool json = false;
};

// Bytes a measure-style forward needs beyond the weights, per window of T tokens: the
// residual stream and MLP activations of one layer, the float32 score matrix of one layer's
// attention (eager path), and the captured values of every layer (run dtype) and last-query
// pattern rows (float32), twice: one window's metrics run beside the next window's forward.
int64_t activation_bytes(const arch::ModelConfig& c, int64_t T, int64_t bytes_per_elem) {
  const int64_t stream = T * (4 * c.hidden + 3 * c.ffn + (c.n_heads + 2 * c.n_kv_heads) * c.head_dim) * bytes_per_elem;
  const int64_t scores = c.n_heads * T * T * (4 + bytes_per_elem);
  const int64_t captured = c.n_layers * (c.n_kv_heads * T * c.head_dim * bytes_per_elem + c.n_heads * T * 4);
  return stream + scores + 2 * captured;
}

// The metric core's working memory for one query of one window: the values and alpha in
// float64, and one T x T float64 Gram matrix per worker thread on CPU (metrics/core/core_cpu.cpp),
// or the chunk bound of the tensor path on CUDA (--metrics-memory, 256 MiB by default).
int64_t metrics_bytes(const arch::ModelConfig& c, int64_t T, int64_t chunk_bytes = metrics::MetricParams{}.chunk_bytes()) {
  const int64_t workers = std::max<int64_t>(2, hardware_threads());
  return c.n_layers * (c.n_kv_heads * c.head_dim + c.n_heads) * T * 8 + std::max(chunk_bytes, workers * T * T * 8);
}

std::string gib(int64_t bytes) { return fmt::format("{:.3f} GiB", static_cast<double>(bytes) / (1ull << 30)); }

nlohmann::ordered_json describe(const io::Checkpoint& ck, int64_t T) {
  const auto& c = ck.config;
  nlohmann::ordered_json j;
  j["model"] = ck.dir;
  j.update(io::describe_model(c));
  j["checkpoint_bytes"] = ck.tensors.total_bytes();
  j["files"] = ck.tensors.files().size();
  for (auto [name, bytes] : {std::pair{"fp32", 4}, std::pair{"bf16", 2}}) {
    const int64_t weights = c.parameter_count() * bytes;
    const int64_t act = activation_bytes(c, T, bytes), met = metrics_bytes(c, T);
    j["memory"][name] = {{"weights_bytes", weights}, {"forward_T", T}, {"activations_bytes", act},
                         {"metrics_bytes", met}, {"total_bytes", weights + act + met}};
  }
  if (!ck.tokenizer_path.empty()) {
    auto tok = io::Tokenizer::load(ck.tokenizer_path);
    io::check_tokenizer_matches(*tok, c);
    j["tokenizer"] = {{"path", ck.tokenizer_path}, {"pieces", tok->vocab_size()}, {"bos_id", tok->bos_id()}};
  } else {
    j["tokenizer"] = nullptr;
  }
  j["validation"] = "ok";
  return j;
}

void print_text(const nlohmann::ordered_json& j) {
  fmt::print("{}  ({}, {})\n", j["model"].get<std::string>(), j["architecture"].get<std::string>(),
             j["family"].get<std::string>());
  fmt::print("  layers {}  hidden {}  heads {} (kv {})  head_dim {}  ffn {}  vocab {}\n", j["layers"].get<int64_t>(),
             j["hidden_size"].get<int64_t>(), j["heads"].get<int64_t>(), j["kv_heads"].get<int64_t>(),
             j["head_dim"].get<int64_t>(), j["intermediate_size"].get<int64_t>(), j["vocab_size"].get<int64_t>());
  fmt::print("  rms_eps {}  act {}  tied {}  positions {}  norms {} ({}, q/k {})  biases qkv {} o {} mlp {}\n",
             j["rms_norm_eps"].get<double>(), j["activation"].get<std::string>(), j["tied_embeddings"].get<bool>(),
             j["max_positions"].get<int64_t>(), j["norm"]["layout"].get<std::string>(),
             j["norm"]["style"].get<std::string>(), j["norm"]["qk"].get<std::string>(), j["biases"]["qkv"].get<bool>(),
             j["biases"]["o"].get<bool>(), j["biases"]["mlp"].get<bool>());
  const auto& a = j["attention"];
  fmt::print("  attention: scale {:.6g}  softcap {}  final softcap {}  rotary_dim {}\n", a["scale"].get<double>(),
             a["softcap"].get<double>(), a["final_softcap"].get<double>(), a["rotary_dim"].get<int64_t>());
  for (size_t r = 0; r < j["ropes"].size(); ++r) fmt::print("  rope {}: {}\n", r, j["ropes"][r].dump());
  // Per layer: "full/rope 0" or "window W/rope r", runs of equal layers folded.
  std::string layers;
  const auto& la = j["layer_attention"];
  for (size_t l = 0; l < la.size();) {
    size_t end = l;
    while (end + 1 < la.size() && la[end + 1] == la[l]) ++end;
    const int64_t w = la[l]["window"].get<int64_t>();
    layers += fmt::format("{}{}{}: {} rope {}", layers.empty() ? "" : ", ", l, end > l ? fmt::format("-{}", end) : "",
                          w > 0 ? fmt::format("window {}", w) : std::string("full"), la[l]["rope"].get<int>());
    l = end + 1;
  }
  fmt::print("  layers {}\n", layers);
  fmt::print("  parameters {}  ({} file(s), {} bytes)\n", j["parameters"].get<int64_t>(), j["files"].get<size_t>(),
             j["checkpoint_bytes"].get<uint64_t>());
  for (const auto& [name, m] : j["memory"].items())
    fmt::print("  memory {}: weights {} + forward/capture at T={} {} + metrics {} = {}\n", name, gib(m["weights_bytes"]),
               m["forward_T"].get<int64_t>(), gib(m["activations_bytes"]), gib(m["metrics_bytes"]),
               gib(m["total_bytes"]));
  if (j["tokenizer"].is_null())
    fmt::print("  tokenizer: none (tokenizer.model missing)\n");
  else
    fmt::print("  tokenizer: {} pieces, BOS {}\n", j["tokenizer"]["pieces"].get<int64_t>(),
               j["tokenizer"]["bos_id"].get<int64_t>());
  fmt::print("  validation: ok (every header, offset, shape and dtype checked)\n");
}

void run_inspect(const InspectOptions& o) {
  const io::Checkpoint checkpoint = io::Checkpoint::open(o.model);
  if (o.ctx) check_ctx(*o.ctx, checkpoint.config);
  const auto j = describe(checkpoint, o.ctx.value_or(std::min<int64_t>(1024, checkpoint.config.max_positions)));
  if (o.json)
    fmt::print("{}\n", j.dump(2));
  else
    print_text(j);
}

void inspect_flags(CLI::App& cmd, InspectOptions& o) {
  cmd.add_option("--model", o.model, "Hugging Face checkpoint folder")->required();
  add_number_option(cmd, "--ctx", o.ctx, int64_t{1}, std::numeric_limits<int64_t>::max(),
                    "window length T for the memory estimate, at most the model's positions")
      ->default_str("1024, or the model's positions when fewer");
  cmd.add_flag("--json", o.json, "print JSON instead of text");
}

}  // namespace

void add_inspect(CLI::App& cmd, Action& action) { bind_command(cmd, action, inspect_flags, run_inspect); }

}  // namespace geoattn::cli
