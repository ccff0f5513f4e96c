#include "geoattn/metrics/finalize/taxonomy_inputs.h"

#include <cmath>

#include "geoattn/util/error.h"
#include "geoattn/util/nan.h"

namespace geoattn::metrics {

namespace {
// A mean as the result JSON carries it: NaN where it is not finite (null there).
double finite_or_nan(double x) { return std::isfinite(x) ? x : kNaN; }
}  // namespace

std::vector<analysis::TaxonomyInput> taxonomy_inputs(const Aggregator& agg, const BootstrapResult* boot,
                                                     const std::vector<HeadFits>* fits) {
  const bool with_ci = boot && boot->status.intervals && !boot->heads.empty();
  std::vector<analysis::TaxonomyInput> out;
  const int64_t G = static_cast<int64_t>(agg.n_grid().size());
  for (int64_t l = 0; l < agg.layers(); ++l)
    for (int64_t h = 0; h < agg.heads(); ++h) {
      const GroupStats& s = agg.head_stats(l, h);
      analysis::TaxonomyInput in;
      in.layer = l, in.head = h, in.samples = s.samples();
      auto& f = in.features;
      // SPEC §6: the per-head means of c_sink, c_last, c_rest.
      const auto scalar = [&](ScalarMetric k) {
        const double x = s.scalar(k).mean();
        if (!std::isfinite(x)) fail("taxonomy: heads[{}].{} is null (the head has no samples)", out.size(), kScalarNames[k]);
        return x;
      };
      f.c_sink = scalar(kC_sink), f.c_last = scalar(kC_last), f.c_rest = scalar(kC_rest);
      f.n_grid = agg.n_grid();
      for (int64_t g = 0; g < G; ++g) {
        f.cos_s_v0.push_back(finite_or_nan(s.curve(kCos_s_v0, g).mean()));
        f.cos_s_vL.push_back(finite_or_nan(s.curve(kCos_s_vL, g).mean()));
        f.s_norm.push_back(finite_or_nan(s.curve(kS_norm, g).mean()));  // SPEC §6's leave-one-out curves
        f.s_loo_sink.push_back(finite_or_nan(s.curve(kS_loo_sink, g).mean()));
        f.s_loo_last.push_back(finite_or_nan(s.curve(kS_loo_last, g).mean()));
      }
      if (fits && !fits->empty()) f.mean_row = fits->at(out.size()).mean_row;  // SPEC §6 Reset (b)
      if (with_ci) {  // SPEC §6: the slopes' intervals, as the result JSON carries them
        const auto& slope = boot->heads[static_cast<size_t>(l * agg.heads() + h)].slope;
        f.slope_cos_v0_ci = slope[0], f.slope_cos_vL_ci = slope[1];
        const auto& p = boot->heads[static_cast<size_t>(l * agg.heads() + h)].slope_p;  // SPEC §2b: for BH
        f.slope_cos_v0_p = p[0], f.slope_cos_vL_p = p[1];
      }
      out.push_back(std::move(in));
    }
  return out;
}

}  // namespace geoattn::metrics
