#pragma once
// geoattn intervene's window loop: per window the plain forward once, then one forward per
// intervention (model/intervention.h), their next-token losses, KL divergence and top-1
// agreement summed per document (metrics/intervene/loss_stats.h).
#include <torch/torch.h>

#include <string>
#include <vector>

#include "geoattn/io/windows.h"
#include "geoattn/metrics/intervene/loss_stats.h"
#include "geoattn/model/decoder.h"

namespace geoattn::pipeline {

// One intervention of the run: its name in the result, the heads and what is done to them.
struct NamedEdits {
  std::string name;
  model::HeadEdits edits;
};

// One window's sums of next-token readings: logits [T, V] of the intervened run against the
// plain run's `plain` [T, V] for the window's ids [T] (T - 1 predicted tokens), in float64.
metrics::LossSums window_loss_sums(const torch::Tensor& plain, const torch::Tensor& logits, const torch::Tensor& ids);

// Every window through the plain model and through each intervention, which starts at its first
// layer from the plain run's residual stream there; progress with rate and ETA on stderr unless
// `quiet`. Each window's random draws are keyed to its document and rank
// (window_keys), so a window draws the same keys in any shard.
metrics::LossStats intervene_windows(const model::Decoder& decoder, const std::vector<io::Window>& windows,
                                     std::vector<NamedEdits>& interventions, bool quiet);

}  // namespace geoattn::pipeline
