#pragma once
// The capture file: what `geoattn capture` writes and `geoattn metrics` reads, a plain
// safetensors file that numpy and PyTorch open without geoattn (DESIGN "Files others read"):
//   alpha   float32 [windows, layers, heads, queries, T]  attention rows, zero after each query
//   values  float32 [windows, layers, kv_heads, T, head_dim]  v_proj output per KV head
//   tokens  int64   [windows, T]
//   queries int64   [queries]
//   __metadata__: architecture, dims, dtype, model path, ...
// Beside the model: it moves tensors (LibTorch), which io/ never does.
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

namespace geoattn::model {

struct CaptureFile {
  torch::Tensor alpha, values, tokens, queries;
  std::map<std::string, std::string> metadata;

  // The query positions as a plain vector.
  std::vector<int64_t> query_positions() const {
    const torch::Tensor q = queries.contiguous();
    return {q.data_ptr<int64_t>(), q.data_ptr<int64_t>() + q.numel()};
  }
};

void write_capture_file(const std::string& path, const CaptureFile& capture);
// Validates names, dtypes, and the tensors as model/capture_tensor_checks.h says (shapes that agree,
// finite values, attention rows); geoattn::Error naming the file otherwise.
CaptureFile read_capture_file(const std::string& path);

}  // namespace geoattn::model
