#include "geoattn/pipeline_torch/window_loop.h"

#include <chrono>
#include <future>

#include "geoattn/model/capture.h"
#include "geoattn/util/error.h"
#include "geoattn/util/progress.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

ForwardTimes forward_windows(const model::Decoder& decoder, int64_t n_layers, const std::vector<io::Window>& windows,
                             const std::vector<int64_t>& queries, int64_t batch, const char* what, bool quiet,
                             const WindowVisitor& visit, bool resid_pre, model::RowsDtype rows_dtype) {
  if (batch < 1) fail("--batch {}: must be at least 1", batch);
  const int64_t W = static_cast<int64_t>(windows.size());
  std::vector<std::string> points = {"blocks.*.attn.pattern", "blocks.*.attn.v"};
  if (resid_pre) points.push_back("blocks.*.hook_resid_pre");
  const model::HookSpec hooks(points, n_layers, queries, rows_dtype);
  model::HookCache capture;
  Progress progress(what, W, quiet);
  ForwardTimes times;
  const auto loop_start = Clock::now();
  int64_t tokens = 0;
  // The visits of one batch run on a thread of their own while the next batch's forward runs
  // here: one batch in flight, visits in window order, so results do not change. A visit's
  // exception surfaces at the next wait.
  std::future<double> in_flight;
  auto wait = [&] {
    if (!in_flight.valid()) return;
    times.visit_s += in_flight.get();
  };
  for (int64_t w0 = 0; w0 < W; w0 += batch) {
    const int64_t w1 = std::min(W, w0 + batch);
    std::vector<torch::Tensor> ids;
    const int64_t tokens_before = tokens;  // of the windows visited once the wait below returns
    for (int64_t w = w0; w < w1; ++w) {
      ids.push_back(torch::tensor(windows[w].ids, torch::kInt64));
      tokens += static_cast<int64_t>(windows[w].ids.size());
    }
    const auto t = Clock::now();
    decoder.forward(torch::stack(ids), hooks, capture, /*want_logits=*/false);
    auto alpha = capture.stacked(model::HookPoint::AttnPattern);  // [b, L, H, Q, T]
    auto values = capture.stacked(model::HookPoint::AttnV);       // [b, L, KV, T, d]
    auto resid = resid_pre ? capture.stacked(model::HookPoint::ResidPre) : torch::Tensor();  // [b, L, T, hidden]
    if (alpha.is_cuda()) torch::cuda::synchronize();
    times.forward_s += seconds_since(t);
    capture.clear();
    wait();
    progress.update(w0, tokens_before);
    in_flight = std::async(std::launch::async, [&visit, w0, w1, alpha = std::move(alpha), values = std::move(values),
                                                      resid = std::move(resid)] {
      const auto start = Clock::now();
      for (int64_t b = 0; b < w1 - w0; ++b) visit(w0 + b, {alpha[b], values[b], resid.defined() ? resid[b] : torch::Tensor()});
      return seconds_since(start);
    });
  }
  wait();
  times.wall_s = seconds_since(loop_start);
  progress.update(W, tokens);
  progress.finish();
  return times;
}

}  // namespace geoattn::pipeline
