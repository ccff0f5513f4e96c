#include "cli.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "geoattn/io/tokenizer.h"
#include "geoattn/pipeline/shard_set.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::cli {

void add_device_option(CLI::App& cmd, arch::Device& device) {
  add_parsed_option(cmd, "--device", device, arch::parse_device, "one of cpu, cuda or cuda:N", arch::device_name(device),
                    "cpu, cuda or cuda:N");
}

void add_run_options(CLI::App& cmd, RunOptions& o) {
  add_device_option(cmd, o.device);
  add_enum_option(cmd, "--dtype", o.dtype, arch::kForwardDtypeNames,
                  "forward dtype: auto (bf16 on CUDA, fp32 on CPU), fp32, bf16 or fp16 (metrics are always float64)");
  add_threads_option(cmd, o.threads);
}

void add_threads_option(CLI::App& cmd, int& threads) {
  add_number_option(cmd, "--threads", threads, 0, kMaxWorkerThreads, "CPU threads (0: all cores)");
}

void refuse_unused(const GivenFlags& given, const std::set<std::string>& used, const std::string& mode) {
  for (const std::string& flag : given.names)
    if (!used.count(flag)) refuse_flag(flag, mode);
}

void refuse_flag(const std::string& flag, const std::string& mode) { fail("{}: not used {}: leave it out", flag, mode); }

namespace {
bool literal(const InputOptions& o) { return !o.ids.empty() || !o.text.empty(); }
// The window flags each way of giving tokens ignores (SPEC §7: offsets place doc mode's windows;
// stream mode cuts them back to back).
constexpr UnusedFlag<InputOptions> kUnusedInputFlags[] = {
    {"--ctx", "with --ids (the ids are the window, as given)", [](const InputOptions& o) { return !o.ids.empty(); }},
    {"--window", "with --ids or --text (one window, as given)", literal},
    {"--offset", "with --ids or --text (one window, as given)", literal},
    {"--max-windows", "with --ids or --text (one window, as given)", literal},
    {"--offset", "with --window stream (offsets place doc mode's windows; stream mode cuts them back to back)",
     [](const InputOptions& o) { return o.window == io::WindowMode::Stream; }},
    {"--seed", "without --offset hashed (the hashed offsets are all this command draws)",
     [](const InputOptions& o) { return !o.seed_draws_more && o.offset != io::OffsetMode::Hashed; }},
};
}  // namespace

void refuse_unused_input_flags(const InputOptions& o) { refuse_unused(o.given, o, kUnusedInputFlags); }

void check_outputs_of(const std::string& out, const std::vector<std::string>& inputs) {
  check_outputs({out, report::arrays_path(out), state_path(out), means_path(out)}, inputs);
  hold_output(out);  // a second run onto `out` meanwhile fails at once, naming it
}

void add_output_options(CLI::App& cmd, std::string& out, bool& quiet, const std::string& what) {
  cmd.add_option("--out", out, what)->required();
  cmd.add_flag("--quiet", quiet, "no progress line");
}

void check_distinct_files(const std::vector<std::string>& paths, const std::string& flag) {
  for (size_t i = 0; i < paths.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (std::filesystem::equivalent(paths[i], paths[j], ec))
        fail("{}: {} is given twice (as {} too): each file is read once", flag, paths[i], paths[j]);
    }
}

nlohmann::ordered_json read_json(const std::string& path) {
  return read_json_file<nlohmann::ordered_json>(path);
}

void add_input_options(CLI::App& cmd, InputOptions& o, bool data_only) {
  auto* data = cmd.add_option("--data", o.data, "shards: .txt, .jsonl, folder, urlsf_subsetNN.tar, .bin")->check(CLI::ExistingPath);
  if (data_only) {
    data->required();
  } else {
    auto* text = cmd.add_option("--text", o.text, "literal text (BOS is prepended)");
    auto* ids = cmd.add_option("--ids", o.ids, "literal token ids, e.g. 1,450,4996 (used as given)");
    text->excludes(ids)->excludes(data);
    ids->excludes(data);
  }
  add_number_option(cmd, "--ctx", o.ctx, int64_t{1}, std::numeric_limits<int64_t>::max(),
                    "window length T in tokens, at most the model's positions (--data; --text truncates to it; not with --ids)");
  add_enum_option(cmd, "--window", o.window, io::kWindowModeNames,
                  "doc: BOS + the start of each document; stream: documents concatenated");
  add_enum_option(cmd, "--offset", o.offset, io::kOffsetModeNames,
                  "doc mode (--data): start, or hashed (a seeded offset into each document)");
  add_number_option(cmd, "--seed", o.seed, uint64_t{0}, std::numeric_limits<uint64_t>::max(),
                    "seed of hashed offsets, the random-selection controls and the bootstrap");
  add_number_option(cmd, "--max-windows", o.max_windows, int64_t{-1}, std::numeric_limits<int64_t>::max(),
                    "stop after K windows (-1: all)");
}

std::vector<int64_t> parse_id_list(const std::string& text, const std::string& flag) {
  const auto ids = parse_list(text, [](const std::string& item) { return parse_integer<int64_t>(item); });
  if (!ids) fail("{}: '{}' is not a list of integers like 1,2,3 (no spaces, no empty item)", flag, echoed(text));
  return *ids;
}

namespace {
// Text needs the checkpoint's sentencepiece tokenizer; a model with another kind (tokenizer.json:
// byte-level BPE) reads text tokenised beforehand (scripts/tokenize_docs.py -> X.bin).
[[noreturn]] void fail_no_tokenizer(const io::Checkpoint& checkpoint) {
  const bool has_json = std::filesystem::exists(std::filesystem::path(checkpoint.dir) / "tokenizer.json");
  if (has_json)
    fail("{}: no tokenizer.model (its tokenizer.json is not sentencepiece): tokenise the text first, "
         "scripts/tokenize_docs.py --tokenizer {}/tokenizer.json SHARD... --out X.bin, then --data X.bin",
         checkpoint.dir, checkpoint.dir);
  fail("{}: no tokenizer.model in the checkpoint folder: give token ids (--ids, or --data X.bin)", checkpoint.dir);
}

std::unique_ptr<io::Tokenizer> tokenizer_for(const io::Checkpoint& checkpoint) {
  if (checkpoint.tokenizer_path.empty()) return nullptr;
  auto tokenizer = io::Tokenizer::load(checkpoint.tokenizer_path);
  io::check_tokenizer_matches(*tokenizer, checkpoint.config);
  return tokenizer;
}

int64_t bos_of(const io::Checkpoint& checkpoint, const io::Tokenizer* tokenizer) {
  if (checkpoint.config.bos_id >= 0) return checkpoint.config.bos_id;
  if (tokenizer && tokenizer->bos_id() >= 0) return tokenizer->bos_id();
  fail("{}: config.json has no bos_token_id", checkpoint.dir);
}
}  // namespace

void check_ctx(int64_t ctx, const arch::ModelConfig& config) {
  if (ctx < 1) fail("--ctx {}: must be at least 1", ctx);
  if (ctx > config.max_positions)
    fail("--ctx {}: longer than the model's {} positions (max_position_embeddings)", ctx, config.max_positions);
}

std::vector<io::Window> read_windows(const InputOptions& o, const io::Checkpoint& checkpoint) {
  refuse_unused_input_flags(o);
  if (o.max_windows == 0) fail("--max-windows 0: give -1 (all) or at least 1");
  if (!o.ids.empty()) {
    io::Window window{"--ids", parse_id_list(o.ids, "--ids")};
    if (static_cast<int64_t>(window.ids.size()) > checkpoint.config.max_positions)
      fail("--ids: {} ids, more than the model's {} positions", window.ids.size(), checkpoint.config.max_positions);
    for (int64_t id : window.ids)
      if (id < 0 || id >= checkpoint.config.vocab)
        fail("--ids: token id {} is outside the model's vocabulary 0..{}", id, checkpoint.config.vocab - 1);
    return {window};
  }
  check_distinct_files(o.data, "--data");

  auto tokenizer = tokenizer_for(checkpoint);  // null without tokenizer.model: token shards only
  const int64_t bos = bos_of(checkpoint, tokenizer.get());
  if (!o.text.empty() || o.data.empty()) {
    if (o.text.empty()) fail("no input: give --text, --ids or --data");
    if (o.given.has("--ctx")) check_ctx(o.ctx, checkpoint.config);  // the default only cuts
    if (!tokenizer) fail_no_tokenizer(checkpoint);
    std::vector<int64_t> ids = {bos};
    for (int64_t id : tokenizer->encode(o.text)) ids.push_back(id);
    if (static_cast<int64_t>(ids.size()) > o.ctx) ids.resize(o.ctx);
    if (static_cast<int64_t>(ids.size()) > checkpoint.config.max_positions)
      fail("--text: {} tokens, more than the model's {} positions: give a --ctx of at most {}", ids.size(),
           checkpoint.config.max_positions, checkpoint.config.max_positions);
    return {io::Window{"--text", std::move(ids)}};
  }
  check_ctx(o.ctx, checkpoint.config);
  io::WindowOptions w;
  w.T = o.ctx;
  w.mode = o.window;
  w.offset = o.offset;
  w.seed = o.seed;
  w.max_windows = o.max_windows;
  w.bos_id = bos;
  w.vocab = checkpoint.config.vocab;  // a token shard's ids, checked where the file is known
  auto windows = io::make_windows(o.data, w, [&](const std::string& text) {
    if (!tokenizer) fail_no_tokenizer(checkpoint);
    return tokenizer->encode(text);
  });
  // Token shards (.bin) carry ids of their own tokenizer: they must fit this model's vocabulary.
  for (const auto& win : windows)
    for (int64_t id : win.ids)
      if (id < 0 || id >= checkpoint.config.vocab)
        fail("{}: token id {} is outside the model's vocabulary 0..{} (a token shard of another tokenizer?)", win.doc_id,
             id, checkpoint.config.vocab - 1);
  return windows;
}

}  // namespace geoattn::cli
