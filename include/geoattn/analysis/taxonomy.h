#pragma once
// The head taxonomy of paper sect. 4.2 with the rules of SPEC §6: Retriever, Reset, Mixer.
// Pure C++ (no LibTorch).
//
// Slopes, in one place: every slope here is the least-squares slope of a cosine curve
// against ln(N) over the grid values where the curve is defined (the grid is roughly
// log-spaced, so each decade of N weighs about the same). NaN with fewer than 2 distinct N.
#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace geoattn::analysis {

// The thresholds of SPEC §6 (defaults as there; configs/taxonomy.json holds them too, read by
// report/taxonomy_config_json.h).
struct TaxonomyConfig {
  double retriever_cos_vL_min = 0.5;  // Retriever: mean over N of cos(s, v_L) >= this
  double reset_sink_ratio = 0.8;      // Reset: c_sink >= this * max(c_last, c_rest)
  double reset_cos_vL_max = 0.3;      // Reset: median over N <= reset_n_max of cos(s, v_L) < this
  int64_t reset_n_max = 64;
  bool operator==(const TaxonomyConfig&) const = default;
};

// Per (layer, head), means over windows (SPEC §6). Curve entries are NaN where no sample
// reached that N; they are skipped.
struct HeadFeatures {
  double c_sink = 0, c_last = 0, c_rest = 0;  // ||alpha_0 v_0||, ||alpha_L v_L||, ||sum_{0<i<L} alpha_i v_i||
  std::vector<int64_t> n_grid;
  std::vector<double> cos_s_v0, cos_s_vL;     // over n_grid
};

// The labels classify gives, in the order results count them.
inline constexpr const char* kHeadLabels[] = {"Retriever", "Mixer", "Reset"};

struct HeadLabel {
  std::string label;  // "Retriever" | "Reset" | "Mixer"
  std::string rule;   // which rule fired, with its numbers
  double mean_cos_vL = 0;            // mean over N of cos(s, v_L)
  double median_cos_vL_small_n = 0;  // median over N <= reset_n_max of cos(s, v_L); NaN if none
  double slope_cos_v0 = 0, slope_cos_vL = 0;  // vs ln(N), see the top of this file
};

// SPEC §6, checked in this order (the first that holds wins):
//   Retriever: c_last >= c_sink and c_last >= c_rest (largest; a tie counts), and
//              mean_cos_vL >= retriever_cos_vL_min;
//   Reset:     c_sink >= reset_sink_ratio * max(c_last, c_rest), and
//              median_cos_vL_small_n < reset_cos_vL_max;
//   Mixer:     every other head (a NaN feature fails the comparison it is in).
// geoattn::Error if the curves do not have the length of n_grid.
HeadLabel classify(const HeadFeatures& f, const TaxonomyConfig& cfg);

// One head of a measure result, as SPEC §6 reads it.
struct TaxonomyInput {
  int64_t layer = 0, head = 0;
  std::optional<int64_t> samples;  // the head's samples, copied to the result (a file may lack it)
  HeadFeatures features;
};

// Counts per label, in kHeadLabels order.
using LabelCounts = std::array<int64_t, std::size(kHeadLabels)>;

// `geoattn taxonomy`'s result (report/taxonomy_json.h writes it): every head classified, in the
// order given, and the counts per layer (layers ascending) and in all.
struct TaxonomyHead {
  TaxonomyInput input;
  HeadLabel label;
};
struct Taxonomy {
  TaxonomyConfig config;
  std::vector<TaxonomyHead> heads;
  std::vector<std::pair<int64_t, LabelCounts>> layers;
  LabelCounts totals{};
};
Taxonomy taxonomy(std::vector<TaxonomyInput> heads, const TaxonomyConfig& cfg);


}  // namespace geoattn::analysis
