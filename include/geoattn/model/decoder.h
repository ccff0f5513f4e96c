#pragma once
// One decoder for LLaMA-2, Mistral and Gemma (SPEC §8), exact to the Hugging Face modeling
// code. forward() reads top to bottom like llama2.c's run.c; the family differences are
// fields of ModelConfig filled from the per-family table, not branches on the family.
#include <torch/torch.h>

#include "geoattn/io/checkpoint.h"
#include "geoattn/model/capture.h"
#include "geoattn/model/weights.h"

namespace geoattn::model {

class Decoder {
 public:
  Decoder(arch::ModelConfig config, Weights weights, torch::Dtype dtype, torch::Device device);
  static Decoder load(const io::Checkpoint& checkpoint, torch::Dtype dtype, torch::Device device);

  // ids [B, T] int64 (any device). Fills `capture` with the points it asks for. Returns the
  // logits [B, T, vocab] in float32, or an undefined tensor when `want_logits` is false (then
  // the layers after the last captured one are skipped too).
  torch::Tensor forward(const torch::Tensor& ids, Capture* capture = nullptr, bool want_logits = true) const;

  const arch::ModelConfig& config() const { return config_; }
  torch::Dtype dtype() const { return dtype_; }
  torch::Device device() const { return device_; }

 private:
  arch::ModelConfig config_;
  Weights w_;
  torch::Dtype dtype_;
  torch::Device device_;
  torch::Tensor inv_freq_;  // RoPE inverse frequencies [head_dim / 2], float32

  torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& weight) const;
  torch::Tensor mlp(const torch::Tensor& x, const LayerWeights& lw) const;
};

}  // namespace geoattn::model
