#pragma once
// io/capture_checks.h's checks of a capture, for tensors (from Python: geoattn.metrics,
// geoattn.sinks): the one definition is there; these view the tensors (on the CPU, contiguous)
// and call it.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "geoattn/io/capture_checks.h"

namespace geoattn::model {

using io::kMaskedTolerance;
using io::kRowTolerance;

// A tensor's storage as a FloatView: contiguous on the CPU, float64/32/16 or bfloat16
// (geoattn::Error otherwise). Valid while `t` lives.
io::FloatView float_view(const torch::Tensor& t);

// io::check_finite and io::check_capture of tensors on any device.
void check_finite(const torch::Tensor& x, const std::string& name, const std::string& head_word = "head");
void check_capture(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                   const std::string& alpha_name, const std::string& values_name);
// io::check_layer_windows of a tensor on any device.
void check_layer_windows(const torch::Tensor& alpha, const std::vector<int64_t>& queries,
                         const std::vector<int64_t>& layer_windows, const std::string& alpha_name,
                         const std::string& windows_name);

}  // namespace geoattn::model
