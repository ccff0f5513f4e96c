#pragma once
// SPEC §5: the envelopes shown against measurements are means of per-sample bounds. Their sums,
// per (layer, head) and grid index, exact (ExactSum), so that shards and resumed runs give the
// bits of one run, with the number of samples that reach each N (a query q reaches N <= q + 1).
// The run's measurements and its envelopes come from the same samples. Pure C++.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "geoattn/analysis/bounds.h"
#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/stats/array_view.h"
#include "geoattn/metrics/stats/head_grid.h"

namespace geoattn::metrics {

class EnvelopeStats : public HeadGrid {
 public:
  EnvelopeStats() = default;
  // geoattn::Error unless every size is >= 1 and kappa > 0.
  EnvelopeStats(int64_t layers, int64_t heads, int64_t grid_size, double kappa);

  int64_t grid_size() const { return G_; }
  double kappa() const { return kappa_; }  // SPEC §5's concentration constant of the bounds

  // One sample's curves (analysis::sample_bounds: as many entries as grid values it reaches).
  void add(int64_t layer, int64_t head, const analysis::BoundsCurves& curves);
  void merge(const EnvelopeStats& other);  // geoattn::Error if the shapes or kappa differ

  // The mean curves (NaN where no sample reaches N) and the samples per N: of one head; of a
  // layer (head = -1: every head's samples); of the run (layer = -1, head = -1).
  analysis::BoundsCurves mean(int64_t layer, int64_t head) const;
  std::vector<int64_t> samples(int64_t layer, int64_t head) const;
  // SPEC §5: the same split by whether the sink is selected at N (0 in I_N, BoundsCurves::sink_in):
  // the means over the samples with it in (sink_in true) or out, and their samples per N. The
  // realized envelopes restate the samples' own distance comparisons where it is out.
  analysis::BoundsCurves mean_split(int64_t layer, int64_t head, bool sink_in) const;
  std::vector<int64_t> samples_split(int64_t layer, int64_t head, bool sink_in) const;
  // SPEC §5's non-trivial share of the same group: per N, the samples whose bounds are
  // non-trivial (Delta > 0) over those where N is open (1 < N < n; NaN where none is), and over
  // every (sample, N) of the group at once (NaN when no N is open).
  std::vector<double> nontrivial(int64_t layer, int64_t head) const;
  double nontrivial_share(int64_t layer, int64_t head) const;

  // The state sidecar's arrays (report/state_file.h): "envelope_sums" I64 [L, H, 10, G, 2]
  // (ExactSum [lo, hi] of analysis::kBoundsNames' curves), "envelope_counts" I64 [L, H, G],
  // "envelope_open", "envelope_nontrivial" I64 [L, H, G], and the same sums and counts of the
  // samples with the sink in, "envelope_sink_in_sums", "envelope_sink_in_counts"; views of this
  // object's own sums and counts.
  // `prefix` names them ("predicted": the predicted envelopes' predicted_sums, ...).
  std::vector<ArrayView> arrays(const std::string& prefix = "envelope") const;
  static EnvelopeStats from_tensors(int64_t layers, int64_t heads, int64_t grid_size, double kappa,
                                    const std::vector<int64_t>& sums, const std::vector<int64_t>& counts,
                                    const std::vector<int64_t>& open, const std::vector<int64_t>& nontrivial,
                                    const std::vector<int64_t>& sink_in_sums, const std::vector<int64_t>& sink_in_counts);

 private:
  // The (layer, head) slots a mean reads: one, a layer's or all.
  std::vector<int64_t> slots(int64_t layer, int64_t head) const;

  int64_t G_ = 0;
  double kappa_ = 1.0;
  std::vector<ExactSum> sums_;   // [L, H, 8, G]
  std::vector<int64_t> counts_;  // [L, H, G]
  std::vector<int64_t> open_, nontrivial_;  // [L, H, G]: samples with 1 < N < n; of those, Delta > 0
  std::vector<ExactSum> sums_in_;   // [L, H, 10, G]: of the samples with the sink in at N
  std::vector<int64_t> counts_in_;  // [L, H, G]
};

// SPEC §5, "What the envelopes can say": the grid values N at which a group's measured means
// leave its envelopes: P(r_max, N) above P_up / below P_lo / above P_up0, and the same for
// R(r_min, N). A mean above the kappa-free P_up0 or R_up0 is a violation no kappa repairs.
struct EnvelopeLeaves {
  std::vector<int64_t> P_up, P_lo, R_up, R_lo, P_up0, R_up0;
};
// The names of EnvelopeLeaves' lists, as the result writes them, in one table.
inline constexpr std::array<const char*, 6> kLeavesNames = {"P_up", "P_lo", "R_up", "R_lo", "P_up0", "R_up0"};
template <class Leaves>
auto leaves_fields(Leaves& l) {
  return std::array{&l.P_up, &l.P_lo, &l.R_up, &l.R_lo, &l.P_up0, &l.R_up0};
}
// `P`, `R`: the group's mean P(r_max, N), R(r_min, N) over `n_grid` (NaN where no sample);
// `envelopes`: the same group's EnvelopeStats::mean. Entries with a NaN on either side are skipped.
EnvelopeLeaves envelope_leaves(const std::vector<int64_t>& n_grid, const std::vector<double>& P,
                               const std::vector<double>& R, const analysis::BoundsCurves& envelopes);

}  // namespace geoattn::metrics
