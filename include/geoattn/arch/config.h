#pragma once
// What a checkpoint's config.json says, reduced to what changes the math (llama2.c's Config).
// Pure C++; filled by io/config.h from the per-family table (io/families.h). Every mechanism
// is a field or a per-layer table here, never a branch on the family (SPEC §8).
#include <cstdint>
#include <string>
#include <vector>

namespace geoattn::arch {

enum class Family { Llama, Mistral, Gemma, Gemma2, Gemma3, Qwen2, Qwen3, Phi3, Olmo2 };
enum class Activation { SiLU, GeluTanh, Gelu };

// How an RMSNorm applies its weight w to x^ = x / sqrt(mean(x^2) + eps) (computed in float32),
// with the cast back to the run dtype where each family's Hugging Face code puts it.
enum class NormStyle {
  WeightAfterCast,   // LLaMA, Mistral, Qwen, Phi-3: w * x^.to(dtype)
  WeightBeforeCast,  // OLMo-2: (w * x^).to(dtype)
  OnePlusWeight,     // Gemma 1/2/3: (x^ * (1 + w)).to(dtype)
};

// Where the norms of a block stand. f is the attention or the MLP.
enum class NormLayout {
  Pre,       // x + f(norm(x))                   LLaMA, Mistral, Qwen, Phi-3, Gemma 1
  Sandwich,  // x + norm_post(f(norm_pre(x)))    Gemma-2, Gemma-3
  Post,      // x + norm_post(f(x))              OLMo-2
};

// RMSNorm of q and k before RoPE.
enum class QkNorm {
  None,
  PerHead,  // over head_dim, one weight shared by the heads (Qwen3, Gemma-3)
  Whole,    // over the whole projection, heads x head_dim (OLMo-2)
};

// The tensors' names and roles (arch/tensors.h has one table per layout).
enum class TensorLayout { Llama, Qwen3, Gemma2, Gemma3, Olmo2, Phi3 };

// RoPE frequency schemes of transformers' modeling_rope_utils (SPEC §8).
enum class RopeKind { Default, Linear, Dynamic, Llama3, Yarn, LongRope };

struct RopeSpec {
  RopeKind kind = RopeKind::Default;
  double theta = 10000.0;        // base
  double factor = 1.0;           // linear, dynamic, llama3, yarn; longrope: max / original positions
  int64_t original_max_positions = 0;  // llama3, yarn, longrope (0: max_position_embeddings)
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
  double beta_fast = 32.0, beta_slow = 1.0;              // yarn
  double mscale = 0.0, mscale_all_dim = 0.0;             // yarn (0: not given)
  bool truncate = true;                                  // yarn
  double attention_factor = 0.0;  // yarn, longrope: cos and sin are scaled by it (0: derived)
  std::vector<double> short_factor, long_factor;         // longrope, [rotary_dim / 2] each

  bool operator==(const RopeSpec&) const = default;
};

// One layer's attention: which keys a query sees and which RoPE it uses.
struct LayerAttention {
  int64_t window = 0;  // 0: every earlier key; else query i sees keys i-W+1..i (SPEC §1, §8)
  int rope = 0;        // index into ModelConfig::ropes

  bool operator==(const LayerAttention&) const = default;
};

struct ModelConfig {
  std::string architecture;  // "LlamaForCausalLM", ...
  Family family = Family::Llama;
  int64_t n_layers = 0;
  int64_t hidden = 0;        // hidden_size
  int64_t n_heads = 0;       // num_attention_heads
  int64_t n_kv_heads = 0;    // num_key_value_heads (GQA/MQA when < n_heads)
  int64_t head_dim = 0;      // head_dim, else the family's default
  int64_t ffn = 0;           // intermediate_size
  int64_t vocab = 0;         // vocab_size
  int64_t max_positions = 0; // max_position_embeddings
  double rms_eps = 1e-6;
  Activation act = Activation::SiLU;
  bool tie_embeddings = false;

  // Attention.
  std::vector<RopeSpec> ropes;          // [0] for full-attention layers; more where layers differ
  std::vector<LayerAttention> layers;   // [n_layers]
  int64_t rotary_dim = 0;               // RoPE on the first rotary_dim dims of a head (partial rotary)
  double attn_scale = 0.0;              // 1 / sqrt(query_pre_attn_scalar or head_dim)
  double attn_softcap = 0.0;            // 0: none; else cap * tanh(score / cap) before the mask
  double final_softcap = 0.0;           // the same on the logits
  QkNorm qk_norm = QkNorm::None;
  bool qkv_bias = false;                // q, k and v projections have biases
  bool o_bias = false;                  // the output projection has one
  bool mlp_bias = false;                // gate, up and down have biases

  // Norms, embeddings, tensors.
  NormStyle norm_style = NormStyle::WeightAfterCast;
  NormLayout norm_layout = NormLayout::Pre;
  TensorLayout tensor_layout = TensorLayout::Llama;
  bool scale_embeddings = false;  // embeddings * sqrt(hidden), in the run dtype (Gemma)

  int64_t bos_id = -1, eos_id = -1;
  std::string torch_dtype;        // as the checkpoint declares it

  int64_t group() const { return n_heads / n_kv_heads; }  // query heads per KV head
  int64_t kv_head_of(int64_t head) const;
  int64_t parameter_count() const;  // from the tensor table (tensors.h)
  // The one sliding window of the model when every windowed layer shares it, else 0.
  int64_t sliding_window() const;
  // Each layer's window (0: none), in layer order (SPEC §1).
  std::vector<int64_t> layer_windows() const;
};

// SPEC §1 (GQA/MQA): query head `head` of `heads` reads KV head head / (heads / kv_heads).
constexpr int64_t kv_head_of(int64_t head, int64_t heads, int64_t kv_heads) { return head / (heads / kv_heads); }
inline int64_t ModelConfig::kv_head_of(int64_t head) const { return arch::kv_head_of(head, n_heads, n_kv_heads); }
// kv_head_of of every query head 0..heads-1.
inline std::vector<int64_t> kv_heads_of(int64_t heads, int64_t kv_heads) {
  std::vector<int64_t> out(static_cast<size_t>(heads));
  for (int64_t h = 0; h < heads; ++h) out[h] = kv_head_of(h, heads, kv_heads);
  return out;
}

// Names of the enums, as config.json and the result files write them (one table each).
const char* family_name(Family family);
const char* activation_name(Activation act);
const char* rope_kind_name(RopeKind kind);
const char* norm_style_name(NormStyle style);
const char* norm_layout_name(NormLayout layout);
const char* qk_norm_name(QkNorm norm);

}  // namespace geoattn::arch
