#include "geoattn/model/attention.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace geoattn::model {

namespace {

// probs [B, H, Q, K] (q's dtype) times v [B, KV, K, d] -> [B, H, Q, d].
torch::Tensor grouped_mix(const torch::Tensor& probs, const torch::Tensor& v) {
  const int64_t B = probs.size(0), H = probs.size(1), Q = probs.size(2), K = probs.size(3);
  const int64_t KV = v.size(1), d = v.size(3);
  auto out = torch::matmul(probs.reshape({B, KV, (H / KV) * Q, K}), v);  // [B, KV, (H/KV) Q, d]
  return out.view({B, H, Q, d});
}

torch::Tensor positions(int64_t from, int64_t to, const torch::Device& device) {
  return torch::arange(from, to, torch::TensorOptions().dtype(torch::kInt64).device(device));
}

}  // namespace

AttentionParams attention_params(const arch::ModelConfig& c, int64_t layer) {
  return {c.attn_scale, c.attn_softcap, c.layers[layer].window};
}

torch::Tensor scores(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& q_pos, int64_t j0,
                     const AttentionParams& p) {
  const int64_t B = q.size(0), H = q.size(1), Q = q.size(2), d = q.size(3);
  const int64_t KV = k.size(1), K = k.size(2);
  // SPEC §1: s = q k^T * scale, the H / KV query heads of a KV head in one batched product.
  auto qg = q.reshape({B, KV, (H / KV) * Q, d});                          // [B, KV, (H/KV) Q, d]
  auto s = (torch::matmul(qg, k.transpose(2, 3)) * p.scale).view({B, H, Q, K});  // [B, H, Q, K]
  // Gemma-2 (SPEC §8): s = cap * tanh(s / cap), before the mask.
  if (p.softcap > 0) s = torch::tanh(s / p.softcap) * p.softcap;
  // SPEC §1, §8: query i sees key j iff j <= i and, with a window W, i - j < W.
  auto i = q_pos.unsqueeze(1);                                             // [Q, 1]
  auto j = positions(j0, j0 + K, q.device()).unsqueeze(0);                 // [1, K]
  auto forbidden = j > i;
  if (p.window > 0) forbidden = forbidden | ((i - j) >= p.window);         // [Q, K]
  return s.masked_fill(forbidden, -std::numeric_limits<float>::infinity());
}

#if GEOATTN_HAVE_FUSED_ATTENTION
torch::Tensor fused_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                              const AttentionParams& p) {
  const int64_t T = q.size(2);
  // A window that covers every key is no window: plain causal, which the flash kernel takes.
  // A shorter one is a boolean mask (true: may attend), which the memory-efficient kernel takes.
  torch::Tensor allowed;
  if (p.window > 0 && p.window < T) {
    auto i = positions(0, T, q.device()).unsqueeze(1);
    auto j = i.transpose(0, 1);
    allowed = (j <= i) & ((i - j) < p.window);  // [T, T]
  }
  // attn_mask and is_causal exclude each other.
#if TORCH_VERSION_MAJOR > 2 || TORCH_VERSION_MINOR >= 5
  // 2.5+: the kernels read KV head h / (H / KV) themselves (enable_gqa).
  if (allowed.defined()) return at::scaled_dot_product_attention(q, k, v, allowed, 0.0, false, p.scale, /*enable_gqa=*/true);
  return at::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true, p.scale, /*enable_gqa=*/true);
#else
  // 2.1 - 2.4: no enable_gqa; each KV head repeated for the H / KV query heads that read it.
  const int64_t group = q.size(1) / k.size(1);
  auto k_rep = group == 1 ? k : k.repeat_interleave(group, 1);
  auto v_rep = group == 1 ? v : v.repeat_interleave(group, 1);
  if (allowed.defined()) return at::scaled_dot_product_attention(q, k_rep, v_rep, allowed, 0.0, false, p.scale);
  return at::scaled_dot_product_attention(q, k_rep, v_rep, {}, 0.0, /*is_causal=*/true, p.scale);
#endif
}
#endif

torch::Tensor attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const AttentionParams& p, const RowEdit& edit) {
#if GEOATTN_HAVE_FUSED_ATTENTION
  if (q.is_cuda() && fused_computes_same(p) && !edit) return fused_attention(q, k, v, p);
#endif
  const int64_t B = q.size(0), H = q.size(1), T = q.size(2);
  // Blocks of queries whose [B, H, block, keys] scores stay in cache (about 2 MB of float32);
  // each block sees only the keys its mask lets through: those before its last query, and
  // within the sliding window of its first. The keys left out have probability exactly 0.
  const int64_t block = q.is_cuda() ? T : std::clamp<int64_t>((int64_t{1} << 19) / std::max<int64_t>(1, B * H * T), 16, T);
  std::vector<torch::Tensor> out;
  for (int64_t i0 = 0; i0 < T; i0 += block) {
    const int64_t i1 = std::min(T, i0 + block), j0 = p.window > 0 ? std::max<int64_t>(0, i0 - p.window + 1) : 0;
    auto qb = q.narrow(2, i0, i1 - i0);                                   // [B, H, block, d]
    auto kb = k.narrow(2, j0, i1 - j0), vb = v.narrow(2, j0, i1 - j0);    // [B, KV, keys, d]
    auto s = scores(qb, kb, positions(i0, i1, q.device()), j0, p);        // [B, H, block, keys]
    auto probs = torch::softmax(s, -1, torch::kFloat32);
    if (edit) probs = edit(probs, i0, j0);
    probs = probs.to(q.scalar_type());
    out.push_back(grouped_mix(probs, vb));                                // [B, H, block, d]
  }
  return out.size() == 1 ? out.front() : torch::cat(out, 2);
}

torch::Tensor attention_rows(const torch::Tensor& q_rows, const torch::Tensor& k, const torch::Tensor& rows,
                             const AttentionParams& p, RowsDtype rows_dtype) {
  if (rows_dtype == RowsDtype::Run) {
    // Upstream eager: softmax(scores in the run dtype, dtype=float32).to(run dtype).
    return torch::softmax(scores(q_rows, k, rows, 0, p), -1, torch::kFloat32).to(q_rows.scalar_type()).to(torch::kFloat32);
  }
  // Float32 rows from the model's own q and k (exact upcasts): a bf16 run captures bf16 states
  // without a second rounding of the scores.
  return torch::softmax(scores(q_rows.to(torch::kFloat32), k.to(torch::kFloat32), rows, 0, p), -1);
}

}  // namespace geoattn::model
