#include "geoattn/model/decoder.h"

#include <algorithm>
#include <cmath>

#include "geoattn/model/attention.h"
#include "geoattn/util/error.h"

namespace geoattn::model {

using arch::NormLayout;
using arch::NormStyle;
using arch::QkNorm;

namespace {

torch::Tensor project(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b = {}) {
  return b.defined() ? torch::nn::functional::linear(x, w, b) : torch::nn::functional::linear(x, w);
}

}  // namespace

Decoder::Decoder(arch::ModelConfig config, Weights weights, torch::Dtype dtype, torch::Device device)
    : config_(std::move(config)), w_(std::move(weights)), dtype_(dtype), device_(device) {
  for (const auto& spec : config_.ropes) ropes_.emplace_back(spec, config_.rotary_dim, device_);
}

Decoder Decoder::load(const io::Checkpoint& checkpoint, torch::Dtype dtype, torch::Device device) {
  return Decoder(checkpoint.config, load_weights(checkpoint, dtype, device), dtype, device);
}

// SPEC §8: RMSNorm x^ = x / sqrt(mean(x^2) + eps) in float32 over the last dim, then the
// weight as the family's code applies it (arch::NormStyle: the formula and the cast order).
torch::Tensor Decoder::rms_norm(const torch::Tensor& x, const torch::Tensor& weight) const {
  auto x32 = x.to(torch::kFloat32);
  auto normed = x32 * torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + config_.rms_eps);
  switch (config_.norm_style) {
    case NormStyle::WeightAfterCast: return weight * normed.to(x.scalar_type());
    case NormStyle::WeightBeforeCast: return (weight.to(torch::kFloat32) * normed).to(x.scalar_type());
    case NormStyle::OnePlusWeight: return (normed * (1.0 + weight.to(torch::kFloat32))).to(x.scalar_type());
  }
  fail("internal: norm style");
}

// SPEC §8: down(act(gate(x)) * up(x)): SiLU (LLaMA, Mistral, Qwen, Phi-3, OLMo-2) or
// tanh-GELU (Gemma).
torch::Tensor Decoder::mlp(const torch::Tensor& x, const LayerWeights& lw) const {
  auto gate = project(x, lw.w_gate, lw.b_gate);  // [B, T, ffn]
  switch (config_.act) {
    case arch::Activation::SiLU: gate = torch::silu(gate); break;
    case arch::Activation::GeluTanh: gate = torch::gelu(gate, "tanh"); break;
    case arch::Activation::Gelu: gate = torch::gelu(gate); break;
  }
  return project(gate * project(x, lw.w_up, lw.b_up), lw.w_down, lw.b_down);  // [B, T, hidden]
}

torch::Tensor Decoder::forward(const torch::Tensor& ids) const {
  HookCache cache;
  return forward(ids, HookSpec(), cache, /*want_logits=*/true);
}

torch::Tensor Decoder::forward(const torch::Tensor& ids, const HeadEdits& edits) const {
  HookCache cache;
  return forward(ids, HookSpec(), cache, /*want_logits=*/true, &edits);
}

torch::Tensor Decoder::forward_from(const torch::Tensor& ids, int64_t layer, const torch::Tensor& resid,
                                    const HeadEdits& edits) const {
  return forward_batch_from(ids, layer, resid, {&edits});
}

torch::Tensor Decoder::forward_batch_from(const torch::Tensor& ids, int64_t layer, const torch::Tensor& resid,
                                          const std::vector<const HeadEdits*>& edits) const {
  if (layer < 0 || layer >= config_.n_layers) fail("forward_from: layer {} of {}", layer, config_.n_layers);
  if (ids.dim() != 2 || ids.size(0) != 1) fail("forward_batch_from: ids must be [1, T]");
  if (edits.empty()) fail("forward_batch_from: no edits");
  for (const HeadEdits* e : edits)
    for (const HeadEdits* part : e->all())
      if (part->any() && part->first_layer() < layer)
        fail("forward_batch_from: an edit of layer {} below the first layer run, {}", part->first_layer(), layer);
  const auto B = static_cast<int64_t>(edits.size());
  HookCache cache;
  // Layer 0 starts from the embeddings of B copies of the window; a later one from B copies of
  // its residual stream.
  return run(ids.expand({B, ids.size(1)}), HookSpec(), cache, /*want_logits=*/true, edits, layer,
             layer > 0 ? resid.expand({B, resid.size(1), resid.size(2)}) : resid);
}

torch::Tensor Decoder::run(const torch::Tensor& ids_in, const HookSpec& hooks, HookCache& cache, bool want_logits,
                           const std::vector<const HeadEdits*>& edits, int64_t from, const torch::Tensor& resid) const {
  c10::InferenceMode inference;
  const arch::ModelConfig& c = config_;
  if (ids_in.dim() != 2) fail("forward: ids must be [batch, T], got {} dims", ids_in.dim());
  if (hooks.n_layers() != 0 && hooks.n_layers() != c.n_layers)
    fail("forward: the hooks were asked for {} layers, the model has {}", hooks.n_layers(), c.n_layers);
  // The vocabulary check on the host copy (windows are built on the CPU): no device sync.
  const auto host = ids_in.to(torch::kCPU, torch::kInt64).contiguous();
  const int64_t* first = host.data_ptr<int64_t>();
  const auto [lo, hi] = std::minmax_element(first, first + host.numel());
  if (host.numel() > 0 && (*lo < 0 || *hi >= c.vocab)) fail("token ids must be in 0..{} (the model's vocabulary)", c.vocab - 1);
  auto ids = host.to(device_);  // [B, T]
  const int64_t B = ids.size(0), T = ids.size(1), H = c.n_heads, KV = c.n_kv_heads, d = c.head_dim;
  if (T > c.max_positions) fail("context {} is longer than the model's {} positions", T, c.max_positions);
  cache = HookCache(c.n_layers);

  // Embeddings [B, T, hidden]; Gemma multiplies by sqrt(hidden) rounded to the run dtype. From
  // a later layer, the residual stream a forward recorded there.
  auto x = from > 0 ? resid.to(device_) : w_.embed.index_select(0, ids.reshape({-1})).view({B, T, c.hidden});
  if (from == 0 && c.scale_embeddings)
    x = x * torch::scalar_tensor(std::sqrt(static_cast<double>(c.hidden)), torch::TensorOptions().dtype(torch::kFloat32))
                .to(x.options());

  // RoPE tables [T, rotary_dim] for each distinct RoPE (Gemma-3: global and local).
  std::vector<RopeTables> rope;
  for (const auto& r : ropes_) rope.push_back(r.tables(T, dtype_));

  // Query positions of the captured pattern rows [Q].
  torch::Tensor rows;
  {
    std::vector<int64_t> q = hooks.queries();
    if (q.empty())
      for (int64_t i = 0; i < T; ++i) q.push_back(i);
    for (int64_t i : q)
      if (i < 0 || i >= T) fail("query position {} is outside the window 0..{}", i, T - 1);
    rows = torch::tensor(q, torch::TensorOptions().dtype(torch::kInt64)).to(device_);
  }

  for (int64_t l = from; l < c.n_layers; ++l) {
    if (!want_logits && !hooks.wants_any_after(l - 1)) break;
    const LayerWeights& lw = w_.layers[l];
    const AttentionParams attn_params = attention_params(c, l);
    const RopeTables& rope_l = rope[c.layers[l].rope];
    if (hooks.wants(l, HookPoint::ResidPre)) cache.record(l, HookPoint::ResidPre, x);  // [B, T, hidden]

    // Attention block: q, k, v per head; q/k norms; RoPE on q and k; values as v_proj gives them.
    auto h = c.norm_layout == NormLayout::Post ? x : rms_norm(x, lw.attn_norm);  // [B, T, hidden]
    auto q = project(h, lw.wq, lw.bq);                                          // [B, T, H d]
    auto k = project(h, lw.wk, lw.bk);                                          // [B, T, KV d]
    auto v = project(h, lw.wv, lw.bv);                                          // [B, T, KV d]
    if (c.qk_norm == QkNorm::Whole) q = rms_norm(q, lw.q_norm), k = rms_norm(k, lw.k_norm);
    q = q.view({B, T, H, d}), k = k.view({B, T, KV, d});                        // [B, T, heads, d]
    if (c.qk_norm == QkNorm::PerHead) q = rms_norm(q, lw.q_norm), k = rms_norm(k, lw.k_norm);
    q = apply_rope(q.transpose(1, 2), rope_l).contiguous();                     // [B, H, T, d]
    k = apply_rope(k.transpose(1, 2), rope_l).contiguous();                     // [B, KV, T, d]
    v = v.view({B, T, KV, d}).transpose(1, 2).contiguous();                     // [B, KV, T, d]

    if (hooks.wants(l, HookPoint::AttnV)) cache.record(l, HookPoint::AttnV, v);
    if (hooks.wants(l, HookPoint::AttnPattern))                                 // [B, H, Q, T]
      cache.record(l, HookPoint::AttnPattern,
                   attention_rows(q.index_select(2, rows), k, rows, attn_params, hooks.rows_dtype()));

    // Past the last layer anyone reads, the rest of the block changes nothing (capture only).
    if (!want_logits && !hooks.wants_any_after(l) && !hooks.wants(l, HookPoint::AttnZ)) break;
    // Interventions on heads of this layer (intervention.h; a policy's parts one after another,
    // each on its own heads): rows edited before the product with the values, or the heads'
    // outputs replaced after it. One set of edits for the whole batch, or one per batch row.
    const bool per_row = edits.size() > 1;
    if (per_row && static_cast<int64_t>(edits.size()) != B) fail("forward: {} edits for a batch of {}", edits.size(), B);
    std::vector<std::vector<const HeadEdits*>> row_edits(edits.size()), output_edits(edits.size());  // [row] -> parts
    bool any_row_edit = false;
    for (size_t b = 0; b < edits.size(); ++b)
      if (edits[b] != nullptr)
        for (const HeadEdits* e : edits[b]->all())
          if (e->edits(l)) {
            const bool rows_edited = e->intervention().edits_rows();
            (rows_edited ? row_edits : output_edits)[b].push_back(e);
            any_row_edit = any_row_edit || rows_edited;
          }
    RowEdit edit;
    if (any_row_edit)
      edit = [&](const torch::Tensor& probs, int64_t i0, int64_t j0) {  // probs [B, H, block, keys]
        const auto edit_one = [&](torch::Tensor p, size_t b) {
          for (const HeadEdits* e : row_edits[b]) p = edit_rows(p, l, i0, j0, attn_params.window, *e);
          return p;
        };
        if (!per_row) return edit_one(probs, 0);
        std::vector<torch::Tensor> rows;
        for (size_t b = 0; b < row_edits.size(); ++b) rows.push_back(edit_one(probs.narrow(0, static_cast<int64_t>(b), 1), b));
        return torch::cat(rows, 0);
      };
    auto attn = attention(q, k, v, attn_params, edit);                          // [B, H, T, d]
    for (size_t b = 0; b < output_edits.size(); ++b)
      for (const HeadEdits* e : output_edits[b]) {
        auto rows = per_row ? attn.narrow(0, static_cast<int64_t>(b), 1) : attn;  // [B or 1, H, T, d], a view
        const auto heads = torch::tensor(e->heads(l), torch::kInt64).to(attn.device());
        if (e->intervention().edit == Edit::Mean)  // each head's output its mean [h, d], at every position
          rows.index_copy_(1, heads, e->means(l).to(attn.device(), attn.scalar_type()).view({1, -1, 1, d}).expand(
                                         {rows.size(0), heads.size(0), T, d}));
        else
          rows.index_fill_(1, heads, 0);
      }
    if (hooks.wants(l, HookPoint::AttnZ)) cache.record(l, HookPoint::AttnZ, attn);
    auto o = project(attn.transpose(1, 2).reshape({B, T, H * d}), lw.wo, lw.bo);  // [B, T, hidden]
    if (c.norm_layout != NormLayout::Pre) o = rms_norm(o, lw.attn_post_norm);
    x = x + o;

    // MLP block.
    auto m = mlp(c.norm_layout == NormLayout::Post ? x : rms_norm(x, lw.mlp_norm), lw);  // [B, T, hidden]
    if (c.norm_layout != NormLayout::Pre) m = rms_norm(m, lw.mlp_post_norm);
    x = x + m;
  }
  if (!want_logits) return {};
  auto logits = project(rms_norm(x, w_.final_norm), w_.lm_head);  // [B, T, vocab]
  // Gemma-2 (SPEC §8): logits = cap * tanh(logits / cap), in the run dtype.
  if (c.final_softcap > 0) logits = torch::tanh(logits / c.final_softcap) * c.final_softcap;
  return logits.to(torch::kFloat32);
}

}  // namespace geoattn::model
