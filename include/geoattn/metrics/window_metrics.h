#pragma once
// From one window's capture to aggregated samples: every (query, layer, head) of the window
// is a sample (SPEC §1). Heads are batched together; the metric core does the work.
#include <torch/torch.h>

#include <vector>

#include "geoattn/metrics/aggregate.h"
#include "geoattn/metrics/selection.h"

namespace geoattn::metrics {

// alpha [layers, heads, queries, T] (rows zero after their query), values
// [layers, kv_heads, T, d]; queries: the positions of alpha's query rows. Query head h reads
// KV head h / (heads / kv_heads). Grid values above q + 1 are skipped for query q (SPEC §2).
void add_window(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                const std::vector<int64_t>& grid, Aggregator& aggregator, const SelectionOptions& options = {});

}  // namespace geoattn::metrics
