// geoattn intervene's window loop (intervene.h).
#include "geoattn/pipeline_torch/intervene.h"

#include <algorithm>
#include <cstring>
#include <numeric>

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

std::vector<std::vector<int64_t>> forward_groups(const std::vector<NamedEdits>& interventions, int64_t per_forward) {
  std::vector<int64_t> order(interventions.size());
  std::iota(order.begin(), order.end(), 0);
  const auto from = [&](int64_t k) { return std::max<int64_t>(interventions[static_cast<size_t>(k)].edits.first_layer(), 0); };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return from(a) < from(b); });
  std::vector<std::vector<int64_t>> groups;
  for (size_t begin = 0; begin < order.size();) {
    size_t end = begin;
    while (end < order.size() && from(order[end]) == from(order[begin])) ++end;
    // The n interventions of this layer in as few groups as per_forward allows, of sizes that
    // differ by one at most (the first ones the larger).
    const auto n = static_cast<int64_t>(end - begin);
    const int64_t count = (n + per_forward - 1) / per_forward;
    for (int64_t g = 0, at = static_cast<int64_t>(begin); g < count; ++g) {
      const int64_t size = n / count + (g < n % count ? 1 : 0);
      groups.emplace_back(order.begin() + at, order.begin() + at + size);
      at += size;
    }
    begin = end;
  }
  return groups;
}

int64_t interventions_per_forward(int64_t T, int64_t vocab) {
  constexpr int64_t kLogitBytes = int64_t{256} << 20;  // a batch's float32 logits [B, T, vocab] at most
  return std::clamp<int64_t>(kLogitBytes / std::max<int64_t>(1, T * vocab * 4), 1, 16);
}

metrics::LossStats intervene_windows(WorkerPool& pool, const model::Decoder& decoder,
                                     const std::vector<io::Window>& windows, std::vector<NamedEdits>& interventions,
                                     bool quiet, ForwardSeconds* seconds, int64_t per_forward,
                                     metrics::LossStats so_far, int64_t start, const AfterWindow& after) {
  const auto K = static_cast<int64_t>(interventions.size());
  if (start < 0 || start > static_cast<int64_t>(windows.size()) || (start > 0 && so_far.interventions() != K))
    fail("internal: resuming after {} of {} windows with sums of {} interventions", start, windows.size(), so_far.interventions());
  metrics::LossStats stats = start > 0 ? std::move(so_far) : metrics::LossStats(K);
  const std::vector<uint64_t> keys = window_keys(doc_ids(windows));
  const auto groups = forward_groups(interventions, std::max<int64_t>(per_forward, 1));
  long long tokens = 0;
  const model::HookSpec hooks({"blocks.*.hook_resid_pre"}, decoder.config().n_layers);
  Progress progress("intervene", static_cast<long long>(windows.size()) - start, quiet);
  std::vector<metrics::LossSums> sums(static_cast<size_t>(K));
  std::vector<double> forward_s(static_cast<size_t>(K), 0.0);  // each intervention's share of its forwards
  double plain_s = 0;
  for (auto w = static_cast<size_t>(start); w < windows.size(); ++w) {
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
    // The groups of the window on the pool's workers (LibTorch one thread each): each group's
    // interventions, which start at one layer, in one forward of a batch; each its own sums,
    // added in their order.
    pool.for_each_item(static_cast<int64_t>(groups.size()), [&](int64_t g, int) {
      const auto& group = groups[static_cast<size_t>(g)];
      std::vector<model::KeptKeys> counts(group.size());
      std::vector<const model::HeadEdits*> edits;
      for (size_t b = 0; b < group.size(); ++b) {
        model::HeadEdits& e = interventions[static_cast<size_t>(group[b])].edits;
        e.count_into(&counts[b]);
        e.set_window_key(keys[w]);
        edits.push_back(&e);
      }
      const int64_t from = std::max<int64_t>(edits.front()->first_layer(), 0);
      const auto t1 = Clock::now();
      const auto logits = decoder.forward_batch_from(
          ids.unsqueeze(0), from, from == 0 ? torch::Tensor() : resid.get(from, model::HookPoint::ResidPre), edits);  // [B, T, V]
      const double s = seconds_since(t1) / static_cast<double>(group.size());
      for (size_t b = 0; b < group.size(); ++b) {
        const auto k = static_cast<size_t>(group[b]);
        interventions[k].edits.count_into(nullptr);
        forward_s[k] += s;
        metrics::LossSums x = window_loss_sums(plain, logits[static_cast<int64_t>(b)], ids);
        x.kept = counts[b].kept, x.seen = counts[b].seen;
        sums[k] = x;
      }
    });
    const int64_t row = stats.unit_row(window.doc_id);
    for (int64_t k = 0; k < K; ++k) stats.add(k, row, sums[static_cast<size_t>(k)]);
    tokens += static_cast<long long>(window.ids.size());
    progress.update(static_cast<long long>(w + 1) - start, tokens);
    if (after) after(static_cast<int64_t>(w + 1), stats);
  }
  progress.finish();
  int64_t widest = 0;
  for (const auto& group : groups) widest = std::max<int64_t>(widest, static_cast<int64_t>(group.size()));
  if (seconds) *seconds = {plain_s, forward_s, widest};
  return stats;
}

}  // namespace geoattn::pipeline
