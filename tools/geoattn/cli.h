#pragma once
// What the subcommands share: run settings (device, dtype, threads), token input, query
// positions. Each subcommand lives in its own cmd_*.cpp and registers itself here.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "geoattn/model/capture_file.h"
#include "geoattn/io/checkpoint.h"
#include "geoattn/io/windows.h"

namespace geoattn::cli {

// A subcommand: its CLI11 options are bound in `add`, which returns the action to run.
using Action = std::function<void()>;
void add_capture(CLI::App& app, Action& action);
void add_inspect(CLI::App& app, Action& action);

struct RunOptions {
  std::string device = "cpu";  // cpu | cuda | cuda:N
  std::string dtype = "auto";  // auto (bf16 on CUDA, fp32 on CPU) | fp32 | bf16 | fp16
  int threads = 0;             // 0: all cores
};
void add_run_options(CLI::App& cmd, RunOptions& options);
torch::Device resolve_device(const std::string& device);
torch::Dtype resolve_dtype(const std::string& dtype);
// --dtype with auto resolved for --device: the name recorded in the JSON.
std::string effective_dtype(const RunOptions& run);

// Where the tokens come from: literal text, literal ids, or data shards.
struct InputOptions {
  std::string text;
  std::string ids;
  std::vector<std::string> data;
  int64_t ctx = 1024;
  std::string window = "doc";   // doc | stream
  std::string offset = "start"; // start | hashed
  uint64_t seed = 0;
  int64_t max_windows = -1;
};
void add_input_options(CLI::App& cmd, InputOptions& options, bool data_required);
// Windows of token ids for the checkpoint (tokenising text with its tokenizer.model).
std::vector<io::Window> read_windows(const InputOptions& options, const io::Checkpoint& checkpoint);

// "last" | "all" | "i,j,..." (negative counts from the end) -> sorted positions in 0..T-1.
std::vector<int64_t> parse_queries(const std::string& spec, int64_t T);
// A JSON file: geoattn::Error "<path>: cannot open" / "<path>: not valid JSON" (parse_json_or_fail).
nlohmann::ordered_json read_json(const std::string& path);  // keys in file order
// --n at window length T (metrics/grid.h), its errors naming the flag.
std::vector<int64_t> parse_grid_flag(const std::string& n, int64_t T);

// An id's text: the checkpoint's sentencepiece decoding of it alone ("<s>" for BOS), or its
// tokenizer.json vocabulary entry; "<id>" when neither has it.
std::function<std::string(int64_t)> token_text_for(const io::Checkpoint& checkpoint);

// The result's "data": where the windows came from (files, mode, offset, seed, max_windows,
// shard) and how many there are.
nlohmann::ordered_json data_info(const InputOptions& input, const std::string& shard, int64_t windows, int64_t T);

// --shard i/n -> {i, n}: geoattn::Error naming the flag unless 0 <= i < n.
std::pair<int64_t, int64_t> parse_shard(const std::string& spec);

// "1,2,3" -> ids
std::vector<int64_t> parse_id_list(const std::string& text, const std::string& flag);

}  // namespace geoattn::cli

#include <optional>

#include "geoattn/pipeline/results.h"

namespace geoattn::cli {
void add_measure(CLI::App& app, Action& action);
void add_metrics(CLI::App& app, Action& action);
void add_merge(CLI::App& app, Action& action);
void add_bench(CLI::App& app, Action& action);
void add_bounds(CLI::App& app, Action& action);
void add_taxonomy(CLI::App& app, Action& action);
void add_sinks(CLI::App& app, Action& action);

// The pipeline's pieces the commands call by their short names.
using pipeline::capture_model_info;
using pipeline::finalize;
using pipeline::Finalized;
using pipeline::model_info;
using pipeline::StageTimes;
using pipeline::state_path;
using pipeline::write_results;
}  // namespace geoattn::cli
