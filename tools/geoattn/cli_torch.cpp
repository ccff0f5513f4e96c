#include "cli_torch.h"

#include "geoattn/util/error.h"

namespace geoattn::cli {

torch::Device torch_device(const arch::Device& device) {
  if (device.kind == arch::Device::Kind::Cpu) return torch::Device(torch::kCPU);
  const std::string name = arch::device_name(device);
  if (!torch::cuda::is_available())
    fail("--device {}: no CUDA device is available (this LibTorch build or machine has none)", name);
  if (device.index >= static_cast<int>(torch::cuda::device_count()))
    fail("--device {}: only {} CUDA devices", name, torch::cuda::device_count());
  return device.index < 0 ? torch::Device(torch::kCUDA) : torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(device.index));
}

torch::Dtype torch_dtype(arch::ForwardDtype dtype) {
  switch (dtype) {
    case arch::ForwardDtype::Fp32: return torch::kFloat32;
    case arch::ForwardDtype::Bf16: return torch::kBFloat16;
    case arch::ForwardDtype::Fp16: return torch::kFloat16;
  }
  fail("internal: forward dtype {}", static_cast<int>(dtype));
}

}  // namespace geoattn::cli
