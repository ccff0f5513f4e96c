#pragma once
// The fits of the paper's three assumptions (SPEC §4) of one (layer, head), as the "fits"
// object of each head in the measure JSON. Pure C++.
#include <nlohmann/json_fwd.hpp>

#include "geoattn/metrics/finalize/head_fits.h"

namespace geoattn::report {

// {"windows", "norms": {"C", "lambda", "cv", "mean_norm": [T], "ok", "why"?},
//  "decay": {"beta", "mae", "c": [K], "ok", "why"?}, "profile": {"p_sink", "p_base", "eta",
//  "omega", "T1", "T2", "error", "skipped", "mean_row": [T], "ok", "why"?}}: a fitted number is
// null where its fit failed.
nlohmann::ordered_json to_json(const metrics::HeadFits& fits);

// SPEC §4: the identifiability test of each fit, as the result states it (analysis::kFitTests):
// {"norms": sentence, "decay": sentence, "profile": sentence}.
nlohmann::ordered_json fit_tests_json();

}  // namespace geoattn::report
