#pragma once
// Per-unit sufficient statistics for the bootstrap of SPEC §2b: resampling documents with
// replacement needs, for every document (unit), the sums of every metric per group. A unit is
// a document (doc mode) or the document a stream window starts in, so the windows of one
// document stay together. Pure C++.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "geoattn/metrics/stats/array_view.h"
#include "geoattn/metrics/stats/head_grid.h"
#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/util/enum_names.h"

namespace geoattn::metrics {

// The sums behind corr(R(r_min, N), rho0) per grid index (UnitStats::corr_index).
constexpr int kCorrSums = 4;
// The statistics of one group of one unit over a grid of G values: every curve and the
// correlation sums per N, and the scalars (17 G + 4).
constexpr int64_t unit_stats_per_group(int64_t G) { return (kCurveMetrics + kCorrSums) * G + kScalarMetrics; }

// The finest level kept: every head, every layer, or the whole model. Coarser levels are sums.
enum class BootLevel { Global, Layer, Head };
inline constexpr EnumName<BootLevel> kBootLevelNames[] = {
    {BootLevel::Global, "global"}, {BootLevel::Layer, "layer"}, {BootLevel::Head, "head"}};
inline const char* boot_level_name(BootLevel level) { return name_of(kBootLevelNames, level); }
// What the bootstrap resamples (SPEC §2b): documents (a document's windows together) or windows.
enum class BootUnit { Document, Window };
inline constexpr EnumName<BootUnit> kBootUnitNames[] = {{BootUnit::Document, "document"}, {BootUnit::Window, "window"}};
// --bootstrap-level auto: the finest level whose cost stays small beside the run: head level
// while there are at most 256 heads (the per-document sums in the sidecar grow with them) and
// heads x (17 G + 4) statistics x replicates stay within 2^28 replicate values (about a second
// here), else layer level (global when even that is past the bound).
BootLevel auto_boot_level(int64_t layers, int64_t heads, int64_t grid_size, int64_t replicates);

// The groups kept at `level` for a model of layers x heads: 1, layers or layers * heads, and
// the group of (layer, head) among them.
int64_t level_groups(BootLevel level, int64_t layers, int64_t heads);
int64_t level_group_of(BootLevel level, int64_t heads, int64_t layer, int64_t head);

class UnitStats : public HeadGrid {
 public:
  UnitStats() = default;
  UnitStats(int64_t layers, int64_t heads, int64_t grid_size, BootLevel level);

  BootLevel level() const { return level_; }
  int64_t grid_size() const { return G_; }
  int64_t groups() const;                      // 1, layers or layers * heads
  int64_t group_of(int64_t layer, int64_t head) const;
  int64_t stats_per_group() const { return unit_stats_per_group(G_); }

  // One group's statistics, in this order (S = stats_per_group()):
  //   [curve m][g] sum of the curve (m < kCurveMetrics), then per g the kCorrSums: sum R^2,
  //   sum rho0, sum rho0^2, sum R rho0 (R = R(r_min, N_g), for corr(R, rho0)), then the
  //   kScalarMetrics scalar sums.
  int64_t curve_index(int m, int64_t g) const { return m * G_ + g; }
  int64_t corr_index(int part, int64_t g) const { return (kCurveMetrics + part) * G_ + g; }
  int64_t scalar_index(int k) const { return (kCurveMetrics + kCorrSums) * G_ + k; }

  // The row of `unit`, added with zero sums when new (not thread-safe).
  int64_t row(const std::string& unit);
  // A sample into row `row`'s group of (layer, head): samples of different groups may be added
  // from different threads at once (group_of: a layer's heads share one at level layer, every
  // head one at level global).
  void add_sample(int64_t row, int64_t layer, int64_t head, const SampleValues& sample);
  // geoattn::Error when the shapes differ or a unit appears in both (a unit is never split).
  void merge(const UnitStats& other);

  int64_t units() const { return static_cast<int64_t>(ids_.size()); }
  const std::vector<std::string>& unit_ids() const { return ids_; }
  // Unit u's statistics [groups][S] (see the layout above).
  std::span<const double> unit_sums(int64_t u) const {
    const int64_t n = groups() * stats_per_group();
    return std::span<const double>(sums_).subspan(static_cast<size_t>(u * n), static_cast<size_t>(n));
  }
  // Samples per head of `layer` in unit u that reached grid index g (a layer group has heads
  // times as many, the global group the sum over layers, heads times): per layer, since a
  // windowed layer's samples stop at its window (SPEC §1).
  int64_t unit_count(int64_t u, int64_t layer, int64_t g) const { return counts_[(u * layers_ + layer) * G_ + g]; }

  // Sidecar arrays: "unit_sums" F64 [U, groups, S], "unit_counts" I64 [U, L, G] (sidecars
  // before SPEC §1's window convention: [U, G], the same on every layer), "unit_ids" U8
  // (a JSON array of the ids), "unit_shape" I64 [4] (layers, heads, G, level). The ids' text
  // and the shape are derived (held by their views); the sums and counts are viewed in place,
  // valid until the object changes.
  std::vector<ArrayView> arrays() const;
  static UnitStats from_arrays(const std::vector<int64_t>& shape, std::vector<double> sums, std::vector<int64_t> counts,
                               const std::string& ids_json);

 private:
  int64_t G_ = 0;
  BootLevel level_ = BootLevel::Head;
  std::vector<std::string> ids_;
  std::map<std::string, int64_t> index_;
  std::vector<double> sums_;     // [U][groups][S]
  std::vector<int64_t> counts_;  // [U][L][G]: advanced by the sample of (layer, head 0), i.e. once
                                 // per (window, query, layer), since every head of it is added
};

}  // namespace geoattn::metrics
