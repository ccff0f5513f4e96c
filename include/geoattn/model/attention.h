#pragma once
// Causal (and sliding-window) attention with grouped KV heads, as the Hugging Face eager
// code computes it. Query head h reads KV head h / (heads / kv_heads) (SPEC §1): the query
// heads of one group are laid side by side so no KV tensor is repeated.
#include <torch/torch.h>
#include <torch/version.h>

// LibTorch 2.1+ has scaled_dot_product_attention with an explicit scale (2.0's has none).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define GEOATTN_HAVE_FUSED_ATTENTION 1
#else
#define GEOATTN_HAVE_FUSED_ATTENTION 0
#endif

namespace geoattn::model {

// Additive mask [T, T] in `dtype`: 0 where query i may see key j (j <= i, and i - j < window
// when window > 0), -inf elsewhere (SPEC §1, §8).
torch::Tensor attention_mask(int64_t T, int64_t window, torch::Dtype dtype, torch::Device device);

// softmax(q k^T * scale + mask) v. q [B, H, T, d], k and v [B, KV, T, d] -> [B, H, T, d].
// The softmax runs in float32 and is cast back to q's dtype before the product with v, as
// transformers does. On CUDA with LibTorch 2.1+ this is fused_attention (`mask` unused there).
torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& mask, int64_t window, double scale);

#if GEOATTN_HAVE_FUSED_ATTENTION
// The same through scaled_dot_product_attention (flash / memory-efficient kernels: no [T, T]
// matrix per head on CUDA): causal, and within `window` keys when 0 < window < T. On any
// device, so that the CPU tests can hold it to the eager path.
torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, int64_t window,
                              double scale);
#endif

// The probability rows of the query positions `rows` only, in float32: [B, H, Q, T].
// q_rows [B, H, Q, d] holds the queries at those positions; mask_rows [Q, T] their mask rows.
torch::Tensor attention_rows(const torch::Tensor& q_rows, const torch::Tensor& k, const torch::Tensor& mask_rows,
                             double scale);

}  // namespace geoattn::model
