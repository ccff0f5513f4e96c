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
#include <limits>
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
  double reset_sink_ratio = 0.8;      // Reset (a): c_sink >= this * max(c_last, c_rest)
  double reset_cos_vL_max = 0.3;      // Reset: median over N <= reset_n_max of cos(s, v_L) < this
  int64_t reset_n_max = 64;           // Reset: "small N"
  double reset_spread_entropy_min = 0.9;  // Reset (b): the mean row's normalized entropy >= this
  double mixer_between_slack = 1.0;   // Mixer (i): min(c_sink, c_rest) / this <= c_last <= this * max(c_sink, c_rest)
  double mixer_slope_fdr = 0.05;      // Mixer (ii) by interval: a slope's BH-adjusted p-value <= this (SPEC §2b)
  // Not a threshold of the config file: the sensitivity table's row that reads the Mixer's slopes
  // by their signs where the run has intervals (SPEC §6, "intervals against signs").
  bool mixer_slopes_by_sign = false;
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
    {"reset_n_max", nullptr, &TaxonomyConfig::reset_n_max},
    {"reset_spread_entropy_min", &TaxonomyConfig::reset_spread_entropy_min, nullptr},
    {"mixer_between_slack", &TaxonomyConfig::mixer_between_slack, nullptr},
    {"mixer_slope_fdr", &TaxonomyConfig::mixer_slope_fdr, nullptr}};
// The sensitivity table's one row that is not a factor on a threshold (SPEC §6: the Mixer's
// slopes read by their signs, against their intervals).
inline constexpr const char* kMixerSlopesBySign = "mixer_slopes_by_sign";

// Per (layer, head), means over windows (SPEC §6). Curve entries are NaN where no sample
// reached that N; they are skipped.
struct HeadFeatures {
  double c_sink = 0, c_last = 0, c_rest = 0;  // ||alpha_0 v_0||, ||alpha_L v_L||, ||sum_{0<i<L} alpha_i v_i||
  std::vector<int64_t> n_grid;
  std::vector<double> cos_s_v0, cos_s_vL;     // over n_grid
  // The leave-one-out curves over n_grid (SPEC §6's diagnostics): ||s(N)||, without the sink's
  // term, without L's term. Empty where the result has none (no diagnostic then).
  std::vector<double> s_norm, s_loo_sink, s_loo_last;
  // SPEC §4's mean attention row of the last query by position (n entries; NaN past n), read by
  // Reset's branch (b). Empty where the result has none (the branch cannot fire then).
  std::vector<double> mean_row;
  // The bootstrap intervals of the two slopes (the run's, SPEC §2b), where the run has them.
  std::optional<std::array<double, 2>> slope_cos_v0_ci, slope_cos_vL_ci;
  // Their two-sided bootstrap p-values for "slope = 0" (the run's), and the same adjusted by
  // Benjamini-Hochberg across every head's two slopes (taxonomy() sets q from p; NaN: none).
  double slope_cos_v0_p = std::numeric_limits<double>::quiet_NaN(), slope_cos_vL_p = slope_cos_v0_p;
  double slope_cos_v0_q = slope_cos_v0_p, slope_cos_vL_q = slope_cos_v0_p;
};

// SPEC §2b: Benjamini-Hochberg adjusted p-values (q_(i) = min over j >= i of m p_(j) / j, at most
// 1) of the finite entries of p, m of them; NaN where p is NaN.
std::vector<double> bh_adjusted(const std::vector<double>& p);

// The labels classify gives, in the order results count them: the paper's three classes by
// their signatures, then the heads that meet none.
inline constexpr const char* kHeadLabels[] = {"Retriever", "Mixer", "Reset", "Unlabelled"};
inline constexpr const char* kUnlabelled = "Unlabelled";

struct HeadLabel {
  std::string label;  // one of kHeadLabels
  std::string rule;   // which rule fired, with its numbers; for Unlabelled, why none did
  double mean_cos_vL = 0;            // mean over N of cos(s, v_L)
  double median_cos_vL_small_n = 0;  // median over N <= reset_n_max of cos(s, v_L); NaN if none
  double median_cos_v0_small_n = 0;  // median over N <= reset_n_max of cos(s, v_0); NaN if none
  double slope_cos_v0 = 0, slope_cos_vL = 0;  // vs ln(N), see the top of this file
  bool slopes_by_interval = false;   // the Mixer test read the slopes' intervals (else their signs)
  double row_entropy = 0;            // the mean row's normalized entropy (row_entropy()); NaN without a row
  std::string reset_branch;          // Reset: "sink" (branch a) or "spread" (branch b); else empty
  double drop_sink = 0, drop_last = 0;  // mean over N of ||s(N)|| - its leave-one-out norm; NaN without curves
  std::string flag;                  // the leave-one-out diagnostic disagrees with the label (SPEC §6); else empty
  std::string closest;               // Unlabelled: the rule it came closest to
  std::string failed;                // Unlabelled: that rule's first failed criterion, with its numbers
};

// SPEC §6 Reset (b): the normalized entropy -sum p_i ln p_i / ln n of a row (its finite entries,
// n of them, scaled to sum to 1); NaN with fewer than 2 entries or a zero sum. The row read is the
// mean row over windows (SPEC §4), so a head whose every row is sharp at a varying position
// reads as spread here: the other Reset criteria (weak cos(s, v_L), sink-biased s) stand beside it.
double row_entropy(const std::vector<double>& row);

// SPEC §6, checked in this order (the first that holds wins); m0 and mL are the medians over
// N <= reset_n_max of cos(s, v_0) and cos(s, v_L):
//   Retriever:  c_last >= c_sink and c_last >= c_rest (largest; a tie counts), and
//               mean_cos_vL >= retriever_cos_vL_min;
//   Reset:      mL < reset_cos_vL_max, m0 > mL, and either (a) c_sink >= reset_sink_ratio *
//               max(c_last, c_rest) or (b) c_rest is the largest and row_entropy(mean_row) >=
//               reset_spread_entropy_min (reset_branch says which; a before b);
//   Mixer:      (i) min(c_sink, c_rest) / s <= c_last <= s * max(c_sink, c_rest), s =
//               mixer_between_slack, and (ii) slope_cos_v0 < 0 and slope_cos_vL > 0, each
//               interval excluding 0 (hi < 0, lo > 0) and its BH-adjusted p-value (q) <=
//               mixer_slope_fdr where the features have both intervals and both q (the test
//               across heads, SPEC §2b), else the signs alone (slopes_by_interval says which);
//   Unlabelled: none of these (a NaN feature fails the comparison it is in). `closest` is the
//               rule with the smallest relative shortfall, the sum over its failed criteria of
//               how far each misses (a threshold's: the distance past it over the threshold's
//               size; two cosines compared: their difference, on the cosine's scale of 1; a
//               slope's: the part of its interval on the wrong side of 0 over the interval's
//               width, or where the interval clears 0 and q does not, (q - fdr) / (1 - fdr);
//               1 when read by its sign), ties to the order above.
// The leave-one-out diagnostic (`flag`): a Retriever whose drop_last is not larger than its
// drop_sink, or a Reset whose drop_sink is not larger than its drop_last, is flagged, not
// relabelled.
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
// rounded to a whole number, at least 1), and one row with the Mixer's slopes read by their
// signs (kMixerSlopesBySign).
inline constexpr double kSensitivityFactors[] = {0.75, 0.9, 1.1, 1.25};
struct LabelChange {
  int64_t layer = 0, head = 0;
  std::string from, to;
};
struct SensitivityRow {
  std::string threshold;  // a kTaxonomyThresholds name, or kMixerSlopesBySign (factor and value NaN)
  double factor = 1, value = 0;
  std::vector<LabelChange> changes;
};

struct Taxonomy {
  TaxonomyConfig config;
  std::vector<TaxonomyHead> heads;
  std::vector<std::pair<int64_t, LabelCounts>> layers;
  LabelCounts totals{};
  // SPEC §6: Mixers whose slopes were read by their intervals, and by their signs alone: two
  // counts never pooled (totals' Mixer is their sum).
  int64_t mixers_by_interval = 0, mixers_by_sign = 0;
  // SPEC §2b: the family of the slope tests that BH adjusted (every head's two slopes with a
  // p-value; 0 where the run has none).
  int64_t slope_tests = 0;
  int64_t flagged = 0;  // labels whose leave-one-out diagnostic disagrees
  std::vector<SensitivityRow> sensitivity;
};
Taxonomy taxonomy(std::vector<TaxonomyInput> heads, const TaxonomyConfig& cfg);


}  // namespace geoattn::analysis
