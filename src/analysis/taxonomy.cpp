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

// Two cosines compared: their difference on the cosine's scale of 1 (a NaN: 1).
double apart(double x, double y) { return std::isfinite(x) && std::isfinite(y) ? std::abs(x - y) : 1.0; }

// SPEC §6, Mixer (ii): a slope that must be negative (sign = -1) or positive (+1): by its interval
// and its BH-adjusted p-value q (SPEC §2b) when `by_interval`, else by its sign.
Criterion slope_criterion(const char* name, double slope, const std::optional<std::array<double, 2>>& ci, double q,
                          int sign, bool by_interval, double fdr) {
  Criterion c;
  const char* want = sign < 0 ? "< 0" : "> 0";
  if (by_interval) {
    const double lo = (*ci)[0], hi = (*ci)[1];
    const bool clears = sign < 0 ? hi < 0 : lo > 0;
    c.holds = clears && q <= fdr;
    // The part of the interval on the wrong side of 0, over its width; where it clears 0 and q
    // does not, how far q is past the level, over the rest of its range.
    const double wrong = sign < 0 ? std::max(0.0, hi - std::max(lo, 0.0)) : std::max(0.0, std::min(hi, 0.0) - lo);
    c.shortfall = !clears ? (hi > lo ? wrong / (hi - lo) : 1.0) : c.holds ? 0.0 : (q - fdr) / std::max(1 - fdr, 1e-12);
    c.text = fmt::format("slope of {} vs ln N {:.4g}, interval [{:.4g}, {:.4g}] {} (excluding 0), BH-adjusted p {:.3g} "
                         "<= {:.3g}",
                         name, slope, lo, hi, want, q, fdr);
  } else {
    c.holds = sign < 0 ? slope < 0 : slope > 0;
    c.shortfall = 1.0;
    c.text = fmt::format("slope of {} vs ln N {:.4g} {} (its sign alone)", name, slope, want);
  }
  return c;
}

// SPEC §6 Reset: either (a) the sink dominates or (b) the mass is broadly spread; one criterion
// that holds when either branch does, short by the nearer branch's shortfall.
Criterion reset_branch(const HeadFeatures& f, const HeadLabel& h, const TaxonomyConfig& cfg, std::string& branch) {
  const double other_than_sink = std::max(f.c_last, f.c_rest), need = cfg.reset_sink_ratio * other_than_sink;
  // (a) c_sink >= reset_sink_ratio * max(c_last, c_rest)
  const bool a = f.c_sink >= need;
  const double short_a = a ? 0.0 : past(f.c_sink, need);
  // (b) c_rest the largest and the mean row's normalized entropy >= reset_spread_entropy_min
  const bool rest_largest = f.c_rest >= f.c_sink && f.c_rest >= f.c_last;
  const bool spread = h.row_entropy >= cfg.reset_spread_entropy_min;
  const double short_b = (rest_largest ? 0.0 : past(f.c_rest, std::max(f.c_sink, f.c_last))) +
                         (spread ? 0.0 : past(h.row_entropy, cfg.reset_spread_entropy_min));
  branch = a ? "sink" : rest_largest && spread ? "spread" : "";
  const std::string text =
      fmt::format("(a) c_sink {:.4g} >= {:.4g} x max(c_last, c_rest) {:.4g}, or (b) c_rest {:.4g} the largest and the "
                  "mean row's normalized entropy {:.4g} >= {:.4g}",
                  f.c_sink, cfg.reset_sink_ratio, other_than_sink, f.c_rest, h.row_entropy, cfg.reset_spread_entropy_min);
  return {!branch.empty(), std::min(short_a, short_b), text};
}

// SPEC §6 Mixer (i): the last token is intermediate between sink and rest (within the slack).
Criterion mixer_between(const HeadFeatures& f, const TaxonomyConfig& cfg) {
  const double lo = std::min(f.c_sink, f.c_rest) / cfg.mixer_between_slack;
  const double hi = std::max(f.c_sink, f.c_rest) * cfg.mixer_between_slack;
  const bool holds = f.c_last >= lo && f.c_last <= hi;
  const double shortfall = holds ? 0.0 : f.c_last > hi ? past(f.c_last, hi) : past(f.c_last, lo);
  return {holds, shortfall,
          fmt::format("c_last {:.4g} between c_sink {:.4g} and c_rest {:.4g} (x{:.4g} slack: [{:.4g}, {:.4g}])", f.c_last,
                      f.c_sink, f.c_rest, cfg.mixer_between_slack, lo, hi)};
}

// The three rules of SPEC §6 at `cfg`, in the order they are checked.
std::array<Rule, 3> rules(const HeadFeatures& f, HeadLabel& h, const TaxonomyConfig& cfg) {
  const double other_than_last = std::max(f.c_sink, f.c_rest);
  // SPEC §6 Retriever: c_last is the largest of the three and mean_N cos(s, v_L) >= 0.5.
  Rule retriever{"Retriever",
                 {{f.c_last >= f.c_sink && f.c_last >= f.c_rest, past(f.c_last, other_than_last),
                   fmt::format("c_last {:.4g} the largest (c_sink {:.4g}, c_rest {:.4g})", f.c_last, f.c_sink, f.c_rest)},
                  {h.mean_cos_vL >= cfg.retriever_cos_vL_min, past(h.mean_cos_vL, cfg.retriever_cos_vL_min),
                   fmt::format("mean cos(s, v_L) {:.4g} >= {:.4g}", h.mean_cos_vL, cfg.retriever_cos_vL_min)}}};
  // SPEC §6 Reset: median_{N <= 64} cos(s, v_L) < 0.3, cos(s, v_0) > cos(s, v_L) at small N, and (a) or (b).
  const double m0 = h.median_cos_v0_small_n, mL = h.median_cos_vL_small_n;
  Rule reset{"Reset",
             {{mL < cfg.reset_cos_vL_max, past(mL, cfg.reset_cos_vL_max),
               fmt::format("median cos(s, v_L) over N <= {} {:.4g} < {:.4g}", cfg.reset_n_max, mL, cfg.reset_cos_vL_max)},
              {m0 > mL, apart(m0, mL),
               fmt::format("median cos(s, v_0) over N <= {} {:.4g} > that of cos(s, v_L) {:.4g}", cfg.reset_n_max, m0, mL)},
              reset_branch(f, h, cfg, h.reset_branch)}};
  // SPEC §6 Mixer (paper sect. 4.2, Fig. 7): the last token between sink and rest, and alignment
  // shifting from v_0 to v_L as N grows.
  const bool by_interval = h.slopes_by_interval && !cfg.mixer_slopes_by_sign;
  Rule mixer{"Mixer",
             {mixer_between(f, cfg),
              slope_criterion("cos(s, v_0)", h.slope_cos_v0, f.slope_cos_v0_ci, f.slope_cos_v0_q, -1, by_interval,
                              cfg.mixer_slope_fdr),
              slope_criterion("cos(s, v_L)", h.slope_cos_vL, f.slope_cos_vL_ci, f.slope_cos_vL_q, +1, by_interval,
                              cfg.mixer_slope_fdr)}};
  return {std::move(retriever), std::move(reset), std::move(mixer)};
}

// The mean over the grid of a curve minus another where both are finite (NaN if none).
double mean_drop(const std::vector<double>& whole, const std::vector<double>& without) {
  double sum = 0;
  int64_t n = 0;
  for (size_t g = 0; g < whole.size() && g < without.size(); ++g)
    if (std::isfinite(whole[g]) && std::isfinite(without[g])) sum += whole[g] - without[g], ++n;
  return n ? sum / static_cast<double>(n) : kNaN;
}

// SPEC §6's leave-one-out diagnostic: Retriever expects the larger drop for L, Reset for the sink.
std::string loo_flag(const HeadLabel& h) {
  if (!std::isfinite(h.drop_sink) || !std::isfinite(h.drop_last)) return "";
  if (h.label == "Retriever" && !(h.drop_last > h.drop_sink))
    return fmt::format("leave-one-out: removing L drops ||s|| by {:.4g}, removing the sink by {:.4g} (a Retriever "
                       "expects the larger drop for L)",
                       h.drop_last, h.drop_sink);
  if (h.label == "Reset" && !(h.drop_sink > h.drop_last))
    return fmt::format("leave-one-out: removing the sink drops ||s|| by {:.4g}, removing L by {:.4g} (a Reset expects "
                       "the larger drop for the sink)",
                       h.drop_sink, h.drop_last);
  return "";
}

std::string joined(const Rule& r) {
  std::string out;
  for (const auto& c : r.criteria) out += (out.empty() ? "" : " and ") + c.text;
  return out;
}
}  // namespace

// taxonomy.h: SPEC §6 Reset (b), the normalized entropy of a row.
double row_entropy(const std::vector<double>& row) {
  double total = 0;
  int64_t n = 0;
  for (const double p : row)
    if (std::isfinite(p)) total += p, ++n;
  if (n < 2 || !(total > 0)) return kNaN;
  double H = 0;
  for (const double p : row)
    if (std::isfinite(p) && p > 0) H -= (p / total) * std::log(p / total);
  return H / std::log(static_cast<double>(n));
}

// taxonomy.h: SPEC §2b, Benjamini-Hochberg adjusted p-values.
std::vector<double> bh_adjusted(const std::vector<double>& p) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i)
    if (std::isfinite(p[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> q(p.size(), kNaN);
  const double m = static_cast<double>(order.size());
  double running = 1.0;
  for (size_t r = order.size(); r-- > 0;)  // q_(i) = min over j >= i of m p_(j) / j
    q[order[r]] = running = std::min(running, m * p[order[r]] / static_cast<double>(r + 1));
  return q;
}

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
  std::vector<double> all_vL, small_vL, small_v0;
  for (size_t g = 0; g < f.n_grid.size(); ++g) {
    if (std::isfinite(f.cos_s_v0[g]) && f.n_grid[g] <= cfg.reset_n_max) small_v0.push_back(f.cos_s_v0[g]);
    if (!std::isfinite(f.cos_s_vL[g])) continue;
    all_vL.push_back(f.cos_s_vL[g]);
    if (f.n_grid[g] <= cfg.reset_n_max) small_vL.push_back(f.cos_s_vL[g]);
  }
  h.mean_cos_vL = mean(all_vL);               // SPEC §6: mean over N of cos(s, v_L)
  h.median_cos_vL_small_n = median(small_vL);  // SPEC §6: median over N <= 64 of cos(s, v_L)
  h.median_cos_v0_small_n = median(small_v0);  // SPEC §6: cos(s, v_0) at small N, the same way
  h.row_entropy = row_entropy(f.mean_row);     // SPEC §6 Reset (b)
  h.drop_sink = mean_drop(f.s_norm, f.s_loo_sink);  // SPEC §6 leave-one-out: the sink removed
  h.drop_last = mean_drop(f.s_norm, f.s_loo_last);  // and L removed
  h.slope_cos_v0 = slope_vs_log_n(f.n_grid, f.cos_s_v0);
  h.slope_cos_vL = slope_vs_log_n(f.n_grid, f.cos_s_vL);
  const auto finite = [](const std::optional<std::array<double, 2>>& ci) {
    return ci && std::isfinite((*ci)[0]) && std::isfinite((*ci)[1]);
  };
  h.slopes_by_interval = finite(f.slope_cos_v0_ci) && finite(f.slope_cos_vL_ci) && std::isfinite(f.slope_cos_v0_q) &&
                         std::isfinite(f.slope_cos_vL_q);

  const auto all = rules(f, h, cfg);  // fills h.reset_branch
  for (const Rule& r : all)
    if (r.holds()) {
      h.label = r.label;
      if (h.label != "Reset") h.reset_branch.clear();
      h.rule = fmt::format("{}: {}", r.label, joined(r));
      if (h.label == "Reset") h.rule += fmt::format(" (branch {})", h.reset_branch == "sink" ? "a: the sink dominates" : "b: broadly spread");
      h.flag = loo_flag(h);
      return h;
    }
  h.reset_branch.clear();
  // SPEC §6 Unlabelled: the closest rule, the smallest relative shortfall (then the order above).
  const Rule* best = nullptr;
  double best_key = 0;
  for (const Rule& r : all) {
    double key = 0;
    for (const auto& c : r.criteria)
      if (!c.holds) key += c.shortfall;
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

namespace {
// A sensitivity row: the heads whose label differs at `moved`.
SensitivityRow changes_at(const Taxonomy& t, const TaxonomyConfig& moved, SensitivityRow row) {
  for (const auto& [input, label] : t.heads) {
    const std::string now = classify(input.features, moved).label;
    if (now != label.label) row.changes.push_back({input.layer, input.head, label.label, now});
  }
  return row;
}
}  // namespace

Taxonomy taxonomy(std::vector<TaxonomyInput> heads, const TaxonomyConfig& cfg) {
  Taxonomy out;
  out.config = cfg;
  // SPEC §2b: the slope tests of all heads are one family; their p-values adjusted together.
  std::vector<double> p;
  for (const auto& in : heads) p.push_back(in.features.slope_cos_v0_p), p.push_back(in.features.slope_cos_vL_p);
  const std::vector<double> q = bh_adjusted(p);
  for (size_t k = 0; k < heads.size(); ++k) {
    heads[k].features.slope_cos_v0_q = q[2 * k], heads[k].features.slope_cos_vL_q = q[2 * k + 1];
    out.slope_tests += std::isfinite(p[2 * k]) + std::isfinite(p[2 * k + 1]);
  }
  std::map<int64_t, LabelCounts> per_layer;
  for (auto& input : heads) {
    HeadLabel label = classify(input.features, cfg);
    const auto k = std::find_if(std::begin(kHeadLabels), std::end(kHeadLabels),
                                [&](const char* name) { return label.label == name; }) - std::begin(kHeadLabels);
    ++per_layer.try_emplace(input.layer, LabelCounts{}).first->second[k];
    ++out.totals[k];
    if (label.label == "Mixer") ++(label.slopes_by_interval ? out.mixers_by_interval : out.mixers_by_sign);
    out.flagged += !label.flag.empty();
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
      out.sensitivity.push_back(changes_at(out, moved, std::move(row)));
    }
  // SPEC §6: the Mixer's slopes read by their signs where the run has their intervals.
  TaxonomyConfig by_sign = cfg;
  by_sign.mixer_slopes_by_sign = true;
  out.sensitivity.push_back(changes_at(out, by_sign, {kMixerSlopesBySign, kNaN, kNaN, {}}));
  return out;
}

}  // namespace geoattn::analysis
