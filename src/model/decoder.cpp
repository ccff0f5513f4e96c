#include "geoattn/model/decoder.h"

#include <algorithm>
#include <cmath>

#include "geoattn/model/attention.h"
#include "geoattn/util/error.h"

namespace geoattn::model {

namespace {

torch::Tensor project(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b = {}) {
  return b.defined() ? torch::nn::functional::linear(x, w, b) : torch::nn::functional::linear(x, w);
}

// rotate_half(x) = cat(-x2, x1), the layout of Hugging Face q/k weights.
torch::Tensor rotate_half(const torch::Tensor& x) {
  auto halves = x.chunk(2, -1);
  return torch::cat({-halves[1], halves[0]}, -1);
}

// x * cos + rotate_half(x) * sin, in x's dtype (HF apply_rotary_pos_emb).
torch::Tensor apply_rope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
  return x * cos + rotate_half(x) * sin;
}

}  // namespace

Decoder::Decoder(arch::ModelConfig config, Weights weights, torch::Dtype dtype, torch::Device device)
    : config_(std::move(config)), w_(std::move(weights)), dtype_(dtype), device_(device) {
  // RoPE: inv_freq_i = 1 / theta^(2i / d), float32 (HF rotary embedding).
  auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(device_);
  auto two_i = torch::arange(0, config_.head_dim, 2, torch::TensorOptions().dtype(torch::kInt64).device(device_)).to(torch::kFloat32);
  inv_freq_ = 1.0 / torch::pow(torch::scalar_tensor(config_.rope_theta, f32), two_i / static_cast<double>(config_.head_dim));
}

Decoder Decoder::load(const io::Checkpoint& checkpoint, torch::Dtype dtype, torch::Device device) {
  return Decoder(checkpoint.config, load_weights(checkpoint, dtype, device), dtype, device);
}

// RMSNorm in float32: x / sqrt(mean(x^2) + eps), scaled by w (LLaMA, Mistral) or (1 + w)
// (Gemma). LLaMA casts back before the scale, Gemma after it, as their HF code does.
torch::Tensor Decoder::rms_norm(const torch::Tensor& x, const torch::Tensor& weight) const {
  auto x32 = x.to(torch::kFloat32);
  auto normed = x32 * torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + config_.rms_eps);
  if (config_.norm_plus_one) return (normed * (1.0 + weight.to(torch::kFloat32))).to(x.scalar_type());
  return weight * normed.to(x.scalar_type());
}

// down(act(gate(x)) * up(x)): SiLU for LLaMA/Mistral, tanh-GELU for Gemma.
torch::Tensor Decoder::mlp(const torch::Tensor& x, const LayerWeights& lw) const {
  auto gate = project(x, lw.w_gate);
  switch (config_.act) {
    case arch::Activation::SiLU: gate = torch::silu(gate); break;
    case arch::Activation::GeluTanh: gate = torch::gelu(gate, "tanh"); break;
    case arch::Activation::Gelu: gate = torch::gelu(gate); break;
  }
  return project(gate * project(x, lw.w_up), lw.w_down);
}

torch::Tensor Decoder::forward(const torch::Tensor& ids_in, Capture* capture, bool want_logits) const {
  c10::InferenceMode inference;
  const arch::ModelConfig& c = config_;
  if (ids_in.dim() != 2) fail("forward: ids must be [batch, T], got {} dims", ids_in.dim());
  // The vocabulary check on the host copy (windows are built on the CPU): no device sync.
  const auto host = ids_in.to(torch::kCPU, torch::kInt64).contiguous();
  const int64_t* first = host.data_ptr<int64_t>();
  const auto [lo, hi] = std::minmax_element(first, first + host.numel());
  if (host.numel() > 0 && (*lo < 0 || *hi >= c.vocab)) fail("token ids must be in 0..{} (the model's vocabulary)", c.vocab - 1);
  auto ids = host.to(device_);  // [B, T]
  const int64_t B = ids.size(0), T = ids.size(1), H = c.n_heads, KV = c.n_kv_heads, d = c.head_dim;
  if (T > c.max_positions) fail("context {} is longer than the model's {} positions", T, c.max_positions);

  // Embeddings; Gemma multiplies by sqrt(hidden) in the run dtype.
  auto x = w_.embed.index_select(0, ids.reshape({-1})).view({B, T, c.hidden});
  if (c.scale_embeddings) x = x * torch::scalar_tensor(std::sqrt(static_cast<double>(c.hidden)), x.options());

  // RoPE tables for positions 0..T-1: emb = cat(freqs, freqs), freqs = pos * inv_freq.
  auto pos = torch::arange(T, torch::TensorOptions().dtype(torch::kInt64).device(device_)).to(torch::kFloat32);
  auto freqs = torch::outer(pos, inv_freq_);
  auto emb = torch::cat({freqs, freqs}, -1);
  auto cos = emb.cos().to(dtype_), sin = emb.sin().to(dtype_);

  auto mask = attention_mask(T, c.sliding_window, dtype_, device_);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));

  // Query positions of the captured pattern rows.
  torch::Tensor rows;
  if (capture) {
    std::vector<int64_t> q = capture->queries();
    if (q.empty())
      for (int64_t i = 0; i < T; ++i) q.push_back(i);
    for (int64_t i : q)
      if (i < 0 || i >= T) fail("query position {} is outside the window 0..{}", i, T - 1);
    rows = torch::tensor(q, torch::TensorOptions().dtype(torch::kInt64)).to(device_);
  }

  for (int64_t l = 0; l < c.n_layers; ++l) {
    if (!want_logits && !(capture && capture->wants_any_after(l - 1))) break;
    const LayerWeights& lw = w_.layers[l];
    if (capture && capture->wants(l, HookPoint::ResidPre)) capture->record(l, HookPoint::ResidPre, x);  // [B, T, hidden]

    // Attention block: q, k, v per head; RoPE on q and k; values as v_proj gives them.
    auto h = rms_norm(x, lw.attn_norm);
    auto q = project(h, lw.wq, lw.bq).view({B, T, H, d}).transpose(1, 2);
    auto k = project(h, lw.wk, lw.bk).view({B, T, KV, d}).transpose(1, 2);
    auto v = project(h, lw.wv, lw.bv).view({B, T, KV, d}).transpose(1, 2);
    q = apply_rope(q, cos, sin).contiguous();
    k = apply_rope(k, cos, sin).contiguous();
    v = v.contiguous();

    if (capture && capture->wants(l, HookPoint::AttnV)) capture->record(l, HookPoint::AttnV, v);
    if (capture && capture->wants(l, HookPoint::AttnPattern))
      capture->record(l, HookPoint::AttnPattern,
                      attention_rows(q.index_select(2, rows), k, mask.index_select(0, rows), scale));

    // Past the last layer anyone reads, the rest of the block changes nothing (capture only).
    if (!want_logits && !(capture && capture->wants_any_after(l))) break;
    auto attn = attention(q, k, v, mask, c.sliding_window, scale);
    x = x + project(attn.transpose(1, 2).reshape({B, T, H * d}), lw.wo, lw.bo);

    // MLP block.
    x = x + mlp(rms_norm(x, lw.mlp_norm), lw);
  }
  if (!want_logits) return {};
  return project(rms_norm(x, w_.final_norm), w_.lm_head).to(torch::kFloat32);
}

}  // namespace geoattn::model
