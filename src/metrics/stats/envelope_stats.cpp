// SPEC §5's envelopes as exact sums of per-sample bounds (envelope_stats.h).
#include "geoattn/metrics/stats/envelope_stats.h"

#include <cmath>
#include <iterator>

#include "geoattn/util/error.h"
#include "geoattn/util/nan.h"

namespace geoattn::metrics {

using analysis::kBoundCurves;

EnvelopeStats::EnvelopeStats(int64_t layers, int64_t heads, int64_t grid_size, double kappa)
    : HeadGrid(layers, heads), G_(grid_size), kappa_(kappa) {
  if (layers < 1 || heads < 1 || grid_size < 1)
    fail("envelope stats: layers {}, heads {}, grid {} must all be >= 1", layers, heads, grid_size);
  if (!(kappa > 0) || !std::isfinite(kappa)) fail("envelope stats: kappa {} is not > 0", kappa);
  sums_.resize(static_cast<size_t>(layers * heads * kBoundCurves * G_));
  counts_.resize(static_cast<size_t>(layers * heads * G_));
  open_.resize(counts_.size());
  nontrivial_.resize(counts_.size());
  sums_in_.resize(sums_.size());
  counts_in_.resize(counts_.size());
}

void EnvelopeStats::add(int64_t layer, int64_t head, const analysis::BoundsCurves& curves) {
  if (layer < 0 || layer >= layers_ || head < 0 || head >= heads_)
    fail("envelope stats: layer {} head {} is outside {} x {}", layer, head, layers_, heads_);
  const auto fields = analysis::curve_fields(curves);
  const int64_t n = std::ssize(*fields[0]);
  if (n > G_) fail("envelope stats: a sample has {} grid values, the run {}", n, G_);
  for (const auto* f : fields)
    if (std::ssize(*f) != n) fail("envelope stats: a sample's curves have different lengths");
  if (std::ssize(curves.open) != n || std::ssize(curves.nontrivial) != n || std::ssize(curves.sink_in) != n)
    fail("envelope stats: a sample's open, non-trivial and sink flags have {}, {} and {} entries for {} grid values",
         curves.open.size(), curves.nontrivial.size(), curves.sink_in.size(), n);
  // Add into copies first: a bad value (non-finite) leaves the stats unchanged.
  const int64_t s = layer * heads_ + head;
  const auto slot = sums_.begin() + s * kBoundCurves * G_, slot_in = sums_in_.begin() + s * kBoundCurves * G_;
  std::vector<ExactSum> sums(slot, slot + kBoundCurves * G_), sums_in(slot_in, slot_in + kBoundCurves * G_);
  for (int k = 0; k < kBoundCurves; ++k)
    for (int64_t g = 0; g < n; ++g) {
      sums[k * G_ + g].add((*fields[k])[g]);
      if (curves.sink_in[g]) sums_in[k * G_ + g].add((*fields[k])[g]);
    }
  std::copy(sums.begin(), sums.end(), slot);
  std::copy(sums_in.begin(), sums_in.end(), slot_in);
  for (int64_t g = 0; g < n; ++g) {
    ++counts_[s * G_ + g];
    open_[s * G_ + g] += curves.open[g] != 0;
    nontrivial_[s * G_ + g] += curves.open[g] != 0 && curves.nontrivial[g] != 0;
    counts_in_[s * G_ + g] += curves.sink_in[g] != 0;
  }
}

void EnvelopeStats::merge(const EnvelopeStats& other) {
  if (other.empty()) return;
  if (empty()) {
    *this = other;
    return;
  }
  if (!same_grid(other) || G_ != other.G_ || kappa_ != other.kappa_)
    fail("envelope stats: cannot merge {}x{} (grid {}, kappa {}) with {}x{} (grid {}, kappa {})", layers_, heads_, G_,
         kappa_, other.layers_, other.heads_, other.G_, other.kappa_);
  // First: an overflow leaves the stats unchanged (the two flag counts never exceed counts_).
  merge_counts(counts_, other.counts_, "envelope stats");
  for (size_t i = 0; i < open_.size(); ++i)
    open_[i] += other.open_[i], nontrivial_[i] += other.nontrivial_[i], counts_in_[i] += other.counts_in_[i];
  for (size_t i = 0; i < sums_.size(); ++i) sums_[i].merge(other.sums_[i]), sums_in_[i].merge(other.sums_in_[i]);
}

std::vector<int64_t> EnvelopeStats::slots(int64_t layer, int64_t head) const { return group_slots(layer, head, "envelope stats"); }

std::vector<int64_t> EnvelopeStats::samples(int64_t layer, int64_t head) const {
  return group_counts(counts_, G_, layer, head, "envelope stats");
}

namespace {
// The mean over `n` [G] samples of the sums `of` [L, H, 10, G] in `slots`, and the sums `minus`
// subtract (the split's other part; null: none): NaN where n is 0.
analysis::BoundsCurves mean_of(const std::vector<ExactSum>& of, const std::vector<ExactSum>* minus,
                               const std::vector<int64_t>& n, const std::vector<int64_t>& slots, int64_t G) {
  analysis::BoundsCurves out;
  const auto fields = analysis::curve_fields(out);
  for (int k = 0; k < kBoundCurves; ++k) {
    fields[k]->assign(static_cast<size_t>(G), kNaN);
    for (int64_t g = 0; g < G; ++g) {
      if (n[g] == 0) continue;
      ExactSum total, part;
      for (const int64_t s : slots) {
        total.merge(of[(s * kBoundCurves + k) * G + g]);
        if (minus) part.merge((*minus)[(s * kBoundCurves + k) * G + g]);
      }
      (*fields[k])[g] = static_cast<double>((total.value_ld() - part.value_ld()) / n[g]);
    }
  }
  return out;
}
}  // namespace

// SPEC §5: the mean of the per-sample bounds over the samples that reach N.
analysis::BoundsCurves EnvelopeStats::mean(int64_t layer, int64_t head) const {
  return mean_of(sums_, nullptr, samples(layer, head), slots(layer, head), G_);
}

std::vector<int64_t> EnvelopeStats::samples_split(int64_t layer, int64_t head, bool sink_in) const {
  auto in = group_counts(counts_in_, G_, layer, head, "envelope stats");
  if (sink_in) return in;
  auto all = samples(layer, head);
  for (int64_t g = 0; g < G_; ++g) all[g] -= in[g];
  return all;
}

// SPEC §5: the realized envelopes split by whether the sink is selected (the sink-out part: the
// whole minus the sink-in part, in exact sums).
analysis::BoundsCurves EnvelopeStats::mean_split(int64_t layer, int64_t head, bool sink_in) const {
  const auto n = samples_split(layer, head, sink_in);
  return sink_in ? mean_of(sums_in_, nullptr, n, slots(layer, head), G_)
                 : mean_of(sums_, &sums_in_, n, slots(layer, head), G_);
}

// SPEC §5's non-trivial share, per N and over the group's every (sample, N).
std::vector<double> EnvelopeStats::nontrivial(int64_t layer, int64_t head) const {
  const auto open = group_counts(open_, G_, layer, head, "envelope stats");
  const auto yes = group_counts(nontrivial_, G_, layer, head, "envelope stats");
  std::vector<double> out(static_cast<size_t>(G_), kNaN);
  for (int64_t g = 0; g < G_; ++g)
    if (open[g] > 0) out[g] = static_cast<double>(yes[g]) / static_cast<double>(open[g]);
  return out;
}

double EnvelopeStats::nontrivial_share(int64_t layer, int64_t head) const {
  const auto open = group_counts(open_, G_, layer, head, "envelope stats");
  const auto yes = group_counts(nontrivial_, G_, layer, head, "envelope stats");
  int64_t o = 0, y = 0;
  for (int64_t g = 0; g < G_; ++g) o += open[g], y += yes[g];
  return o > 0 ? static_cast<double>(y) / static_cast<double>(o) : kNaN;
}

std::vector<ArrayView> EnvelopeStats::arrays(const std::string& prefix) const {
  return {{prefix + "_sums", io::Dtype::I64, {layers_, heads_, kBoundCurves, G_, 2}, exact_sum_bytes(sums_)},
          {prefix + "_counts", io::Dtype::I64, {layers_, heads_, G_}, bytes_of(counts_)},
          {prefix + "_open", io::Dtype::I64, {layers_, heads_, G_}, bytes_of(open_)},
          {prefix + "_nontrivial", io::Dtype::I64, {layers_, heads_, G_}, bytes_of(nontrivial_)},
          {prefix + "_sink_in_sums", io::Dtype::I64, {layers_, heads_, kBoundCurves, G_, 2}, exact_sum_bytes(sums_in_)},
          {prefix + "_sink_in_counts", io::Dtype::I64, {layers_, heads_, G_}, bytes_of(counts_in_)}};
}

EnvelopeStats EnvelopeStats::from_tensors(int64_t layers, int64_t heads, int64_t grid_size, double kappa,
                                          const std::vector<int64_t>& sums, const std::vector<int64_t>& counts,
                                          const std::vector<int64_t>& open, const std::vector<int64_t>& nontrivial,
                                          const std::vector<int64_t>& sink_in_sums,
                                          const std::vector<int64_t>& sink_in_counts) {
  EnvelopeStats e(layers, heads, grid_size, kappa);
  read_exact_sums(sums, e.sums_, "envelope stats");
  read_counts(counts, e.counts_, "envelope stats");
  read_counts(open, e.open_, "envelope stats");
  read_counts(nontrivial, e.nontrivial_, "envelope stats");
  read_exact_sums(sink_in_sums, e.sums_in_, "envelope stats");
  read_counts(sink_in_counts, e.counts_in_, "envelope stats");
  for (size_t i = 0; i < e.counts_.size(); ++i)
    if (e.nontrivial_[i] > e.open_[i] || e.open_[i] > e.counts_[i] || e.counts_in_[i] > e.counts_[i])
      fail("envelope stats: more non-trivial ({}) than open ({}), or open or with the sink in ({}) than samples ({}) at "
           "entry {}", e.nontrivial_[i], e.open_[i], e.counts_in_[i], e.counts_[i], i);
  return e;
}

EnvelopeLeaves envelope_leaves(const std::vector<int64_t>& n_grid, const std::vector<double>& P,
                               const std::vector<double>& R, const analysis::BoundsCurves& env) {
  EnvelopeLeaves out;
  for (size_t g = 0; g < n_grid.size(); ++g) {
    const auto check = [&](double mean, double bound, bool above, std::vector<int64_t>& into) {
      if (g < P.size() && std::isfinite(mean) && g < env.P_lo.size() && std::isfinite(bound) &&
          (above ? mean > bound : mean < bound))
        into.push_back(n_grid[g]);
    };
    check(P[g], env.P_up[g], true, out.P_up);
    check(P[g], env.P_lo[g], false, out.P_lo);
    check(R[g], env.R_up[g], true, out.R_up);
    check(R[g], env.R_lo[g], false, out.R_lo);
    check(P[g], env.P_up0[g], true, out.P_up0);
    check(R[g], env.R_up0[g], true, out.R_up0);
  }
  return out;
}

}  // namespace geoattn::metrics
