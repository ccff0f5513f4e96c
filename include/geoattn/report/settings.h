#pragma once
// The "settings" block of the result files and state sidecars (metrics/run/run_info.h) as JSON: the
// command's own entries (ctx, queries, dtype), then the metric run's (measure, metrics, merge;
// docs/schema/geoattn.measure-2.schema.json) or the sinks run's. One definition of each key.
// Pure C++.
#include <nlohmann/json.hpp>

#include "geoattn/io/config_reader.h"
#include "geoattn/metrics/run/metric_record.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/metrics/sinks/sink_settings.h"
#include "geoattn/util/error.h"

namespace geoattn::report {

// Writers append their entries to `j` (an object), in the files' order.
void put_json(nlohmann::ordered_json& j, const metrics::CommandSettings& s);
// The metric record by the walk of its table (metrics::MetricParams::visit_settings): each
// recorded entry at its path, the facts the table places among them (ball, comparisons,
// metrics_precision), then the layers' windows.
void put_json(nlohmann::ordered_json& j, const metrics::MetricRecord& s);
void put_json(nlohmann::ordered_json& j, const metrics::SinkSettings& s);

// Readers of a settings object: a key of the wrong type or an unknown name is a geoattn::Error
// naming it; a missing key keeps its default (files of older versions lack some); keys of the
// other parts, and of older versions, are skipped.
metrics::CommandSettings read_command_settings(io::ConfigReader& r);
metrics::MetricRecord read_metric_settings(io::ConfigReader& r);
// `ordered`: the same object as read, in its order (the rule's notes and sweep keep theirs).
metrics::SinkSettings read_sink_settings(io::ConfigReader& r, const nlohmann::ordered_json& ordered);

// An enum spelled by its table's name: geoattn::Error naming the key unless it is one of them.
template <typename E, size_t N>
std::optional<E> read_enum(io::ConfigReader& r, std::string_view key, const EnumName<E> (&table)[N]) {
  const auto name = r.get<std::string>(key);
  if (!name) return std::nullopt;
  const auto value = value_of(table, *name);
  if (!value) fail("{} is '{}', not {}", r.where(key), *name, names_of(table));
  return value;
}

}  // namespace geoattn::report
