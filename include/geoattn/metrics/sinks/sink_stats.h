#pragma once
// Attention sinks, accumulated over windows (SPEC §9): per (layer, head) the sink mass alpha_k
// by key position, the sink-head counts at eps, the dormant-head scores, the reference-point
// measures with x = v, rho0 and the value norms (for lambda); per layer the reference-point
// measures on the residual stream, the attention-graph statistics and the top anchors of Abar.
// Every sum is an ExactSum and every count an integer, so shards merge bit for bit.
// Pure C++ (no LibTorch); metrics_torch/sink_window.h computes a window's numbers.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/stats/array_view.h"
#include "geoattn/util/enum_names.h"

namespace geoattn::metrics {

// SPEC §9 "Two conventions": geoattn's own (the default) and the authors' released code's. A
// quantity that differs between them has a different name in the result, so a number never
// carries a cited name it does not equal; the names below are the only place they are spelled.
enum class SinkConvention { geoattn, authors };
inline constexpr EnumName<SinkConvention> kSinkConventionNames[] = {{SinkConvention::geoattn, "geoattn"},
                                                                    {SinkConvention::authors, "authors"}};

// The attention-graph statistics of one layer at one threshold tau (SPEC §9): their order in
// every array, and their names in the result per convention (docs/schema/geoattn.sinks-1.schema.json,
// "graph_entry_geoattn" and "graph_entry_authors": ctest Schema checks that they agree).
enum GraphStat : int64_t { kDensity, kGini, kStar, kCentralization, kFiedler, kGap, kNumGraphStats };
inline constexpr const char* kGraphStatsGeoattn[kNumGraphStats] = {"density_undirected", "gini", "star",
                                                                    "centralization_freeman", "fiedler", "gap"};
inline constexpr const char* kGraphStatsAuthors[kNumGraphStats] = {"density", "gini", "star",
                                                                    "degree_centralization", "fiedler", "gap"};

// The reference-point measures of one (layer, head) or layer: |R|, then the magnitude and the
// direction of the reference part r_i of each query's mix y_i (schema: "head_reference_geoattn",
// "head_reference_authors").
enum ReferenceStat : int64_t { kReferenceSize, kRelativeMagnitude, kDirectionalInfluence, kNumReferenceStats };
inline constexpr const char* kReferenceStatsGeoattn[kNumReferenceStats] = {"size", "magnitude_ratio",
                                                                            "direction_agreement"};
inline constexpr const char* kReferenceStatsAuthors[kNumReferenceStats] = {"size", "relative_magnitude",
                                                                            "directional_influence"};

// Guo et al.'s row score (schema: "dormant_geoattn", "dormant_authors"); the column score is the
// same in both ("col_score").
inline constexpr const char* kRowScoreGeoattn[] = {"row_score_from_1"};
inline constexpr const char* kRowScoreAuthors[] = {"row_score"};

// The names of one convention's quantities.
struct SinkNames {
  const char* const* graph;      // [kNumGraphStats]
  const char* const* reference;  // [kNumReferenceStats]
  const char* row_score;
};
constexpr SinkNames sink_names(SinkConvention c) {
  return c == SinkConvention::authors ? SinkNames{kGraphStatsAuthors, kReferenceStatsAuthors, kRowScoreAuthors[0]}
                                      : SinkNames{kGraphStatsGeoattn, kReferenceStatsGeoattn, kRowScoreGeoattn[0]};
}

struct SinkShape {
  int64_t layers = 0, heads = 0, kv_heads = 0, T = 0;
  int64_t taus = 0;       // graph thresholds
  bool residual = false;  // reference points on the residual stream too
};

// One window's numbers, host side (metrics_torch/sink_window.h fills it).
struct SinkWindow {
  SinkShape shape;
  std::vector<double> alpha;        // [L, H, T]  alpha_k = (1/(T-k)) sum_{t>=k} A[t,k]
  std::vector<double> row_score;    // [L, H]     Guo et al.'s row score (the convention's)
  std::vector<double> col_score;    // [L, H]     max_{j<=T-2} H(A[.,j] / sum_i A[i,j]) / log(T-j)
  std::vector<double> reference_v;  // [L, H, kNumReferenceStats]  x = v, A of the head (the convention's)
  std::vector<double> rho0;         // [L, H]     mean over queries t >= 1 of SPEC §3's rho0
  std::vector<double> norms;        // [L, KV, T] ||v_i||
  std::vector<double> reference_bar;       // [L] |R| of Abar's column scores
  std::vector<double> reference_resid;     // [L, kNumReferenceStats], x = resid_pre; empty without
  std::vector<double> graph;        // [L, taus, kNumGraphStats]
};

// A window's top-2 anchors: (position, token) of the largest and second largest alpha_k among
// the anchor candidates (analysis/frames.h).
using AnchorCounts = std::map<std::pair<int64_t, int64_t>, int64_t>;  // (position, token) -> windows

class SinkStats {
 public:
  SinkStats() = default;
  // eps: a head is a sink head at k when alpha_k > eps (strict).
  SinkStats(const SinkShape& shape, double eps);

  const SinkShape& shape() const { return shape_; }
  double eps() const { return eps_; }
  int64_t windows() const { return windows_; }

  // One window and its token ids [T]. geoattn::Error if the shape or the token count differs.
  void add(const SinkWindow& w, std::span<const int64_t> tokens);
  // geoattn::Error if the shapes or eps differ.
  void merge(const SinkStats& other);

  // Means over windows (NaN with none).
  std::vector<double> alpha(int64_t l, int64_t h) const;  // [T]
  std::vector<double> alpha_bar(int64_t l) const;         // [T] the mean over heads
  int64_t sink_windows(int64_t l, int64_t h, int64_t k) const;  // windows with alpha_k > eps
  double row_score(int64_t l, int64_t h) const;
  double col_score(int64_t l, int64_t h) const;
  double rho0(int64_t l, int64_t h) const;
  double reference_v(int64_t l, int64_t h, int64_t stat) const;
  double reference_bar_size(int64_t l) const;
  double reference_resid(int64_t l, int64_t stat) const;  // NaN without the residual
  std::vector<double> mean_norms(int64_t l, int64_t kv) const;  // [T]
  double graph(int64_t l, int64_t tau, int64_t stat) const;
  // The windows in graph(l, tau, stat)'s mean: every window, but for the density and the Gini of
  // the authors' convention those with 2 edges or more (below, the notebook's early return
  // records neither, and its means skip the window; SPEC §9). A window marks that by NaN in both.
  int64_t graph_windows(int64_t l, int64_t tau, int64_t stat) const;
  // Top anchors of the head's (h >= 0) or of Abar's (h = -1) window profiles; rank 0 or 1.
  const AnchorCounts& anchors(int64_t l, int64_t h, int64_t rank) const;

  // The state sidecar's arrays: "sink_sums" I64 [n, 2] (every ExactSum as [lo, hi], in the
  // order of the accessors above), "sink_counts" I64 [L, H, T], "sink_anchors" I64 [m, 5]
  // (layer, head or -1, rank, position, token; then the count in "sink_anchor_counts" I64 [m]),
  // "sink_graph_windows" I64 [L, taus] (graph_windows of the density and the Gini; with taus).
  // The sums in one run and the anchors as rows are derived (held by their views); the counts
  // are viewed in place, valid until the object changes.
  std::vector<ArrayView> arrays() const;
  // geoattn::Error (naming `what`) when a size or a value does not fit the shape. No
  // `graph_windows` (a state written before they were kept): every window.
  static SinkStats from_tensors(const SinkShape& shape, double eps, int64_t windows, const std::vector<int64_t>& sums,
                                const std::vector<int64_t>& counts, const std::vector<int64_t>& anchors,
                                const std::vector<int64_t>& anchor_counts, const std::string& what,
                                const std::vector<int64_t>* graph_windows = nullptr);

 private:
  // ExactSum slots per (layer, head), per (layer, kv head) and per layer.
  int64_t head_slots() const { return shape_.T + 3 + kNumReferenceStats; }  // alpha[T], row, col, rho0, ref[3]
  int64_t kv_slots() const { return shape_.T; }
  int64_t layer_slots() const { return 1 + kNumReferenceStats + shape_.taus * kNumGraphStats; }
  const ExactSum& head_sum(int64_t l, int64_t h, int64_t slot) const;
  double mean(const ExactSum& s) const;

  SinkShape shape_;
  double eps_ = 0.3;
  int64_t windows_ = 0;
  std::vector<ExactSum> heads_, kvs_, layers_;  // [L, H, head_slots], [L, KV, T], [L, layer_slots]
  std::vector<int64_t> sinks_;                  // [L, H, T]
  std::vector<int64_t> graph_windows_;          // [L, taus]: windows in the density's and Gini's means
  std::vector<AnchorCounts> anchors_;           // [L, H + 1, 2]: head h at h, Abar at H
};

// The top-2 positions of a profile (largest first; ties to the lower position).
std::pair<int64_t, int64_t> top2(const double* profile, int64_t T);

}  // namespace geoattn::metrics
