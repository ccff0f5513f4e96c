#include "geoattn/model/attention.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace geoattn::model {

namespace {

// q [B, H, Q, d], k [B, KV, T, d] -> scores [B, H, Q, T] = q k^T * scale, grouping the H/KV
// query heads of each KV head into one batched product.
torch::Tensor grouped_scores(const torch::Tensor& q, const torch::Tensor& k, double scale) {
  const int64_t B = q.size(0), H = q.size(1), Q = q.size(2), d = q.size(3);
  const int64_t KV = k.size(1), T = k.size(2);
  auto qg = q.reshape({B, KV, (H / KV) * Q, d});
  auto scores = torch::matmul(qg, k.transpose(2, 3)) * scale;
  return scores.view({B, H, Q, T});
}

// probs [B, H, T, T] (q's dtype) times v [B, KV, T, d] -> [B, H, T, d].
torch::Tensor grouped_mix(const torch::Tensor& probs, const torch::Tensor& v) {
  const int64_t B = probs.size(0), H = probs.size(1), Q = probs.size(2), T = probs.size(3);
  const int64_t KV = v.size(1), d = v.size(3);
  auto out = torch::matmul(probs.reshape({B, KV, (H / KV) * Q, T}), v);
  return out.view({B, H, Q, d});
}

}  // namespace

torch::Tensor attention_mask(int64_t T, int64_t window, torch::Dtype dtype, torch::Device device) {
  auto i = torch::arange(T, torch::TensorOptions().device(device).dtype(torch::kInt64)).unsqueeze(1);
  auto j = i.transpose(0, 1);
  auto allowed = j <= i;
  if (window > 0) allowed = allowed & ((i - j) < window);
  auto mask = torch::zeros({T, T}, torch::TensorOptions().device(device).dtype(dtype));
  return mask.masked_fill(allowed.logical_not(), -std::numeric_limits<float>::infinity());
}

#if GEOATTN_HAVE_FUSED_ATTENTION
torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, int64_t window,
                              double scale) {
  const int64_t T = q.size(2);
  // A window that covers every key is no window: plain causal, which the flash kernel takes.
  // A shorter one is a boolean mask (true: may attend), which the memory-efficient kernel takes.
  torch::Tensor allowed;
  if (window > 0 && window < T) {
    auto i = torch::arange(T, torch::TensorOptions().device(q.device()).dtype(torch::kInt64)).unsqueeze(1);
    auto j = i.transpose(0, 1);
    allowed = (j <= i) & ((i - j) < window);
  }
  // attn_mask and is_causal exclude each other.
#if TORCH_VERSION_MAJOR > 2 || TORCH_VERSION_MINOR >= 5
  // 2.5+: the kernels read KV head h / (H / KV) themselves (enable_gqa).
  if (allowed.defined()) return at::scaled_dot_product_attention(q, k, v, allowed, 0.0, false, scale, /*enable_gqa=*/true);
  return at::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true, scale, /*enable_gqa=*/true);
#else
  // 2.1 - 2.4: no enable_gqa; each KV head repeated for the H / KV query heads that read it.
  const int64_t group = q.size(1) / k.size(1);
  auto k_rep = group == 1 ? k : k.repeat_interleave(group, 1);
  auto v_rep = group == 1 ? v : v.repeat_interleave(group, 1);
  if (allowed.defined()) return at::scaled_dot_product_attention(q, k_rep, v_rep, allowed, 0.0, false, scale);
  return at::scaled_dot_product_attention(q, k_rep, v_rep, {}, 0.0, /*is_causal=*/true, scale);
#endif
}
#endif

torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& mask, int64_t window, double scale) {
#if GEOATTN_HAVE_FUSED_ATTENTION
  if (q.is_cuda()) return fused_attention(q, k, v, window, scale);
#endif
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2);
  // Blocks of queries whose [B, H, block, keys] scores stay in cache (about 2 MB of float32);
  // each block sees only the keys its mask lets through: those before its last query, and
  // within the sliding window of its first. The keys left out have probability exactly 0.
  const int64_t block = q.is_cuda() ? T : std::clamp<int64_t>((int64_t{1} << 19) / std::max<int64_t>(1, B * H * T), 16, T);
  std::vector<torch::Tensor> out;
  for (int64_t i0 = 0; i0 < T; i0 += block) {
    const int64_t i1 = std::min(T, i0 + block), j0 = window > 0 ? std::max<int64_t>(0, i0 - window + 1) : 0;
    auto qb = q.narrow(2, i0, i1 - i0);
    auto kb = k.narrow(2, j0, i1 - j0), vb = v.narrow(2, j0, i1 - j0);
    auto scores = grouped_scores(qb, kb, scale).add_(mask.narrow(0, i0, i1 - i0).narrow(1, j0, i1 - j0));
    auto probs = torch::softmax(scores, -1, torch::kFloat32).to(q.scalar_type());
    out.push_back(grouped_mix(probs, vb));
  }
  return out.size() == 1 ? out.front() : torch::cat(out, 2);
}

torch::Tensor attention_rows(const torch::Tensor& q_rows, const torch::Tensor& k, const torch::Tensor& mask_rows,
                             double scale) {
  // Captured rows are computed in float32 from the model's own q and k (exact upcasts), so a
  // bf16 run captures bf16 states without a second rounding of the scores.
  auto scores = grouped_scores(q_rows.to(torch::kFloat32), k.to(torch::kFloat32), scale) + mask_rows.to(torch::kFloat32);
  return torch::softmax(scores, -1);
}

}  // namespace geoattn::model
