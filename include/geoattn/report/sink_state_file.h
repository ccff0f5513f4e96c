#pragma once
// The state sidecar of `geoattn sinks`, X.state.safetensors beside the result X.json (format
// "geoattn-sinks-state-1"): the sink statistics' arrays (metrics/sinks/sink_stats.h), and in
// __metadata__ the shape, eps, windows, run_info (report/run_info_json.h) and the text of every
// anchor token, for merging shards. Measure's sidecar is report/state_file.h. Pure C++.
#include <string>

#include "geoattn/metrics/sinks/sink_result.h"

namespace geoattn::report {

// Written atomically, with the run's identity (report/run_identity.h) in "run_id" where given.
void save_sink_state(const std::string& path, const metrics::SinkRun& run, const std::string& run_id = "");
// geoattn::Error naming the file on anything malformed.
metrics::SinkRun load_sink_state(const std::string& path);
// Whether a state sidecar is a sinks state (else a measure state).
bool is_sink_state(const std::string& path);

}  // namespace geoattn::report
