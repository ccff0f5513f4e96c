#include "geoattn/io/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "geoattn/util/input_files.h"
#include "geoattn/util/error.h"
#include "geoattn/util/shape.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::io {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct DtypeRow {
  Dtype dtype;
  std::string_view name;
  size_t size;
};
// The dtypes of the safetensors format that geoattn reads.
constexpr DtypeRow kDtypes[] = {
    {Dtype::F64, "F64", 8}, {Dtype::F32, "F32", 4},  {Dtype::F16, "F16", 2}, {Dtype::BF16, "BF16", 2},
    {Dtype::I64, "I64", 8}, {Dtype::I32, "I32", 4},  {Dtype::I16, "I16", 2}, {Dtype::I8, "I8", 1},
    {Dtype::U8, "U8", 1},   {Dtype::U16, "U16", 2},  {Dtype::U32, "U32", 4}, {Dtype::U64, "U64", 8},
    {Dtype::BOOL, "BOOL", 1},
};

const DtypeRow& row_of(Dtype dtype) {
  for (const auto& row : kDtypes)
    if (row.dtype == dtype) return row;
  fail("internal: unknown dtype");
}

// Headers above this are not checkpoints (real 7B headers are ~30 KB); the format caps at 100 MB.
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

uint64_t read_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

TensorInfo parse_tensor(const std::string& name, const json& entry, uint64_t data_size, const std::string& label) {
  if (!entry.is_object()) fail("{}: tensor '{}': header entry is not an object", label, name);
  TensorInfo info;
  info.name = name;
  auto dt = entry.find("dtype");
  if (dt == entry.end() || !dt->is_string()) fail("{}: tensor '{}': missing dtype", label, name);
  auto dtype = parse_dtype(dt->get<std::string>());
  if (!dtype) fail("{}: tensor '{}': unsupported dtype '{}'", label, name, dt->get<std::string>());
  info.dtype = *dtype;

  auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) fail("{}: tensor '{}': missing shape", label, name);
  // numel in 128-bit-safe steps: refuse shapes whose byte count overflows 64 bits.
  uint64_t numel = 1;
  for (const auto& dim : *shape) {
    if (!dim.is_number_integer() || dim.get<int64_t>() < 0)
      fail("{}: tensor '{}': shape has a non-integer or negative dimension", label, name);
    uint64_t d = dim.get<uint64_t>();
    if (d != 0 && numel > std::numeric_limits<uint64_t>::max() / 16 / d)
      fail("{}: tensor '{}': shape is too large", label, name);
    numel *= d;
    info.shape.push_back(static_cast<int64_t>(d));
  }

  auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 ||
      !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned())
    fail("{}: tensor '{}': data_offsets must be two non-negative integers", label, name);
  info.begin = (*offsets)[0].get<uint64_t>();
  info.end = (*offsets)[1].get<uint64_t>();
  if (info.begin > info.end) fail("{}: tensor '{}': data_offsets begin > end", label, name);
  if (info.end > data_size)
    fail("{}: tensor '{}': data_offsets end {} is past the end of the data ({} bytes; truncated file?)", label,
         name, info.end, data_size);
  uint64_t expected = numel * row_of(info.dtype).size;
  if (info.end - info.begin != expected)
    fail("{}: tensor '{}': {} bytes for shape x dtype {} but data_offsets span {}", label, name, expected,
         dtype_name(info.dtype), info.end - info.begin);
  return info;
}

}  // namespace

size_t dtype_size(Dtype dtype) { return row_of(dtype).size; }
std::string_view dtype_name(Dtype dtype) { return row_of(dtype).name; }

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& row : kDtypes)
    if (row.name == name) return row.dtype;
  return std::nullopt;
}

int64_t TensorInfo::numel() const { return values_of(shape); }

const TensorInfo* SafetensorsHeader::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

SafetensorsHeader parse_safetensors_header(const uint8_t* bytes, size_t size, const std::string& label) {
  if (size < 8) fail("{}: file is {} bytes, too short for a safetensors header", label, size);
  const uint64_t n = read_le64(bytes);
  if (n > kMaxHeaderBytes) fail("{}: header length {} is above the 100 MB limit (not a safetensors file?)", label, n);
  if (n > size - 8) fail("{}: header length {} is past the end of the file ({} bytes; truncated?)", label, n, size);

  std::string why;
  json header = parse_json(&why, bytes + 8, bytes + 8 + n);
  if (header.is_discarded()) fail("{}: header is {}", label, why);
  if (!header.is_object()) fail("{}: header is not a JSON object", label);

  SafetensorsHeader out;
  out.data_start = 8 + n;
  const uint64_t data_size = size - out.data_start;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) fail("{}: __metadata__ is not an object", label);
      for (const auto& [k, v] : entry.items()) {
        if (!v.is_string()) fail("{}: __metadata__ value '{}' is not a string", label, k);
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    out.tensors.push_back(parse_tensor(name, entry, data_size, label));
  }
  // Non-overlapping: sorted by begin, each tensor ends at or before the next begins.
  std::sort(out.tensors.begin(), out.tensors.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  const TensorInfo* last = nullptr;  // the non-empty tensor that ends last so far
  for (const auto& cur : out.tensors) {
    if (cur.end == cur.begin) continue;
    if (last && cur.begin < last->end)
      fail("{}: tensors '{}' and '{}' overlap in the data section", label, last->name, cur.name);
    if (!last || cur.end > last->end) last = &cur;
  }
  return out;
}

MappedFile::MappedFile(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open ({})", path, std::strerror(errno));
  note_input(path);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("{}: not a regular file", path);
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      fail("{}: mmap failed ({})", path, std::strerror(errno));
    }
    data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

void MappedFile::release(size_t offset, size_t bytes) const {
  if (!data_ || bytes == 0 || offset >= size_) return;
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t begin = offset / page * page, end = std::min(size_, offset + bytes);
  ::madvise(const_cast<uint8_t*>(data_) + begin, end - begin, MADV_DONTNEED);  // advice: failure is harmless
}

SafetensorsFile::SafetensorsFile(const std::string& path)
    : map_(std::make_unique<MappedFile>(path)),
      header_(parse_safetensors_header(map_->data(), map_->size(), path)) {}

void SafetensorsFile::release(const TensorInfo& info) const {
  map_->release(header_.data_start + info.begin, info.end - info.begin);
}

const uint8_t* SafetensorsFile::data(const TensorInfo& info) const {
  return map_->data() + header_.data_start + info.begin;
}

TensorStore TensorStore::open(const std::string& dir) {
  TensorStore store;
  store.dir_ = dir;
  const fs::path index_path = fs::path(dir) / "model.safetensors.index.json";
  const fs::path single_path = fs::path(dir) / "model.safetensors";
  std::error_code ec;
  if (fs::exists(index_path, ec)) {
    const json index = read_json_file(index_path.string());
    if (!index.is_object()) fail("{}: not a JSON object", index_path.string());
    auto map = index.find("weight_map");
    if (map == index.end() || !map->is_object() || map->empty())
      fail("{}: missing or empty 'weight_map'", index_path.string());
    std::map<std::string, size_t> file_of_shard;
    for (const auto& [tensor, shard] : map->items()) {
      if (!shard.is_string()) fail("{}: weight_map['{}'] is not a file name", index_path.string(), tensor);
      const std::string shard_name = shard.get<std::string>();
      if (shard_name.find('/') != std::string::npos || shard_name == "..")
        fail("{}: weight_map['{}'] = '{}' is not a file in the checkpoint folder", index_path.string(), tensor,
             shard_name);
      auto [it, inserted] = file_of_shard.try_emplace(shard_name, store.files_.size());
      if (inserted) store.files_.push_back(std::make_unique<SafetensorsFile>((fs::path(dir) / shard_name).string()));
      const SafetensorsFile* file = store.files_[it->second].get();
      const TensorInfo* info = file->header().find(tensor);
      if (!info) fail("{}: tensor '{}' is listed in the index but missing from the shard", file->path(), tensor);
      store.entries_[tensor] = Entry{file, info};
    }
  } else if (fs::exists(single_path, ec)) {
    store.files_.push_back(std::make_unique<SafetensorsFile>(single_path.string()));
    const SafetensorsFile* file = store.files_.back().get();
    for (const auto& info : file->header().tensors) store.entries_[info.name] = Entry{file, &info};
  } else {
    fail("{}: no model.safetensors or model.safetensors.index.json", dir);
  }
  return store;
}

TensorStore::Entry TensorStore::at(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) fail("{}: checkpoint is missing tensor '{}'", dir_, name);
  return it->second;
}

bool TensorStore::contains(const std::string& name) const { return entries_.count(name) > 0; }

std::vector<std::string> TensorStore::names() const {
  std::vector<std::string> out;
  for (const auto& [name, _] : entries_) out.push_back(name);
  return out;
}

uint64_t TensorStore::total_bytes() const {
  uint64_t total = 0;
  for (const auto& [_, e] : entries_) total += e.info->end - e.info->begin;
  return total;
}

const TensorInfo& checked_tensor(const SafetensorsHeader& header, const std::string& name, Dtype dtype,
                                 const std::vector<int64_t>& shape, size_t element_size) {
  const TensorInfo* info = header.find(name);
  if (!info) fail("tensor '{}' is missing", name);
  if (info->dtype != dtype || info->shape != shape || dtype_size(dtype) != element_size) {
    auto dims = [](const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ", ")); };
    fail("tensor '{}' is {} {}, expected {} {}", name, dtype_name(info->dtype), dims(info->shape), dtype_name(dtype),
         dims(shape));
  }
  return *info;
}

}  // namespace geoattn::io
