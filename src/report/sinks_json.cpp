// geoattn sinks: a sinks run's result (metrics/sinks/sink_result.h) -> its JSON (SPEC §9).
#include "geoattn/report/sinks_json.h"

#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/run_info_json.h"

namespace geoattn::report {

using metrics::SinkRun;
using nlohmann::ordered_json;

namespace {

constexpr const char* kRuleNote =
    "geoattn's own rule: the sources describe centralized, bidirectional and distributed frames only in "
    "words; the thresholds live in the config (configs/sinks.json) and the sweep shows how the types move "
    "with them";

// What each convention is (SPEC §9), in the result beside settings.convention; kSinkConventionNames order.
constexpr const char* kConventionNotes[] = {
    "geoattn's own reading of the sources (SPEC section 9): the dormant row score over rows 1..T-1 "
    "(row_score_from_1); the reference measures over the queries outside R, not clipped (magnitude_ratio, "
    "direction_agreement); the attention graph without self-loops on all T tokens (density_undirected over "
    "T(T-1)/2, Freeman's centralization_freeman). --convention authors gives the released code's quantities",
    "the authors' released code (SPEC section 9): sail-sg/Attention-Sink compute_attention_sink, "
    "GuoTianYu2000/Active-Dormant-Attention LLM/src/entropy.py, ValeRuscio/What-are-you-sinking- "
    "reference_point.ipynb and laplacian.ipynb. Reproduced: the 0.5 placeholder of every reference query in the "
    "means, self-loops, the density over T^2, in-degree centralisation, for T > 50 the graph without its isolated "
    "tokens, the early return below 2 edges (no density and no Gini, whose means are over the other windows, "
    "graph[].windows; 0 for the rest). Computed as intended instead: the exact Laplacian spectrum "
    "(the notebook's eigsh errs on disconnected graphs), every window in the graph means (the notebook skips "
    "windows whose density is not effective outside every 4th layer)"};

ordered_json text_of(const SinkRun& run, int64_t token) {
  const auto it = run.token_text.find(token);
  return it == run.token_text.end() ? ordered_json(nullptr) : ordered_json(it->second);
}

ordered_json to_json(const SinkRun& run, const metrics::AnchorSummary& a) {
  return {{"position", a.position}, {"position_share", a.position_share},
          {"token", a.token},       {"text", text_of(run, a.token)},
          {"token_share", a.token_share}, {"consistency", a.consistency}};
}

ordered_json to_json(const SinkRun& run, const std::array<metrics::ProfilePeak, 2>& top2) {
  ordered_json out = ordered_json::array();
  for (const auto& p : top2)
    out.push_back({{"position", p.position},
                   {"alpha", p.alpha},
                   {"token", p.token < 0 ? ordered_json(nullptr) : ordered_json(p.token)},
                   {"text", p.token < 0 ? ordered_json(nullptr) : text_of(run, p.token)}});
  return out;
}

ordered_json to_json(const metrics::FrameProfile& profile) {
  ordered_json out;
  for (size_t t = 0; t < profile.size(); ++t) out[analysis::kFrameTypes[t]] = profile[t];
  return out;
}

ordered_json to_json(const SinkRun& run, const metrics::SinkHead& h) {
  ordered_json tokens = ordered_json::array();
  for (const auto& t : h.anchor_tokens)
    tokens.push_back({{"token", t.token}, {"text", text_of(run, t.token)}, {"windows", t.windows}});
  const auto names = metrics::sink_names(run.run_info.method.convention);
  ordered_json reference;
  for (int64_t k = 0; k < metrics::kNumReferenceStats; ++k) reference[names.reference[k]] = h.reference[k];
  return {{"head", h.head},
          {"mass0", h.mass0},
          {"rho0", h.rho0},
          {"lambda", h.lambda},
          {"alpha", h.alpha},
          {"sink_rate", h.sink_rate},
          {"top2", to_json(run, h.top2)},
          {"anchor", to_json(run, h.anchor)},
          {"anchor_tokens", std::move(tokens)},
          {"dormant", {{names.row_score, h.row_score}, {"col_score", h.col_score}, {"dormant", h.dormant}}},
          {"reference", std::move(reference)}};
}

ordered_json to_json(const SinkRun& run, const metrics::SinkLayer& l) {
  const auto names = metrics::sink_names(run.run_info.method.convention);
  ordered_json layer = {{"layer", l.layer},
                        {"alpha", l.alpha},
                        {"sink_rate", l.sink_rate},
                        {"top2", to_json(run, l.top2)},
                        {"anchor", to_json(run, l.anchor)}};
  ordered_json reference = {{"positions", l.reference_positions}, {"size", l.reference_size}};
  for (int64_t k = metrics::kRelativeMagnitude; k < metrics::kNumReferenceStats; ++k)
    reference[names.reference[k]] = l.reference_resid ? ordered_json((*l.reference_resid)[k]) : ordered_json(nullptr);
  layer["reference"] = std::move(reference);
  ordered_json graph = ordered_json::array();
  for (const auto& g : l.graph) {
    ordered_json row = {{"tau", g.tau}};
    for (int64_t k = 0; k < metrics::kNumGraphStats; ++k) row[names.graph[k]] = g.stats[k];
    row["windows"] = g.windows;
    row["effective"] = g.effective;
    graph.push_back(std::move(row));
  }
  layer["graph"] = std::move(graph);
  ordered_json heads = ordered_json::array();
  for (const auto& h : l.heads) heads.push_back(to_json(run, h));
  layer["heads"] = std::move(heads);
  const auto& f = l.frame;
  layer["frame"] = {{"type", f.type},         {"rule", f.rule},
                    {"S", f.S},               {"anchor", f.anchor},
                    {"alpha1", f.alpha1},     {"alpha2", f.alpha2},
                    {"switched", f.switched}, {"consistency", l.frame_input.consistency},
                    {"reference_size", l.frame_input.reference_size}};
  return layer;
}

}  // namespace

ordered_json sinks_report(const SinkRun& run) { return to_json(run, metrics::sink_result(run)); }

ordered_json to_json(const SinkRun& run, const metrics::SinkResult& result) {
  const auto& shape = run.stats.shape();
  const metrics::SinkSettings& settings = run.run_info.method;
  ordered_json swept = ordered_json::array();
  for (const auto& p : result.sweep) {
    ordered_json types = ordered_json::array();
    for (const auto& f : p.frames) types.push_back(f.type);
    swept.push_back({{"key", p.sweep->key},
                     {"value", sweep_value(*p.sweep, *p.config)},
                     {"frame_profile", to_json(p.frame_profile)},
                     {"types", std::move(types)}});
  }
  ordered_json out = {{"schema", kSinksSchema}};
  const ordered_json info = to_json(run.run_info);
  for (const char* key : {"model", "data", "settings", "timing"}) out[key] = info.value(key, ordered_json(nullptr));
  out["convention_note"] = kConventionNotes[static_cast<int>(settings.convention)];
  out["rule"] = {{"note", kRuleNote}, {"config", to_json(settings.rule.config)}, {"source", settings.rule_source}};
  out["layers_n"] = shape.layers, out["heads_n"] = shape.heads, out["kv_heads_n"] = shape.kv_heads, out["T"] = shape.T;
  out["windows"] = run.stats.windows();
  out["summary"] = {{"sink_rate", result.sink_rate},
                    {"frame_profile", to_json(result.frame_profile)},
                    {"sweep", std::move(swept)},
                    {"dormant_heads", result.dormant_heads},
                    {"sink_heads_at_0", result.sink_heads_at_0}};
  ordered_json layers = ordered_json::array();
  for (const auto& l : result.layers) layers.push_back(to_json(run, l));
  out["layers"] = std::move(layers);
  return out;
}

}  // namespace geoattn::report
