#pragma once
// What the fits of the paper's three assumptions need (SPEC §4), accumulated per (layer, head)
// over windows at the last query, exactly under merging (ExactSum): the norms ||v_i|| by
// position, the per-window cv, the decay sums of cos(v_i, v_j) by lag k = |i - j|, and the
// attention row by position. Pure C++ (no LibTorch).
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/metrics/stats/head_grid.h"
#include "geoattn/metrics/stats/array_view.h"

namespace geoattn::metrics {

// One window's contribution to one (layer, head), all at the last query q = T - 1, over its n
// tokens (SPEC §1: n = T, or the window W of a windowed layer; position i is the query's i-th key).
struct AssumptionWindow {
  std::span<const double> norm;          // [n]  ||v_i||
  double cv;                             //      std/mean of ||v_i||, i > 0 (population std; 0 if the mean is 0)
  std::span<const double> row;           // [n]  alpha_i of the last query
  std::span<const double> decay_sum;     // [K]  sum of cos(v_i, v_j) over pairs i, j > 0 with j - i = k
  std::span<const int64_t> decay_pairs;  // [K]  the number of those pairs
};

class AssumptionStats : public HeadGrid {
 public:
  AssumptionStats() = default;
  // geoattn::Error unless every size is >= 1. tokens [layers]: the last query's tokens per layer,
  // 1..T (SPEC §1; empty: T on every layer).
  AssumptionStats(int64_t layers, int64_t heads, int64_t T, int64_t K, std::vector<int64_t> tokens = {});

  void add(int64_t layer, int64_t head, const AssumptionWindow& w);
  void merge(const AssumptionStats& other);  // geoattn::Error if the shapes differ

  int64_t T() const { return T_; }  // the window length
  int64_t tokens(int64_t layer) const { return tokens_.at(static_cast<size_t>(layer)); }  // n of the layer
  int64_t K() const { return K_; }  // the largest lag of the decay fit

  int64_t windows(int64_t layer, int64_t head) const;
  std::vector<double> mean_norm(int64_t layer, int64_t head) const;  // [n]; NaN with no windows
  double mean_cv(int64_t layer, int64_t head) const;
  std::vector<double> mean_row(int64_t layer, int64_t head) const;   // [n]
  std::vector<double> decay(int64_t layer, int64_t head) const;      // [K] c(k), k = 1..K; NaN without pairs

  // The state sidecar's arrays (report/state_file.h): "assume_sums" I64 [L, H, 2T + K + 1, 2]
  // (norm[T], row[T], decay[K], cv as ExactSum [lo, hi]) and "assume_counts" I64 [L, H, K + 1]
  // (decay pairs[K], windows), "assume_tokens" I64 [L] (tokens per layer; positions past a
  // layer's n hold 0); views of this object's own sums and counts.
  std::vector<ArrayView> arrays() const;
  static AssumptionStats from_tensors(int64_t layers, int64_t heads, int64_t T, int64_t K, const std::vector<int64_t>& sums,
                                      const std::vector<int64_t>& counts, const std::vector<int64_t>& tokens);

 private:
  int64_t slot(int64_t layer, int64_t head) const;
  int64_t per_head_sums() const { return 2 * T_ + K_ + 1; }
  int64_t per_head_counts() const { return K_ + 1; }

  int64_t T_ = 0, K_ = 0;
  std::vector<int64_t> tokens_;   // [L]
  std::vector<ExactSum> sums_;    // [L, H, 2T + K + 1]
  std::vector<int64_t> counts_;   // [L, H, K + 1]
};

}  // namespace geoattn::metrics
