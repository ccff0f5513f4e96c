#pragma once
// One decoder for every family of SPEC §8 (LLaMA-2/3, Mistral, Qwen2/3, Gemma 1/2/3, Phi-3,
// OLMo-2), exact to the Hugging Face modeling code. forward() reads top to bottom like
// llama2.c's run.c; the family differences are fields and per-layer tables of ModelConfig
// filled from the per-family table, not branches on the family.
#include <torch/torch.h>

#include <vector>

#include "geoattn/io/checkpoint.h"
#include "geoattn/model/capture.h"
#include "geoattn/model/intervention.h"
#include "geoattn/model/rope.h"
#include "geoattn/model/weights.h"

namespace geoattn::model {

class Decoder {
 public:
  Decoder(arch::ModelConfig config, Weights weights, torch::Dtype dtype, torch::Device device);
  static Decoder load(const io::Checkpoint& checkpoint, torch::Dtype dtype, torch::Device device);

  // ids [B, T] int64 (any device) -> logits [B, T, vocab] in float32.
  torch::Tensor forward(const torch::Tensor& ids) const;
  // The same, recording into `cache` the points `hooks` asks for. Without `want_logits` the
  // result is undefined and the layers after the last hooked one are skipped. `edits`: the heads
  // intervened on (intervention.h; null: none).
  torch::Tensor forward(const torch::Tensor& ids, const HookSpec& hooks, HookCache& cache, bool want_logits = true,
                        const HeadEdits* edits = nullptr) const {
    return run(ids, hooks, cache, want_logits, edits ? std::vector<const HeadEdits*>{edits} : std::vector<const HeadEdits*>{},
               0, {});
  }
  // ids [B, T] -> logits [B, T, vocab] with the heads of `edits` intervened on.
  torch::Tensor forward(const torch::Tensor& ids, const HeadEdits& edits) const;
  // The same from layer `layer` on, its residual stream `resid` [B, T, hidden] as a forward of
  // `ids` recorded it (blocks.{layer}.hook_resid_pre): the layers below an intervention are not
  // run again, and the logits are the whole forward's bit for bit.
  torch::Tensor forward_from(const torch::Tensor& ids, int64_t layer, const torch::Tensor& resid,
                             const HeadEdits& edits) const;
  // The same for several interventions of one window side by side: ids [1, T], resid [1, T,
  // hidden] -> logits [B, T, vocab], row b under edits[b] (B = edits.size(); each from `layer`
  // on, so none may edit a layer below it). One forward of a batch of B: each row equals its own
  // forward_from to the rounding of the batched products (a BLAS may block a product of B T rows
  // otherwise than one of T: about 1e-5 in stories260K's logits, or the same bits).
  torch::Tensor forward_batch_from(const torch::Tensor& ids, int64_t layer, const torch::Tensor& resid,
                                   const std::vector<const HeadEdits*>& edits) const;

  const arch::ModelConfig& config() const { return config_; }
  torch::Dtype dtype() const { return dtype_; }
  torch::Device device() const { return device_; }

 private:
  arch::ModelConfig config_;
  Weights w_;
  torch::Dtype dtype_;
  torch::Device device_;
  std::vector<Rope> ropes_;  // config_.ropes, one per distinct RoPE

  torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& weight) const;
  // The forward from layer `from` (0: the embeddings; else `resid` enters it).
  // `edits`: none (empty), one for every batch row, or one per batch row (null: none).
  torch::Tensor run(const torch::Tensor& ids, const HookSpec& hooks, HookCache& cache, bool want_logits,
                    const std::vector<const HeadEdits*>& edits, int64_t from, const torch::Tensor& resid) const;
  torch::Tensor mlp(const torch::Tensor& x, const LayerWeights& lw) const;
};

}  // namespace geoattn::model
