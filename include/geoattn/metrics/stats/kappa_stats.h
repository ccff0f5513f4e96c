#pragma once
// SPEC §5's envelopes of the measured samples at a grid of kappas, for the
// kappa range each head allows (kappa_range.h). The bounds of P and R (the first four of
// analysis::kBoundsNames: P_lo, P_up, R_lo, R_up) per (layer, head, kappa, N) as exact sums, so
// shards and resumed runs give the bits of one run, and, for the bootstrap over documents, the
// same per document at the metric bootstrap's level (plain sums within a document, as
// UnitStats keeps them: a document is never split). Pure C++.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "geoattn/analysis/bounds.h"
#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/stats/array_view.h"
#include "geoattn/metrics/stats/head_grid.h"
#include "geoattn/metrics/stats/unit_stats.h"

namespace geoattn::metrics {

// The curves kept per kappa: analysis::kBoundsNames[0..3].
inline constexpr int kKappaCurves = 4;
enum KappaCurve : int { kKappaP_lo, kKappaP_up, kKappaR_lo, kKappaR_up };

// SPEC §5: the default kappa grid of the scan, 2^(e/2) for |e| <= kKappaHalfOctaves: 2^-4 .. 2^4
// in half octaves (17), a window of a factor 16 around the paper's kappa = 1. Not wider: as kappa
// goes to 0 or to infinity the tails' sigma = B / sqrt(2 kappa d) goes to infinity or 0 and the
// upper envelopes to vacuous values that bracket almost anything. kDefaultKappasText says it in
// the help.
inline constexpr int kKappaHalfOctaves = 8;
inline constexpr const char* kDefaultKappasText = "2^-4..2^4 in half octaves";
std::vector<double> default_kappas();

// The kappas of the scan as the user gives them, read once where they are given (a flag, a
// Python argument): "off", "auto" (default_kappas() where the envelopes are on) or a list of
// ascending kappas > 0 like "0.25,0.5,1,2".
class KappaScan {
 public:
  // geoattn::Error naming no setting on any other text.
  static KappaScan parse(const std::string& text);
  // The kappas a run ran its envelopes at (empty: off), as a result records them.
  static KappaScan of(const std::vector<double>& kappas);
  bool off() const { return text_ == "off"; }
  bool automatic() const { return text_ == "auto"; }
  const std::vector<double>& list() const { return list_; }  // a list's kappas (empty: off or auto)
  const std::string& text() const { return text_; }         // as given

 private:
  std::string text_ = "off";
  std::vector<double> list_;
};

class KappaStats : public HeadGrid {
 public:
  KappaStats() = default;
  // kappas: ascending, > 0, finite; level: the groups whose per-document sums are kept
  // (nullopt: none, the run has no bootstrap). geoattn::Error otherwise.
  KappaStats(int64_t layers, int64_t heads, int64_t grid_size, std::vector<double> kappas,
             std::optional<BootLevel> level);

  const std::vector<double>& kappas() const { return kappas_; }
  int64_t K() const { return static_cast<int64_t>(kappas_.size()); }
  int64_t grid_size() const { return G_; }

  // The row of document `unit` (added when new; -1 when no per-document sums are kept).
  int64_t row(const std::string& unit);
  // One sample's bounds at every kappa (per_kappa[k]: analysis::sample_bounds at kappas()[k]).
  void add(int64_t row, int64_t layer, int64_t head, std::span<const analysis::BoundsCurves> per_kappa);
  // geoattn::Error when the shapes, kappas or levels differ, or a document is in both.
  void merge(const KappaStats& other);

  // The mean of curve c at kappa k per N (NaN where no sample reaches N) and the samples per N:
  // of one head; of a layer (head = -1); of the run (layer = head = -1).
  std::vector<double> mean(int64_t layer, int64_t head, int64_t k, int c) const;
  std::vector<int64_t> samples(int64_t layer, int64_t head) const;

  // Per-document sums (level(): as UnitStats' groups), [groups][K][kKappaCurves][G] per unit.
  bool has_units() const { return level_.has_value(); }
  BootLevel level() const { return level_.value_or(BootLevel::Global); }
  int64_t groups() const;
  int64_t group_of(int64_t layer, int64_t head) const;
  int64_t per_group() const { return K() * kKappaCurves * G_; }
  int64_t index(int64_t k, int c, int64_t g) const { return (k * kKappaCurves + c) * G_ + g; }
  int64_t units() const { return static_cast<int64_t>(ids_.size()); }
  // The per-document sums of `units` units, allocated at once (what a run sizes before its first window).
  double unit_bytes(int64_t units) const { return static_cast<double>(units) * groups() * per_group() * sizeof(double); }
  void reserve_units(int64_t units) { unit_sums_.reserve(static_cast<size_t>(units * groups() * per_group())); }
  const std::vector<std::string>& unit_ids() const { return ids_; }
  std::span<const double> unit_sums(int64_t u) const {
    const int64_t n = groups() * per_group();
    return std::span<const double>(unit_sums_).subspan(static_cast<size_t>(u * n), static_cast<size_t>(n));
  }

  // The state sidecar's arrays: "kappa_values" F64 [K], "kappa_sums" I64 [L, H, K, 4, G, 2]
  // (ExactSum [lo, hi]), "kappa_counts" I64 [L, H, G], and with per-document sums
  // "kappa_unit_sums" F64 [U, groups, K, 4, G], "kappa_unit_ids" U8 (a JSON array),
  // "kappa_unit_level" I64 [1].
  std::vector<ArrayView> arrays() const;
  static KappaStats from_arrays(int64_t layers, int64_t heads, int64_t grid_size, std::vector<double> kappas,
                                const std::vector<int64_t>& sums, const std::vector<int64_t>& counts,
                                std::optional<BootLevel> level, std::vector<double> unit_sums, const std::string& ids_json);

 private:
  std::vector<int64_t> slots(int64_t layer, int64_t head) const;

  int64_t G_ = 0;
  std::vector<double> kappas_;
  std::optional<BootLevel> level_;
  std::vector<ExactSum> sums_;    // [L, H, K, 4, G]
  std::vector<int64_t> counts_;   // [L, H, G]
  std::vector<std::string> ids_;
  std::map<std::string, int64_t> index_;
  std::vector<double> unit_sums_;  // [U, groups, K, 4, G]
};

}  // namespace geoattn::metrics
