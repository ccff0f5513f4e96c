#pragma once
// One window's attention-sink numbers (SPEC §9) from its capture, on the capture's device in
// float64, one layer at a time: the T x T matrices of a layer live only while it is processed.
// Part of the metric core (LibTorch).
#include <torch/torch.h>

#include <vector>

#include "geoattn/metrics/sinks/sink_stats.h"

namespace geoattn::metrics {

// alpha [L, H, T, T] (every query), values [L, KV, T, d], resid [L, T, D] or undefined (no
// residual stream), taus the graph thresholds, the convention of SPEC §9 that defines the row
// score, the reference measures and the graph. geoattn::Error on shapes that disagree.
SinkWindow sink_window(const torch::Tensor& alpha, const torch::Tensor& values, const torch::Tensor& resid,
                       const std::vector<double>& taus, SinkConvention convention = SinkConvention::geoattn);

// SPEC §9 attention graph of one matrix Abar [T, T] at each tau: [taus, kNumGraphStats] in
// GraphStat order, float64 on Abar's device.
torch::Tensor graph_stats(const torch::Tensor& abar, const std::vector<double>& taus,
                          SinkConvention convention = SinkConvention::geoattn);

}  // namespace geoattn::metrics
