#pragma once
// Causal (and sliding-window) attention with grouped KV heads, as the Hugging Face eager
// code computes it. Query head h reads KV head h / (heads / kv_heads) (SPEC §1): the query
// heads of one group are laid side by side so no KV tensor is repeated.
#include <torch/torch.h>

namespace geoattn::model {

// Additive mask [T, T] in `dtype`: 0 where query i may see key j (j <= i, and i - j < window
// when window > 0), -inf elsewhere (SPEC §1, §8).
torch::Tensor attention_mask(int64_t T, int64_t window, torch::Dtype dtype, torch::Device device);

// softmax(q k^T * scale + mask) v. q [B, H, T, d], k and v [B, KV, T, d] -> [B, H, T, d].
// The softmax runs in float32 and is cast back to q's dtype before the product with v, as
// transformers does. On CUDA with LibTorch 2.x and no sliding window this is the fused kernel.
torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& mask, int64_t window, double scale);

// The probability rows of the query positions `rows` only, in float32: [B, H, Q, T].
// q_rows [B, H, Q, d] holds the queries at those positions; mask_rows [Q, T] their mask rows.
torch::Tensor attention_rows(const torch::Tensor& q_rows, const torch::Tensor& k, const torch::Tensor& mask_rows,
                             double scale);

}  // namespace geoattn::model
