#pragma once
// Causal (and sliding-window) attention with grouped KV heads, as the Hugging Face eager code
// computes it. Query head h reads KV head h / (heads / kv_heads) (SPEC §1): the query heads of
// one group are laid side by side so no KV tensor is repeated. One scores() makes the logits
// for every path: the eager attention, the captured rows, and (through fused_computes_same)
// the choice of the fused kernel.
#include <torch/torch.h>
#include <torch/version.h>

#include <functional>

#include "geoattn/arch/config.h"
#include "geoattn/util/enum_names.h"

// LibTorch 2.1+ has scaled_dot_product_attention with an explicit scale (2.0's has none).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define GEOATTN_HAVE_FUSED_ATTENTION 1
#else
#define GEOATTN_HAVE_FUSED_ATTENTION 0
#endif

namespace geoattn::model {

// One layer's attention logits: scale, soft-cap and window (SPEC §1, §8).
struct AttentionParams {
  double scale = 1.0;    // 1 / sqrt(head_dim), or 1 / sqrt(query_pre_attn_scalar)
  double softcap = 0.0;  // 0: none; else cap * tanh(s / cap), before the mask (Gemma-2)
  int64_t window = 0;    // 0: every earlier key; else query i sees keys i-W+1..i
};
AttentionParams attention_params(const arch::ModelConfig& config, int64_t layer);

// SPEC §1, §8: the logits of the queries at positions `q_pos` [Q] (int64, on q's device)
// against the keys at positions j0..j0+K-1: q k^T * scale, soft-capped, then -inf where the
// causal and window mask forbids. q [B, H, Q, d], k [B, KV, K, d] -> [B, H, Q, K], q's dtype.
torch::Tensor scores(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& q_pos, int64_t j0,
                     const AttentionParams& p);

// An edit of the probability rows before their product with the values (model/intervention.h):
// probs [B, H, block, keys] float32, the rows of queries i0.. against keys j0.. -> the same shape.
using RowEdit = std::function<torch::Tensor(const torch::Tensor& probs, int64_t i0, int64_t j0)>;

// softmax(scores) v. q [B, H, T, d], k and v [B, KV, T, d] -> [B, H, T, d]. The softmax runs in
// float32 and is cast back to q's dtype before the product with v, as transformers does (with
// `edit`, the rows are edited in float32 first). On CUDA with LibTorch 2.1+ this is
// fused_attention where that computes the same thing and nothing edits the rows.
torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const AttentionParams& p, const RowEdit& edit = {});

// Whether scaled_dot_product_attention computes the same as scores() + softmax: it has no
// soft-cap.
inline bool fused_computes_same(const AttentionParams& p) { return p.softcap == 0.0; }

#if GEOATTN_HAVE_FUSED_ATTENTION
// The same through scaled_dot_product_attention (flash / memory-efficient kernels: no [T, T]
// matrix per head on CUDA): causal, and within `p.window` keys when 0 < window < T. On any
// device, so that the CPU tests can hold it to the eager path. Requires fused_computes_same(p).
torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const AttentionParams& p);
#endif

// How captured rows are rounded (SPEC §8, "bf16 convention").
enum class RowsDtype {
  Float32,  // geoattn's: softmax of float32 scores from the run dtype's q and k (exact upcasts)
  Run,      // upstream eager's: scores in the run dtype, softmax in float32, rounded to the run dtype
};
inline constexpr EnumName<RowsDtype> kRowsDtypeNames[] = {{RowsDtype::Float32, "float32"}, {RowsDtype::Run, "run"}};

// The probability rows of the query positions `rows` [Q] only, as float32: [B, H, Q, T].
// q_rows [B, H, Q, d] holds the queries at those positions; k [B, KV, T, d].
torch::Tensor attention_rows(const torch::Tensor& q_rows, const torch::Tensor& k, const torch::Tensor& rows,
                             const AttentionParams& p, RowsDtype rows_dtype = RowsDtype::Float32);

}  // namespace geoattn::model
