#pragma once
// Named capture points, in the spirit of TransformerLens's hook points and candle-mi's
// HookSpec / HookCache: the request (which points, which query rows) is a HookSpec, kept apart
// from what a forward records into a HookCache.
//   blocks.{l}.attn.pattern  alpha rows of the requested query positions, float32
//                            [batch, heads, queries, T] (zero after each query, and outside a
//                            sliding window)                  (TransformerLens: attn.hook_pattern)
//   blocks.{l}.attn.v        value states: the v projection's output per KV head (bias
//                            included), no RoPE, before any repeat, in the run dtype
//                            [batch, kv_heads, T, head_dim]   (TransformerLens: attn.hook_v)
//   blocks.{l}.hook_resid_pre  the residual stream entering block l, in the run dtype
//                            [batch, T, hidden]
//   blocks.{l}.attn.z        each head's output before the output projection (after any
//                            intervention), in the run dtype
//                            [batch, heads, T, head_dim]      (TransformerLens: attn.hook_z,
//                            which orders it [batch, T, heads, head_dim])
// A point not asked for costs nothing: the forward asks wants(layer, point), a bit lookup,
// before it computes anything extra.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "geoattn/model/attention.h"

namespace geoattn::model {

enum class HookPoint { AttnPattern, AttnV, ResidPre, AttnZ };
constexpr int kHookPoints = 4;

// What a forward is asked to record.
class HookSpec {
 public:
  HookSpec() = default;  // records nothing
  // `names`: hook names such as "blocks.3.attn.pattern", "blocks.*.attn.v" or TransformerLens's
  // "blocks.3.attn.hook_pattern". `queries`: query positions for attn.pattern, empty for every
  // position. Throws geoattn::Error on an unknown name or a layer outside 0..n_layers-1.
  HookSpec(const std::vector<std::string>& names, int64_t n_layers, std::vector<int64_t> queries = {},
           RowsDtype rows_dtype = RowsDtype::Float32);

  bool wants(int64_t layer, HookPoint point) const {
    return !wanted_.empty() && wanted_[layer * kHookPoints + static_cast<int>(point)];
  }
  bool wants_any_after(int64_t layer) const { return last_layer_ > layer; }
  const std::vector<int64_t>& queries() const { return queries_; }
  RowsDtype rows_dtype() const { return rows_dtype_; }
  int64_t n_layers() const { return n_layers_; }

  // Our name of a point ("blocks.{l}.attn.pattern").
  static std::string name_of(int64_t layer, HookPoint point);
  // "blocks.{l}.<point>" (either spelling) -> (layer, or -1 for '*', point).
  static std::pair<int64_t, HookPoint> parse(const std::string& name, int64_t n_layers);

 private:
  int64_t n_layers_ = 0;
  int64_t last_layer_ = -1;
  std::vector<int64_t> queries_;
  RowsDtype rows_dtype_ = RowsDtype::Float32;
  std::vector<char> wanted_;  // [layer * kHookPoints + point]
};

// What a forward recorded, keyed like the spec.
class HookCache {
 public:
  explicit HookCache(int64_t n_layers = 0) : n_layers_(n_layers), values_(n_layers * kHookPoints) {}

  void record(int64_t layer, HookPoint point, torch::Tensor value);
  bool has(int64_t layer, HookPoint point) const;
  bool has(const std::string& name) const;  // one layer's point, by either spelling
  // Fails with the point's name when it was not recorded.
  const torch::Tensor& get(int64_t layer, HookPoint point) const;
  const torch::Tensor& get(const std::string& name) const;
  // The captures of one point for every layer, stacked on dim 1: [batch, layers, ...].
  torch::Tensor stacked(HookPoint point) const;
  void clear();

 private:
  int64_t n_layers_;
  std::vector<torch::Tensor> values_;  // [layer * kHookPoints + point]
};

}  // namespace geoattn::model
