#pragma once
// A read-only, row-major array of floating values where they lie (a mapped capture file, a
// tensor's storage) in the type they have there (F64, F32, F16, BF16): what the metric core
// reads, converting each element to double exactly. Pure C++.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "geoattn/io/float_bits.h"
#include "geoattn/io/safetensors.h"
#include "geoattn/util/error.h"
#include "geoattn/util/shape.h"

namespace geoattn::io {

struct FloatView {
  const void* data = nullptr;
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;

  int64_t numel() const { return values_of(shape); }
  int64_t size(int64_t dim) const { return shape.at(static_cast<size_t>(dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim)); }
  // Elements [offset, offset + out.size()) as doubles.
  void to_double(int64_t offset, std::span<double> out) const {
    const auto n = static_cast<int64_t>(out.size());
    switch (dtype) {
      case Dtype::F64: std::copy_n(static_cast<const double*>(data) + offset, n, out.begin()); return;
      case Dtype::F32: std::copy_n(static_cast<const float*>(data) + offset, n, out.begin()); return;
      case Dtype::F16:
        for (int64_t i = 0; i < n; ++i) out[i] = f16_to_float(static_cast<const uint16_t*>(data)[offset + i]);
        return;
      case Dtype::BF16:
        for (int64_t i = 0; i < n; ++i) out[i] = bf16_to_float(static_cast<const uint16_t*>(data)[offset + i]);
        return;
      default: fail("internal: a float view of {} values", dtype_name(dtype));
    }
  }
  // Whether elements [offset, offset + n) are all finite: no value with every exponent bit set
  // (an infinity or NaN), tested on the stored bits, in vector lanes.
  bool all_finite(int64_t offset, int64_t n) const {
    switch (dtype) {
      case Dtype::F64: return exponents_finite<double, uint64_t>(offset, n, 0x7ff0000000000000u);
      case Dtype::F32: return exponents_finite<float, uint32_t>(offset, n, 0x7f800000u);
      case Dtype::F16: return exponents_finite<uint16_t, uint16_t>(offset, n, 0x7c00u);
      case Dtype::BF16: return exponents_finite<uint16_t, uint16_t>(offset, n, 0x7f80u);
      default: fail("internal: a float view of {} values", dtype_name(dtype));
    }
  }
  double at(int64_t offset) const {
    double x = 0;
    to_double(offset, {&x, 1});
    return x;
  }

 private:
  template <typename Stored, typename Bits>
  bool exponents_finite(int64_t offset, int64_t n, Bits exponent) const {
    const Stored* x = static_cast<const Stored*>(data) + offset;
    bool bad = false;
    for (int64_t i = 0; i < n; ++i) bad |= (std::bit_cast<Bits>(x[i]) & exponent) == exponent;
    return !bad;
  }
};

}  // namespace geoattn::io
