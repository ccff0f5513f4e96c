#pragma once
// Checkpoint tensors -> LibTorch tensors of the run dtype on the run device.
#include <torch/torch.h>

#include <vector>

#include "geoattn/io/checkpoint.h"

namespace geoattn::model {

struct LayerWeights {
  torch::Tensor attn_norm;         // [hidden]
  torch::Tensor wq, wk, wv, wo;    // [out, in], as nn.Linear stores them
  torch::Tensor bq, bk, bv, bo;    // undefined unless attention_bias
  torch::Tensor mlp_norm;          // [hidden]
  torch::Tensor w_gate, w_up, w_down;
};

struct Weights {
  torch::Tensor embed;       // [vocab, hidden]
  std::vector<LayerWeights> layers;
  torch::Tensor final_norm;  // [hidden]
  torch::Tensor lm_head;     // [vocab, hidden]; the embedding when tied
};

torch::Dtype to_torch_dtype(io::Dtype dtype);

// A copy of one checkpoint tensor, converted to `dtype` on `device`.
torch::Tensor load_tensor(const io::TensorStore& store, const std::string& name, torch::Dtype dtype,
                          torch::Device device);

// All weights of a validated checkpoint (io::Checkpoint::open validated names and shapes).
Weights load_weights(const io::Checkpoint& checkpoint, torch::Dtype dtype, torch::Device device);

}  // namespace geoattn::model
