#include "geoattn/io/checkpoint.h"

#include "geoattn/arch/tensors.h"

#include <filesystem>
#include <fstream>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "geoattn/io/tokenizer.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::io {

namespace fs = std::filesystem;
using arch::Activation;
using arch::Family;
using arch::ModelConfig;
using nlohmann::json;

namespace {

// SPEC §8, one row per family. Defaults are those of transformers' config classes.
const FamilySpec kFamilies[] = {
    {"LlamaForCausalLM", "llama", Family::Llama, "hidden_act", Activation::SiLU,
     /*norm_plus_one=*/false, /*scale_embeddings=*/false, /*default_tied=*/false,
     /*has_sliding_window=*/false, /*default_sliding_window=*/0, 1e-6, 2048},
    {"MistralForCausalLM", "mistral", Family::Mistral, "hidden_act", Activation::SiLU,
     false, false, false, true, 4096, 1e-6, 4096 * 32},
    // Gemma reads `hidden_activation` and uses the tanh GELU when it is absent, whatever
    // `hidden_act` says (the original Gemma behaviour).
    {"GemmaForCausalLM", "gemma", Family::Gemma, "hidden_activation", Activation::GeluTanh,
     true, true, true, false, 0, 1e-6, 8192},
};

struct ActivationName {
  std::string_view name;
  Activation act;
};
constexpr ActivationName kActivations[] = {
    {"silu", Activation::SiLU},
    {"swish", Activation::SiLU},
    {"gelu_pytorch_tanh", Activation::GeluTanh},
    {"gelu_new", Activation::GeluTanh},
    {"gelu", Activation::Gelu},
};

std::string optional_string(const json& config, const char* key, const std::string& label) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return {};
  if (!it->is_string()) fail("{}: field '{}' must be a string", label, key);
  return it->get<std::string>();
}

const FamilySpec& find_family(const json& config, const std::string& label) {
  std::string arch;
  if (auto it = config.find("architectures"); it != config.end() && it->is_array() && !it->empty() &&
                                              (*it)[0].is_string())
    arch = (*it)[0].get<std::string>();
  const std::string type = optional_string(config, "model_type", label);
  for (const auto& f : kFamilies)
    if (arch == f.architecture || (arch.empty() && type == f.model_type)) return f;
  if (arch.empty() && type.empty()) fail("{}: missing field 'architectures'", label);
  fail("{}: unknown architecture '{}' (geoattn runs LlamaForCausalLM, MistralForCausalLM, GemmaForCausalLM)",
       label, arch.empty() ? type : arch);
}

int64_t required_int(const json& config, const char* key, const std::string& label) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) fail("{}: missing field '{}'", label, key);
  if (!it->is_number_integer() || it->get<int64_t>() <= 0)
    fail("{}: field '{}' must be a positive integer", label, key);
  return it->get<int64_t>();
}

int64_t optional_int(const json& config, const char* key, int64_t fallback, const std::string& label) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) fail("{}: field '{}' must be an integer", label, key);
  return it->get<int64_t>();
}

double optional_number(const json& config, const char* key, double fallback, const std::string& label) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_number()) fail("{}: field '{}' must be a number", label, key);
  return it->get<double>();
}

bool optional_bool(const json& config, const char* key, bool fallback, const std::string& label) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail("{}: field '{}' must be true or false", label, key);
  return it->get<bool>();
}

Activation activation_of(const json& config, const FamilySpec& spec, const std::string& label) {
  auto it = config.find(spec.activation_key);
  if (it == config.end() || it->is_null()) return spec.default_activation;
  if (!it->is_string()) fail("{}: field '{}' must be a string", label, spec.activation_key);
  const std::string name = it->get<std::string>();
  for (const auto& a : kActivations)
    if (a.name == name) return a.act;
  fail("{}: unsupported activation '{}' in '{}'", label, name, spec.activation_key);
}

// eos_token_id may be a list in newer configs; the first one is the EOS.
int64_t token_id(const json& config, const char* key) {
  auto it = config.find(key);
  if (it == config.end()) return -1;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_array() && !it->empty() && (*it)[0].is_number_integer()) return (*it)[0].get<int64_t>();
  return -1;
}

// Limits on what a config.json may ask for (real models: ~100 layers, ~1e12 parameters).
constexpr int64_t kMaxLayers = 1 << 16;
constexpr long double kMaxParameters = 0x1p50L;


}  // namespace

const FamilySpec& family_spec(Family family) {
  for (const auto& f : kFamilies)
    if (f.family == family) return f;
  fail("internal: no family row");
}

ModelConfig parse_config(const json& config, const std::string& label) {
  if (!config.is_object()) fail("{}: not a JSON object", label);
  const FamilySpec& spec = find_family(config, label);
  ModelConfig c;
  c.architecture = std::string(spec.architecture);
  c.family = spec.family;
  c.hidden = required_int(config, "hidden_size", label);
  c.ffn = required_int(config, "intermediate_size", label);
  c.n_layers = required_int(config, "num_hidden_layers", label);
  c.n_heads = required_int(config, "num_attention_heads", label);
  c.vocab = required_int(config, "vocab_size", label);
  c.n_kv_heads = optional_int(config, "num_key_value_heads", c.n_heads, label);
  c.head_dim = optional_int(config, "head_dim", c.hidden / c.n_heads, label);
  c.max_positions = optional_int(config, "max_position_embeddings", spec.default_max_positions, label);
  c.rope_theta = optional_number(config, "rope_theta", 10000.0, label);
  c.rms_eps = optional_number(config, "rms_norm_eps", spec.default_rms_eps, label);
  c.act = activation_of(config, spec, label);
  c.tie_embeddings = optional_bool(config, "tie_word_embeddings", spec.default_tied, label);
  c.attention_bias = optional_bool(config, "attention_bias", false, label);
  c.norm_plus_one = spec.norm_plus_one;
  c.scale_embeddings = spec.scale_embeddings;
  // sliding_window: absent -> the family default; null -> no window (as transformers reads it).
  if (spec.has_sliding_window)
    c.sliding_window = !config.contains("sliding_window") ? spec.default_sliding_window
                                                           : optional_int(config, "sliding_window", 0, label);
  c.bos_id = token_id(config, "bos_token_id");
  c.eos_id = token_id(config, "eos_token_id");
  c.torch_dtype = optional_string(config, "torch_dtype", label);

  if (c.n_kv_heads <= 0 || c.n_heads % c.n_kv_heads != 0)
    fail("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}", label, c.n_heads, c.n_kv_heads);
  if (c.head_dim <= 0 || c.head_dim % 2 != 0) fail("{}: head_dim {} must be a positive even number (RoPE)", label, c.head_dim);
  if (c.sliding_window < 0) fail("{}: sliding_window must be >= 0", label);
  if (c.rope_theta <= 0) fail("{}: rope_theta must be positive", label);
  if (!(c.rms_eps > 0)) fail("{}: rms_norm_eps must be positive", label);
  if (auto it = config.find("rope_scaling"); it != config.end() && !it->is_null())
    fail("{}: rope_scaling is not supported (LLaMA-2, Mistral and Gemma use none)", label);
  // Sizes far past any real checkpoint are refused before anything is sized from them: the
  // tensor list has ~13 entries per layer, and ModelConfig::parameter_count() must not overflow
  // (every one of its terms is at most the total checked here, in floating point).
  if (c.n_layers > kMaxLayers) fail("{}: num_hidden_layers {} is above {}", label, c.n_layers, kMaxLayers);
  const long double q_dim = static_cast<long double>(c.n_heads) * c.head_dim,
                    kv_dim = static_cast<long double>(c.n_kv_heads) * c.head_dim, hidden = c.hidden;
  const long double per_layer = 2 * hidden * q_dim + 2 * hidden * kv_dim + q_dim + 2 * kv_dim + 3 * hidden * c.ffn +
                                3 * hidden;
  const long double parameters = c.n_layers * per_layer + 2 * static_cast<long double>(c.vocab) * hidden + hidden;
  if (!(parameters <= kMaxParameters))
    fail("{}: the sizes imply {:.3g} parameters, above the limit of {:.3g}", label, static_cast<double>(parameters),
         static_cast<double>(kMaxParameters));
  return c;
}

ModelConfig load_config(const std::string& model_dir) {
  const std::string path = (fs::path(model_dir) / "config.json").string();
  std::ifstream in(path);
  if (!in) fail("{}: cannot open (is --model a Hugging Face checkpoint folder?)", path);
  return parse_config(parse_json_or_fail(path, in), path);
}

std::vector<ExpectedTensor> expected_tensors(const ModelConfig& c) {
  using arch::kTensors;
  std::vector<ExpectedTensor> out;
  auto add = [&](const arch::TensorSpec& spec, int64_t layer) {
    if (arch::is_present(spec, c)) out.push_back({arch::tensor_name(spec, layer), arch::tensor_shape(spec, c)});
  };
  bool layers_done = false;
  for (const auto& spec : kTensors) {
    if (!spec.per_layer) {
      add(spec, 0);
    } else if (!layers_done) {  // the per-layer rows, layer by layer
      for (int64_t l = 0; l < c.n_layers; ++l)
        for (const auto& row : kTensors)
          if (row.per_layer) add(row, l);
      layers_done = true;
    }
  }
  return out;
}

void validate_tensors(const ModelConfig& config, const TensorStore& store) {
  for (const auto& want : expected_tensors(config)) {
    const auto entry = store.at(want.name);
    const Dtype dt = entry.info->dtype;
    if (dt != Dtype::F32 && dt != Dtype::F16 && dt != Dtype::BF16)
      fail("{}: tensor '{}' has dtype {}; expected F32, F16 or BF16", entry.file->path(), want.name, dtype_name(dt));
    if (entry.info->shape != want.shape)
      fail("{}: tensor '{}' has shape [{}] but config.json implies [{}]", entry.file->path(), want.name,
           fmt::join(entry.info->shape, ","), fmt::join(want.shape, ","));
  }
}

Checkpoint Checkpoint::open(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail("{}: not a folder (--model takes a Hugging Face checkpoint folder)", dir);
  ModelConfig config = load_config(dir);
  TensorStore tensors = TensorStore::open(dir);
  validate_tensors(config, tensors);
  const fs::path tok = fs::path(dir) / "tokenizer.model";
  return Checkpoint{dir, std::move(config), std::move(tensors), fs::exists(tok, ec) ? tok.string() : std::string()};
}

void check_tokenizer_matches(const Tokenizer& tokenizer, const arch::ModelConfig& config) {
  if (tokenizer.vocab_size() > config.vocab)
    fail("{}: tokenizer has {} pieces but the model's vocab_size is {} (wrong tokenizer.model?)", tokenizer.path(),
         tokenizer.vocab_size(), config.vocab);
  if (config.bos_id >= 0 && tokenizer.bos_id() >= 0 && tokenizer.bos_id() != config.bos_id)
    fail("{}: tokenizer BOS id is {} but config.json says bos_token_id {} (wrong tokenizer.model?)", tokenizer.path(),
         tokenizer.bos_id(), config.bos_id);
}

}  // namespace geoattn::io
