#pragma once
// geoattn intervene's window loop: per window the plain forward once, then one forward per
// intervention (model/intervention.h), their next-token losses, KL divergence and top-1
// agreement summed per document (metrics/intervene/loss_stats.h).
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "geoattn/io/windows.h"
#include "geoattn/metrics/intervene/loss_stats.h"
#include "geoattn/model/decoder.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::pipeline {

// One intervention of the run: its name in the result, the heads and what is done to them.
struct NamedEdits {
  std::string name;
  model::HeadEdits edits;
};

// The plain run's next-token log-probabilities of a window, float64, in blocks of rows: what
// every intervention of the window is read against (computed once per window).
struct PlainLogProbs {
  struct Block {
    torch::Tensor logp, prob, argmax;  // [n, V], [n, V], [n]
  };
  std::vector<Block> blocks;  // rows 0..T-2 in order
};
PlainLogProbs plain_log_probs(const torch::Tensor& plain);  // plain: logits [T, V]

// One window's sums of next-token readings: logits [T, V] of the intervened run against the
// plain run's for the window's ids [T] (T - 1 predicted tokens), in float64.
metrics::LossSums window_loss_sums(const PlainLogProbs& plain, const torch::Tensor& logits, const torch::Tensor& ids);
metrics::LossSums window_loss_sums(const torch::Tensor& plain, const torch::Tensor& logits, const torch::Tensor& ids);

// Mean ablation's first pass: each head's output before the output projection (hook attn.z),
// averaged in float64 over every position of every window: [layers, heads, head_dim], float32.
// Progress on stderr unless `quiet`.
torch::Tensor head_means(const model::Decoder& decoder, const std::vector<io::Window>& windows, bool quiet);
// The means as a file holds them (X.means.safetensors beside a mean run's X.json, or any
// safetensors file with such a tensor): "means" F32 [layers, heads, head_dim], and in the
// metadata the positions averaged. Written whole or not at all; read back checked against the
// model's shape (geoattn::Error naming the file).
void write_head_means(const std::string& path, const torch::Tensor& means, int64_t positions);
torch::Tensor read_head_means(const std::string& path, int64_t layers, int64_t heads, int64_t head_dim);

// Where the forwards' wall seconds go: the plain forwards, and each intervention's own (its
// forwards only, from its first layer on; a batch's seconds shared equally among its
// interventions), summed over the windows.
struct ForwardSeconds {
  double plain = 0;
  std::vector<double> intervened;  // [intervention]
  int64_t per_forward = 1;         // the most interventions one forward ran side by side (the widest group)
};

// The forwards of a window: the interventions (their indices) grouped by the layer they start
// at, in the order of that layer and then of the list; a layer's n in ceil(n / per_forward)
// groups of sizes that differ by one at most. It depends on the interventions and per_forward
// alone, so shards of a run given one per_forward batch the same interventions together.
std::vector<std::vector<int64_t>> forward_groups(const std::vector<NamedEdits>& interventions, int64_t per_forward);
// How many interventions one forward runs side by side by default: as many as keep the batch's
// float32 logits [B, T, vocab] within 256 MiB, from 1 to 16.
int64_t interventions_per_forward(int64_t T, int64_t vocab);

// Every window through the plain model and through each intervention, which starts at its first
// layer from the plain run's residual stream there; progress with rate and ETA on stderr unless
// `quiet`. Each window's random draws are keyed to its document and rank
// (window_keys), so a window draws the same keys in any shard.
// The interventions that start at one layer run in one forward, `per_forward` at most at a
// time (forward_groups: with --each, the heads of one layer together; each row of a batch is its
// own forward to the rounding of the batched products); the groups of a window run on `pool`'s
// workers side by side.
// A resumed run passes the sums of its first `start` windows as `so_far`, and `after` (where
// given) is called after each window with the windows done and the sums so far (a partial state
// to save, pipeline/resume.h).
using AfterWindow = std::function<void(int64_t windows_done, const metrics::LossStats& so_far)>;
metrics::LossStats intervene_windows(WorkerPool& pool, const model::Decoder& decoder,
                                     const std::vector<io::Window>& windows, std::vector<NamedEdits>& interventions,
                                     bool quiet, ForwardSeconds* seconds = nullptr, int64_t per_forward = 1,
                                     metrics::LossStats so_far = metrics::LossStats(), int64_t start = 0,
                                     const AfterWindow& after = {});

}  // namespace geoattn::pipeline
