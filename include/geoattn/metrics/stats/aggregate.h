#pragma once
// Streaming aggregation of per-sample metrics that is exact under merging (SPEC §2-3):
// two shards merged give bit-identical state, hence byte-identical JSON, to one run over both.
// Pure C++ (no LibTorch).
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "geoattn/io/safetensors_writer.h"
#include "geoattn/metrics/core/metric_names.h"

namespace geoattn {
class WorkerPool;
}

namespace geoattn::metrics {

// An exact, associative sum of doubles. Each added double is rounded (to nearest, ties away
// from zero) to signed fixed point with 64 fractional bits held in an __int128; sums add the
// integers, so any order or grouping of adds and merges gives the same bits.
class ExactSum {
 public:
  static constexpr double kLimit = 1099511627776.0;  // 2^40: |x| must stay below it

  // geoattn::Error on a non-finite x, |x| >= 2^40, or an overflow of the 128-bit total.
  void add(double x);
  void merge(const ExactSum& other);
  double value() const;          // the nearest double
  long double value_ld() const;  // the same in long double (more bits where it has them)

  // The raw fixed-point total as two's-complement halves, for serialisation.
  uint64_t lo() const { return static_cast<uint64_t>(static_cast<unsigned __int128>(raw_)); }
  int64_t hi() const { return static_cast<int64_t>(raw_ >> 64); }
  static ExactSum from_halves(uint64_t lo, int64_t hi);
  bool operator==(const ExactSum& other) const { return raw_ == other.raw_; }

 private:
  __int128 raw_ = 0;
};

// Count, exact sum and sum of squares, and the extremes (which make "no spread" exact).
class Moments {
 public:
  static constexpr double kLimit = 1048576.0;  // 2^20, so that x^2 fits ExactSum

  static bool accepts(double x);  // finite and |x| < 2^20
  void add(double x);             // geoattn::Error unless accepts(x)
  void merge(const Moments& other);

  int64_t count() const { return count_; }
  const ExactSum& sum() const { return sum_; }
  const ExactSum& sum_sq() const { return sum_sq_; }
  double min() const { return min_; }  // +inf when empty
  double max() const { return max_; }  // -inf when empty
  bool constant() const { return count_ > 0 && min_ == max_; }

  double mean() const;             // NaN when empty
  double std() const;              // population std; NaN when empty, exactly 0 when constant
  long double mean_ld() const;     // NaN when empty
  long double variance_ld() const; // population variance, >= 0; NaN when empty

  // Rebuilds a Moments from its serialised parts (load_state); geoattn::Error if inconsistent.
  static Moments from_parts(int64_t count, const ExactSum& sum, const ExactSum& sum_sq, double min, double max);

 private:
  int64_t count_ = 0;
  ExactSum sum_, sum_sq_;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

// The moments of one group of samples: a head, a layer (its heads merged) or all of them.
// Slots: the curves [kCurveMetrics][G], the scalars [kScalarMetrics], then rho0 again per grid
// index (over the samples that reached that N, for the correlation of SPEC §3).
class GroupStats {
 public:
  explicit GroupStats(int64_t grid_size);

  int64_t grid_size() const { return grid_size_; }
  int64_t samples() const { return scalar(kRho0).count(); }
  const Moments& curve(int m, int64_t g) const { return moments_[curve_slot(m, g)]; }
  const Moments& scalar(int k) const { return moments_[scalar_slot(k)]; }
  // SPEC §3: Pearson corr(R(r_min, N), rho0) over the samples that reached grid index g;
  // NaN with fewer than 2 samples or when either side does not vary.
  double sink_recall_corr(int64_t g) const;

  // Only grid indices g < n_valid are added; the values must already be accepted by
  // Moments::accepts, and the curves be [kCurveMetrics][grid_size()].
  void add(const SampleValues& sample);
  void merge(const GroupStats& other);  // geoattn::Error if the grid sizes differ

  // Serialisation: every Moments slot (see the class comment) and the cross sums ΣRρ per g.
  int64_t slots() const { return static_cast<int64_t>(moments_.size()); }
  const Moments& slot(int64_t i) const { return moments_[i]; }
  Moments& slot(int64_t i) { return moments_[i]; }
  const ExactSum& cross(int64_t g) const { return cross_[g]; }
  ExactSum& cross(int64_t g) { return cross_[g]; }

 private:
  int64_t curve_slot(int m, int64_t g) const { return m * grid_size_ + g; }
  int64_t scalar_slot(int k) const { return kCurveMetrics * grid_size_ + k; }
  int64_t rho_slot(int64_t g) const { return kCurveMetrics * grid_size_ + kScalarMetrics + g; }

  int64_t grid_size_;
  std::vector<Moments> moments_;
  std::vector<ExactSum> cross_;  // Σ R(r_min, N_g) rho0
};

// The moments per (layer, head). Per-layer and global statistics are merges of the heads'.
class Aggregator {
 public:
  // geoattn::Error unless layers, heads >= 1 and n_grid is non-empty, sorted, unique, >= 1.
  // With a pool, the heads' statistics (64 bytes per head, metric and grid value: 100 MB at
  // --n all on 128 heads) are allocated and set by its workers.
  Aggregator(int64_t layers, int64_t heads, std::vector<int64_t> n_grid, WorkerPool* pool = nullptr);

  // One sample (window, query, layer, head) over this grid. Every value is checked before
  // anything is added: geoattn::Error (naming metric, layer, head) on a curve of another grid
  // size, a non-finite value or |x| >= 2^20, and the aggregator is left unchanged.
  void add_sample(int64_t layer, int64_t head, const SampleValues& sample);
  // geoattn::Error if layers, heads or the grid differ.
  void merge(const Aggregator& other);

  int64_t layers() const { return layers_; }
  int64_t heads() const { return heads_; }
  const std::vector<int64_t>& n_grid() const { return n_grid_; }
  int64_t samples(int64_t layer, int64_t head) const { return head_stats(layer, head).samples(); }

  const GroupStats& head_stats(int64_t layer, int64_t head) const;
  GroupStats& head_stats(int64_t layer, int64_t head);
  GroupStats layer_stats(int64_t layer) const;  // the heads of `layer` merged
  GroupStats global_stats() const;              // every head merged
  // Every layer's statistics and the global ones, each head merged once (the global ones from the
  // layers': exact sums, counts and extremes merge to the same values in any order). With `pool`,
  // the layers on its workers.
  struct Groups {
    std::vector<GroupStats> layers;  // [layer]
    GroupStats global;
  };
  Groups groups(WorkerPool* pool = nullptr) const;

 private:
  void check_sample(int64_t layer, int64_t head, const SampleValues& sample) const;

  int64_t layers_, heads_;
  std::vector<int64_t> n_grid_;
  std::vector<GroupStats> stats_;  // [layer * heads + head]
};


}  // namespace geoattn::metrics
