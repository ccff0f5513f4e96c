#pragma once
// What every sinks run shares once its statistics are in, in plain C++: the built-in frame rule,
// the result files, and the merge of shards (sinks.h runs the forward and the captures).
#include <string>
#include <vector>

#include "geoattn/metrics/sinks/sink_result.h"

namespace geoattn::pipeline {

// What every sinks run shares: what it measures and how it reports (metrics/run/run_info.h).
using metrics::SinkSettings;

// configs/sinks.json, embedded at build time: the frame-type rule when no config is given.
metrics::SinkRule builtin_sink_rule();
constexpr const char* kBuiltinSinkRuleSource = "built-in (configs/sinks.json)";

// The result JSON (the frame rule of the run's settings) and its state sidecar, both or neither.
void write_sinks(const std::string& out, const metrics::SinkRun& run);

// Shards of one sinks run (their state sidecars) -> the result of one run over all of them,
// bit for bit. geoattn::Error naming the file when they are not of one run, or hold a window
// twice, or (unless `partial`) miss a shard (pipeline/shard_set.h).
void merge_sinks(const std::vector<std::string>& inputs, const std::string& out, bool partial);

}  // namespace geoattn::pipeline
