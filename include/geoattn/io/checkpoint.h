#pragma once
// A Hugging Face checkpoint folder: config.json -> ModelConfig through one table per model
// family (llama.cpp style: data, not if-ladders), tensors through TensorStore, and the
// tokenizer.model beside them. No LibTorch.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "geoattn/io/safetensors.h"
#include "geoattn/arch/config.h"

namespace geoattn::io {

// Everything that differs between the families, in one row each (SPEC §8).
struct FamilySpec {
  std::string_view architecture;  // config "architectures"[0]
  std::string_view model_type;    // config "model_type"
  arch::Family family;
  const char* activation_key;           // the config field that names the MLP activation
  arch::Activation default_activation; // when that field is absent
  bool norm_plus_one;       // RMSNorm scales by (1 + w)
  bool scale_embeddings;    // embeddings * sqrt(hidden), in the run dtype
  bool default_tied;        // tie_word_embeddings when the config does not say
  bool has_sliding_window;  // reads "sliding_window"
  int64_t default_sliding_window;
  double default_rms_eps;
  int64_t default_max_positions;
};

const FamilySpec& family_spec(arch::Family family);

// config.json (already parsed) -> ModelConfig. `label` names the file in errors.
// Required: architectures (or model_type), hidden_size, intermediate_size,
// num_hidden_layers, num_attention_heads, vocab_size. The rest default as transformers does.
arch::ModelConfig parse_config(const nlohmann::json& config, const std::string& label);
arch::ModelConfig load_config(const std::string& model_dir);

struct ExpectedTensor {
  std::string name;
  std::vector<int64_t> shape;
};
// Every tensor the forward pass reads, with the shape the config implies (arch/tensors.h:
// model tensors before the layers, each layer's, then the rest).
std::vector<ExpectedTensor> expected_tensors(const arch::ModelConfig& config);

// Every expected tensor present, of a float dtype (F32/F16/BF16), of the expected shape.
void validate_tensors(const arch::ModelConfig& config, const TensorStore& store);

struct Checkpoint {
  std::string dir;
  arch::ModelConfig config;
  TensorStore tensors;
  std::string tokenizer_path;  // "" when the folder has no tokenizer.model

  // Loads and fully validates config.json and the safetensors.
  static Checkpoint open(const std::string& dir);
};

}  // namespace geoattn::io

namespace geoattn::io {
class Tokenizer;
// A tokenizer that does not fit the model is refused: ids past the vocabulary, or a BOS id
// other than the config's bos_token_id.
void check_tokenizer_matches(const Tokenizer& tokenizer, const arch::ModelConfig& config);
}  // namespace geoattn::io
