// SPEC §5's envelopes as exact sums of per-sample bounds (envelope_stats.h).
#include "geoattn/metrics/envelope_stats.h"

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
}

void EnvelopeStats::add(int64_t layer, int64_t head, const analysis::BoundsCurves& curves) {
  if (layer < 0 || layer >= layers_ || head < 0 || head >= heads_)
    fail("envelope stats: layer {} head {} is outside {} x {}", layer, head, layers_, heads_);
  const auto fields = analysis::curve_fields(curves);
  const int64_t n = std::ssize(*fields[0]);
  if (n > G_) fail("envelope stats: a sample has {} grid values, the run {}", n, G_);
  for (const auto* f : fields)
    if (std::ssize(*f) != n) fail("envelope stats: a sample's curves have different lengths");
  // Add into a copy first: a bad value (non-finite) leaves the stats unchanged.
  const int64_t s = layer * heads_ + head;
  std::vector<ExactSum> sums(sums_.begin() + s * kBoundCurves * G_, sums_.begin() + (s + 1) * kBoundCurves * G_);
  for (int k = 0; k < kBoundCurves; ++k)
    for (int64_t g = 0; g < n; ++g) sums[k * G_ + g].add((*fields[k])[g]);
  std::copy(sums.begin(), sums.end(), sums_.begin() + s * kBoundCurves * G_);
  for (int64_t g = 0; g < n; ++g) ++counts_[s * G_ + g];
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
  merge_counts(counts_, other.counts_, "envelope stats");  // first: an overflow leaves the stats unchanged
  for (size_t i = 0; i < sums_.size(); ++i) sums_[i].merge(other.sums_[i]);
}

std::vector<int64_t> EnvelopeStats::slots(int64_t layer, int64_t head) const { return group_slots(layer, head, "envelope stats"); }

std::vector<int64_t> EnvelopeStats::samples(int64_t layer, int64_t head) const {
  return group_counts(counts_, G_, layer, head, "envelope stats");
}

// SPEC §5: the mean of the per-sample bounds over the samples that reach N.
analysis::BoundsCurves EnvelopeStats::mean(int64_t layer, int64_t head) const {
  const auto n = samples(layer, head);
  analysis::BoundsCurves out;
  const auto fields = analysis::curve_fields(out);
  for (int k = 0; k < kBoundCurves; ++k) {
    fields[k]->assign(static_cast<size_t>(G_), kNaN);
    for (int64_t g = 0; g < G_; ++g) {
      if (n[g] == 0) continue;
      ExactSum total;
      for (const int64_t s : slots(layer, head)) total.merge(sums_[(s * kBoundCurves + k) * G_ + g]);
      (*fields[k])[g] = static_cast<double>(total.value_ld() / n[g]);
    }
  }
  return out;
}

std::vector<ArrayView> EnvelopeStats::arrays() const {
  return {{"envelope_sums", io::Dtype::I64, {layers_, heads_, kBoundCurves, G_, 2}, exact_sum_bytes(sums_)},
          {"envelope_counts", io::Dtype::I64, {layers_, heads_, G_}, bytes_of(counts_)}};
}

EnvelopeStats EnvelopeStats::from_tensors(int64_t layers, int64_t heads, int64_t grid_size, double kappa,
                                          const std::vector<int64_t>& sums, const std::vector<int64_t>& counts) {
  EnvelopeStats e(layers, heads, grid_size, kappa);
  read_exact_sums(sums, e.sums_, "envelope stats");
  read_counts(counts, e.counts_, "envelope stats");
  return e;
}

}  // namespace geoattn::metrics
