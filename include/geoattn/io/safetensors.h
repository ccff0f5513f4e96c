#pragma once
// safetensors files: an 8-byte little-endian header length N, N bytes of JSON, then the data.
// Everything here is pure C++ (no LibTorch) so the parser can be fuzzed and reused.
// Every header is validated before any byte of data is trusted:
//   - N fits in the file (and is below a sane cap), the JSON is an object;
//   - each tensor has a known dtype, a shape of non-negative ints, and data_offsets [b, e]
//     inside the data section with e - b == numel * sizeof(dtype);
//   - no two tensors overlap.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geoattn::io {

enum class Dtype { F64, F32, F16, BF16, I64, I32, I16, I8, U8, U16, U32, U64, BOOL };

size_t dtype_size(Dtype dtype);
std::string_view dtype_name(Dtype dtype);  // "F32", as safetensors spells it
std::optional<Dtype> parse_dtype(std::string_view name);

struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // offsets into the data section
  int64_t numel() const;
};

struct SafetensorsHeader {
  std::vector<TensorInfo> tensors;  // in the order of their data offsets
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // 8 + N
  const TensorInfo* find(std::string_view name) const;
};

// Parses and validates the header of a whole file held in `bytes` (`size` bytes).
// `label` names the file in errors. Throws geoattn::Error.
SafetensorsHeader parse_safetensors_header(const uint8_t* bytes, size_t size, const std::string& label);

// A read-only memory map of a whole file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Drops the pages of bytes [offset, offset + bytes) from this process's memory (the mapping is
  // read-only: a later read faults them in again from the file). For bytes already copied.
  void release(size_t offset, size_t bytes) const;

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// One memory-mapped, validated safetensors file.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::string& path);
  const SafetensorsHeader& header() const { return header_; }
  const std::string& path() const { return map_->path(); }
  // Pointer to the bytes of `info` (a tensor of this file's header).
  const uint8_t* data(const TensorInfo& info) const;
  // Those bytes leave the process's resident memory once copied (MappedFile::release).
  void release(const TensorInfo& info) const;
  // A copy of tensor `name`, checked to be `dtype` (whose C++ type is T) of exactly `shape`:
  // geoattn::Error ("tensor 'x' is missing" / "tensor 'x' is I64 [2], expected ...") otherwise.
  template <typename T>
  std::vector<T> read(const std::string& name, Dtype dtype, const std::vector<int64_t>& shape) const;

 private:
  std::unique_ptr<MappedFile> map_;
  SafetensorsHeader header_;
};

// Checks `name` exists with `dtype` and `shape`, and that sizeof(T) is its element size.
const TensorInfo& checked_tensor(const SafetensorsHeader& header, const std::string& name, Dtype dtype,
                                 const std::vector<int64_t>& shape, size_t element_size);

template <typename T>
std::vector<T> SafetensorsFile::read(const std::string& name, Dtype dtype, const std::vector<int64_t>& shape) const {
  const TensorInfo& info = checked_tensor(header_, name, dtype, shape, sizeof(T));
  std::vector<T> out(static_cast<size_t>(info.numel()));
  if (!out.empty()) std::memcpy(out.data(), data(info), out.size() * sizeof(T));  // no alignment assumed
  return out;
}

// The tensors of a checkpoint folder: `model.safetensors`, or the shards listed by
// `model.safetensors.index.json` ("weight_map": tensor -> file). Every shard is validated,
// and every tensor the index names must be in the shard it names.
class TensorStore {
 public:
  static TensorStore open(const std::string& dir);

  struct Entry {
    const SafetensorsFile* file;
    const TensorInfo* info;
  };
  // nullptr-free lookup: throws geoattn::Error naming the tensor and the checkpoint.
  Entry at(const std::string& name) const;
  bool contains(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::vector<std::unique_ptr<SafetensorsFile>>& files() const { return files_; }
  const std::string& dir() const { return dir_; }
  uint64_t total_bytes() const;

 private:
  std::string dir_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace geoattn::io
