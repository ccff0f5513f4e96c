#pragma once
// Test helpers that need LibTorch: read one tensor of a safetensors file.
#include <torch/torch.h>

#include "geoattn/io/safetensors.h"
#include "geoattn/model/weights.h"
#include "geoattn/util/error.h"

namespace geoattn::testing {

inline torch::Tensor read_tensor(const io::SafetensorsFile& file, const std::string& name) {
  const io::TensorInfo* info = file.header().find(name);
  if (!info) throw Error(file.path() + ": no tensor " + name);
  return torch::from_blob(const_cast<uint8_t*>(file.data(*info)), info->shape,
                          torch::TensorOptions().dtype(model::to_torch_dtype(info->dtype)))
      .clone();
}

inline double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

}  // namespace geoattn::testing
