// make-tiny-checkpoint: writes a small random checkpoint in the exact Hugging Face layout
// (config.json + model.safetensors, or shards + model.safetensors.index.json) of a LLaMA,
// Mistral or Gemma shape, for tests of shapes the reference fixtures do not cover.
// Tensor names and shapes come from io::expected_tensors, the table the loader checks.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "geoattn/io/checkpoint.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"

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

nlohmann::ordered_json make_config(const Options& o, const arch::ModelConfig& c) {
  static const std::map<std::string, std::string> kArch = {
      {"llama", "LlamaForCausalLM"}, {"mistral", "MistralForCausalLM"}, {"gemma", "GemmaForCausalLM"}};
  nlohmann::ordered_json j;
  j["architectures"] = {kArch.at(o.family)};
  j["model_type"] = o.family;
  j["hidden_size"] = c.hidden;
  j["intermediate_size"] = c.ffn;
  j["num_hidden_layers"] = c.n_layers;
  j["num_attention_heads"] = c.n_heads;
  j["num_key_value_heads"] = c.n_kv_heads;
  j["head_dim"] = c.head_dim;
  j["vocab_size"] = c.vocab;
  j["max_position_embeddings"] = o.max_positions;
  j["rms_norm_eps"] = 1e-6;
  j["rope_theta"] = 10000.0;
  j["attention_bias"] = o.bias;
  j["bos_token_id"] = o.family == "gemma" ? 2 : 1;
  j["eos_token_id"] = o.family == "gemma" ? 1 : 2;
  j["tie_word_embeddings"] = o.family == "gemma";
  if (o.family == "gemma") {
    j["hidden_act"] = "gelu";
    j["hidden_activation"] = "gelu_pytorch_tanh";
  } else {
    j["hidden_act"] = "silu";
  }
  if (o.family == "mistral") j["sliding_window"] = o.window > 0 ? nlohmann::ordered_json(o.window) : nullptr;
  j["torch_dtype"] = o.dtype == "F32" ? "float32" : o.dtype == "F16" ? "float16" : "bfloat16";
  return j;
}

// Random weights: norms near 1 (near 0 for Gemma's 1 + w), the rest N(0, std).
std::vector<float> random_values(const io::ExpectedTensor& t, const Options& o, std::mt19937_64& rng) {
  int64_t n = 1;
  for (int64_t d : t.shape) n *= d;
  std::normal_distribution<float> normal(0.0f, static_cast<float>(o.std));
  const bool is_norm = t.shape.size() == 1 && t.name.find("norm") != std::string::npos;
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng) + (is_norm && o.family != "gemma" ? 1.0f : 0.0f);
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
    for (float x : values) e.u16.push_back(dtype == "BF16" ? to_bf16(x) : to_f16(x));
    e.blob.dtype = dtype == "BF16" ? io::Dtype::BF16 : io::Dtype::F16;
  }
  return e;
}

void run(const Options& o) {
  arch::ModelConfig c;
  c.family = o.family == "gemma" ? arch::Family::Gemma : o.family == "mistral" ? arch::Family::Mistral : arch::Family::Llama;
  c.n_layers = o.layers;
  c.hidden = o.hidden;
  c.n_heads = o.heads;
  c.n_kv_heads = o.kv_heads > 0 ? o.kv_heads : o.heads;
  c.head_dim = o.head_dim > 0 ? o.head_dim : o.hidden / o.heads;
  c.ffn = o.ffn;
  c.vocab = o.vocab;
  c.attention_bias = o.bias;
  c.tie_embeddings = o.family == "gemma";
  if (c.n_heads % c.n_kv_heads != 0) fail("--kv-heads {} must divide --heads {}", c.n_kv_heads, c.n_heads);
  if (o.shards < 1) fail("--shards must be >= 1");

  fs::create_directories(o.out);
  const auto config = make_config(o, c);
  write_file_atomic((fs::path(o.out) / "config.json").string(), [&](std::ostream& out) { out << config.dump(2) << "\n"; });

  std::mt19937_64 rng(o.seed);
  std::vector<Encoded> tensors;
  for (const auto& t : io::expected_tensors(c)) tensors.push_back(encode(t, random_values(t, o, rng), o.dtype));
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
  app.add_option("--family", o.family, "llama, mistral or gemma")->check(CLI::IsMember({"llama", "mistral", "gemma"}))->capture_default_str();
  app.add_option("--layers", o.layers)->capture_default_str();
  app.add_option("--hidden", o.hidden)->capture_default_str();
  app.add_option("--heads", o.heads)->capture_default_str();
  app.add_option("--kv-heads", o.kv_heads, "0: same as --heads")->capture_default_str();
  app.add_option("--head-dim", o.head_dim, "0: hidden / heads")->capture_default_str();
  app.add_option("--ffn", o.ffn)->capture_default_str();
  app.add_option("--vocab", o.vocab)->capture_default_str();
  app.add_option("--window", o.window, "mistral sliding window (0: none)")->capture_default_str();
  app.add_option("--max-positions", o.max_positions)->capture_default_str();
  app.add_option("--shards", o.shards, "number of safetensors shards (>1 writes an index)")->capture_default_str();
  app.add_option("--dtype", o.dtype)->check(CLI::IsMember({"F32", "F16", "BF16"}))->capture_default_str();
  app.add_option("--std", o.std, "standard deviation of the random weights")->capture_default_str();
  app.add_option("--seed", o.seed)->capture_default_str();
  app.add_flag("--bias", o.bias, "attention_bias: q/k/v/o biases");
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
