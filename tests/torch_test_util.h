#pragma once
// Test helpers that need LibTorch: read one tensor of a safetensors file, and a shipped model's
// real captures.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "geoattn/io/checkpoint.h"
#include "geoattn/io/safetensors.h"
#include "geoattn/io/tokenizer.h"
#include "geoattn/io/windows.h"
#include "geoattn/model/capture.h"
#include "geoattn/model/decoder.h"
#include "geoattn/model/weights.h"
#include "geoattn/util/error.h"
#include "test_util.h"

namespace geoattn::testing {

inline torch::Tensor read_tensor(const io::SafetensorsFile& file, const std::string& name) {
  const io::TensorInfo* info = file.header().find(name);
  if (!info) throw Error(file.path() + ": no tensor " + name);
  return torch::from_blob(const_cast<uint8_t*>(file.data(*info)), info->shape,
                          torch::TensorOptions().dtype(model::to_torch_dtype(info->dtype)))
      .clone();
}

inline double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

// One window of a shipped model's real captures: its token ids and what the hooks recorded.
struct WindowCapture {
  std::vector<int64_t> ids;
  model::HookCache cache;
  // `point` of every layer for this window (a batch of one): [L, ...], contiguous.
  torch::Tensor at(model::HookPoint point) const { return cache.stacked(point)[0].contiguous(); }
};

// `model` (a shipped checkpoint folder with its tokenizer.model, relative to the source tree) on
// the windows `w` cuts from `files` (its BOS id set here), float32 on the CPU, recording the hook
// points `points` at `queries` (empty: every query). What the tests on real captures start from.
inline std::vector<WindowCapture> capture_windows(const std::string& model, const std::vector<std::string>& files,
                                                  io::WindowOptions w, const std::vector<std::string>& points,
                                                  const std::vector<int64_t>& queries = {}) {
  const auto ck = io::Checkpoint::open(source(model));
  const auto tok = io::Tokenizer::load(ck.dir + "/tokenizer.model");
  w.bos_id = tok->bos_id();
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(source(f));
  const auto wins = io::make_windows(paths, w, [&](const std::string& text) { return tok->encode(text); });
  const auto decoder = model::Decoder::load(ck, torch::kFloat32, torch::kCPU);
  const model::HookSpec hooks(points, ck.config.n_layers, queries);
  std::vector<WindowCapture> out;
  for (const auto& win : wins) {
    model::HookCache cache;
    decoder.forward(torch::tensor(win.ids, torch::kInt64).unsqueeze(0), hooks, cache, /*want_logits=*/false);
    out.push_back({win.ids, std::move(cache)});
  }
  return out;
}

}  // namespace geoattn::testing
