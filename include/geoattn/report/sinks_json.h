#pragma once
// The result of `geoattn sinks` (SPEC §9); its state sidecar is report/sink_state_file.h.
// Pure C++.
//
// sinks.json, schema "geoattn.sinks/1" (docs/schema/geoattn.sinks-1.schema.json):
//   {"schema": "geoattn.sinks/1",
//    "model": {...}, "data": {...}, "settings": {"ctx", "eps", "taus", "profile_positions",
//                                               "residual", ...}, "timing": {...},
//    "rule": {"note": "geoattn's own rule ...", "config": {FrameConfig}, "source": path or "built-in"},
//    "layers_n", "heads_n", "kv_heads_n", "T", "windows",
//    "summary": {
//      "sink_rate": [P],            Sink_k^eps in % of (window, layer, head), k = 0..P-1
//      "frame_profile": {"centralized", "bidirectional", "distributed", "none"}  shares of layers
//      "sweep": [{"key", "value", "frame_profile": {...}, "types": [per layer]}]  by the key's name,
//      "dormant_heads": n, "sink_heads_at_0": n (heads with mean alpha_0 > eps)},
//    "layers": [{                   one per layer, ascending
//      "layer",
//      "alpha": [P],                Abar's mean alpha_k profile
//      "sink_rate": [P],            Sink_k^eps in % of (window, head) of this layer
//      "top2": [{"position", "alpha", "token", "text"}] x 2   of the mean profile; token: the
//                                   commonest token there among the windows' top anchors (null if none)
//      "anchor": {"position", "position_share", "token", "text", "token_share", "consistency"}
//                                   the windows' commonest top anchor of Abar
//      "reference": {"positions": [R of the mean c_j], "size": mean |R| per window,
//                    "relative_magnitude", "directional_influence"}   (x = resid_pre; these
//                                   two are null without --residual)
//      "graph": [{"tau", "density", "gini", "star", "centralization", "fiedler", "gap",
//                 "effective"}]     means over windows, one per tau
//      "frame": {"type", "rule", "S", "anchor", "alpha1", "alpha2", "switched", "consistency",
//                "reference_size"},
//      "heads": [{"head", "mass0" (= alpha_0), "rho0", "lambda",
//                 "alpha": [P], "sink_rate": [P] (% of windows),
//                 "top2": [...as above], "anchor": {...as above},
//                 "anchor_tokens": [{"token", "text", "windows"}]  the top anchors' tokens,
//                                   commonest first (at most 10),
//                 "dormant": {"row_score", "col_score", "dormant"},
//                 "reference": {"size", "relative_magnitude", "directional_influence"}  (x = v)}]}]}
// P = min(T, settings.profile_positions). NaN prints as null.
#include <nlohmann/json.hpp>

#include "geoattn/metrics/sinks/sink_result.h"

namespace geoattn::report {

constexpr const char* kSinksSchema = "geoattn.sinks/1";

// The result JSON of a run's result (metrics::sink_result: the thresholds (taus), the frame rule
// and its sweep, the profile length of its settings), with the anchors' token texts of `run`.
nlohmann::ordered_json to_json(const metrics::SinkRun& run, const metrics::SinkResult& result);
// The two together: to_json(run, metrics::sink_result(run)).
nlohmann::ordered_json sinks_report(const metrics::SinkRun& run);

}  // namespace geoattn::report
