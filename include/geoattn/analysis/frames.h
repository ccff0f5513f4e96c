#pragma once
// Attention sinks as reference frames (Ruscio et al. 2025; SPEC §9): the reference set of a
// column-score profile and the frame type of a layer. The frame-type rule is geoattn's own
// (the sources describe the types only in words); its thresholds live in configs/sinks.json
// and every result says so. Pure C++ (no LibTorch).
#include <cstdint>
#include <string>
#include <vector>

namespace geoattn::analysis {

// SPEC §9 anchor candidates: the keys k = 0..T/2, each seen by at least half of a window's
// queries. alpha_k of a late key averages few queries (alpha_{T-1} = A[T-1, T-1], a token's
// attention to itself), so anchors, top-2 sink positions and S are taken among these.
inline int64_t anchor_candidates(int64_t T) { return T / 2 + 1; }

// SPEC §9 reference points: R = {j : c_j > 0.1}; if empty, the top max(1, floor(0.1 T)) by c_j;
// at most max(1, floor(0.3 T)) (the largest c_j). Ties go to the lower position. Ascending.
std::vector<int64_t> reference_set(const double* c, int64_t T);

// The frame-type thresholds (configs/sinks.json, read by report/frame_config_json.h; defaults as
// there).
struct FrameConfig {
  double anchor_alpha_min = 0.3;        // S = {k : alpha_k >= this} of Abar's mean profile
  double comparable_ratio = 0.5;        // second anchor "comparable" when alpha_2 >= this * alpha_1
  double centralized_consistency = 0.9; // centralized: one anchor in >= this share of windows
  double distributed_consistency = 0.5; // distributed: anchor consistency below this
  int64_t distributed_min_S = 3;        // distributed: |S| >= this ...
  int64_t distributed_min_R = 2;        // ... or |S| != 1 and |R| >= this
  double density_min = 0.05, density_max = 0.95;  // a graph threshold is "effective" inside
  double dormant_row_max = 0.3;         // dormant head: row score <= this ...
  double dormant_col_min = 0.9;         // ... and column score >= this (flags; Guo et al. give none)
  bool operator==(const FrameConfig&) const = default;
};

// What the rule reads of one layer (means over windows of Abar = the mean over heads).
struct LayerFrameInput {
  std::vector<double> alpha;    // [T] Abar's mean alpha_k profile
  double consistency = 0;       // the share of windows whose top anchor is the modal one
                                // (the larger of the by-position and by-token shares)
  int64_t reference_size = 0;   // |R| of the mean column scores c_j
};

inline constexpr const char* kFrameTypes[] = {"centralized", "bidirectional", "distributed", "none"};

struct FrameResult {
  std::string type;             // one of kFrameTypes
  std::string rule;             // why, in words, with the numbers
  std::vector<int64_t> S;       // anchor positions (among the candidates), ascending
  int64_t anchor = -1;          // argmax of alpha when alpha_1 >= anchor_alpha_min, else -1
  double alpha1 = 0, alpha2 = 0;  // the largest and second largest alpha_k
  bool switched = false;        // the anchor differs from the previous layer's (both defined)
};

// SPEC §9 frame type, layer by layer (a layer's "switch" compares it with the layer before):
//   centralized   |S| = 1, alpha_2 < ratio alpha_1, consistency >= centralized_consistency
//   bidirectional |S| = 2 with alpha_2 >= ratio alpha_1, or the anchor switched
//   distributed   (|S| >= distributed_min_S, or |S| != 1 and |R| >= distributed_min_R) and
//                 consistency < distributed_consistency
//   none          otherwise; checked in this order.
std::vector<FrameResult> classify_frames(const std::vector<LayerFrameInput>& layers, const FrameConfig& cfg);

}  // namespace geoattn::analysis
