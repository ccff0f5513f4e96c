#include "geoattn/metrics/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Dense>

#include "geoattn/util/error.h"
#include "geoattn/util/random.h"

namespace geoattn::metrics {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Percentile p (0..1) of the finite values, linear between order statistics.
double percentile(std::vector<double>& xs, double p) {
  if (xs.empty()) return kNaN;
  const double h = p * static_cast<double>(xs.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(h));
  std::nth_element(xs.begin(), xs.begin() + lo, xs.end());
  const double a = xs[lo];
  if (lo + 1 >= xs.size()) return a;
  const double b = *std::min_element(xs.begin() + lo + 1, xs.end());
  return a + (h - static_cast<double>(lo)) * (b - a);
}

Interval interval(std::vector<double> xs) {
  xs.erase(std::remove_if(xs.begin(), xs.end(), [](double x) { return !std::isfinite(x); }), xs.end());
  if (xs.empty()) return {kNaN, kNaN};
  const double lo = percentile(xs, 0.025), hi = percentile(xs, 0.975);
  return {lo, hi};
}

// The replicate sums of one group: [B][S], and the replicate sample counts per g: [B][G].
struct Replicates {
  Eigen::MatrixXd sums;    // B x S
  Eigen::MatrixXd counts;  // B x G
};

GroupIntervals intervals(const Replicates& r, const UnitStats& u) {
  const int64_t B = r.sums.rows(), G = u.grid_size();
  GroupIntervals out;
  std::vector<double> xs(static_cast<size_t>(B));
  auto over = [&](auto&& value) {
    for (int64_t b = 0; b < B; ++b) xs[b] = value(b);
    return interval(xs);
  };
  out.curve.assign(kCurveMetrics, std::vector<Interval>(G, Interval{kNaN, kNaN}));
  out.diff.assign(kControlled, std::vector<Interval>(G, Interval{kNaN, kNaN}));
  for (int m = 0; m < kCurveMetrics; ++m)
    for (int64_t g = 0; g < G; ++g)
      out.curve[m][g] = over([&](int64_t b) { return r.sums(b, u.curve_index(m, g)) / r.counts(b, g); });
  // SPEC §2b: top-N minus random, on the same samples.
  for (int k = 0; k < kControlled; ++k)
    for (int64_t g = 0; g < G; ++g)
      out.diff[k][g] = over([&](int64_t b) {
        return (r.sums(b, u.curve_index(kP_rmax + k, g)) - r.sums(b, u.curve_index(kFirstOptionalCurve + k, g))) /
               r.counts(b, g);
      });
  for (int k = 0; k < kScalarMetrics; ++k)
    out.scalar.push_back(over([&](int64_t b) { return r.sums(b, u.scalar_index(k)) / r.counts(b, 0); }));
  // SPEC §3: Pearson r from the replicate's sums.
  for (int64_t g = 0; g < G; ++g)
    out.corr.push_back(over([&](int64_t b) {
      const double n = r.counts(b, g);
      const double sx = r.sums(b, u.curve_index(kR_rmin, g)), sxx = r.sums(b, u.corr_index(0, g));
      const double sy = r.sums(b, u.corr_index(1, g)), syy = r.sums(b, u.corr_index(2, g));
      const double sxy = r.sums(b, u.corr_index(3, g));
      const double vx = sxx / n - (sx / n) * (sx / n), vy = syy / n - (sy / n) * (sy / n);
      if (!(n >= 2) || !(vx > 1e-15) || !(vy > 1e-15)) return kNaN;
      return std::clamp((sxy / n - (sx / n) * (sy / n)) / std::sqrt(vx * vy), -1.0, 1.0);
    }));
  return out;
}

}  // namespace

BootstrapResult bootstrap(const UnitStats& u, int64_t replicates, uint64_t seed) {
  if (replicates < 1) fail("bootstrap: {} replicates", replicates);
  const int64_t U = u.units(), G = u.grid_size(), S = u.stats_per_group(), groups = u.groups();
  if (U < 1) fail("bootstrap: no documents");
  // Units in the order of their ids.
  std::vector<int64_t> order(static_cast<size_t>(U));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return u.unit_ids()[a] < u.unit_ids()[b]; });
  // W[b][i]: how often replicate b drew the i-th unit (in id order).
  Eigen::MatrixXd W = Eigen::MatrixXd::Zero(replicates, U);
  for (int64_t b = 0; b < replicates; ++b) {
    uint64_t state = seed ^ 0xBB67AE8584CAA73BULL;
    state = splitmix64_next(state) ^ static_cast<uint64_t>(b);
    for (int64_t i = 0; i < U; ++i) {
      W(b, static_cast<int64_t>(uniform_below(state, static_cast<uint64_t>(U)))) += 1;
    }
  }
  Eigen::MatrixXd C(U, G);
  for (int64_t i = 0; i < U; ++i)
    for (int64_t g = 0; g < G; ++g) C(i, g) = static_cast<double>(u.unit_count(order[i], g));
  const Eigen::MatrixXd head_counts = W * C;  // B x G, samples per head

  auto group_sums = [&](const std::vector<int64_t>& members) {
    Eigen::MatrixXd X = Eigen::MatrixXd::Zero(U, S);
    for (int64_t i = 0; i < U; ++i)
      for (int64_t grp : members) X.row(i) += Eigen::Map<const Eigen::RowVectorXd>(u.unit_sums(order[i]) + grp * S, S);
    return X;
  };
  auto replicate = [&](const std::vector<int64_t>& members, double heads_per_group) {
    return Replicates{W * group_sums(members), head_counts * heads_per_group};
  };

  BootstrapResult out;
  out.replicates = replicates;
  out.units = U;
  out.seed = seed;
  out.level = u.level();
  const int64_t L = u.layers(), H = u.heads();
  std::vector<int64_t> all(static_cast<size_t>(groups));
  std::iota(all.begin(), all.end(), 0);
  out.global = intervals(replicate(all, static_cast<double>(L * H)), u);
  if (u.level() != BootLevel::Global)
    for (int64_t l = 0; l < L; ++l) {
      std::vector<int64_t> members;
      if (u.level() == BootLevel::Layer) members = {l};
      else
        for (int64_t h = 0; h < H; ++h) members.push_back(l * H + h);
      out.layers.push_back(intervals(replicate(members, static_cast<double>(H)), u));
    }
  if (u.level() == BootLevel::Head)
    for (int64_t grp = 0; grp < groups; ++grp) out.heads.push_back(intervals(replicate({grp}, 1.0), u));
  return out;
}

}  // namespace geoattn::metrics
