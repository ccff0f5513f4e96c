#include "geoattn/io/safetensors_writer.h"

#include <nlohmann/json.hpp>

#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/shape.h"

namespace geoattn::io {

namespace {
uint64_t byte_size(const TensorBlob& t) { return dtype_size(t.dtype) * static_cast<uint64_t>(values_of(t.shape)); }

// Blobs [i, j) (fill_row blobs of one row count), placed at `start` on: row r of each in turn.
void write_rows(std::ostream& out, const std::vector<TensorBlob>& tensors, size_t i, size_t j, std::streamoff start) {
  const int64_t R = tensors[i].rows;
  std::vector<std::vector<char>> row(j - i);
  std::vector<std::streamoff> at(j - i);
  std::streamoff offset = start;
  for (size_t b = i; b < j; ++b) {
    row[b - i].resize(byte_size(tensors[b]) / static_cast<uint64_t>(R));
    at[b - i] = offset;
    offset += static_cast<std::streamoff>(byte_size(tensors[b]));
  }
  for (int64_t r = 0; r < R; ++r)
    for (size_t b = i; b < j; ++b) {
      auto& bytes = row[b - i];
      if (bytes.empty()) continue;
      tensors[b].fill_row(r, bytes.data());
      out.seekp(at[b - i] + r * static_cast<std::streamoff>(bytes.size()));
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
  out.seekp(offset);
}
}  // namespace

void write_safetensors(const std::string& path, const std::vector<TensorBlob>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& t : tensors) {
    const uint64_t n = byte_size(t);
    if (t.fill_row && (t.rows < 1 || n % static_cast<uint64_t>(t.rows) != 0))
      fail("{}: tensor {} is not {} rows of equal size", path, t.name, t.rows);
    header[t.name] = {{"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}, {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  std::string text = header.dump();
  // The data section starts 8-byte aligned, padded with spaces as the reference writer does.
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');
  write_file_atomic(path, [&](std::ostream& out) {
    uint64_t n = text.size();
    char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    out.write(len, 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (size_t i = 0; i < tensors.size(); ++i) {
      const TensorBlob& t = tensors[i];
      if (t.fill_row) {
        size_t j = i + 1;
        while (j < tensors.size() && tensors[j].fill_row && tensors[j].rows == t.rows) ++j;
        write_rows(out, tensors, i, j, out.tellp());
        i = j - 1;
        continue;
      }
      if (!t.stream) {
        out.write(static_cast<const char*>(t.data), static_cast<std::streamsize>(byte_size(t)));
        continue;
      }
      const auto start = out.tellp();
      t.stream(out);
      if (out && static_cast<uint64_t>(out.tellp() - start) != byte_size(t))
        fail("{}: tensor {} wrote {} bytes, its shape needs {}", path, t.name, static_cast<int64_t>(out.tellp() - start),
             byte_size(t));
    }
  });
}

}  // namespace geoattn::io
