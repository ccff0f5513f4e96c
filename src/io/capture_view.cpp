#include "geoattn/io/capture_view.h"

#include <cstring>

#include "geoattn/io/capture_checks.h"
#include "geoattn/util/error.h"

namespace geoattn::io {

namespace {
const TensorInfo& need(const SafetensorsFile& file, const std::string& name, Dtype dtype, size_t dims) {
  const TensorInfo* info = file.header().find(name);
  if (!info) fail("{}: not a geoattn capture file: no tensor '{}'", file.path(), name);
  if (info->dtype != dtype)
    fail("{}: tensor '{}' has dtype {}, expected {}", file.path(), name, dtype_name(info->dtype), dtype_name(dtype));
  if (info->shape.size() != dims) fail("{}: tensor '{}' has {} dims, expected {}", file.path(), name, info->shape.size(), dims);
  return *info;
}
}  // namespace

CaptureView::CaptureView(const std::string& path, WorkerPool* pool) : file_(path) {
  // The float arrays in place where their bytes are aligned (geoattn's files always are), else a copy.
  const auto floats = [&](const char* name) {
    const TensorInfo& info = need(file_, name, Dtype::F32, 5);
    const uint8_t* bytes = file_.data(info);
    if (reinterpret_cast<uintptr_t>(bytes) % alignof(float) != 0) {
      auto copy = std::shared_ptr<float[]>(new float[static_cast<size_t>(info.numel())]);
      std::memcpy(copy.get(), bytes, static_cast<size_t>(info.numel()) * sizeof(float));
      copies_.push_back(copy);
      bytes = reinterpret_cast<const uint8_t*>(copy.get());
    }
    return FloatView{bytes, Dtype::F32, info.shape};
  };
  alpha_ = floats("alpha");
  values_ = floats("values");
  const TensorInfo& t = need(file_, "tokens", Dtype::I64, 2);
  const TensorInfo& q = need(file_, "queries", Dtype::I64, 1);
  queries_ = file_.read<int64_t>("queries", Dtype::I64, q.shape);
  check_capture(alpha_, values_, queries_, path + ": alpha", path + ": values", pool);
  const int64_t W = alpha_.size(0), T = alpha_.size(4);
  if (t.shape[0] != W || t.shape[1] != T) fail("{}: tokens shape is not [{}, {}]", path, W, T);
  tokens_ = file_.read<int64_t>("tokens", Dtype::I64, t.shape);
}

FloatView CaptureView::alpha_window(int64_t w) const {
  const int64_t per = alpha_.numel() / alpha_.size(0);
  return {static_cast<const float*>(alpha_.data) + w * per, alpha_.dtype, {alpha_.shape.begin() + 1, alpha_.shape.end()}};
}

FloatView CaptureView::values_window(int64_t w) const {
  const int64_t per = values_.numel() / values_.size(0);
  return {static_cast<const float*>(values_.data) + w * per, values_.dtype, {values_.shape.begin() + 1, values_.shape.end()}};
}

}  // namespace geoattn::io
