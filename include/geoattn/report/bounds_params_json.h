#pragma once
// The assumption parameters of `geoattn bounds --params` (analysis/bounds.h) as a JSON file.
// Pure C++.
#include <nlohmann/json.hpp>

#include "geoattn/analysis/bounds.h"

namespace geoattn::report {

// JSON layout (every key required; keys starting with '_' are comments and ignored, any
// other unknown key is an error):
//   {"T": 1024, "d": 128, "C": 1.0, "lambda": 0.1, "cv": 0.03, "beta": 0.05, "rho0": 0.1,
//    "profile": {"p_sink", "p_base", "eta", "omega", "T1", "T2"}, "seed": 0, "samples": 8}
// geoattn::Error naming the field ("assumption parameters: 'profile.T2' ...") when one is
// missing, of the wrong type or out of range: 2 <= T <= kMaxSyntheticT, d >= 1, C > 0,
// lambda > 0, cv >= 0, beta >= 0, -1 <= rho0 <= 1, p_sink >= 0, p_base > 0, omega finite,
// 0 <= T1 <= T2 <= T-1, |eta| <= 1 when T1 < T2, samples >= 1.
analysis::AssumptionParams params_from_json(const nlohmann::json& j);
nlohmann::ordered_json params_to_json(const analysis::AssumptionParams& p);

}  // namespace geoattn::report
