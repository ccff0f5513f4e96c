#pragma once
// SPEC §5, "Which envelope tests the theory": the Prediction (metrics/core/prediction.h) read from
// the measure result --predict-from names, and as its results and sidecars record it
// (settings.predict_from: {file, fingerprint, beta, rho0}, beta and rho0 [layers][heads], null
// where a head has none).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "geoattn/metrics/core/prediction.h"

namespace geoattn::report {

// Per head of the result at `path`: beta where its fits.decay is ok, and its mean rho0.
// geoattn::Error "<flag>: <path>: <problem>" when it is no measure result, or its model is not
// `layers` x `heads`.
metrics::Prediction read_prediction(const std::string& path, int64_t layers, int64_t heads, const std::string& flag);

nlohmann::ordered_json prediction_json(const metrics::Prediction& p);
// geoattn::Error naming settings.predict_from on a malformed record.
metrics::Prediction prediction_from_json(const nlohmann::json& j);

}  // namespace geoattn::report
