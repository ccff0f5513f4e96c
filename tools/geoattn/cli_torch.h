#pragma once
// What the commands that run a model (LibTorch: geoattn-torch) share beside cli.h.
#include <torch/torch.h>

#include "cli.h"

namespace geoattn::cli {

// --device as LibTorch's: geoattn::Error naming the flag when this build or machine has no such device.
torch::Device torch_device(const arch::Device& device);
torch::Dtype torch_dtype(arch::ForwardDtype dtype);

}  // namespace geoattn::cli
