// geoattn sinks: the accumulated sink statistics -> result JSON (SPEC §9), and the state sidecar.
#include "geoattn/report/sinks_json.h"

#include <algorithm>
#include <cmath>

#include "geoattn/analysis/fits.h"
#include "geoattn/arch/config.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/util/error.h"

namespace geoattn::report {

using metrics::AnchorCounts;
using metrics::SinkStats;
using nlohmann::ordered_json;

namespace {

constexpr int64_t kAnchorTokensShown = 10;
constexpr const char* kRuleNote =
    "geoattn's own rule: the sources describe centralized, bidirectional and distributed frames only in "
    "words; the thresholds live in the config (configs/sinks.json) and the sweep shows how the types move "
    "with them";

ordered_json text_of(const SinkRun& run, int64_t token) {
  const auto it = run.token_text.find(token);
  return it == run.token_text.end() ? ordered_json(nullptr) : ordered_json(it->second);
}

std::vector<double> head_prefix(const std::vector<double>& x, int64_t P) { return {x.begin(), x.begin() + P}; }

// The largest count of a histogram (ties to the lower key): {key, count}; {-1, 0} if empty.
std::pair<int64_t, int64_t> modal(const std::map<int64_t, int64_t>& histogram) {
  std::pair<int64_t, int64_t> best{-1, 0};
  for (const auto& [key, n] : histogram)
    if (n > best.second) best = {key, n};
  return best;
}

// The windows' top anchors by position and by token.
struct AnchorHistograms {
  std::map<int64_t, int64_t> positions, tokens;
};
AnchorHistograms histograms(const AnchorCounts& counts) {
  AnchorHistograms h;
  for (const auto& [key, n] : counts) h.positions[key.first] += n, h.tokens[key.second] += n;
  return h;
}

// {"position", "position_share", "token", "text", "token_share", "consistency"} of the top anchors.
ordered_json anchor_json(const SinkRun& run, const AnchorCounts& top, double& consistency) {
  const auto h = histograms(top);
  const auto [position, at_position] = modal(h.positions);
  const auto [token, of_token] = modal(h.tokens);
  const double W = static_cast<double>(std::max<int64_t>(1, run.stats.windows()));
  consistency = std::max(at_position, of_token) / W;
  return {{"position", position}, {"position_share", at_position / W},
          {"token", token},       {"text", text_of(run, token)},
          {"token_share", of_token / W}, {"consistency", consistency}};
}

// The top-2 positions of a mean profile, each with the commonest token there among the
// windows' top-2 anchors.
ordered_json top2_json(const SinkRun& run, const std::vector<double>& profile, const AnchorCounts& first,
                       const AnchorCounts& second) {
  ordered_json out = ordered_json::array();
  const auto [a, b] = metrics::top2(profile.data(), analysis::anchor_candidates(static_cast<int64_t>(profile.size())));
  for (const int64_t k : {a, b}) {
    std::map<int64_t, int64_t> tokens;
    for (const auto* counts : {&first, &second})
      for (const auto& [key, n] : *counts)
        if (key.first == k) tokens[key.second] += n;
    const int64_t token = modal(tokens).first;
    out.push_back({{"position", k},
                   {"alpha", profile[k]},
                   {"token", token < 0 ? ordered_json(nullptr) : ordered_json(token)},
                   {"text", token < 0 ? ordered_json(nullptr) : text_of(run, token)}});
  }
  return out;
}

ordered_json anchor_tokens_json(const SinkRun& run, const AnchorCounts& top) {
  std::vector<std::pair<int64_t, int64_t>> tokens;  // (windows, token)
  for (const auto& [token, n] : histograms(top).tokens) tokens.push_back({n, token});
  std::stable_sort(tokens.begin(), tokens.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  ordered_json out = ordered_json::array();
  for (size_t i = 0; i < tokens.size() && static_cast<int64_t>(i) < kAnchorTokensShown; ++i)
    out.push_back({{"token", tokens[i].second}, {"text", text_of(run, tokens[i].second)}, {"windows", tokens[i].first}});
  return out;
}

// Sink_k^eps in percent of (window, head) over the heads of `layers`.
std::vector<double> sink_rate(const SinkStats& s, int64_t l0, int64_t l1, int64_t h0, int64_t h1, int64_t P) {
  std::vector<double> out(P);
  // In double: windows x layers x heads can pass 2^63 (exact below 2^53, as every real run is).
  const double units = static_cast<double>(s.windows()) * static_cast<double>(l1 - l0) * static_cast<double>(h1 - h0);
  for (int64_t k = 0; k < P; ++k) {
    double n = 0;
    for (int64_t l = l0; l < l1; ++l)
      for (int64_t h = h0; h < h1; ++h) n += static_cast<double>(s.sink_windows(l, h, k));
    out[k] = units > 0 ? 100.0 * n / units : std::nan("");
  }
  return out;
}

ordered_json frame_profile(const std::vector<analysis::FrameResult>& frames) {
  ordered_json out;
  for (const char* type : analysis::kFrameTypes) {
    const auto n = std::count_if(frames.begin(), frames.end(), [type](const auto& f) { return f.type == type; });
    out[type] = frames.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(frames.size());
  }
  return out;
}

ordered_json reference_json(const SinkStats& s, int64_t l, int64_t h) {
  ordered_json out;
  for (int64_t k = 0; k < metrics::kNumReferenceStats; ++k) out[metrics::kReferenceStats[k]] = s.reference_v(l, h, k);
  return out;
}

}  // namespace

ordered_json sinks_report(const SinkRun& run) {
  const SinkStats& s = run.stats;
  const auto& shape = s.shape();
  const int64_t L = shape.layers, H = shape.heads, KV = shape.kv_heads, T = shape.T;
  const metrics::SinkSettings& settings = run.run_info.method;
  const analysis::FrameConfig& cfg = settings.rule.config;
  const int64_t P = std::clamp<int64_t>(settings.profile_positions, 1, T);
  const auto& taus = settings.taus;

  std::vector<analysis::LayerFrameInput> frame_inputs;
  ordered_json layers = ordered_json::array();
  int64_t dormant_heads = 0, sink_heads_at_0 = 0;
  for (int64_t l = 0; l < L; ++l) {
    const std::vector<double> bar = s.alpha_bar(l);
    // SPEC §9 column scores of the mean Abar: c_j = (1/T) sum_i Abar[i,j] = (T - j)/T alpha_j.
    std::vector<double> c(T);
    for (int64_t j = 0; j < T; ++j) c[j] = bar[j] * static_cast<double>(T - j) / static_cast<double>(T);
    const std::vector<int64_t> R = analysis::reference_set(c.data(), T);
    double consistency = 0;
    ordered_json layer = {{"layer", l},
                          {"alpha", head_prefix(bar, P)},
                          {"sink_rate", sink_rate(s, l, l + 1, 0, H, P)},
                          {"top2", top2_json(run, bar, s.anchors(l, -1, 0), s.anchors(l, -1, 1))},
                          {"anchor", anchor_json(run, s.anchors(l, -1, 0), consistency)}};
    // The reference points of Abar; their measures on the residual stream (null without it).
    ordered_json reference = {{"positions", R}, {"size", s.reference_bar_size(l)}};
    for (int64_t k = metrics::kRelativeMagnitude; k < metrics::kNumReferenceStats; ++k)
      reference[metrics::kReferenceStats[k]] = shape.residual ? ordered_json(s.reference_resid(l, k)) : ordered_json(nullptr);
    layer["reference"] = reference;
    ordered_json graph = ordered_json::array();
    for (int64_t t = 0; t < shape.taus; ++t) {
      ordered_json g = {{"tau", taus.at(t)}};
      for (int64_t k = 0; k < metrics::kNumGraphStats; ++k) g[metrics::kGraphStats[k]] = s.graph(l, t, k);
      const double density = s.graph(l, t, metrics::kDensity);
      // SPEC §9: a threshold is effective for a layer when its density is in [min, max].
      g["effective"] = density >= cfg.density_min && density <= cfg.density_max;
      graph.push_back(g);
    }
    layer["graph"] = graph;
    frame_inputs.push_back({bar, consistency, static_cast<int64_t>(R.size())});

    ordered_json heads = ordered_json::array();
    for (int64_t h = 0; h < H; ++h) {
      const std::vector<double> alpha = s.alpha(l, h);
      const analysis::NormFit norms = analysis::fit_norms(s.mean_norms(l, arch::kv_head_of(h, H, KV)), 0.0);
      double head_consistency = 0;
      const double row = s.row_score(l, h), col = s.col_score(l, h);
      // Guo et al. dormant heads, with the thresholds of the config.
      const bool dormant = row <= cfg.dormant_row_max && col >= cfg.dormant_col_min;
      dormant_heads += dormant;
      sink_heads_at_0 += alpha[0] > s.eps();
      heads.push_back({{"head", h},
                       {"mass0", alpha[0]},
                       {"rho0", s.rho0(l, h)},
                       {"lambda", norms.status.ok ? norms.lambda : std::nan("")},
                       {"alpha", head_prefix(alpha, P)},
                       {"sink_rate", sink_rate(s, l, l + 1, h, h + 1, P)},
                       {"top2", top2_json(run, alpha, s.anchors(l, h, 0), s.anchors(l, h, 1))},
                       {"anchor", anchor_json(run, s.anchors(l, h, 0), head_consistency)},
                       {"anchor_tokens", anchor_tokens_json(run, s.anchors(l, h, 0))},
                       {"dormant", {{"row_score", row}, {"col_score", col}, {"dormant", dormant}}},
                       {"reference", reference_json(s, l, h)}});
    }
    layer["heads"] = heads;
    layers.push_back(layer);
  }

  const auto frames = analysis::classify_frames(frame_inputs, cfg);
  for (int64_t l = 0; l < L; ++l) {
    const auto& f = frames[l];
    layers[l]["frame"] = {{"type", f.type},         {"rule", f.rule},
                          {"S", f.S},               {"anchor", f.anchor},
                          {"alpha1", f.alpha1},     {"alpha2", f.alpha2},
                          {"switched", f.switched}, {"consistency", frame_inputs[l].consistency},
                          {"reference_size", frame_inputs[l].reference_size}};
  }
  // The summary lists the sweep by the thresholds' names (settings.rule keeps the file's order).
  std::vector<const metrics::FrameSweep*> by_key;
  for (const auto& sweep : settings.rule.sweep) by_key.push_back(&sweep);
  std::stable_sort(by_key.begin(), by_key.end(), [](const auto* a, const auto* b) { return a->key < b->key; });
  ordered_json swept = ordered_json::array();
  for (const auto* sweep : by_key)
    for (const auto& c : sweep->configs) {
      const auto f = analysis::classify_frames(frame_inputs, c);
      ordered_json types = ordered_json::array();
      for (const auto& r : f) types.push_back(r.type);
      swept.push_back({{"key", sweep->key}, {"value", sweep_value(*sweep, c)}, {"frame_profile", frame_profile(f)}, {"types", types}});
    }

  ordered_json out = {{"schema", kSinksSchema}};
  const ordered_json info = to_json(run.run_info);
  for (const char* key : {"model", "data", "settings", "timing"}) out[key] = info.value(key, ordered_json(nullptr));
  out["rule"] = {{"note", kRuleNote}, {"config", to_json(cfg)}, {"source", settings.rule_source}};
  out["layers_n"] = L, out["heads_n"] = H, out["kv_heads_n"] = KV, out["T"] = T, out["windows"] = s.windows();
  out["summary"] = {{"sink_rate", sink_rate(s, 0, L, 0, H, P)},
                    {"frame_profile", frame_profile(frames)},
                    {"sweep", swept},
                    {"dormant_heads", dormant_heads},
                    {"sink_heads_at_0", sink_heads_at_0}};
  out["layers"] = layers;
  return out;
}

}  // namespace geoattn::report
