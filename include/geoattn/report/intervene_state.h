#pragma once
// The partial state of a geoattn intervene run, X.state.safetensors beside its X.json while it
// runs (pipeline/resume.h: saved every --checkpoint-every windows, resumed by a rerun with the
// same arguments, removed once the result is written). Tensors and metadata:
//   "sums"  F64 [documents, interventions, 7]  each document's exact sums so far
//                                              (metrics::LossSums::kFields, in order)
// __metadata__: "format" = "geoattn-intervene-state-1", and the JSON texts "documents" (the ids,
// in the rows' order) and "run_info" ({"model", "settings", "interventions", "data"}). Pure C++.
#include <string>

#include <nlohmann/json.hpp>

#include "geoattn/metrics/intervene/loss_stats.h"
#include "geoattn/metrics/run/run_info.h"

namespace geoattn::report {

// What must match for a partial run to be resumed (pipeline/resume.h's same_identity): the
// model, the command's settings, what is done to which heads (`method`), and the data.
struct InterveneInfo {
  nlohmann::ordered_json model, command, method;
  metrics::DataInfo data;
};
struct InterveneState {
  InterveneInfo run_info;
  metrics::LossStats stats;
};

// Written whole or not at all.
void save_intervene_state(const std::string& path, const InterveneState& state);
// geoattn::Error naming the file on anything malformed.
InterveneState load_intervene_state(const std::string& path);

}  // namespace geoattn::report
