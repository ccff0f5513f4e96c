// The head taxonomy of SPEC §6 (paper sect. 4.2): features -> Retriever / Reset / Mixer.
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

// taxonomy.h: least-squares slope of y against ln(N) over the defined entries.
double slope_vs_log_n(const std::vector<int64_t>& n_grid, const std::vector<double>& y) {
  std::vector<double> xs, ys;
  for (size_t g = 0; g < y.size(); ++g)
    if (std::isfinite(y[g]) && n_grid[g] >= 1) xs.push_back(std::log(static_cast<double>(n_grid[g]))), ys.push_back(y[g]);
  const double mx = mean(xs), my = mean(ys);
  double sxx = 0, sxy = 0;
  for (size_t k = 0; k < xs.size(); ++k) sxx += (xs[k] - mx) * (xs[k] - mx), sxy += (xs[k] - mx) * (ys[k] - my);
  return sxx > 0 ? sxy / sxx : kNaN;
}
}  // namespace

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

  // SPEC §6 Retriever: c_last is the largest of the three and mean_N cos(s, v_L) >= 0.5.
  const bool last_largest = f.c_last >= f.c_sink && f.c_last >= f.c_rest;
  if (last_largest && h.mean_cos_vL >= cfg.retriever_cos_vL_min) {
    h.label = "Retriever";
    h.rule = fmt::format("Retriever: c_last {:.4g} is the largest (c_sink {:.4g}, c_rest {:.4g}) and mean cos(s, v_L) "
                         "{:.4g} >= {:.4g}",
                         f.c_last, f.c_sink, f.c_rest, h.mean_cos_vL, cfg.retriever_cos_vL_min);
    return h;
  }
  // SPEC §6 Reset: c_sink >= 0.8 max(c_last, c_rest) and median_{N <= 64} cos(s, v_L) < 0.3.
  const double other = std::max(f.c_last, f.c_rest);
  if (f.c_sink >= cfg.reset_sink_ratio * other && h.median_cos_vL_small_n < cfg.reset_cos_vL_max) {
    h.label = "Reset";
    h.rule = fmt::format("Reset: c_sink {:.4g} >= {:.4g} x max(c_last, c_rest) {:.4g} and median cos(s, v_L) over "
                         "N <= {} is {:.4g} < {:.4g}",
                         f.c_sink, cfg.reset_sink_ratio, other, cfg.reset_n_max, h.median_cos_vL_small_n,
                         cfg.reset_cos_vL_max);
    return h;
  }
  // SPEC §6 Mixer: every other head.
  h.label = "Mixer";
  h.rule = fmt::format("Mixer: not Retriever (c_last {:.4g} {} largest, mean cos(s, v_L) {:.4g} vs {:.4g}) and not "
                       "Reset (c_sink {:.4g} vs {:.4g} x {:.4g}, median cos(s, v_L) over N <= {} {:.4g} vs {:.4g})",
                       f.c_last, last_largest ? "is" : "is not", h.mean_cos_vL, cfg.retriever_cos_vL_min, f.c_sink,
                       cfg.reset_sink_ratio, other, cfg.reset_n_max, h.median_cos_vL_small_n, cfg.reset_cos_vL_max);
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
  return out;
}

}  // namespace geoattn::analysis
