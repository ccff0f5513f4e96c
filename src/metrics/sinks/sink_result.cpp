// SPEC §9: a sinks run's stats and settings -> its result (metrics/sinks/sink_result.h).
#include "geoattn/metrics/sinks/sink_result.h"

#include <algorithm>
#include <cmath>

#include "geoattn/analysis/fits.h"
#include "geoattn/arch/config.h"

namespace geoattn::metrics {

namespace {

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

AnchorSummary anchor_summary(const SinkStats& s, const AnchorCounts& top) {
  const auto h = histograms(top);
  const auto [position, at_position] = modal(h.positions);
  const auto [token, of_token] = modal(h.tokens);
  const double W = static_cast<double>(std::max<int64_t>(1, s.windows()));
  return {position, at_position / W, token, of_token / W, std::max(at_position, of_token) / W};
}

// The top-2 positions of a mean profile, each with the commonest token there among the
// windows' top-2 anchors.
std::array<ProfilePeak, 2> top2_peaks(const std::vector<double>& profile, const AnchorCounts& first,
                                      const AnchorCounts& second) {
  const auto [a, b] = top2(profile.data(), analysis::anchor_candidates(static_cast<int64_t>(profile.size())));
  std::array<ProfilePeak, 2> out;
  for (int i = 0; i < 2; ++i) {
    const int64_t k = i == 0 ? a : b;
    std::map<int64_t, int64_t> tokens;
    for (const auto* counts : {&first, &second})
      for (const auto& [key, n] : *counts)
        if (key.first == k) tokens[key.second] += n;
    out[i] = {k, profile[k], modal(tokens).first};
  }
  return out;
}

std::vector<AnchorToken> anchor_tokens(const AnchorCounts& top) {
  std::vector<AnchorToken> tokens;
  for (const auto& [token, n] : histograms(top).tokens) tokens.push_back({token, n});
  std::stable_sort(tokens.begin(), tokens.end(), [](const auto& x, const auto& y) { return x.windows > y.windows; });
  if (static_cast<int64_t>(tokens.size()) > kAnchorTokensShown) tokens.resize(kAnchorTokensShown);
  return tokens;
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

FrameProfile frame_profile(const std::vector<analysis::FrameResult>& frames) {
  FrameProfile out{};
  for (size_t t = 0; t < out.size(); ++t) {
    const auto n = std::count_if(frames.begin(), frames.end(),
                                 [&](const auto& f) { return f.type == analysis::kFrameTypes[t]; });
    out[t] = frames.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(frames.size());
  }
  return out;
}

SinkHead sink_head(const SinkStats& s, const analysis::FrameConfig& cfg, int64_t l, int64_t h, int64_t P) {
  const auto& shape = s.shape();
  const std::vector<double> alpha = s.alpha(l, h);
  SinkHead out;
  out.head = h;
  out.mass0 = alpha[0];
  out.rho0 = s.rho0(l, h);
  // SPEC §9: lambda of Assumption 1 on the mean norms of the head's KV block.
  const analysis::NormFit norms = analysis::fit_norms(s.mean_norms(l, arch::kv_head_of(h, shape.heads, shape.kv_heads)), 0.0);
  out.lambda = norms.status.ok ? norms.lambda : std::nan("");
  out.alpha = head_prefix(alpha, P);
  out.sink_rate = sink_rate(s, l, l + 1, h, h + 1, P);
  out.top2 = top2_peaks(alpha, s.anchors(l, h, 0), s.anchors(l, h, 1));
  out.anchor = anchor_summary(s, s.anchors(l, h, 0));
  out.anchor_tokens = anchor_tokens(s.anchors(l, h, 0));
  out.row_score = s.row_score(l, h), out.col_score = s.col_score(l, h);
  // Guo et al. dormant heads, with the thresholds of the config.
  out.dormant = out.row_score <= cfg.dormant_row_max && out.col_score >= cfg.dormant_col_min;
  for (int64_t k = 0; k < kNumReferenceStats; ++k) out.reference[k] = s.reference_v(l, h, k);
  return out;
}

}  // namespace

SinkResult sink_result(const SinkRun& run) {
  const SinkStats& s = run.stats;
  const auto& shape = s.shape();
  const int64_t L = shape.layers, H = shape.heads, T = shape.T;
  const SinkSettings& settings = run.run_info.method;
  const analysis::FrameConfig& cfg = settings.rule.config;
  SinkResult out;
  const int64_t P = out.profile_positions = std::clamp<int64_t>(settings.profile_positions, 1, T);

  std::vector<analysis::LayerFrameInput> frame_inputs;
  for (int64_t l = 0; l < L; ++l) {
    SinkLayer layer;
    layer.layer = l;
    const std::vector<double> bar = s.alpha_bar(l);
    // SPEC §9 column scores of the mean Abar: c_j = (1/T) sum_i Abar[i,j] = (T - j)/T alpha_j.
    std::vector<double> c(T);
    for (int64_t j = 0; j < T; ++j) c[j] = bar[j] * static_cast<double>(T - j) / static_cast<double>(T);
    layer.reference_positions = analysis::reference_set(c.data(), T);
    layer.alpha = head_prefix(bar, P);
    layer.sink_rate = sink_rate(s, l, l + 1, 0, H, P);
    layer.top2 = top2_peaks(bar, s.anchors(l, -1, 0), s.anchors(l, -1, 1));
    layer.anchor = anchor_summary(s, s.anchors(l, -1, 0));
    // The reference points of Abar; their measures on the residual stream (none without it).
    layer.reference_size = s.reference_bar_size(l);
    if (shape.residual) {
      layer.reference_resid.emplace();
      for (int64_t k = 0; k < kNumReferenceStats; ++k) (*layer.reference_resid)[k] = s.reference_resid(l, k);
    }
    for (int64_t t = 0; t < shape.taus; ++t) {
      GraphRow g;
      g.tau = settings.taus.at(t);
      for (int64_t k = 0; k < kNumGraphStats; ++k) g.stats[k] = s.graph(l, t, k);
      g.windows = s.graph_windows(l, t, kDensity);
      // SPEC §9: a threshold is effective for a layer when its density is in [min, max].
      g.effective = g.stats[kDensity] >= cfg.density_min && g.stats[kDensity] <= cfg.density_max;
      layer.graph.push_back(g);
    }
    layer.frame_input = {bar, layer.anchor.consistency, static_cast<int64_t>(layer.reference_positions.size())};
    frame_inputs.push_back(layer.frame_input);
    for (int64_t h = 0; h < H; ++h) {
      layer.heads.push_back(sink_head(s, cfg, l, h, P));
      out.dormant_heads += layer.heads.back().dormant;
      out.sink_heads_at_0 += layer.heads.back().mass0 > s.eps();
    }
    out.layers.push_back(std::move(layer));
  }

  // SPEC §9 frame types, layer by layer, under the rule's config and under each of its sweep's.
  const auto frames = analysis::classify_frames(frame_inputs, cfg);
  for (int64_t l = 0; l < L; ++l) out.layers[l].frame = frames[l];
  out.frame_profile = frame_profile(frames);
  // The sweep by the thresholds' names (settings.rule keeps the file's order).
  std::vector<const FrameSweep*> by_key;
  for (const auto& sweep : settings.rule.sweep) by_key.push_back(&sweep);
  std::stable_sort(by_key.begin(), by_key.end(), [](const auto* a, const auto* b) { return a->key < b->key; });
  for (const auto* sweep : by_key)
    for (const auto& c : sweep->configs) {
      auto f = analysis::classify_frames(frame_inputs, c);
      out.sweep.push_back({sweep, &c, frame_profile(f), std::move(f)});
    }
  out.sink_rate = sink_rate(s, 0, L, 0, H, P);
  return out;
}

}  // namespace geoattn::metrics
