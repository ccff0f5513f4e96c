#include "geoattn/metrics/finalize/head_fits.h"

#include <algorithm>
#include <cmath>

#include "geoattn/util/nan.h"
#include "geoattn/util/progress.h"

namespace geoattn::metrics {

namespace {
HeadFits fit_head(const AssumptionStats& stats, int64_t l, int64_t h) {
  HeadFits f;
  f.windows = stats.windows(l, h);
  // SPEC §4, Assumption 1: C, lambda, cv.
  f.mean_norm = stats.mean_norm(l, h);
  f.norms = analysis::fit_norms(f.mean_norm, stats.mean_cv(l, h));
  // SPEC §4, Assumption 2: c(k) = exp(-beta k), over the lags that had pairs (k <= T - 2; K may
  // reach past them).
  f.c = stats.decay(l, h);
  const auto defined = std::find_if(f.c.begin(), f.c.end(), [](double x) { return !std::isfinite(x); });
  f.decay = analysis::fit_decay(std::vector<double>(f.c.begin(), defined));
  // SPEC §4, Assumption 3: the four-phase profile of the mean attention row.
  f.mean_row = stats.mean_row(l, h);
  f.profile = analysis::fit_profile(f.mean_row);
  // SPEC §1: a windowed layer's last query has n < T tokens; positions n..T-1 are none of its
  // tokens (NaN: null in the JSON), so every head's arrays stay [T].
  f.mean_norm.resize(static_cast<size_t>(stats.T()), kNaN);
  f.mean_row.resize(static_cast<size_t>(stats.T()), kNaN);
  return f;
}
}  // namespace

std::vector<HeadFits> fit_heads(WorkerPool& pool, const AssumptionStats& stats, bool quiet) {
  const int64_t n = stats.layers() * stats.heads();
  std::vector<HeadFits> out(static_cast<size_t>(n));
  ItemProgress progress("fits", n, quiet);
  // The heads' fits iterate for as long as their rows need: one head at a time to each worker.
  pool.for_each_item(n, [&](int64_t i, int worker) {
    out[i] = fit_head(stats, i / stats.heads(), i % stats.heads());
    progress.done(worker);
  });
  progress.finish();
  return out;
}

}  // namespace geoattn::metrics
