#pragma once
// IEEE half (F16) and bfloat16 (BF16) as float, exactly (every value of both is a float): the
// conversions a reader of a capture or checkpoint needs without LibTorch. Pure C++.
#include <bit>
#include <cstdint>

namespace geoattn::io {

// bfloat16: the top 16 bits of a float.
inline float bf16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

// IEEE 754 binary16: sign, 5 exponent bits (bias 15), 10 fraction bits; subnormals, infinities
// and NaN (its payload kept) included.
inline float f16_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu, fraction = bits & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (fraction << 13));  // inf, NaN
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (fraction << 13));
  // zero or subnormal: fraction x 2^-24, exact in float
  const float magnitude = static_cast<float>(fraction) * 0x1p-24f;
  return sign ? -magnitude : magnitude;
}

}  // namespace geoattn::io
