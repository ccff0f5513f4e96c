#include "geoattn/metrics/finalize/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "../core/core_kernels.h"
#include "geoattn/analysis/taxonomy.h"
#include "resamples.h"
#include "geoattn/metrics/stats/pearson.h"
#include "geoattn/metrics/stats/student_t.h"
#include "geoattn/util/error.h"
#include "geoattn/util/nan.h"
#include "geoattn/util/progress.h"
#include "geoattn/util/random.h"

namespace geoattn::metrics {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The bootstrap's loops, compiled for each x86-64 level (core_kernels.h).
using detail::range_of;
using detail::replicate_tile;

// The k-th and (k+1)-th smallest of xs[0..m) (k + 1 < m), xs reordered.
std::pair<double, double> adjacent_order_stats(double* xs, int64_t m, int64_t k) {
  std::nth_element(xs, xs + k, xs + m);
  return {xs[k], k + 1 < m ? *std::min_element(xs + k + 1, xs + m) : xs[k]};
}

// The percentiles p of the finite values of xs[0..m) (xs is overwritten), linear
// between order statistics (numpy's default). Only the two tails matter: a strided sample of
// 64 values gives thresholds well inside them (at the SPEC's 2.5 and 97.5), one branch-free pass keeps the values beyond,
// and the order statistics come from those few (with a full selection when the sample was
// unlucky). `low` and `high` are scratch of at least m values.
Interval tails(double* xs, int64_t m, double* low, double* high, Percentiles p) {
  double lo_x = kInf, hi_x = -kInf;
  if (range_of(xs, m, &lo_x, &hi_x) > 0) {  // keep the finite values only
    int64_t kept = 0;
    lo_x = kInf, hi_x = -kInf;
    for (int64_t i = 0; i < m; ++i) {
      const double x = xs[i];
      xs[kept] = x;
      const bool finite = std::isfinite(x);
      kept += finite;
      lo_x = finite && x < lo_x ? x : lo_x;
      hi_x = finite && x > hi_x ? x : hi_x;
    }
    m = kept;
  }
  if (m == 0) return {kNaN, kNaN};
  if (lo_x == hi_x) return {lo_x, lo_x};  // every replicate alike (one unit, or no spread)
  const double h_lo = p.lo / 100 * static_cast<double>(m - 1), h_hi = p.hi / 100 * static_cast<double>(m - 1);
  const auto k_lo = static_cast<int64_t>(std::floor(h_lo)), k_hi = static_cast<int64_t>(std::floor(h_hi));
  auto at = [](std::pair<double, double> ab, double frac) { return ab.first + frac * (ab.second - ab.first); };
  if (m >= 512) {
    double sample[64];
    for (int64_t i = 0; i < 64; ++i) sample[i] = xs[i * m / 64];
    std::sort(sample, sample + 64);
    const double t_lo = sample[7], t_hi = sample[56];  // about the 12% and 88% quantiles
    int64_t n_low = 0, n_high = 0;
    for (int64_t i = 0; i < m; ++i) {
      const double x = xs[i];
      low[n_low] = x, high[n_high] = x;
      n_low += x <= t_lo, n_high += x >= t_hi;
    }
    // The k_lo + 2 smallest are all in `low`, the m - k_hi largest all in `high`.
    if (n_low >= k_lo + 2 && n_high >= m - k_hi) {
      const int64_t off = m - n_high;  // high holds order statistics off..m-1
      return {at(adjacent_order_stats(low, n_low, k_lo), h_lo - k_lo),
              at(adjacent_order_stats(high, n_high, k_hi - off), h_hi - k_hi)};
    }
  }
  const auto lo = adjacent_order_stats(xs, m, k_lo);
  return {at(lo, h_lo - k_lo), at(adjacent_order_stats(xs, m, k_hi), h_hi - k_hi)};
}

// R(b, c) = sum_u W(b, u) X(u, c), the replicate sums of a block of statistics, each sum taken
// in the order of u (column-major R, so that each statistic's replicates are contiguous for the
// percentiles). W holds small integer counts. In tiles of kRows replicates x kCols statistics
// whose sums stay in registers over the units (core_kernels.h: replicate_tile, compiled for each
// x86-64 level and the same bits from each), independent chains enough to keep the FMA units
// busy (a column at a time went through memory at every unit: most of the bootstrap's time with
// dozens of documents). A unit with X(u, c) = 0 adds +0 to a sum that is never -0, so no term
// needs skipping.
constexpr int64_t kRows = detail::kTileRows, kCols = detail::kTileCols;

Eigen::MatrixXd sums_of_replicates(const Eigen::MatrixXd& W, const Eigen::MatrixXd& X) {
  const int64_t B = W.rows(), U = W.cols(), C = X.cols();
  Eigen::MatrixXd R(B, C);
  // Edge tiles run the same kernel on zero-padded copies (the padding's sums are dropped).
  Eigen::MatrixXd X_pad = Eigen::MatrixXd::Zero(U, kCols), W_pad = Eigen::MatrixXd::Zero(kRows, U), tile(kRows, kCols);
  for (int64_t c0 = 0; c0 < C; c0 += kCols) {
    const int64_t cols = std::min(kCols, C - c0);
    if (cols < kCols) X_pad.leftCols(cols) = X.middleCols(c0, cols);
    const double* Xc = cols < kCols ? X_pad.data() : &X(0, c0);
    for (int64_t b0 = 0; b0 < B; b0 += kRows) {
      const int64_t rows = std::min(kRows, B - b0);
      if (rows < kRows) W_pad.topRows(rows) = W.middleRows(b0, rows);
      const double* Wb = rows < kRows ? W_pad.data() : &W(b0, 0);
      const int64_t ldw = rows < kRows ? kRows : B;
      if (rows == kRows && cols == kCols) {
        replicate_tile(Wb, ldw, Xc, U, U, &R(b0, c0), B);
      } else {
        replicate_tile(Wb, ldw, Xc, U, U, tile.data(), kRows);
        R.block(b0, c0, rows, cols) = tile.topLeftCorner(rows, cols);
      }
    }
  }
  return R;
}

// One group's replicate sums for a block of grid indices [g0, g1) (the curve and correlation
// sums at those g; with g0 = G the scalar sums), and the group's replicate sample counts.
struct Block {
  const UnitStats& u;
  Eigen::MatrixXd sums;          // B x columns
  std::vector<int64_t> columns;  // the unit_stats index of each column
  const Eigen::MatrixXd& counts; // B x G, samples of the group per grid index
  int64_t col(int64_t stat) const {
    return std::find(columns.begin(), columns.end(), stat) - columns.begin();
  }
  double sum(int64_t b, int64_t stat) const { return sums(b, col(stat)); }
};

// The intervals of one block into `out` (shaped by the caller).
void block_intervals(const Block& r, int64_t g0, int64_t g1, Percentiles p, GroupIntervals& out) {
  const UnitStats& u = r.u;
  const int64_t B = r.sums.rows(), G = u.grid_size();
  std::vector<double> xs(static_cast<size_t>(B)), low(static_cast<size_t>(B)), high(static_cast<size_t>(B));
  auto over = [&](auto&& value) {
    for (int64_t b = 0; b < B; ++b) xs[b] = value(b);
    return tails(xs.data(), B, low.data(), high.data(), p);
  };
  if (g0 == G) {  // the scalars
    for (int k = 0; k < kScalarMetrics; ++k) {
      const int64_t c = r.col(u.scalar_index(k));
      out.scalar[k] = over([&](int64_t b) { return r.sums(b, c) / r.counts(b, 0); });
    }
    return;
  }
  // Replicates without a sample at grid index g have count 0: their mean is NaN, left out.
  for (int m = 0; m < kCurveMetrics; ++m) {
    if (m >= kFirstOptionalCurve && r.sums.col(r.col(u.curve_index(m, g0))).isZero()) continue;  // no control measured
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t c = r.col(u.curve_index(m, g));
      out.curve[m][g] = over([&](int64_t b) { return r.sums(b, c) / r.counts(b, g); });
    }
  }
  // SPEC §2b: top-N minus random, on the same samples.
  for (int k = 0; k < kControlled; ++k) {
    if (r.sums.col(r.col(u.curve_index(kFirstOptionalCurve + k, g0))).isZero()) continue;
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t top = r.col(u.curve_index(kP_rmax + k, g)), random = r.col(u.curve_index(kFirstOptionalCurve + k, g));
      out.diff[k][g] = over([&](int64_t b) { return (r.sums(b, top) - r.sums(b, random)) / r.counts(b, g); });
    }
  }
  // SPEC §3: Pearson r from the replicate's sums.
  for (int64_t g = g0; g < g1; ++g) {
    const int64_t cx = r.col(u.curve_index(kR_rmin, g)), cxx = r.col(u.corr_index(0, g)), cy = r.col(u.corr_index(1, g));
    const int64_t cyy = r.col(u.corr_index(2, g)), cxy = r.col(u.corr_index(3, g));
    out.corr[g] = over([&](int64_t b) {
      const double n = r.counts(b, g);
      const double sx = r.sums(b, cx), sxx = r.sums(b, cxx), sy = r.sums(b, cy), syy = r.sums(b, cyy), sxy = r.sums(b, cxy);
      const double vx = sxx / n - (sx / n) * (sx / n), vy = syy / n - (sy / n) * (sy / n);
      return pearson(n, sx / n, sy / n, sxy / n, vx, vy, 1e-15);
    });
  }
}

// SPEC §6: each replicate's slope against ln N of its mean cos(s, v_0) and cos(s, v_L) curves
// (a replicate without a sample at some N leaves that N out, as the point estimate does), and
// SPEC §2b's Wald p-value of the point slope (from every document once: `point` the group's
// sums, `total` its samples per N) with the replicates' standard deviation as its error.
void slope_intervals(const Block& r, std::span<const int64_t> n_grid, const Eigen::RowVectorXd& point,
                     const Eigen::RowVectorXd& total, Percentiles p, GroupIntervals& out) {
  const int64_t B = r.sums.rows(), G = r.u.grid_size();
  const std::vector<int64_t> grid(n_grid.begin(), n_grid.end());
  std::vector<double> xs(static_cast<size_t>(B)), low(xs.size()), high(xs.size()), y(static_cast<size_t>(G));
  for (int k = 0; k < 2; ++k) {
    for (int64_t g = 0; g < G; ++g) y[g] = total(g) > 0 ? point(k * G + g) / total(g) : kNaN;
    const double slope = analysis::slope_vs_log_n(grid, y);
    double sum = 0;
    int64_t finite = 0;
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t g = 0; g < G; ++g) y[g] = r.counts(b, g) > 0 ? r.sums(b, k * G + g) / r.counts(b, g) : kNaN;
      xs[b] = analysis::slope_vs_log_n(grid, y);
      if (std::isfinite(xs[b])) sum += xs[b], ++finite;
    }
    // The replicates' standard deviation (the finite ones, two passes, divided by their count less 1).
    const double mean = finite ? sum / static_cast<double>(finite) : kNaN;
    double squares = 0;
    for (int64_t b = 0; b < B; ++b)
      if (std::isfinite(xs[b])) squares += (xs[b] - mean) * (xs[b] - mean);
    const double sd = finite > 1 ? std::sqrt(squares / static_cast<double>(finite - 1)) : kNaN;
    out.slope_p[k] = wald_p_value(slope, sd, r.u.units());
    out.slope[k] = tails(xs.data(), B, low.data(), high.data(), p);
  }
}

}  // namespace

IntervalStatus interval_status(int64_t units, const std::string& unit) {
  IntervalStatus s;
  // SPEC §2b: no interval from fewer than 2 units; flagged below 10.
  if (units < kMinIntervalUnits) {
    s.intervals = false;
    s.why = fmt::format("no intervals: {} bootstrap unit ({}); resampling one unit gives zero-width intervals that would "
                        "mark every difference significant",
                        units, unit);
  } else if (units < kFewIntervalUnits) {
    s.few_units = true;
    s.why = fmt::format("intervals from few units: {} {}s (fewer than {}); read them as rough", units, unit,
                        kFewIntervalUnits);
  }
  return s;
}

BootstrapResult bootstrap(WorkerPool& pool, const UnitStats& u, int64_t replicates, uint64_t seed,
                          std::span<const int64_t> n_grid, const std::string& unit_name, double ci, bool quiet) {
  if (replicates < 1) fail("bootstrap: {} replicates", replicates);
  if (!(ci > 0 && ci < 100)) fail("bootstrap: a {}% interval", ci);
  const int64_t U = u.units(), G = u.grid_size(), S = u.stats_per_group(), groups = u.groups();
  if (U < 1) fail("bootstrap: no documents");
  if (!n_grid.empty() && std::ssize(n_grid) != G) fail("bootstrap: {} grid values for a grid of {}", n_grid.size(), G);
  BootstrapResult out;
  out.replicates = replicates;
  out.units = U;
  out.seed = seed;
  out.level = u.level();
  out.percentiles = percentiles_of(ci);
  out.status = interval_status(U, unit_name);
  if (!out.status.intervals) return out;
  // Units in the order of their ids.
  const auto [order, W] = detail::resamples(u.unit_ids(), replicates, seed);
  const int64_t L = u.layers(), H = u.heads();
  // Per layer, B x G: the samples per head of the layer in each replicate (a windowed layer's
  // samples stop at its window, SPEC §1).
  std::vector<Eigen::MatrixXd> head_counts;
  std::vector<Eigen::RowVectorXd> head_totals;  // and 1 x G, with every document once (the point estimates)
  Eigen::MatrixXd all_counts = Eigen::MatrixXd::Zero(replicates, G);  // summed over layers
  Eigen::RowVectorXd all_totals = Eigen::RowVectorXd::Zero(G);
  for (int64_t l = 0; l < L; ++l) {
    Eigen::MatrixXd C(U, G);
    for (int64_t i = 0; i < U; ++i)
      for (int64_t g = 0; g < G; ++g) C(i, g) = static_cast<double>(u.unit_count(order[i], l, g));
    head_counts.push_back(W * C);
    all_counts += head_counts.back();
    head_totals.push_back(C.colwise().sum());
    all_totals += head_totals.back();
  }

  // Every group to report: the whole model, the layers, the heads (as far as the level goes),
  // each with the stats groups it sums and the heads they hold.
  struct Job {
    std::vector<int64_t> members;
    Eigen::MatrixXd counts;
    Eigen::RowVectorXd totals;
  };
  std::vector<Job> jobs;
  std::vector<int64_t> all(static_cast<size_t>(groups));
  std::iota(all.begin(), all.end(), 0);
  jobs.push_back({all, all_counts * static_cast<double>(H), all_totals * static_cast<double>(H)});
  if (u.level() != BootLevel::Global)
    for (int64_t l = 0; l < L; ++l) {
      std::vector<int64_t> members;
      if (u.level() == BootLevel::Layer) members = {l};
      else
        for (int64_t h = 0; h < H; ++h) members.push_back(l * H + h);
      jobs.push_back({members, head_counts[l] * static_cast<double>(H), head_totals[l] * static_cast<double>(H)});
    }
  if (u.level() == BootLevel::Head)
    for (int64_t grp = 0; grp < groups; ++grp) jobs.push_back({{grp}, head_counts[grp / H], head_totals[grp / H]});

  std::vector<GroupIntervals> results(jobs.size());
  for (auto& r : results) {
    r.curve.assign(kCurveMetrics, std::vector<Interval>(G, Interval{kNaN, kNaN}));
    r.diff.assign(kControlled, std::vector<Interval>(G, Interval{kNaN, kNaN}));
    r.scalar.assign(kScalarMetrics, Interval{kNaN, kNaN});
    r.corr.assign(G, Interval{kNaN, kNaN});
    r.slope.fill(Interval{kNaN, kNaN});
    r.slope_p.fill(kNaN);
  }
  // Work items: (job, block of grid indices); then a job's scalars, then (with n_grid) its
  // slopes over the whole grid. One [B x U] x [U x columns] product per item keeps the replicate
  // sums small (L2-sized).
  constexpr int64_t kBlock = 16;
  const int64_t grid_blocks = (G + kBlock - 1) / kBlock, blocks = grid_blocks + (n_grid.empty() ? 1 : 2);
  ItemProgress progress("bootstrap", static_cast<long long>(jobs.size()) * blocks, quiet);
  pool.parallel_for(static_cast<int64_t>(jobs.size()) * blocks, [&](int64_t begin, int64_t end, int worker) {
    for (int64_t item = begin; item < end; ++item, progress.done(worker)) {
      const Job& job = jobs[item / blocks];
      const int64_t blk = item % blocks, g0 = std::min(G, blk * kBlock), g1 = std::min(G, g0 + kBlock);
      const bool slopes = blk == grid_blocks + 1;
      std::vector<int64_t> columns;
      if (slopes) {
        for (const int m : {kCos_s_v0, kCos_s_vL})
          for (int64_t g = 0; g < G; ++g) columns.push_back(u.curve_index(m, g));
      } else if (g0 == G) {
        for (int k = 0; k < kScalarMetrics; ++k) columns.push_back(u.scalar_index(k));
      } else {
        for (int64_t g = g0; g < g1; ++g) {
          for (int m = 0; m < kCurveMetrics; ++m) columns.push_back(u.curve_index(m, g));
          for (int part = 0; part < kCorrSums; ++part) columns.push_back(u.corr_index(part, g));
        }
      }
      Eigen::MatrixXd X = Eigen::MatrixXd::Zero(U, static_cast<Eigen::Index>(columns.size()));
      for (int64_t i = 0; i < U; ++i)
        for (int64_t grp : job.members) {
          const auto sums = u.unit_sums(order[i]).subspan(static_cast<size_t>(grp * S), static_cast<size_t>(S));
          for (size_t c = 0; c < columns.size(); ++c) X(i, static_cast<Eigen::Index>(c)) += sums[columns[c]];
        }
      const Block r{u, sums_of_replicates(W, X), columns, job.counts};
      if (slopes) slope_intervals(r, n_grid, X.colwise().sum(), job.totals, out.percentiles, results[item / blocks]);
      else block_intervals(r, g0, g1, out.percentiles, results[item / blocks]);
    }
  });
  progress.finish();

  out.global = std::move(results[0]);
  for (size_t j = 1; j < results.size(); ++j) {
    if (static_cast<int64_t>(j) <= (u.level() == BootLevel::Global ? 0 : L)) out.layers.push_back(std::move(results[j]));
    else out.heads.push_back(std::move(results[j]));
  }
  return out;
}

namespace detail {

Resamples resamples(const std::vector<std::string>& ids, int64_t replicates, uint64_t seed) {
  const auto U = static_cast<int64_t>(ids.size());
  Resamples r;
  r.order.resize(static_cast<size_t>(U));
  std::iota(r.order.begin(), r.order.end(), 0);
  std::sort(r.order.begin(), r.order.end(), [&](int64_t a, int64_t b) { return ids[a] < ids[b]; });
  r.W = Eigen::MatrixXd::Zero(replicates, U);
  for (int64_t b = 0; b < replicates; ++b) {
    uint64_t state = seed ^ 0xBB67AE8584CAA73BULL;
    state = splitmix64_next(state) ^ static_cast<uint64_t>(b);
    for (int64_t i = 0; i < U; ++i) r.W(b, static_cast<int64_t>(uniform_below(state, static_cast<uint64_t>(U)))) += 1;
  }
  return r;
}

Interval percentile_interval(std::vector<double> xs, Percentiles p) {
  std::vector<double> low(xs.size()), high(xs.size());
  return tails(xs.data(), std::ssize(xs), low.data(), high.data(), p);
}

Eigen::MatrixXd replicate_sums(const Eigen::MatrixXd& W, const Eigen::MatrixXd& X) { return sums_of_replicates(W, X); }

}  // namespace detail

}  // namespace geoattn::metrics
