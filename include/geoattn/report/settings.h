#pragma once
// The "settings" a metric run records in its result and state sidecar, typed: written by the
// run (pipeline/metric_run.cpp), read back by finalize, merge and resume. One definition of
// each key (docs/schema/geoattn.measure-2.schema.json, "settings").
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace geoattn::report {

// SPEC §2b: the random-selection control.
struct ControlSettings {
  int64_t random_permutations = 0;  // per sample (0: none)
  uint64_t seed = 0;
};

// SPEC §2b: the bootstrap; `level` and `unit` are empty where it did not run.
struct BootstrapSettings {
  int64_t replicates = 0;  // 0: none
  uint64_t seed = 0;
  std::string level;       // head, layer or global
  std::string unit;        // document or window
};

// The metric run's settings (the command adds its own: ctx, queries, dtype).
struct MetricSettings {
  std::string n;         // the N grid as the user wrote it
  int64_t decay_k = 64;  // SPEC §4: the largest lag of the decay fit
  std::string distance;  // euclidean or cosine (SPEC §2b)
  ControlSettings controls;
  BootstrapSettings bootstrap;
};

void to_json(nlohmann::ordered_json& j, const ControlSettings& s);
void from_json(const nlohmann::ordered_json& j, ControlSettings& s);
void to_json(nlohmann::ordered_json& j, const BootstrapSettings& s);
void from_json(const nlohmann::ordered_json& j, BootstrapSettings& s);
// Also writes the fixed facts of the method: ball, comparisons, metrics_precision.
void to_json(nlohmann::ordered_json& j, const MetricSettings& s);
void from_json(const nlohmann::ordered_json& j, MetricSettings& s);

}  // namespace geoattn::report
