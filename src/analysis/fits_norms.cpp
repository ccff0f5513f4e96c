// Assumption 1 (paper sect. 3.1, SPEC §4): C, lambda and cv from the mean value norms.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "geoattn/analysis/fits.h"
#include "median.h"

namespace geoattn::analysis {

namespace {
NormFit failed(NormFit fit, std::string why) {
  fit.status = {false, std::move(why)};
  return fit;
}
}  // namespace

FitStatus norms_identified(const std::vector<double>& mean_norm, double C) {
  // kFitTests, norms: every mean norm finite and >= 0, and the median C after the sink > 0.
  for (size_t i = 0; i < mean_norm.size(); ++i)
    if (!std::isfinite(mean_norm[i]) || mean_norm[i] < 0)
      return {false, fmt::format("norms identifiability: mean norm at position {} is {}, not a finite non-negative number",
                                 i, mean_norm[i])};
  if (!(C > 0))
    return {false, fmt::format("norms identifiability: the median norm C over positions i > 0 is {}, so lambda = "
                               "||v_0|| / C is undefined", C)};
  return {};
}

NormFit fit_norms(const std::vector<double>& mean_norm, double mean_cv) {
  NormFit fit;
  // SPEC §4: cv = std/mean of ||v_i||, i > 0, per window, then averaged (by the caller).
  const bool cv_good = std::isfinite(mean_cv) && mean_cv >= 0;
  if (cv_good) fit.cv = mean_cv;
  if (mean_norm.size() < 2)
    return failed(fit, fmt::format("the norm curve has {} position(s); C needs at least one position after the sink",
                                   mean_norm.size()));
  const bool entries_good = std::all_of(mean_norm.begin(), mean_norm.end(), [](double x) { return std::isfinite(x) && x >= 0; });
  // SPEC §4 / Assumption 1: C = median over i > 0 of the mean ||v_i||.
  if (entries_good) fit.C = median(std::vector<double>(mean_norm.begin() + 1, mean_norm.end()));
  if (FitStatus id = norms_identified(mean_norm, fit.C); !id.ok) return failed(fit, std::move(id.why));
  // SPEC §4 / Assumption 1: ||v_0|| = lambda C.
  fit.lambda = mean_norm[0] / fit.C;
  if (!cv_good) return failed(fit, fmt::format("mean_cv is {}, not a finite non-negative number", mean_cv));
  return fit;
}

}  // namespace geoattn::analysis
