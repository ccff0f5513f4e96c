#pragma once
// SPEC §9's result of a sinks run, computed from its accumulated stats and its settings:
// profiles, anchors, dormant heads, reference points, graph statistics, the frame type of every
// layer and the frame rule's sweep, as structs (report/sinks_json.h writes them; the field names
// are the JSON's). Pure C++.
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "geoattn/analysis/frames.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/metrics/sinks/sink_settings.h"
#include "geoattn/metrics/sinks/sink_stats.h"

namespace geoattn::metrics {

// A sinks run's state: the sums, the run's description ("model", "data", "settings",
// "timing") and the text of every token id that is an anchor (the state sidecar holds all three).
struct SinkRun {
  SinkStats stats;
  SinkInfo run_info;
  std::map<int64_t, std::string> token_text;
};

// The windows' commonest top anchor: by position and by token, each with its share of windows.
struct AnchorSummary {
  int64_t position = -1;
  double position_share = 0;
  int64_t token = -1;
  double token_share = 0;
  double consistency = 0;  // the larger of the two shares
};
// One of the top-2 positions of a mean profile, with the commonest token there among the
// windows' top-2 anchors (-1: none).
struct ProfilePeak {
  int64_t position = -1;
  double alpha = 0;
  int64_t token = -1;
};
struct AnchorToken {
  int64_t token = 0, windows = 0;
};
struct GraphRow {
  double tau = 0;
  std::array<double, kNumGraphStats> stats{};  // means over windows, kGraphStats order
  int64_t windows = 0;     // the windows in the density's and the Gini's means (SinkStats::graph_windows)
  bool effective = false;  // SPEC §9: density in [density_min, density_max]
};
// Shares of layers per frame type, in analysis::kFrameTypes order.
using FrameProfile = std::array<double, std::size(analysis::kFrameTypes)>;

struct SinkHead {
  int64_t head = 0;
  double mass0 = 0, rho0 = 0;
  double lambda = 0;                    // Assumption 1's lambda of the head's KV norms; NaN if its fit failed
  std::vector<double> alpha, sink_rate;  // [P]: the mean profile, Sink_k^eps in % of windows
  std::array<ProfilePeak, 2> top2;
  AnchorSummary anchor;
  std::vector<AnchorToken> anchor_tokens;  // commonest first, at most kAnchorTokensShown
  double row_score = 0, col_score = 0;
  bool dormant = false;  // Guo et al., with the config's thresholds
  std::array<double, kNumReferenceStats> reference{};  // x = v
};
struct SinkLayer {
  int64_t layer = 0;
  std::vector<double> alpha, sink_rate;  // [P]: Abar's mean profile, Sink_k^eps in % of (window, head)
  std::array<ProfilePeak, 2> top2;
  AnchorSummary anchor;
  std::vector<int64_t> reference_positions;  // R of the mean column scores c_j
  double reference_size = 0;                 // mean |R| per window
  // relative_magnitude, directional_influence on the residual stream; none without it.
  std::optional<std::array<double, kNumReferenceStats>> reference_resid;
  std::vector<GraphRow> graph;  // one per tau
  analysis::LayerFrameInput frame_input;
  analysis::FrameResult frame;
  std::vector<SinkHead> heads;
};
// The frame types of every layer under one config of the rule's sweep.
struct SweepPoint {
  const FrameSweep* sweep = nullptr;  // into the run's settings
  const analysis::FrameConfig* config = nullptr;
  FrameProfile frame_profile{};
  std::vector<analysis::FrameResult> frames;
};
struct SinkResult {
  int64_t profile_positions = 0;  // P = min(T, settings.profile_positions)
  std::vector<double> sink_rate;  // [P] over every (window, layer, head)
  FrameProfile frame_profile{};
  std::vector<SweepPoint> sweep;  // by the thresholds' names, then the file's order
  int64_t dormant_heads = 0, sink_heads_at_0 = 0;
  std::vector<SinkLayer> layers;
};

inline constexpr int64_t kAnchorTokensShown = 10;

// Refers into `run`'s settings (the sweep): `run` must outlive the result.
SinkResult sink_result(const SinkRun& run);

}  // namespace geoattn::metrics
