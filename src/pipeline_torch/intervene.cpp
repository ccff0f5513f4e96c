// geoattn intervene's window loop (intervene.h).
#include "geoattn/pipeline_torch/intervene.h"

#include "geoattn/pipeline/metric_run.h"
#include "geoattn/util/error.h"
#include "geoattn/util/progress.h"

namespace geoattn::pipeline {

metrics::LossSums window_loss_sums(const torch::Tensor& plain, const torch::Tensor& logits, const torch::Tensor& ids) {
  const int64_t T = ids.size(0);
  // Position t predicts token t + 1: the first T - 1 rows against ids[1..].
  auto p = torch::log_softmax(plain.narrow(0, 0, T - 1).to(torch::kFloat64), -1);   // [T-1, V]
  auto q = torch::log_softmax(logits.narrow(0, 0, T - 1).to(torch::kFloat64), -1);  // [T-1, V]
  auto next = ids.narrow(0, 1, T - 1).to(p.device()).view({-1, 1});                 // [T-1, 1]
  metrics::LossSums s;
  s.loss_plain = -p.gather(1, next).sum().item<double>();
  s.loss = -q.gather(1, next).sum().item<double>();
  s.kl = (p.exp() * (p - q)).sum().item<double>();  // KL(plain || intervened), summed over positions
  s.agree = (p.argmax(-1) == q.argmax(-1)).sum().item<double>();
  s.tokens = static_cast<double>(T - 1);
  return s;
}

metrics::LossStats intervene_windows(const model::Decoder& decoder, const std::vector<io::Window>& windows,
                                     std::vector<NamedEdits>& interventions, bool quiet) {
  const auto K = static_cast<int64_t>(interventions.size());
  metrics::LossStats stats(K);
  const std::vector<uint64_t> keys = window_keys(doc_ids(windows));
  long long tokens = 0;
  Progress progress("intervene", static_cast<long long>(windows.size()), quiet);
  for (size_t w = 0; w < windows.size(); ++w) {
    const auto& window = windows[w];
    auto ids = torch::tensor(window.ids, torch::kInt64);  // [T]
    if (ids.size(0) < 2) fail("intervene: a window of {} tokens predicts none", ids.size(0));
    const int64_t row = stats.unit_row(window.doc_id);
    const auto plain = decoder.forward(ids.unsqueeze(0))[0];  // [T, V] float32
    for (int64_t k = 0; k < K; ++k) {
      model::HeadEdits& edits = interventions[static_cast<size_t>(k)].edits;
      model::KeptKeys counts;
      edits.counts = &counts;
      edits.set_window_key(keys[w]);
      const auto logits = decoder.forward(ids.unsqueeze(0), edits)[0];
      edits.counts = nullptr;
      metrics::LossSums s = window_loss_sums(plain, logits, ids);
      s.kept = counts.kept, s.seen = counts.seen;
      stats.add(k, row, s);
    }
    tokens += static_cast<long long>(window.ids.size());
    progress.update(static_cast<long long>(w + 1), tokens);
  }
  progress.finish();
  return stats;
}

}  // namespace geoattn::pipeline
