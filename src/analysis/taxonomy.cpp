// The head taxonomy of SPEC §6 (paper sect. 4.2): features -> Retriever / Reset / Mixer / Unlabelled,
// and the sensitivity of the labels to the thresholds.
#include "geoattn/analysis/taxonomy.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "geoattn/util/error.h"
#include "geoattn/util/nan.h"
#include "median.h"

namespace geoattn::analysis {

namespace {
double mean(const std::vector<double>& x) {
  if (x.empty()) return kNaN;
  double s = 0;
  for (const double v : x) s += v;
  return s / static_cast<double>(x.size());
}

// One criterion of a rule: whether it holds, its relative shortfall when it does not
// (taxonomy.h, Unlabelled), and the sentence that states it with its numbers.
struct Criterion {
  bool holds = false;
  double shortfall = 0;
  std::string text;
};
struct Rule {
  const char* label;
  std::vector<Criterion> criteria;
  bool holds() const {
    return std::all_of(criteria.begin(), criteria.end(), [](const Criterion& c) { return c.holds; });
  }
};

// The distance past a threshold over its size (a NaN value: 1, as far as it gets).
double past(double value, double threshold) {
  if (!std::isfinite(value)) return 1.0;
  return std::abs(value - threshold) / std::max(std::abs(threshold), 1e-12);
}

// SPEC §6, Mixer: a slope that must be negative (sign = -1) or positive (+1): by its interval
// when `by_interval`, else by its sign.
Criterion slope_criterion(const char* name, double slope, const std::optional<std::array<double, 2>>& ci, int sign,
                          bool by_interval) {
  Criterion c;
  const char* want = sign < 0 ? "< 0" : "> 0";
  if (by_interval) {
    const double lo = (*ci)[0], hi = (*ci)[1];
    c.holds = sign < 0 ? hi < 0 : lo > 0;
    // The part of the interval on the wrong side of 0, over its width.
    const double wrong = sign < 0 ? std::max(0.0, hi - std::max(lo, 0.0)) : std::max(0.0, std::min(hi, 0.0) - lo);
    c.shortfall = hi > lo ? wrong / (hi - lo) : 1.0;
    c.text = fmt::format("slope of {} vs ln N {:.4g}, interval [{:.4g}, {:.4g}] {} (excluding 0)", name, slope, lo, hi, want);
  } else {
    c.holds = sign < 0 ? slope < 0 : slope > 0;
    c.shortfall = 1.0;
    c.text = fmt::format("slope of {} vs ln N {:.4g} {} (its sign: the run has no intervals)", name, slope, want);
  }
  return c;
}

// The three rules of SPEC §6 at `cfg`, in the order they are checked.
std::array<Rule, 3> rules(const HeadFeatures& f, const HeadLabel& h, const TaxonomyConfig& cfg) {
  const double other_than_last = std::max(f.c_sink, f.c_rest), other_than_sink = std::max(f.c_last, f.c_rest);
  // SPEC §6 Retriever: c_last is the largest of the three and mean_N cos(s, v_L) >= 0.5.
  Rule retriever{"Retriever",
                 {{f.c_last >= f.c_sink && f.c_last >= f.c_rest, past(f.c_last, other_than_last),
                   fmt::format("c_last {:.4g} the largest (c_sink {:.4g}, c_rest {:.4g})", f.c_last, f.c_sink, f.c_rest)},
                  {h.mean_cos_vL >= cfg.retriever_cos_vL_min, past(h.mean_cos_vL, cfg.retriever_cos_vL_min),
                   fmt::format("mean cos(s, v_L) {:.4g} >= {:.4g}", h.mean_cos_vL, cfg.retriever_cos_vL_min)}}};
  // SPEC §6 Reset: c_sink >= 0.8 max(c_last, c_rest) and median_{N <= 64} cos(s, v_L) < 0.3.
  const double need = cfg.reset_sink_ratio * other_than_sink;
  Rule reset{"Reset",
             {{f.c_sink >= need, past(f.c_sink, need),
               fmt::format("c_sink {:.4g} >= {:.4g} x max(c_last, c_rest) {:.4g}", f.c_sink, cfg.reset_sink_ratio,
                           other_than_sink)},
              {h.median_cos_vL_small_n < cfg.reset_cos_vL_max, past(h.median_cos_vL_small_n, cfg.reset_cos_vL_max),
               fmt::format("median cos(s, v_L) over N <= {} {:.4g} < {:.4g}", cfg.reset_n_max, h.median_cos_vL_small_n,
                           cfg.reset_cos_vL_max)}}};
  // SPEC §6 Mixer (paper sect. 4.2, Fig. 7): alignment shifts from v_0 to v_L as N grows.
  Rule mixer{"Mixer",
             {slope_criterion("cos(s, v_0)", h.slope_cos_v0, f.slope_cos_v0_ci, -1, h.slopes_by_interval),
              slope_criterion("cos(s, v_L)", h.slope_cos_vL, f.slope_cos_vL_ci, +1, h.slopes_by_interval)}};
  return {std::move(retriever), std::move(reset), std::move(mixer)};
}

std::string joined(const Rule& r) {
  std::string out;
  for (const auto& c : r.criteria) out += (out.empty() ? "" : " and ") + c.text;
  return out;
}
}  // namespace

// taxonomy.h: least-squares slope of y against ln(N) over the defined entries.
double slope_vs_log_n(const std::vector<int64_t>& n_grid, const std::vector<double>& y) {
  std::vector<double> xs, ys;
  for (size_t g = 0; g < y.size() && g < n_grid.size(); ++g)
    if (std::isfinite(y[g]) && n_grid[g] >= 1) xs.push_back(std::log(static_cast<double>(n_grid[g]))), ys.push_back(y[g]);
  const double mx = mean(xs), my = mean(ys);
  double sxx = 0, sxy = 0;
  for (size_t k = 0; k < xs.size(); ++k) sxx += (xs[k] - mx) * (xs[k] - mx), sxy += (xs[k] - mx) * (ys[k] - my);
  return sxx > 0 ? sxy / sxx : kNaN;
}

HeadLabel classify(const HeadFeatures& f, const TaxonomyConfig& cfg) {
  if (f.cos_s_v0.size() != f.n_grid.size() || f.cos_s_vL.size() != f.n_grid.size())
    fail("taxonomy: the cosine curves have {} and {} entries for {} grid values", f.cos_s_v0.size(),
         f.cos_s_vL.size(), f.n_grid.size());
  HeadLabel h;
  std::vector<double> all_vL, small_vL;
  for (size_t g = 0; g < f.n_grid.size(); ++g) {
    if (!std::isfinite(f.cos_s_vL[g])) continue;
    all_vL.push_back(f.cos_s_vL[g]);
    if (f.n_grid[g] <= cfg.reset_n_max) small_vL.push_back(f.cos_s_vL[g]);
  }
  h.mean_cos_vL = mean(all_vL);               // SPEC §6: mean over N of cos(s, v_L)
  h.median_cos_vL_small_n = median(small_vL);  // SPEC §6: median over N <= 64 of cos(s, v_L)
  h.slope_cos_v0 = slope_vs_log_n(f.n_grid, f.cos_s_v0);
  h.slope_cos_vL = slope_vs_log_n(f.n_grid, f.cos_s_vL);
  const auto finite = [](const std::optional<std::array<double, 2>>& ci) {
    return ci && std::isfinite((*ci)[0]) && std::isfinite((*ci)[1]);
  };
  h.slopes_by_interval = finite(f.slope_cos_v0_ci) && finite(f.slope_cos_vL_ci);

  const auto all = rules(f, h, cfg);
  for (const Rule& r : all)
    if (r.holds()) {
      h.label = r.label;
      h.rule = fmt::format("{}: {}", r.label, joined(r));
      return h;
    }
  // SPEC §6 Unlabelled: the closest rule (fewest failed criteria, then the smaller shortfall).
  const Rule* best = nullptr;
  std::pair<int64_t, double> best_key{};
  for (const Rule& r : all) {
    std::pair<int64_t, double> key{0, 0.0};
    for (const auto& c : r.criteria)
      if (!c.holds) ++key.first, key.second += c.shortfall;
    if (!best || key < best_key) best = &r, best_key = key;
  }
  h.label = kUnlabelled;
  h.closest = best->label;
  for (const auto& c : best->criteria)
    if (!c.holds) {
      h.failed = c.text;
      break;
    }
  h.rule = fmt::format("Unlabelled: no rule holds; closest {}, which needs {}", h.closest, h.failed);
  return h;
}

Taxonomy taxonomy(std::vector<TaxonomyInput> heads, const TaxonomyConfig& cfg) {
  Taxonomy out;
  out.config = cfg;
  std::map<int64_t, LabelCounts> per_layer;
  for (auto& input : heads) {
    HeadLabel label = classify(input.features, cfg);
    const auto k = std::find_if(std::begin(kHeadLabels), std::end(kHeadLabels),
                                [&](const char* name) { return label.label == name; }) - std::begin(kHeadLabels);
    ++per_layer.try_emplace(input.layer, LabelCounts{}).first->second[k];
    ++out.totals[k];
    out.heads.push_back({std::move(input), std::move(label)});
  }
  out.layers.assign(per_layer.begin(), per_layer.end());
  // SPEC §6: the labels that change when one threshold moves by -25%, -10%, +10%, +25%.
  for (const auto& t : kTaxonomyThresholds)
    for (const double factor : kSensitivityFactors) {
      TaxonomyConfig moved = cfg;
      SensitivityRow row{t.name, factor, 0, {}};
      if (t.real) {
        moved.*t.real = cfg.*t.real * factor;
        row.value = moved.*t.real;
      } else {
        moved.*t.whole = std::max<int64_t>(1, std::llround(static_cast<double>(cfg.*t.whole) * factor));
        row.value = static_cast<double>(moved.*t.whole);
      }
      for (const auto& [input, label] : out.heads) {
        const std::string now = classify(input.features, moved).label;
        if (now != label.label) row.changes.push_back({input.layer, input.head, label.label, now});
      }
      out.sensitivity.push_back(std::move(row));
    }
  return out;
}

}  // namespace geoattn::analysis
