#pragma once
// geoattn merge of intervene results: shards of one run (--shard i/n) -> the result of one run
// over all of them. Each shard's per-document sums are the single run's for those documents, and
// the readings and their intervals are computed again from all of them, so the merge equals the
// single run bit for bit (metrics/intervene/loss_stats.h: totals and resamples in document-id
// order). Pure C++.
#include <string>
#include <vector>

namespace geoattn::pipeline {

// geoattn::Error naming the file when an input is not an intervene result, is not of the first
// one's run (model, settings, interventions), holds a document another holds, or (unless
// `partial`) a shard is missing (pipeline/shard_set.h). `out` is written whole or not at all.
void merge_intervene(const std::vector<std::string>& inputs, const std::string& out, bool partial);

}  // namespace geoattn::pipeline
