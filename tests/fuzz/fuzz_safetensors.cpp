// libFuzzer target: the safetensors header parser on the raw bytes of a whole file
// (io/safetensors.h, parse_safetensors_header). Every header it accepts must keep the
// promises of safetensors.h: offsets inside the data, bytes == numel x dtype size, no overlap.
#include <algorithm>
#include <cstring>
#include <vector>

#include "fuzz_util.h"
#include "geoattn/io/safetensors.h"

using namespace geoattn;
using namespace geoattn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  expect_ok_or_error([&] {
    const io::SafetensorsHeader header = io::parse_safetensors_header(data, size, "fuzz.safetensors");
    require(header.data_start >= 8 && header.data_start <= size, "the data section starts inside the file");
    const uint64_t data_size = size - header.data_start;
    uint64_t end_so_far = 0;
    for (const io::TensorInfo& t : header.tensors) {
      require(t.begin <= t.end && t.end <= data_size, "data_offsets inside the data section");
      require(t.end - t.begin == static_cast<uint64_t>(t.numel()) * io::dtype_size(t.dtype),
              "data_offsets span numel x dtype size");
      require(t.numel() >= 0, "numel >= 0");
      if (t.end > t.begin) {
        require(t.begin >= end_so_far, "tensors do not overlap");
        end_so_far = std::max(end_so_far, t.end);
      }
      require(header.find(t.name) != nullptr, "find() finds every tensor");
      require(io::parse_dtype(io::dtype_name(t.dtype)) == t.dtype, "dtype names round-trip");
      // What SafetensorsFile::read does: the tensor's bytes are copied out of the file.
      const io::TensorInfo& checked = io::checked_tensor(header, t.name, t.dtype, t.shape, io::dtype_size(t.dtype));
      std::vector<uint8_t> copy(static_cast<size_t>(checked.end - checked.begin));
      if (!copy.empty()) std::memcpy(copy.data(), data + header.data_start + checked.begin, copy.size());
    }
    for (const auto& [key, value] : header.metadata) require(key != "__metadata__", "metadata keys are plain");
  });
  return 0;
}
