#include "geoattn/arch/device.h"

#include <charconv>

namespace geoattn::arch {

std::string device_name(const Device& d) {
  if (d.kind == Device::Kind::Cpu) return "cpu";
  return d.index < 0 ? "cuda" : "cuda:" + std::to_string(d.index);
}

std::optional<Device> parse_device(std::string_view name) {
  if (name == "cpu") return Device{};
  if (name == "cuda") return Device{Device::Kind::Cuda, -1};
  constexpr std::string_view kCuda = "cuda:";
  if (name.substr(0, kCuda.size()) != kCuda) return std::nullopt;
  const std::string_view digits = name.substr(kCuda.size());
  int index = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || index < 0) return std::nullopt;
  return Device{Device::Kind::Cuda, index};
}

ForwardDtype forward_dtype(std::optional<ForwardDtype> flag, const Device& device) {
  if (flag) return *flag;
  return device.kind == Device::Kind::Cuda ? ForwardDtype::Bf16 : ForwardDtype::Fp32;
}

}  // namespace geoattn::arch
