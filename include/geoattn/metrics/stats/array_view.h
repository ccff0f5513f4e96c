#pragma once
// An array a statistic hands out for its state file: name, element type, shape and the bytes.
// An array the statistic keeps is viewed where it is (valid while the object lives and is not
// changed); one it derives for the file (anchor rows, unit ids) is held by the view itself.
// report/ maps the views to safetensors tensors; the statistics write no file. Pure C++.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "geoattn/io/safetensors.h"

namespace geoattn::metrics {

struct ArrayView {
  std::string name;
  io::Dtype dtype = io::Dtype::I64;
  std::vector<int64_t> shape;
  std::span<const std::byte> bytes;  // little-endian, row-major
  std::shared_ptr<const void> owner;  // the storage of a derived array; null for a statistic's own
};

class ExactSum;

// The bytes of a vector, as they are in memory.
template <typename T>
std::span<const std::byte> bytes_of(const std::vector<T>& v) {
  static_assert(std::endian::native == std::endian::little, "the state files are little-endian");
  return std::as_bytes(std::span<const T>(v));
}

// A derived array: `data` moves into the view, which holds it.
template <typename T>
ArrayView derived_array(std::string name, io::Dtype dtype, std::vector<int64_t> shape, std::vector<T> data) {
  auto held = std::make_shared<const std::vector<T>>(std::move(data));
  return {std::move(name), dtype, std::move(shape), bytes_of(*held), held};
}

// ExactSum totals as the state files store them, I64 [n, 2] of [lo, hi] halves (ExactSum::lo,
// hi): the bytes of the __int128 in little-endian memory, so no copy is made.
std::span<const std::byte> exact_sum_bytes(const std::vector<ExactSum>& sums);
// Back from a state file: `halves` I64 [n, 2] into `sums` (n of them already) and `in` into
// `counts` (as many, none negative); geoattn::Error naming `what` when a size or a count is off.
void read_exact_sums(const std::vector<int64_t>& halves, std::vector<ExactSum>& sums, const std::string& what);
void read_counts(const std::vector<int64_t>& in, std::vector<int64_t>& counts, const std::string& what);
// `other` added into `counts` element by element (same sizes), or geoattn::Error naming `what`
// with `counts` unchanged when a total would pass int64 (counts come from state files).
void merge_counts(std::vector<int64_t>& counts, const std::vector<int64_t>& other, const std::string& what);

}  // namespace geoattn::metrics
