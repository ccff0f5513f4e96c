#pragma once
// The loop every model-running command shares: windows -> batched forward with the
// attn.pattern and attn.v capture points (and hook_resid_pre when asked) -> one visit per window, with a progress line.
#include <functional>
#include <vector>

#include <torch/torch.h>

#include "geoattn/io/windows.h"
#include "geoattn/model/decoder.h"

namespace geoattn::pipeline {

struct ForwardTimes {
  double forward_s = 0;  // forward and capture (synchronised on CUDA)
  double visit_s = 0;    // the callbacks: metrics, fits, bounds (overlapping the forward)
  double wall_s = 0;     // the whole loop, start to last visit
};

// One window's captures, on the model's device: alpha [L, H, Q, T], values [L, KV, T, d] and,
// when asked for, the residual stream entering each block [L, T, hidden] (else undefined).
struct CapturedWindow {
  torch::Tensor alpha, values, resid_pre;
};

// visit(w, captures) for each window w in order. `batch` windows share one forward. The visits
// of a batch run on another thread while the next batch's forward runs (two batches' captures
// alive at once); visits never overlap each other. `resid_pre` adds blocks.*.hook_resid_pre;
// `rows_dtype` says how the alpha rows are rounded (model/attention.h).
using WindowVisitor = std::function<void(int64_t, const CapturedWindow&)>;
ForwardTimes forward_windows(const model::Decoder& decoder, int64_t n_layers, const std::vector<io::Window>& windows,
                             const std::vector<int64_t>& queries, int64_t batch, const char* what, bool quiet,
                             const WindowVisitor& visit, bool resid_pre = false,
                             model::RowsDtype rows_dtype = model::RowsDtype::Float32);

}  // namespace geoattn::pipeline
