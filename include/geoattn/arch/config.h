#pragma once
// What a checkpoint's config.json says, reduced to what changes the math (llama2.c's Config).
// Pure C++; filled by io/checkpoint.h from the per-family tables.
#include <cstdint>
#include <string>

namespace geoattn::arch {

enum class Family { Llama, Mistral, Gemma };
enum class Activation { SiLU, GeluTanh, Gelu };

struct ModelConfig {
  std::string architecture;  // "LlamaForCausalLM", ...
  Family family = Family::Llama;
  int64_t n_layers = 0;
  int64_t hidden = 0;        // hidden_size
  int64_t n_heads = 0;       // num_attention_heads
  int64_t n_kv_heads = 0;    // num_key_value_heads (GQA/MQA when < n_heads)
  int64_t head_dim = 0;      // head_dim, else hidden / n_heads
  int64_t ffn = 0;           // intermediate_size
  int64_t vocab = 0;         // vocab_size
  int64_t max_positions = 0; // max_position_embeddings
  double rope_theta = 10000.0;
  double rms_eps = 1e-6;
  int64_t sliding_window = 0;  // 0: none; else query i sees keys i-W+1..i (SPEC §8)
  Activation act = Activation::SiLU;
  bool tie_embeddings = false;
  bool attention_bias = false;
  bool norm_plus_one = false;     // Gemma: RMSNorm scales by (1 + w)
  bool scale_embeddings = false;  // Gemma: embeddings * sqrt(hidden)
  int64_t bos_id = -1, eos_id = -1;
  std::string torch_dtype;        // as the checkpoint declares it

  int64_t group() const { return n_heads / n_kv_heads; }  // query heads per KV head
  int64_t kv_head_of(int64_t head) const;
  int64_t parameter_count() const;  // from the tensor table (tensors.h)
};

// SPEC §1 (GQA/MQA): query head `head` of `heads` reads KV head head / (heads / kv_heads).
constexpr int64_t kv_head_of(int64_t head, int64_t heads, int64_t kv_heads) { return head / (heads / kv_heads); }
inline int64_t ModelConfig::kv_head_of(int64_t head) const { return arch::kv_head_of(head, n_heads, n_kv_heads); }

const char* family_name(Family family);
const char* activation_name(Activation act);

}  // namespace geoattn::arch
