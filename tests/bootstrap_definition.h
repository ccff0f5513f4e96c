#pragma once
// The bootstrap's intervals from their definition (SPEC §2b), one replicate at a time, for tests
// that compare metrics::bootstrap with it to the last bit: the documents in the order of their
// ids, each replicate drawing as many as there are with replacement (the same portable
// generator), a group's statistic summed over its heads and then over the draws term by term
// (each term fused, in the documents' order), divided by the samples drawn, and the percentiles
// (100 - ci)/2 and (100 + ci)/2 (SPEC §2b: 2.5% and 97.5%) of the finite means linear between
// order statistics of a full sort (numpy's default).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "geoattn/analysis/taxonomy.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/stats/student_t.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/util/random.h"

namespace geoattn::testing {

class BootstrapDefinition {
 public:
  BootstrapDefinition(const metrics::UnitStats& units, int64_t replicates, uint64_t seed, double ci = 95)
      : units_(units), ci_(ci), order_(static_cast<size_t>(units.units())) {
    const int64_t U = units.units();
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), [&](int64_t a, int64_t b) { return units.unit_ids()[a] < units.unit_ids()[b]; });
    draws_.assign(static_cast<size_t>(replicates), std::vector<double>(static_cast<size_t>(U), 0.0));
    for (int64_t b = 0; b < replicates; ++b) {
      uint64_t s = seed ^ 0xBB67AE8584CAA73BULL;
      s = splitmix64_next(s) ^ static_cast<uint64_t>(b);
      for (int64_t i = 0; i < U; ++i) draws_[b][uniform_below(s, static_cast<uint64_t>(U))] += 1;
    }
  }

  // The samples of unit u in stats group `grp` that reached grid index g: its heads' layers'
  // counts (per layer, SPEC §1), times the heads it holds of each.
  double group_samples(int64_t u, int64_t grp, int64_t g) const {
    const int64_t L = units_.layers(), H = units_.heads();
    double n = 0;
    for (int64_t l = 0; l < L; ++l) {
      const bool in = units_.level() == metrics::BootLevel::Global || (units_.level() == metrics::BootLevel::Layer && grp == l) ||
                      (units_.level() == metrics::BootLevel::Head && grp / H == l);
      if (in) n += static_cast<double>(units_.unit_count(u, l, g)) * (units_.level() == metrics::BootLevel::Head ? 1 : H);
    }
    return n;
  }

  // The interval of statistic `stat` (UnitStats' layout) over the groups `members`, per sample
  // at grid index g.
  metrics::Interval interval(const std::vector<int64_t>& members, int64_t stat, int64_t g) const {
    const int64_t S = units_.stats_per_group();
    std::vector<double> means;
    for (const auto& draw : draws_) {
      double sum = 0, samples = 0;
      for (size_t i = 0; i < order_.size(); ++i) {
        double x = 0;
        for (int64_t grp : members) x += units_.unit_sums(order_[i])[grp * S + stat];
        sum = std::fma(draw[i], x, sum);
        for (int64_t grp : members) samples += draw[i] * group_samples(order_[i], grp, g);
      }
      means.push_back(sum / samples);
    }
    return percentiles(std::move(means));
  }

  // SPEC §6's slope against ln N of the mean curve `m` (cos(s, v_0) or cos(s, v_L)) over the
  // groups `members`, per replicate (a replicate without a sample at some N leaves that N out),
  // its interval, and SPEC §2b's two-sided p-value of the point slope (every document once): the
  // Wald statistic with the replicates' standard deviation (divided by B - 1), times sqrt(U / (U
  // - 1)), as its error, against Student's t with U - 1 degrees of freedom (wald_p_value).
  struct Slope {
    metrics::Interval interval;
    double p;
  };
  Slope slope(const std::vector<int64_t>& members, int m, const std::vector<int64_t>& n_grid) const {
    std::vector<double> slopes;
    for (const auto& draw : draws_) slopes.push_back(slope_of(members, m, n_grid, draw));
    const double point = slope_of(members, m, n_grid, std::vector<double>(order_.size(), 1.0));
    double mean = 0, squares = 0, finite = 0;
    for (const double x : slopes)
      if (std::isfinite(x)) mean += x, ++finite;
    mean /= finite;
    for (const double x : slopes)
      if (std::isfinite(x)) squares += (x - mean) * (x - mean);
    const double sd = std::sqrt(squares / (finite - 1));
    return {percentiles(slopes), metrics::wald_p_value(point, sd, units_.units())};
  }

 private:
  // The slope against ln N of the mean curve m of `members` under the weights `draw` (its
  // documents in the order of their ids).
  double slope_of(const std::vector<int64_t>& members, int m, const std::vector<int64_t>& n_grid,
                  const std::vector<double>& draw) const {
    const int64_t S = units_.stats_per_group(), G = units_.grid_size();
    std::vector<double> y(static_cast<size_t>(G));
    for (int64_t g = 0; g < G; ++g) {
      double sum = 0, samples = 0;
      for (size_t i = 0; i < order_.size(); ++i)
        for (int64_t grp : members) {
          sum += draw[i] * units_.unit_sums(order_[i])[grp * S + units_.curve_index(m, g)];
          samples += draw[i] * group_samples(order_[i], grp, g);
        }
      y[g] = samples > 0 ? sum / samples : std::nan("");
    }
    return analysis::slope_vs_log_n(n_grid, y);
  }

  metrics::Interval percentiles(std::vector<double> xs) const {
    std::erase_if(xs, [](double x) { return !std::isfinite(x); });
    if (xs.empty()) return {std::nan(""), std::nan("")};  // no replicate has a sample (a layer past its window)
    std::sort(xs.begin(), xs.end());
    auto at = [&](double q) {
      const double h = q * static_cast<double>(xs.size() - 1);
      const auto k = static_cast<size_t>(std::floor(h));
      const double hi = k + 1 < xs.size() ? xs[k + 1] : xs[k];
      return xs[k] + (h - static_cast<double>(k)) * (hi - xs[k]);
    };
    return xs.front() == xs.back() ? metrics::Interval{xs.front(), xs.front()} : metrics::Interval{at((100 - ci_) / 200), at((100 + ci_) / 200)};
  }

  const metrics::UnitStats& units_;
  double ci_;
  std::vector<int64_t> order_;              // the units in the order of their ids
  std::vector<std::vector<double>> draws_;  // [replicate][unit in that order]: times drawn
};

}  // namespace geoattn::testing
