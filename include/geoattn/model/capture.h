#pragma once
// Named capture points, in the spirit of TransformerLens's hook points:
//   blocks.{l}.attn.pattern  alpha rows of the requested query positions, float32
//                            [batch, heads, queries, T] (zero after each query)
//   blocks.{l}.attn.v        value states: the v_proj output per KV head, no RoPE, before any
//                            repeat, in the run dtype [batch, kv_heads, T, head_dim]
//   blocks.{l}.hook_resid_pre  the residual stream entering block l, in the run dtype
//                            [batch, T, hidden] (TransformerLens's name)
// A Capture is asked for by name ('*' matches every layer), lives as long as the caller
// keeps it (the scope of one forward or many), and costs nothing for points not asked for:
// the forward asks wants(layer, point), a bit lookup, before it computes anything extra.
#include <torch/torch.h>

#include <string>
#include <vector>

namespace geoattn::model {

enum class HookPoint { AttnPattern, AttnV, ResidPre };
constexpr int kHookPoints = 3;

class Capture {
 public:
  // `names`: hook names such as "blocks.3.attn.pattern" or "blocks.*.attn.v".
  // `queries`: query positions for attn.pattern; empty means every position.
  // Throws geoattn::Error on an unknown name or a layer outside 0..n_layers-1.
  Capture(const std::vector<std::string>& names, int64_t n_layers, std::vector<int64_t> queries = {});

  bool wants(int64_t layer, HookPoint point) const { return wanted_[layer * kHookPoints + static_cast<int>(point)]; }
  bool wants_any_after(int64_t layer) const { return last_layer_ > layer; }
  const std::vector<int64_t>& queries() const { return queries_; }

  void record(int64_t layer, HookPoint point, torch::Tensor value);
  bool has(const std::string& name) const;
  const torch::Tensor& get(const std::string& name) const;
  // The captures of one point for every layer, stacked on dim 1: [batch, layers, ...].
  // Every layer must have been captured.
  torch::Tensor stacked(HookPoint point) const;
  void clear();

  static std::string name_of(int64_t layer, HookPoint point);

 private:
  int64_t n_layers_;
  int64_t last_layer_ = -1;
  std::vector<int64_t> queries_;
  std::vector<char> wanted_;           // [layer * kHookPoints + point]
  std::vector<torch::Tensor> values_;  // same index
  int64_t index_of(const std::string& name) const;
};

}  // namespace geoattn::model
