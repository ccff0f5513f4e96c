#pragma once
// Writes safetensors files that numpy/PyTorch/safetensors read directly. Atomic: the file
// appears whole or not at all. Pure C++ (no LibTorch).
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "geoattn/io/safetensors.h"

namespace geoattn::io {

struct TensorBlob {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;
  const void* data = nullptr;  // numel * dtype_size bytes, little-endian, row-major
  // Or, where the bytes are made while the file is written (no copy of a large array held in
  // memory): writes exactly numel * dtype_size bytes in order; the writer checks the count.
  std::function<void(std::ostream&)> stream;
};

void write_safetensors(const std::string& path, const std::vector<TensorBlob>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace geoattn::io
