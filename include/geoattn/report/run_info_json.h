#pragma once
// The run's description (metrics/run/run_info.h) as the result JSON and the state sidecars write it:
// {"model", "data", "settings", "timing"}, in this order, and read back from a sidecar (resume,
// merge); and whether two runs are one (same_run). Pure C++.
#include <string>

#include <nlohmann/json.hpp>

#include "geoattn/metrics/run/metric_record.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/metrics/sinks/sink_settings.h"

namespace geoattn::report {

// Whether two runs (run_info or result JSON objects) may be merged or resumed into each other:
// equal "model", "settings" and "n_grid" (a key missing from both counts as equal; objects
// compare key by key, in any order). On false, `why` (if given) says what differs, e.g.
// "settings.ctx differs: 1024 vs 512".
bool same_run(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b, std::string* why);

// A run_info object as a file holds it. geoattn::Error ("run_info: key 'settings.ctx' must be an
// integer", ...) when it is not an object or an entry has the wrong type or an unknown name; a
// missing entry keeps its default and entries of older versions are skipped, so files of
// older versions load (and save back as this version writes them).
metrics::MeasureInfo measure_info_from_json(const nlohmann::ordered_json& j);
metrics::SinkInfo sink_info_from_json(const nlohmann::ordered_json& j);
// A "data" object alone (an intervene result's); geoattn::Error naming `label` (the file).
metrics::DataInfo data_from_json(const nlohmann::ordered_json& j, const std::string& label);

// {"model", "data", "settings" (the command's entries, then the method's), "timing" (when the
// run timed anything: not in a partial measure state)}, and each part alone.
nlohmann::ordered_json to_json(const metrics::MeasureInfo& info);
nlohmann::ordered_json to_json(const metrics::SinkInfo& info);
nlohmann::ordered_json to_json(const metrics::ModelInfo& model);
nlohmann::ordered_json to_json(const metrics::DataInfo& data);
nlohmann::ordered_json to_json(const metrics::Timing& timing);

// same_run of two typed descriptions (their JSON).
template <typename Method>
bool same_run(const metrics::RunInfo<Method>& a, const metrics::RunInfo<Method>& b, std::string* why) {
  return same_run(to_json(a), to_json(b), why);
}

}  // namespace geoattn::report
