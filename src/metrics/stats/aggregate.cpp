#include "geoattn/metrics/stats/aggregate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "geoattn/metrics/stats/pearson.h"
#include "geoattn/util/error.h"
#include "geoattn/util/n_grid.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics {


// ---------------------------------------------------------------------------------------------
// ExactSum

namespace {
// x * 2^64 is exact (a power-of-two scale of a finite |x| < 2^40, a product that neither
// overflows nor loses a subnormal's bits); std::round ties away from zero whatever the
// floating-point environment, and the result v fits an __int128 (|v| < 2^104). |v| goes to the
// integer in two exact halves, |v| = hi 2^64 + lo with hi = floor(|v| / 2^64) < 2^40 and lo in
// [0, 2^64) (the bits of |v| below 2^64: a double), each converted by one instruction rather
// than the library's double -> __int128 routine (the aggregation adds two per value).
__int128 to_fixed(double x) {
  const double v = std::round(x * 0x1p64), m = std::fabs(v);
  const double hi = std::floor(m * 0x1p-64), lo = m - hi * 0x1p64;
  const auto lo_bits = lo < 0x1p63 ? static_cast<uint64_t>(static_cast<int64_t>(lo))
                                   : static_cast<uint64_t>(static_cast<int64_t>(lo - 0x1p63)) + (uint64_t{1} << 63);
  const auto magnitude = static_cast<__int128>((static_cast<unsigned __int128>(static_cast<uint64_t>(hi)) << 64) | lo_bits);
  return v < 0 ? -magnitude : magnitude;
}
}  // namespace

void ExactSum::add(double x) {
  if (!std::isfinite(x) || std::fabs(x) >= kLimit)
    fail("exact sum: {} is not a finite number below 2^40 in magnitude", x);
  if (__builtin_add_overflow(raw_, to_fixed(x), &raw_)) fail("exact sum: the 128-bit total overflowed");
}

void ExactSum::merge(const ExactSum& other) {
  if (__builtin_add_overflow(raw_, other.raw_, &raw_)) fail("exact sum: the 128-bit total overflowed");
}

// The int128 -> floating conversions round to nearest; the 2^-64 scale is exact (a product by
// a power of two: |raw_| < 2^127 stays far above the smallest normal once scaled, or is 0).
double ExactSum::value() const { return static_cast<double>(raw_) * 0x1p-64; }
long double ExactSum::value_ld() const { return static_cast<long double>(raw_) * 0x1p-64L; }

ExactSum ExactSum::from_halves(uint64_t lo, int64_t hi) {
  ExactSum s;
  s.raw_ = static_cast<__int128>((static_cast<unsigned __int128>(static_cast<uint64_t>(hi)) << 64) | lo);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Moments

bool Moments::accepts(double x) { return std::isfinite(x) && std::fabs(x) < kLimit; }

void Moments::add(double x) {
  if (!accepts(x)) fail("moments: {} is not a finite number below 2^20 in magnitude", x);
  if (x == 0) x = 0.0;  // -0 and +0 are one value: the extremes stay independent of order
  sum_.add(x);
  sum_sq_.add(x * x);
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
  ++count_;
}

void Moments::merge(const Moments& other) {
  int64_t count = 0;  // counts come from state files: refuse a total past int64
  if (__builtin_add_overflow(count_, other.count_, &count)) fail("moments: the sample count overflowed");
  sum_.merge(other.sum_);
  sum_sq_.merge(other.sum_sq_);
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ = count;
}

long double Moments::mean_ld() const {
  if (count_ == 0) return std::numeric_limits<long double>::quiet_NaN();
  return sum_.value_ld() / static_cast<long double>(count_);
}

// Population variance E[x^2] - E[x]^2 from the exact sums, clamped at 0; exactly 0 when every
// sample had the same value.
long double Moments::variance_ld() const {
  if (count_ == 0) return std::numeric_limits<long double>::quiet_NaN();
  if (constant()) return 0.0L;
  const long double mean = mean_ld();
  const long double mean_sq = sum_sq_.value_ld() / static_cast<long double>(count_);
  return std::max(0.0L, mean_sq - mean * mean);
}

double Moments::mean() const { return static_cast<double>(mean_ld()); }
double Moments::std() const { return static_cast<double>(std::sqrt(variance_ld())); }

Moments Moments::from_parts(int64_t count, const ExactSum& sum, const ExactSum& sum_sq, double min, double max) {
  Moments m;
  if (count < 0) fail("negative sample count {}", count);
  if (count == 0) {
    if (!(sum == ExactSum()) || !(sum_sq == ExactSum()) || min != m.min_ || max != m.max_)
      fail("an empty slot holds sums or extremes");
  } else if (!accepts(min) || !accepts(max) || min > max) {
    fail("extremes [{}, {}] are not a valid range", min, max);
  }
  m.count_ = count;
  m.sum_ = sum;
  m.sum_sq_ = sum_sq;
  m.min_ = min;
  m.max_ = max;
  return m;
}

// ---------------------------------------------------------------------------------------------
// GroupStats

GroupStats::GroupStats(int64_t grid_size)
    : grid_size_(grid_size),
      moments_(static_cast<size_t>(kCurveMetrics * grid_size + kScalarMetrics + grid_size)),
      cross_(static_cast<size_t>(grid_size)) {}

void GroupStats::add(const SampleValues& sample) {
  const auto& [curves, n_valid, scalars] = sample;
  for (int m = 0; m < kCurveMetrics; ++m)
    for (int64_t g = 0; g < n_valid; ++g) {
      const double x = curves[curve_slot(m, g)];
      if (m >= kFirstOptionalCurve && std::isnan(x)) continue;  // no control in this run
      moments_[curve_slot(m, g)].add(x);
    }
  for (int k = 0; k < kScalarMetrics; ++k) moments_[scalar_slot(k)].add(scalars[k]);
  // SPEC §3: the sums of corr(R(r_min, N), rho0) over the samples that reached N.
  const double rho0 = scalars[kRho0];
  for (int64_t g = 0; g < n_valid; ++g) {
    moments_[rho_slot(g)].add(rho0);
    cross_[g].add(curves[curve_slot(kR_rmin, g)] * rho0);
  }
}

void GroupStats::merge(const GroupStats& other) {
  if (other.grid_size_ != grid_size_)
    fail("cannot merge statistics over {} and {} grid values", grid_size_, other.grid_size_);
  for (size_t i = 0; i < moments_.size(); ++i) moments_[i].merge(other.moments_[i]);
  for (size_t g = 0; g < cross_.size(); ++g) cross_[g].merge(other.cross_[g]);
}

// SPEC §3: corr(R(r_min, N), rho0) from exact sums.
double GroupStats::sink_recall_corr(int64_t g) const {
  const Moments& r = curve(kR_rmin, g);
  const Moments& rho = moments_[rho_slot(g)];
  const int64_t n = r.count();
  if (r.constant() || rho.constant()) return std::numeric_limits<double>::quiet_NaN();  // exactly no spread
  return pearson<long double>(n, r.mean_ld(), rho.mean_ld(), cross_[g].value_ld() / static_cast<long double>(n),
                              r.variance_ld(), rho.variance_ld());
}

// ---------------------------------------------------------------------------------------------
// Aggregator

namespace {
void check_grid(const std::vector<int64_t>& n_grid) {
  if (n_grid.empty()) fail("the N grid is empty");
  check_n_grid(n_grid, "metrics");
}

void check_value(double x, std::string_view metric, int64_t layer, int64_t head, const std::string& where) {
  if (!Moments::accepts(x))
    fail("metric {} at layer {} head {}{} is {} (must be finite and below 2^20 in magnitude)", metric, layer, head,
         where, x);
}
}  // namespace

Aggregator::Aggregator(int64_t layers, int64_t heads, std::vector<int64_t> n_grid, WorkerPool* pool)
    : layers_(layers), heads_(heads), n_grid_(std::move(n_grid)) {
  if (layers_ < 1 || heads_ < 1) fail("an aggregator needs at least one layer and one head ({} x {})", layers_, heads_);
  check_grid(n_grid_);
  const auto G = static_cast<int64_t>(n_grid_.size());
  if (!pool) {
    stats_.assign(static_cast<size_t>(layers_ * heads_), GroupStats(G));
    return;
  }
  stats_.assign(static_cast<size_t>(layers_ * heads_), GroupStats(0));  // placeholders, replaced below
  pool->parallel_for(layers_ * heads_, [&](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) stats_[static_cast<size_t>(i)] = GroupStats(G);
  });
}

const GroupStats& Aggregator::head_stats(int64_t layer, int64_t head) const {
  if (layer < 0 || layer >= layers_ || head < 0 || head >= heads_)
    fail("layer {} head {} is outside {} layers x {} heads", layer, head, layers_, heads_);
  return stats_[static_cast<size_t>(layer * heads_ + head)];
}

GroupStats& Aggregator::head_stats(int64_t layer, int64_t head) {
  return const_cast<GroupStats&>(static_cast<const Aggregator*>(this)->head_stats(layer, head));
}

void Aggregator::check_sample(int64_t layer, int64_t head, const SampleValues& sample) const {
  head_stats(layer, head);  // range check
  const auto& [curves, n_valid, scalars] = sample;
  const int64_t G = static_cast<int64_t>(n_grid_.size());
  if (sample.grid_size() != G || curves.size() != static_cast<size_t>(kCurveMetrics * G))
    fail("a sample's curves hold {} values, not {} metrics x {} N", curves.size(), int{kCurveMetrics}, G);
  if (n_valid < 0 || n_valid > G) fail("n_valid {} is outside 0..{}", n_valid, G);
  for (int m = 0; m < kCurveMetrics; ++m)
    for (int64_t g = 0; g < n_valid; ++g)
      if (!(m >= kFirstOptionalCurve && std::isnan(curves[m * G + g])))
        check_value(curves[m * G + g], kCurveNames[m], layer, head, " N=" + std::to_string(n_grid_[g]));
  for (int k = 0; k < kScalarMetrics; ++k) check_value(scalars[k], kScalarNames[k], layer, head, "");
}

void Aggregator::add_sample(int64_t layer, int64_t head, const SampleValues& sample) {
  check_sample(layer, head, sample);
  head_stats(layer, head).add(sample);
}

void Aggregator::merge(const Aggregator& other) {
  if (other.layers_ != layers_ || other.heads_ != heads_ || other.n_grid_ != n_grid_)
    fail("cannot merge aggregates of different shapes ({} x {} heads, {} grid values vs {} x {}, {})", layers_, heads_,
         n_grid_.size(), other.layers_, other.heads_, other.n_grid_.size());
  for (size_t i = 0; i < stats_.size(); ++i) stats_[i].merge(other.stats_[i]);
}

GroupStats Aggregator::layer_stats(int64_t layer) const {
  GroupStats out(static_cast<int64_t>(n_grid_.size()));
  for (int64_t h = 0; h < heads_; ++h) out.merge(head_stats(layer, h));
  return out;
}

GroupStats Aggregator::global_stats() const { return groups().global; }

Aggregator::Groups Aggregator::groups(WorkerPool* pool) const {
  Groups out{std::vector<GroupStats>(static_cast<size_t>(layers_), GroupStats(0)),
             GroupStats(static_cast<int64_t>(n_grid_.size()))};
  const auto merge_layer = [&](int64_t l, int) { out.layers[static_cast<size_t>(l)] = layer_stats(l); };
  if (pool) pool->for_each_item(layers_, merge_layer);
  else for (int64_t l = 0; l < layers_; ++l) merge_layer(l, 0);
  for (const GroupStats& layer : out.layers) out.global.merge(layer);
  return out;
}

}  // namespace geoattn::metrics
