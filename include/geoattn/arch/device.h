#pragma once
// Where and in which precision a model runs: the --device and --dtype of the commands, typed
// from the flag on and spelled only where a file records them ("settings.dtype",
// "timing.device", a capture's __metadata__). model/ and the CLI map them to LibTorch. No LibTorch.
#include <optional>
#include <string>
#include <string_view>

#include "geoattn/util/enum_names.h"

namespace geoattn::arch {

// The forward's floating-point type (the metrics are always float64).
enum class ForwardDtype { Fp32, Bf16, Fp16 };
inline constexpr EnumName<ForwardDtype> kForwardDtypeNames[] = {
    {ForwardDtype::Fp32, "fp32"}, {ForwardDtype::Bf16, "bf16"}, {ForwardDtype::Fp16, "fp16"}};

// cpu, cuda (the current CUDA device) or cuda:N.
struct Device {
  enum class Kind { Cpu, Cuda };
  Kind kind = Kind::Cpu;
  int index = -1;  // cuda:N; -1: none given
  bool operator==(const Device&) const = default;
};
std::string device_name(const Device& device);
// "cpu", "cuda" or "cuda:N" with N a decimal index >= 0; nullopt for anything else.
std::optional<Device> parse_device(std::string_view name);

// The dtype of a run on `device`: --dtype's, or for auto (nullopt) bf16 on CUDA, fp32 on the CPU.
ForwardDtype forward_dtype(std::optional<ForwardDtype> flag, const Device& device);

}  // namespace geoattn::arch
