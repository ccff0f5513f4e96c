#include "geoattn/model/capture_file.h"

#include "geoattn/model/capture_checks.h"

#include "geoattn/io/safetensors.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/model/weights.h"
#include "geoattn/util/error.h"

namespace geoattn::model {

using io::Dtype;
using io::SafetensorsFile;
using io::TensorBlob;
using io::TensorInfo;

namespace {
TensorBlob blob(const std::string& name, const torch::Tensor& t, Dtype dtype) {
  return TensorBlob{name, dtype, t.sizes().vec(), t.data_ptr()};
}

torch::Tensor read(const SafetensorsFile& file, const std::string& name, Dtype dtype, int64_t dims) {
  const TensorInfo* info = file.header().find(name);
  if (!info) fail("{}: not a geoattn capture file: no tensor '{}'", file.path(), name);
  if (info->dtype != dtype)
    fail("{}: tensor '{}' has dtype {}, expected {}", file.path(), name, dtype_name(info->dtype), dtype_name(dtype));
  if (static_cast<int64_t>(info->shape.size()) != dims)
    fail("{}: tensor '{}' has {} dims, expected {}", file.path(), name, info->shape.size(), dims);
  return torch::from_blob(const_cast<uint8_t*>(file.data(*info)), info->shape,
                          torch::TensorOptions().dtype(to_torch_dtype(dtype)))
      .clone();
}
}  // namespace

void write_capture_file(const std::string& path, const CaptureFile& c) {
  auto alpha = c.alpha.to(torch::kCPU, torch::kFloat32).contiguous();
  auto values = c.values.to(torch::kCPU, torch::kFloat32).contiguous();
  auto tokens = c.tokens.to(torch::kCPU, torch::kInt64).contiguous();
  auto queries = c.queries.to(torch::kCPU, torch::kInt64).contiguous();
  io::write_safetensors(path,
                    {blob("alpha", alpha, Dtype::F32), blob("values", values, Dtype::F32),
                     blob("tokens", tokens, Dtype::I64), blob("queries", queries, Dtype::I64)},
                    c.metadata);
}

CaptureFile read_capture_file(const std::string& path) {
  SafetensorsFile file(path);
  CaptureFile c;
  c.alpha = read(file, "alpha", Dtype::F32, 5);
  c.values = read(file, "values", Dtype::F32, 5);
  c.tokens = read(file, "tokens", Dtype::I64, 2);
  c.queries = read(file, "queries", Dtype::I64, 1);
  c.metadata = file.header().metadata;
  check_capture(c.alpha, c.values, c.query_positions(), path + ": alpha", path + ": values");
  const int64_t W = c.alpha.size(0), T = c.alpha.size(4);
  if (c.tokens.size(0) != W || c.tokens.size(1) != T) fail("{}: tokens shape is not [{}, {}]", path, W, T);
  return c;
}

}  // namespace geoattn::model
