#pragma once
// The shards of a merge, each window counted once: what `geoattn merge` checks of the "data" of
// its inputs (measure and sinks results alike) before it adds anything up.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "geoattn/metrics/run/run_info.h"

namespace geoattn::pipeline {

// --shard's "i/n" -> {i, n} with 0 <= i < n, or nullopt.
std::optional<std::pair<int64_t, int64_t>> parse_shard_spec(const std::string& spec);

// A job's share of the windows as the user gives it (--shard i/n), read once where it is given:
// shard i of n (by document, so that the bootstrap's unit is never split).
struct Shard {
  int64_t i = 0, n = 1;
  // geoattn::Error naming no flag on a text that is not i/n with 0 <= i < n.
  static Shard parse(const std::string& text);
  std::string text() const;  // "i/n", what a run records
};

// The shards "i/n" that no input holds, of each split of the data among `shards` (the "data" of
// each input, a merged one standing for its own shards; inputs reading the same files the same
// way are shards of one split). Fails (geoattn::Error naming the inputs) when two inputs hold
// the same windows: one shard twice, one capture twice, a merged result and one of its shards,
// shards of two splits of one selection, or one file read by two selections; and, unless
// `partial`, when a shard is missing.
std::vector<std::string> missing_shards(const std::vector<std::string>& inputs,
                                        const std::vector<metrics::DataInfo>& shards, bool partial);

}  // namespace geoattn::pipeline
