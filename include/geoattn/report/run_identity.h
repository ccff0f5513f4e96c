#pragma once
// A run's identity (docs/results.md, "One run, its files"): the result X.json and each companion
// written with it (X.curves.safetensors, X.state.safetensors, a sinks state) carry one "run_id",
// and every reader refuses a companion whose run_id is not its result's, naming both files. The
// id is a digest of the run's description without its timing and of its exact sums: the same for
// the same run (a rerun, a resume), another for other settings, data or numbers. Results written
// before it carry none: they are read with a one-line warning. Pure C++.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "geoattn/io/safetensors.h"
#include "geoattn/metrics/sinks/sink_result.h"
#include "geoattn/metrics/stats/run_state.h"

namespace geoattn::report {

// The key of the id in a result JSON (after "schema"), in a companion's __metadata__ and, in a
// taxonomy, the id of the measure result it labels.
inline constexpr const char* kRunIdKey = "run_id";

// 16 hex digits (util/hash64.h) of the description without "timing", then the sums.
std::string run_identity(const metrics::RunState& state);
std::string run_identity(const metrics::RunState& state, const metrics::MeasureInfo& info);  // info for its own
std::string run_identity(const metrics::SinkRun& run);

// `doc` with "run_id" = id right after its "schema".
nlohmann::ordered_json with_run_id(const nlohmann::ordered_json& doc, const std::string& id);
// The run_id of a result document, or of a companion's header (none: an older geoattn's).
std::optional<std::string> run_id_of(const nlohmann::ordered_json& doc);
std::optional<std::string> run_id_of(const io::SafetensorsHeader& header);

// geoattn::Error naming both files when `companion` (its header's run_id `companion_id`) is not of
// the result at `json_path` (`result_id`); a result without an id gets one warning line on stderr
// per process and file, its companion read unchecked.
void check_companion(const std::string& json_path, const std::optional<std::string>& result_id,
                     const std::string& companion, const std::optional<std::string>& companion_id);

}  // namespace geoattn::report
