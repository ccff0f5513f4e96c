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
  // Or, in `rows` equal parts in order (rows divides numel): fill_row(r, dst) puts part r into dst.
  // Consecutive blobs made so, with the same number of rows, are written a row of each at a
  // time, each row at its place in the file: a producer whose rows of several tensors come from
  // one source (a head's statistics) reads it once, while it is in cache, not once per tensor.
  int64_t rows = 0;
  std::function<void(int64_t r, void* dst)> fill_row;
};

void write_safetensors(const std::string& path, const std::vector<TensorBlob>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace geoattn::io
