// geoattn intervene's window loop (intervene.h).
#include "geoattn/pipeline_torch/intervene.h"

#include <algorithm>
#include <cstring>

#include <fmt/ranges.h>

#include "geoattn/io/safetensors.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/pipeline/metric_run.h"
#include "geoattn/util/error.h"
#include "geoattn/util/progress.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

namespace {
constexpr int64_t kRows = 64;  // rows per block: a large vocabulary's float64 copies stay small (Gemma-3: 262,144)
}  // namespace

PlainLogProbs plain_log_probs(const torch::Tensor& plain) {
  const int64_t T = plain.size(0);
  PlainLogProbs out;
  // Position t predicts token t + 1: the first T - 1 rows, in blocks of kRows.
  for (int64_t t0 = 0; t0 < T - 1; t0 += kRows) {
    auto logp = torch::log_softmax(plain.narrow(0, t0, std::min(kRows, T - 1 - t0)).to(torch::kFloat64), -1);
    out.blocks.push_back({logp, logp.exp(), logp.argmax(-1)});
  }
  return out;
}

metrics::LossSums window_loss_sums(const PlainLogProbs& plain, const torch::Tensor& logits, const torch::Tensor& ids) {
  const int64_t T = ids.size(0);
  metrics::LossSums s;
  int64_t t0 = 0;
  for (const auto& block : plain.blocks) {
    const int64_t n = block.logp.size(0);
    const auto& p = block.logp;                                                    // [n, V]
    auto q = torch::log_softmax(logits.narrow(0, t0, n).to(torch::kFloat64), -1);  // [n, V]
    auto next = ids.narrow(0, t0 + 1, n).to(p.device()).view({-1, 1});             // [n, 1]
    s.loss_plain -= p.gather(1, next).sum().item<double>();
    s.loss -= q.gather(1, next).sum().item<double>();
    s.kl += (block.prob * (p - q)).sum().item<double>();  // KL(plain || intervened), summed over positions
    s.agree += (block.argmax == q.argmax(-1)).sum().item<double>();
    t0 += n;
  }
  if (t0 != T - 1) fail("internal: {} log-probability rows for a window of {}", t0, T);
  s.tokens = static_cast<double>(T - 1);
  return s;
}

metrics::LossSums window_loss_sums(const torch::Tensor& plain, const torch::Tensor& logits, const torch::Tensor& ids) {
  return window_loss_sums(plain_log_probs(plain), logits, ids);
}

torch::Tensor head_means(const model::Decoder& decoder, const std::vector<io::Window>& windows, bool quiet) {
  const int64_t L = decoder.config().n_layers;
  const model::HookSpec hooks({"blocks.*.attn.z"}, L);
  torch::Tensor sums;  // [L, H, d] float64
  long long tokens = 0;  // the positions summed
  Progress progress("means", static_cast<long long>(windows.size()), quiet);
  for (size_t w = 0; w < windows.size(); ++w) {
    model::HookCache z;
    decoder.forward(torch::tensor(windows[w].ids, torch::kInt64).unsqueeze(0), hooks, z, /*want_logits=*/false);
    auto s = z.stacked(model::HookPoint::AttnZ).to(torch::kFloat64).sum(std::vector<int64_t>{0, 3});  // [1, L, H, T, d] -> [L, H, d]
    sums = sums.defined() ? sums + s : s;
    tokens += static_cast<long long>(windows[w].ids.size());
    progress.update(static_cast<long long>(w + 1), tokens);
  }
  progress.finish();
  if (!sums.defined()) fail("intervene: mean ablation needs at least one window");
  return (sums / static_cast<double>(tokens)).to(torch::kFloat32);
}

void write_head_means(const std::string& path, const torch::Tensor& means, int64_t positions) {
  const auto m = means.to(torch::kCPU, torch::kFloat32).contiguous();  // [L, H, d]
  io::TensorBlob blob{"means", io::Dtype::F32, m.sizes().vec(), m.data_ptr<float>()};
  io::write_safetensors(path, {blob}, {{"format", "geoattn-means-1"}, {"positions", std::to_string(positions)}});
}

torch::Tensor read_head_means(const std::string& path, int64_t layers, int64_t heads, int64_t head_dim) {
  const io::SafetensorsFile file(path);  // fails naming the file
  const io::TensorInfo* t = file.header().find("means");
  if (t == nullptr || t->dtype != io::Dtype::F32) fail("{}: no F32 tensor 'means' (each head's mean output)", path);
  const std::vector<int64_t> want{layers, heads, head_dim};
  if (t->shape != want)
    fail("{}: means of shape [{}], not this model's [layers, heads, head_dim] = [{}, {}, {}]", path,
         fmt::join(t->shape, ", "), layers, heads, head_dim);
  auto out = torch::empty(want, torch::kFloat32);
  std::memcpy(out.data_ptr<float>(), file.data(*t), static_cast<size_t>(t->numel()) * sizeof(float));
  if (!torch::isfinite(out).all().item<bool>()) fail("{}: means holds a value that is not finite", path);
  return out;
}

metrics::LossStats intervene_windows(WorkerPool& pool, const model::Decoder& decoder,
                                     const std::vector<io::Window>& windows, std::vector<NamedEdits>& interventions,
                                     bool quiet, ForwardSeconds* seconds) {
  const auto K = static_cast<int64_t>(interventions.size());
  metrics::LossStats stats(K);
  const std::vector<uint64_t> keys = window_keys(doc_ids(windows));
  long long tokens = 0;
  const model::HookSpec hooks({"blocks.*.hook_resid_pre"}, decoder.config().n_layers);
  Progress progress("intervene", static_cast<long long>(windows.size()), quiet);
  std::vector<metrics::LossSums> sums(static_cast<size_t>(K));
  std::vector<double> forward_s(static_cast<size_t>(K), 0.0);  // each intervention's, its own worker's
  double plain_s = 0;
  for (size_t w = 0; w < windows.size(); ++w) {
    const auto& window = windows[w];
    auto ids = torch::tensor(window.ids, torch::kInt64);  // [T]
    if (ids.size(0) < 2) fail("intervene: a window of {} tokens predicts none", ids.size(0));
    // The plain run, with the residual stream entering each layer: an intervention from layer l
    // on starts there (the layers below it are the plain run's bit for bit).
    model::HookCache resid;
    const auto t0 = Clock::now();
    const auto plain_logits = decoder.forward(ids.unsqueeze(0), hooks, resid)[0];  // [T, V]
    plain_s += seconds_since(t0);
    const PlainLogProbs plain = plain_log_probs(plain_logits);
    // The interventions of the window on the pool's workers (LibTorch one thread each), each
    // its own sums, added in their order.
    pool.for_each_item(K, [&](int64_t k, int) {
      model::HeadEdits& edits = interventions[static_cast<size_t>(k)].edits;
      model::KeptKeys counts;
      edits.count_into(&counts);
      edits.set_window_key(keys[w]);
      const int64_t from = std::max<int64_t>(edits.first_layer(), 0);
      const auto t1 = Clock::now();
      const auto logits = from == 0 ? decoder.forward(ids.unsqueeze(0), edits)[0]
                                    : decoder.forward_from(ids.unsqueeze(0), from, resid.get(from, model::HookPoint::ResidPre),
                                                           edits)[0];
      forward_s[static_cast<size_t>(k)] += seconds_since(t1);
      edits.count_into(nullptr);
      metrics::LossSums s = window_loss_sums(plain, logits, ids);
      s.kept = counts.kept, s.seen = counts.seen;
      sums[static_cast<size_t>(k)] = s;
    });
    const int64_t row = stats.unit_row(window.doc_id);
    for (int64_t k = 0; k < K; ++k) stats.add(k, row, sums[static_cast<size_t>(k)]);
    tokens += static_cast<long long>(window.ids.size());
    progress.update(static_cast<long long>(w + 1), tokens);
  }
  progress.finish();
  if (seconds) *seconds = {plain_s, forward_s};
  return stats;
}

}  // namespace geoattn::pipeline
