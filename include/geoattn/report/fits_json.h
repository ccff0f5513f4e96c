#pragma once
// The fits of the paper's three assumptions (SPEC §4) of one (layer, head), as the "fits"
// object of each head in the measure JSON. Pure C++.
#include <functional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "geoattn/metrics/finalize/head_fits.h"

namespace geoattn::report {

// {"windows", "norms": {"C", "lambda", "cv", "mean_norm": [T], "ok", "why"?},
//  "decay": {"beta", "mae", "c": [K], "ok", "why"?}, "profile": {"p_sink", "p_base", "eta",
//  "omega", "T1", "T2", "error", "skipped", "mean_row": [T], "ok", "why"?}}: a fitted number is
// null where its fit failed.
nlohmann::ordered_json to_json(const metrics::HeadFits& fits);
// The same with each array (mean_norm, c, mean_row) given to put_array(the part's object, part,
// key, values) where the object above has it, in that order, rather than written inline.
using FitArrays = std::function<void(nlohmann::ordered_json& part_json, const char* part, const char* key,
                                     const std::vector<double>& values)>;
nlohmann::ordered_json to_json(const metrics::HeadFits& fits, const FitArrays& put_array);

// SPEC §4: the identifiability test of each fit, as the result states it (analysis::kFitTests):
// {"norms": sentence, "decay": sentence, "profile": sentence}.
nlohmann::ordered_json fit_tests_json();

}  // namespace geoattn::report
