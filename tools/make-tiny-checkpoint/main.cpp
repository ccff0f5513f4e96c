// make-tiny-checkpoint: writes a small random checkpoint in the exact Hugging Face layout
// (config.json + model.safetensors, or shards + model.safetensors.index.json) of any family of
// io/families.h, for tests of shapes the reference fixtures do not cover. The config comes from
// the family's row; tensor names and shapes from io::expected_tensors, the table the loader checks.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "geoattn/io/checkpoint.h"
#include "geoattn/io/families.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/shape.h"
#include "geoattn/util/worker_pool.h"

namespace fs = std::filesystem;
using namespace geoattn;

namespace {

struct Options {
  std::string family = "llama";
  int64_t layers = 2, hidden = 64, heads = 4, kv_heads = 0, head_dim = 0, ffn = 128, vocab = 256;
  int64_t window = 0, max_positions = 512;
  int shards = 1;
  std::string dtype = "F32";
  double std = 0.05;
  uint64_t seed = 0;
  bool bias = false;
  std::string tokenizer;
  std::string out;
};

// float -> bf16 / f16 bit patterns, round to nearest even (as torch converts).
uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

uint16_t to_f16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffffu;
  if (exp <= 0) {  // subnormal or zero (weights here are far from overflow)
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

// The config.json of a tiny `o.family` model in the Hub dialect, from the family's row: the
// keys its config class reads, at the sizes asked for.
nlohmann::ordered_json make_config(const Options& o, const io::FamilySpec& f) {
  nlohmann::ordered_json j;
  j["architectures"] = {std::string(f.architecture)};
  j["model_type"] = std::string(f.model_type);
  j["hidden_size"] = o.hidden;
  j["intermediate_size"] = o.ffn;
  j["num_hidden_layers"] = o.layers;
  j["num_attention_heads"] = o.heads;
  j["num_key_value_heads"] = o.kv_heads > 0 ? o.kv_heads : o.heads;
  j["head_dim"] = o.head_dim > 0 ? o.head_dim : o.hidden / o.heads;
  j["vocab_size"] = o.vocab;
  j["max_position_embeddings"] = o.max_positions;
  j["rms_norm_eps"] = 1e-6;
  j["rope_theta"] = f.default_rope_theta;
  if (f.bias == io::BiasRule::AttentionBias) j["attention_bias"] = o.bias;
  j["bos_token_id"] = f.scale_embeddings ? 2 : 1;  // Gemma's tokenizer: BOS 2, EOS 1
  j["eos_token_id"] = f.scale_embeddings ? 1 : 2;
  j["tie_word_embeddings"] = f.default_tied;
  j[f.activation_key] = arch::activation_name(f.default_activation);
  const auto window = o.window > 0 ? nlohmann::ordered_json(o.window) : nlohmann::ordered_json(nullptr);
  switch (f.windows) {
    case io::WindowRule::None: break;
    case io::WindowRule::AllLayers: j["sliding_window"] = window; break;
    case io::WindowRule::EvenLayers:
    case io::WindowRule::Pattern: j["sliding_window"] = o.window > 0 ? o.window : f.default_sliding_window; break;
    case io::WindowRule::FromLayer:
      j["use_sliding_window"] = o.window > 0;
      j["sliding_window"] = window;
      j["max_window_layers"] = 0;
      break;
  }
  if (f.gemma_attention != io::GemmaAttention::None) {
    j["query_pre_attn_scalar"] = j["head_dim"];
    j["attn_logit_softcapping"] = f.default_attn_softcap > 0 ? nlohmann::ordered_json(f.default_attn_softcap) : nullptr;
    j["final_logit_softcapping"] = f.default_final_softcap > 0 ? nlohmann::ordered_json(f.default_final_softcap) : nullptr;
  }
  if (f.local_rope) j["rope_local_base_freq"] = 10000.0, j["sliding_window_pattern"] = 6;
  j["torch_dtype"] = o.dtype == "F32" ? "float32" : o.dtype == "F16" ? "float16" : "bfloat16";
  return j;
}

// Random weights: norms near 1 (near 0 where the norm scales by 1 + w), the rest N(0, std).
// Tensor `index` draws from a stream of its own, seeded by (--seed, index): the tensors are made
// in parallel, the same for a seed on any number of threads (from one stream, 8 of the 7B
// shape's 32 layers took 67 s on the GPU machine).
std::vector<float> random_values(const io::ExpectedTensor& t, const Options& o, bool plus_one, uint64_t index) {
  const int64_t n = values_of(t.shape);
  std::seed_seq seq{static_cast<uint32_t>(o.seed), static_cast<uint32_t>(o.seed >> 32), static_cast<uint32_t>(index),
                    static_cast<uint32_t>(index >> 32)};
  std::mt19937_64 rng(seq);
  std::normal_distribution<float> normal(0.0f, static_cast<float>(o.std));
  const bool is_norm = t.shape.size() == 1 && t.name.find("norm") != std::string::npos;
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng) + (is_norm && !plus_one ? 1.0f : 0.0f);
  return v;
}

struct Encoded {
  io::TensorBlob blob;
  std::vector<float> f32;
  std::vector<uint16_t> u16;
};

Encoded encode(const io::ExpectedTensor& t, std::vector<float> values, const std::string& dtype) {
  Encoded e;
  e.blob.name = t.name;
  e.blob.shape = t.shape;
  if (dtype == "F32") {
    e.f32 = std::move(values);
    e.blob.dtype = io::Dtype::F32;
  } else {
    const bool bf16 = dtype == "BF16";
    e.u16.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i) e.u16[i] = bf16 ? to_bf16(values[i]) : to_f16(values[i]);
    e.blob.dtype = bf16 ? io::Dtype::BF16 : io::Dtype::F16;
  }
  return e;
}

void run(const Options& o) {
  const io::FamilySpec* family = nullptr;
  for (const auto& f : io::families())
    if (arch::family_name(f.family) == o.family) family = &f;
  if (!family) fail("--family {}: unknown", o.family);
  const int64_t kv_heads = o.kv_heads > 0 ? o.kv_heads : o.heads;
  if (o.heads % kv_heads != 0) fail("--kv-heads {} must divide --heads {}", kv_heads, o.heads);
  if (o.shards < 1) fail("--shards must be >= 1");

  // The tensors come from the config as geoattn reads it: one definition of each family.
  const auto config = make_config(o, *family);
  const arch::ModelConfig c = io::parse_config(nlohmann::json::parse(config.dump()), "make-tiny-checkpoint");
  fs::create_directories(o.out);
  write_file_atomic((fs::path(o.out) / "config.json").string(), [&](std::ostream& out) { out << config.dump(2) << "\n"; });

  const bool plus_one = c.norm_style == arch::NormStyle::OnePlusWeight;
  const auto expected = io::expected_tensors(c);
  std::vector<Encoded> tensors(expected.size());
  WorkerPool pool;  // one worker per hardware thread, a tensor at a time each
  pool.for_each_item(std::ssize(expected), [&](int64_t i, int) {
    const auto& t = expected[static_cast<size_t>(i)];
    tensors[static_cast<size_t>(i)] = encode(t, random_values(t, o, plus_one, static_cast<uint64_t>(i)), o.dtype);
  });
  for (auto& e : tensors) e.blob.data = e.f32.empty() ? static_cast<const void*>(e.u16.data()) : e.f32.data();

  const std::map<std::string, std::string> meta = {{"format", "pt"}, {"producer", "geoattn make-tiny-checkpoint"}};
  if (o.shards == 1) {
    std::vector<io::TensorBlob> blobs;
    for (const auto& e : tensors) blobs.push_back(e.blob);
    io::write_safetensors((fs::path(o.out) / "model.safetensors").string(), blobs, meta);
  } else {
    // Tensors dealt to shards in order, as transformers' save_pretrained splits them.
    nlohmann::ordered_json index;
    index["metadata"] = {{"total_size", 0}};
    const size_t per = (tensors.size() + o.shards - 1) / o.shards;
    for (int s = 0; s < o.shards; ++s) {
      const std::string file = fmt::format("model-{:05d}-of-{:05d}.safetensors", s + 1, o.shards);
      std::vector<io::TensorBlob> blobs;
      for (size_t i = s * per; i < std::min(tensors.size(), (s + 1) * per); ++i) {
        blobs.push_back(tensors[i].blob);
        index["weight_map"][tensors[i].blob.name] = file;
      }
      io::write_safetensors((fs::path(o.out) / file).string(), blobs, meta);
    }
    write_file_atomic((fs::path(o.out) / "model.safetensors.index.json").string(),
                      [&](std::ostream& out) { out << index.dump(2) << "\n"; });
  }
  if (!o.tokenizer.empty()) fs::copy_file(o.tokenizer, fs::path(o.out) / "tokenizer.model", fs::copy_options::overwrite_existing);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Write a tiny random checkpoint in Hugging Face layout", "make-tiny-checkpoint"};
  Options o;
  std::vector<std::string> names;
  for (const auto& f : io::families()) names.push_back(arch::family_name(f.family));
  app.add_option("--family", o.family, "model family: " + fmt::format("{}", fmt::join(names, ", ")))
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  app.add_option("--layers", o.layers)->capture_default_str();
  app.add_option("--hidden", o.hidden)->capture_default_str();
  app.add_option("--heads", o.heads)->capture_default_str();
  app.add_option("--kv-heads", o.kv_heads, "0: same as --heads")->capture_default_str();
  app.add_option("--head-dim", o.head_dim, "0: hidden / heads")->capture_default_str();
  app.add_option("--ffn", o.ffn)->capture_default_str();
  app.add_option("--vocab", o.vocab)->capture_default_str();
  app.add_option("--window", o.window, "sliding window of the windowed layers (0: none, or the family default)")
      ->capture_default_str();
  app.add_option("--max-positions", o.max_positions)->capture_default_str();
  app.add_option("--shards", o.shards, "number of safetensors shards (>1 writes an index)")->capture_default_str();
  app.add_option("--dtype", o.dtype)->check(CLI::IsMember({"F32", "F16", "BF16"}))->capture_default_str();
  app.add_option("--std", o.std, "standard deviation of the random weights")->capture_default_str();
  app.add_option("--seed", o.seed)->capture_default_str();
  app.add_flag("--bias", o.bias, "attention_bias: q/k/v/o biases (families that read it)");
  app.add_option("--tokenizer", o.tokenizer, "copy this tokenizer.model into the checkpoint")->check(CLI::ExistingFile);
  app.add_option("--out", o.out, "output folder")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make-tiny-checkpoint: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
