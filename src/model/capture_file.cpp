#include "geoattn/model/capture_file.h"

#include "geoattn/io/capture_view.h"
#include "geoattn/io/safetensors.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/model/weights.h"
#include "geoattn/util/error.h"

namespace geoattn::model {

using io::Dtype;
using io::TensorBlob;

namespace {
TensorBlob blob(const std::string& name, const torch::Tensor& t, Dtype dtype) {
  return TensorBlob{name, dtype, t.sizes().vec(), t.data_ptr()};
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
  const io::CaptureView view(path);  // read and checked where it lies, then copied into tensors
  const auto tensor = [](const io::FloatView& v) {
    return torch::from_blob(const_cast<void*>(v.data), v.shape, torch::kFloat32).clone();
  };
  CaptureFile c;
  c.alpha = tensor(view.alpha());
  c.values = tensor(view.values());
  c.tokens = torch::tensor(view.tokens(), torch::kInt64).view({view.windows(), view.alpha().size(4)});
  c.queries = torch::tensor(view.queries(), torch::kInt64);
  c.metadata = view.metadata();
  return c;
}

}  // namespace geoattn::model
