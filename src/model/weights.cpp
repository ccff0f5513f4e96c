#include "geoattn/model/weights.h"

#include "geoattn/util/error.h"

namespace geoattn::model {

torch::Dtype to_torch_dtype(io::Dtype dtype) {
  switch (dtype) {
    case io::Dtype::F64: return torch::kFloat64;
    case io::Dtype::F32: return torch::kFloat32;
    case io::Dtype::F16: return torch::kFloat16;
    case io::Dtype::BF16: return torch::kBFloat16;
    case io::Dtype::I64: return torch::kInt64;
    case io::Dtype::I32: return torch::kInt32;
    case io::Dtype::I16: return torch::kInt16;
    case io::Dtype::I8: return torch::kInt8;
    case io::Dtype::U8: return torch::kUInt8;
    case io::Dtype::BOOL: return torch::kBool;
    default: fail("dtype {} has no LibTorch equivalent", io::dtype_name(dtype));
  }
}

torch::Tensor load_tensor(const io::TensorStore& store, const std::string& name, torch::Dtype dtype,
                          torch::Device device) {
  const auto entry = store.at(name);
  // from_blob views the memory map without copying; .to() makes the one copy we keep.
  auto view = torch::from_blob(const_cast<uint8_t*>(entry.file->data(*entry.info)), entry.info->shape,
                               torch::TensorOptions().dtype(to_torch_dtype(entry.info->dtype)));
  return view.to(device, dtype, /*non_blocking=*/false, /*copy=*/true);
}

namespace {
std::string layer_name(const char* pattern, int64_t layer) { return fmt::format(fmt::runtime(pattern), layer); }
}  // namespace

Weights load_weights(const io::Checkpoint& checkpoint, torch::Dtype dtype, torch::Device device) {
  const arch::ModelConfig& c = checkpoint.config;
  const io::TensorNames& n = io::family_spec(c.family).names;
  auto get = [&](const std::string& name) { return load_tensor(checkpoint.tensors, name, dtype, device); };
  Weights w;
  w.embed = get(n.embed);
  for (int64_t l = 0; l < c.n_layers; ++l) {
    LayerWeights lw;
    lw.attn_norm = get(layer_name(n.attn_norm, l));
    lw.wq = get(layer_name(n.q, l));
    lw.wk = get(layer_name(n.k, l));
    lw.wv = get(layer_name(n.v, l));
    lw.wo = get(layer_name(n.o, l));
    if (c.attention_bias) {
      lw.bq = get(layer_name(n.q_bias, l));
      lw.bk = get(layer_name(n.k_bias, l));
      lw.bv = get(layer_name(n.v_bias, l));
      lw.bo = get(layer_name(n.o_bias, l));
    }
    lw.mlp_norm = get(layer_name(n.mlp_norm, l));
    lw.w_gate = get(layer_name(n.gate, l));
    lw.w_up = get(layer_name(n.up, l));
    lw.w_down = get(layer_name(n.down, l));
    w.layers.push_back(std::move(lw));
  }
  w.final_norm = get(n.final_norm);
  w.lm_head = c.tie_embeddings ? w.embed : get(n.lm_head);
  return w;
}

}  // namespace geoattn::model
