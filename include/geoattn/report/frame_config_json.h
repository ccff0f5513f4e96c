#pragma once
// The frame-type rule of `geoattn sinks` as JSON: configs/sinks.json (or --config's file) and
// the "settings.rule" of a sinks result and its state sidecar. analysis/frames.h holds the
// thresholds, metrics/run/run_info.h the rule (notes, thresholds, sweep). Pure C++.
#include <nlohmann/json.hpp>

#include "geoattn/analysis/frames.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/metrics/sinks/sink_settings.h"

namespace geoattn::report {

// The thresholds of a config: missing keys keep their defaults; keys starting with '_' are
// comments and "sweep" the sweep (both skipped here); any other unknown key, a wrong type or a
// value out of range is a geoattn::Error naming the key ("sinks config: ...").
analysis::FrameConfig frame_config_from_json(const nlohmann::ordered_json& j);
// Every threshold, in the order of configs/sinks.json; integer thresholds as integers.
nlohmann::ordered_json to_json(const analysis::FrameConfig& c);

// The whole rule: its notes (the '_' keys, in order: they must be strings), the thresholds and
// "sweep": {"key": [values...], ...}, one config per (key, value) with the others at the
// config's (geoattn::Error on an unknown key or a bad value).
metrics::SinkRule sink_rule_from_json(const nlohmann::ordered_json& j);
// {notes..., thresholds..., "sweep"?}: configs/sinks.json as it is written (the built-in rule
// comes back byte for byte); a user's config in this order, every threshold written.
nlohmann::ordered_json to_json(const metrics::SinkRule& rule);
// The value of the sweep's threshold in one of its configs, as to_json writes it.
nlohmann::ordered_json sweep_value(const metrics::FrameSweep& sweep, const analysis::FrameConfig& c);

}  // namespace geoattn::report
