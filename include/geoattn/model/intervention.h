#pragma once
// Interventions on attention heads, inside the attention and before the output projection: the
// same point in every family of SPEC §8, windowed layers included (what `geoattn intervene`
// runs). A head's probability row is edited where it is made (float32, after the softmax, before
// the cast to the run dtype and the product with the values, as transformers' eager attention
// orders them), or its output is removed:
//   zero           the head's output [T, d] is 0 (its share of o_proj's input removed)
//   mean           the head's output is its mean [d] over a shard's positions, at every position
//   top-n:N        each row keeps its N largest weights, renormalised
//   sink-recent:K  each row keeps the first key and its last K keys (the query's own included),
//                  renormalised: the StreamingLLM policy
//   random:N       each row keeps the first key and N others drawn at random among those it
//                  sees, renormalised (seeded): the control at an equal budget
//   budget:RULE    each row of a head keeps its N_h largest weights, renormalised, N_h that
//                  head's own budget, chosen from its measured curves by RULE (analysis/budgets.h)
// A row that keeps every key it sees is left as it was, bit for bit (top-n:T, sink-recent:T).
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "geoattn/util/enum_names.h"

namespace geoattn::model {

enum class Edit { Zero, TopN, SinkRecent, Random, Budget, Mean };
inline constexpr EnumName<Edit> kEditNames[] = {{Edit::Zero, "zero"},
                                                {Edit::Mean, "mean"},
                                                {Edit::TopN, "top-n"},
                                                {Edit::SinkRecent, "sink-recent"},
                                                {Edit::Random, "random"},
                                                {Edit::Budget, "budget"}};

struct Intervention {
  Edit edit = Edit::Zero;
  int64_t n = 0;     // top-n's N, sink-recent's K, random's N (zero, mean, budget: none)
  std::string rule;  // budget's RULE, as given (its meaning: analysis/budgets.h)
  // "zero", "mean", "top-n:N", "sink-recent:K", "random:N" (N >= 1) or "budget:RULE" (RULE not
  // empty); geoattn::Error naming the text otherwise.
  static Intervention parse(const std::string& text);
  std::string text() const;
  bool edits_rows() const { return edit != Edit::Zero && edit != Edit::Mean; }
  bool operator==(const Intervention&) const = default;
};

// Keys kept and keys seen by the edited rows, summed (the kept fraction is their ratio).
struct KeptKeys {
  double kept = 0, seen = 0;
};

// One intervention on a set of heads: per layer the heads it edits.
class HeadEdits {
 public:
  HeadEdits() = default;  // edits nothing
  // `heads`: (layer, head) pairs within layers x heads (geoattn::Error otherwise). `seed`: the
  // random draws' (each row's keys drawn from seed, layer, head, window_key and query position).
  HeadEdits(int64_t layers, int64_t heads, const std::vector<std::pair<int64_t, int64_t>>& which,
            Intervention intervention, uint64_t seed = 0);
  // A budget: each head of `which` keeps its own `budgets[k]` largest weights (>= 1).
  HeadEdits(int64_t layers, int64_t heads, const std::vector<std::pair<int64_t, int64_t>>& which,
            Intervention intervention, const std::vector<int64_t>& budgets);
  // Mean ablation: each head of `which` outputs its row of `means` [layers, heads, head_dim].
  HeadEdits(int64_t layers, int64_t heads, const std::vector<std::pair<int64_t, int64_t>>& which,
            Intervention intervention, const torch::Tensor& means);

  // A policy by class: `part` (on other heads) applied in the same forward as this one, and as
  // every part added before (geoattn::Error where it edits a head one of them edits).
  void add_part(HeadEdits part);
  // This one and its parts, in order: what a forward applies.
  std::vector<const HeadEdits*> all() const;
  // Counted into `into` (null: not counted), with every part.
  void count_into(KeptKeys* into);

  bool any() const { return first_layer_ >= 0; }
  bool edits(int64_t layer) const { return !by_layer_.empty() && !by_layer_[layer].empty(); }
  const std::vector<int64_t>& heads(int64_t layer) const { return by_layer_[layer]; }
  // The N each head of `layer` keeps (heads(layer)'s order): a budget's own, else the
  // intervention's n for every head.
  std::vector<int64_t> kept_n(int64_t layer) const;
  // Mean ablation's outputs of the heads of `layer` (heads(layer)'s order): [h, head_dim].
  const torch::Tensor& means(int64_t layer) const { return means_[static_cast<size_t>(layer)]; }
  int64_t first_layer() const { return first_layer_; }  // -1: none
  const Intervention& intervention() const { return intervention_; }
  uint64_t seed() const { return seed_; }
  // The window the random draws are keyed to (a window's key names it in any shard), every
  // part's too.
  void set_window_key(uint64_t key);
  uint64_t window_key() const { return window_key_; }
  int64_t head_count() const;

  // Where kept and seen keys are added up (null: not counted; count_into sets it).
  KeptKeys* counts() const { return counts_; }

 private:
  KeptKeys* counts_ = nullptr;
  std::vector<std::vector<int64_t>> by_layer_;  // [layer] -> heads, ascending
  std::vector<std::vector<int64_t>> n_by_layer_;  // a budget's: [layer] -> N per head of by_layer_
  std::vector<torch::Tensor> means_;              // mean ablation's: [layer] -> [h, head_dim]
  std::vector<HeadEdits> parts_;                  // a policy's other classes
  int64_t first_layer_ = -1;
  Intervention intervention_;
  uint64_t seed_ = 0, window_key_ = 0;
};

// The rows of `probs` [B, H, Q, K] (float32, softmax output; rows of queries i0.. against keys
// j0..) for the heads of `layer` that `edits` names, edited as its intervention says (rows of
// other heads untouched). `window`: the layer's window (0: none), for the keys a row sees.
torch::Tensor edit_rows(const torch::Tensor& probs, int64_t layer, int64_t i0, int64_t j0, int64_t window,
                        const HeadEdits& edits);

}  // namespace geoattn::model
