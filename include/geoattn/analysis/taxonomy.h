#pragma once
// The head taxonomy of paper sect. 4.2 with the rules of SPEC §6: Retriever, Reset, Mixer by
// their signatures, Unlabelled for a head that meets none, and how the labels move with the
// thresholds. Pure C++ (no LibTorch).
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

// The least-squares slope of y against ln(N) over the grid values where y is finite (see the
// top of this file); NaN with fewer than 2 distinct N.
double slope_vs_log_n(const std::vector<int64_t>& n_grid, const std::vector<double>& y);

// The thresholds of SPEC §6 (defaults as there; configs/taxonomy.json holds them too, read by
// report/taxonomy_config_json.h).
struct TaxonomyConfig {
  double retriever_cos_vL_min = 0.5;  // Retriever: mean over N of cos(s, v_L) >= this
  double reset_sink_ratio = 0.8;      // Reset: c_sink >= this * max(c_last, c_rest)
  double reset_cos_vL_max = 0.3;      // Reset: median over N <= reset_n_max of cos(s, v_L) < this
  int64_t reset_n_max = 64;
  bool operator==(const TaxonomyConfig&) const = default;
};

// The thresholds in one table, in the order results list them: a name (the config's JSON key)
// and the member it names (a real or, for reset_n_max, a whole number).
struct TaxonomyThreshold {
  const char* name;
  double TaxonomyConfig::*real = nullptr;
  int64_t TaxonomyConfig::*whole = nullptr;
};
inline constexpr TaxonomyThreshold kTaxonomyThresholds[] = {
    {"retriever_cos_vL_min", &TaxonomyConfig::retriever_cos_vL_min, nullptr},
    {"reset_sink_ratio", &TaxonomyConfig::reset_sink_ratio, nullptr},
    {"reset_cos_vL_max", &TaxonomyConfig::reset_cos_vL_max, nullptr},
    {"reset_n_max", nullptr, &TaxonomyConfig::reset_n_max}};

// Per (layer, head), means over windows (SPEC §6). Curve entries are NaN where no sample
// reached that N; they are skipped.
struct HeadFeatures {
  double c_sink = 0, c_last = 0, c_rest = 0;  // ||alpha_0 v_0||, ||alpha_L v_L||, ||sum_{0<i<L} alpha_i v_i||
  std::vector<int64_t> n_grid;
  std::vector<double> cos_s_v0, cos_s_vL;     // over n_grid
  // The bootstrap intervals of the two slopes (the run's, SPEC §2b), where the run has them.
  std::optional<std::array<double, 2>> slope_cos_v0_ci, slope_cos_vL_ci;
};

// The labels classify gives, in the order results count them: the paper's three classes by
// their signatures, then the heads that meet none.
inline constexpr const char* kHeadLabels[] = {"Retriever", "Mixer", "Reset", "Unlabelled"};
inline constexpr const char* kUnlabelled = "Unlabelled";

struct HeadLabel {
  std::string label;  // one of kHeadLabels
  std::string rule;   // which rule fired, with its numbers; for Unlabelled, why none did
  double mean_cos_vL = 0;            // mean over N of cos(s, v_L)
  double median_cos_vL_small_n = 0;  // median over N <= reset_n_max of cos(s, v_L); NaN if none
  double slope_cos_v0 = 0, slope_cos_vL = 0;  // vs ln(N), see the top of this file
  bool slopes_by_interval = false;   // the Mixer test read the slopes' intervals (else their signs)
  std::string closest;               // Unlabelled: the rule it came closest to
  std::string failed;                // Unlabelled: that rule's first failed criterion, with its numbers
};

// SPEC §6, checked in this order (the first that holds wins):
//   Retriever:  c_last >= c_sink and c_last >= c_rest (largest; a tie counts), and
//               mean_cos_vL >= retriever_cos_vL_min;
//   Reset:      c_sink >= reset_sink_ratio * max(c_last, c_rest), and
//               median_cos_vL_small_n < reset_cos_vL_max;
//   Mixer:      the signature of paper sect. 4.2 (Fig. 7): slope_cos_v0 < 0 and slope_cos_vL > 0,
//               each interval excluding 0 (hi < 0, lo > 0) where the features have both
//               intervals, else the signs alone (slopes_by_interval says which);
//   Unlabelled: none of these (a NaN feature fails the comparison it is in). `closest` is the
//               rule with the fewest failed criteria, ties to the smaller sum of relative
//               shortfalls (a threshold's: the distance past it over the threshold's size; a
//               slope's: the part of its interval on the wrong side of 0 over the interval's
//               width, 1 when read by its sign), then to the order above.
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
// SPEC §6's sensitivity table: one row per threshold and factor (kSensitivityFactors), the
// labels that change when that threshold alone is multiplied by the factor (reset_n_max
// rounded to a whole number, at least 1).
inline constexpr double kSensitivityFactors[] = {0.75, 0.9, 1.1, 1.25};
struct LabelChange {
  int64_t layer = 0, head = 0;
  std::string from, to;
};
struct SensitivityRow {
  std::string threshold;
  double factor = 1, value = 0;
  std::vector<LabelChange> changes;
};

struct Taxonomy {
  TaxonomyConfig config;
  std::vector<TaxonomyHead> heads;
  std::vector<std::pair<int64_t, LabelCounts>> layers;
  LabelCounts totals{};
  std::vector<SensitivityRow> sensitivity;
};
Taxonomy taxonomy(std::vector<TaxonomyInput> heads, const TaxonomyConfig& cfg);


}  // namespace geoattn::analysis
