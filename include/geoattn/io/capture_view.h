#pragma once
// The capture file (`geoattn capture` writes it: model/capture_file.h), read where it lies: the
// file mapped, checked as capture_checks.h says (names, dtypes, shapes that agree, finite values,
// attention rows), its arrays viewed without a copy. What `geoattn metrics` reads; LibTorch never
// sees it. Pure C++.
//   alpha   float32 [windows, layers, heads, queries, T]  attention rows, zero after each query
//   values  float32 [windows, layers, kv_heads, T, head_dim]
//   tokens  int64   [windows, T]
//   queries int64   [queries]
//   __metadata__: architecture, dims, dtype, model path, doc_ids, ...
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "geoattn/io/float_view.h"
#include "geoattn/io/safetensors.h"

namespace geoattn {
class WorkerPool;
}

namespace geoattn::io {

class CaptureView {
 public:
  // geoattn::Error naming the file on anything the checks refuse. With `pool`, the arrays are
  // checked for NaN and infinity (and the file's pages so first read) on its workers.
  explicit CaptureView(const std::string& path, WorkerPool* pool = nullptr);

  const std::string& path() const { return file_.path(); }
  const FloatView& alpha() const { return alpha_; }    // [W, L, H, Q, T]
  const FloatView& values() const { return values_; }  // [W, L, KV, T, d]
  const std::vector<int64_t>& queries() const { return queries_; }
  const std::vector<int64_t>& tokens() const { return tokens_; }  // [W, T]
  const std::map<std::string, std::string>& metadata() const { return file_.header().metadata; }
  int64_t windows() const { return alpha_.size(0); }
  // Window w's alpha [L, H, Q, T] and values [L, KV, T, d].
  FloatView alpha_window(int64_t w) const;
  FloatView values_window(int64_t w) const;

 private:
  SafetensorsFile file_;
  std::vector<std::shared_ptr<const void>> copies_;  // a tensor whose bytes are not aligned, copied
  FloatView alpha_, values_;
  std::vector<int64_t> queries_, tokens_;
};

}  // namespace geoattn::io
