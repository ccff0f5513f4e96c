#include "geoattn/model/capture_tensor_checks.h"

#include "geoattn/util/error.h"

namespace geoattn::model {

io::FloatView float_view(const torch::Tensor& t) {
  if (t.is_cuda() || !t.is_contiguous()) fail("internal: a float view of a tensor that is not contiguous on the CPU");
  io::Dtype dtype = io::Dtype::F32;
  switch (t.scalar_type()) {
    case torch::kFloat64: dtype = io::Dtype::F64; break;
    case torch::kFloat32: dtype = io::Dtype::F32; break;
    case torch::kFloat16: dtype = io::Dtype::F16; break;
    case torch::kBFloat16: dtype = io::Dtype::BF16; break;
    default: fail("internal: a float view of a {} tensor", c10::toString(t.scalar_type()));
  }
  return {t.data_ptr(), dtype, t.sizes().vec()};
}

namespace {
// A view's tensor: on the CPU and contiguous (a copy only where it is not), floating.
torch::Tensor viewable(const torch::Tensor& t) {
  auto c = t.to(torch::kCPU).contiguous();
  return c.is_floating_point() ? c : c.to(torch::kFloat64);
}
}  // namespace

void check_finite(const torch::Tensor& x, const std::string& name, const std::string& head_word) {
  const auto c = viewable(x);
  io::check_finite(float_view(c), name, head_word);
}

void check_capture(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                   const std::string& alpha_name, const std::string& values_name) {
  const auto a = viewable(alpha), v = viewable(values);
  io::check_capture(float_view(a), float_view(v), queries, alpha_name, values_name);
}

void check_layer_windows(const torch::Tensor& alpha, const std::vector<int64_t>& queries,
                         const std::vector<int64_t>& layer_windows, const std::string& alpha_name,
                         const std::string& windows_name) {
  if (layer_windows.empty()) return;
  const auto a = viewable(alpha);
  io::check_layer_windows(float_view(a), queries, layer_windows, alpha_name, windows_name);
}

}  // namespace geoattn::model
