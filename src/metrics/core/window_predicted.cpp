// One window's predicted envelopes (SPEC §5; window_predicted.h).
#include "geoattn/metrics/core/window_predicted.h"

#include <cmath>
#include <optional>

#include "geoattn/metrics/core/detail/core.h"
#include "geoattn/analysis/bounds.h"
#include "geoattn/arch/config.h"
#include "geoattn/metrics/core/window_bounds.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

PredictFrom PredictFrom::parse(const std::string& text) {
  if (text.empty()) fail("an empty path (none: no predicted envelopes)");
  PredictFrom p;
  p.text_ = text;
  return p;
}

int64_t Prediction::heads_predicted() const {
  int64_t n = 0;
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t h = 0; h < heads; ++h) n += predicts(l, h);
  return n;
}

void add_window_predicted(WorkerPool& pool, const io::FloatView& alpha, std::span<const double> value_norms, int64_t KV,
                          int64_t d, const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                          const LayerWindows& windows, const Prediction& prediction, EnvelopeStats& predicted) {
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2), T = alpha.size(3);
  if (prediction.layers != L || prediction.heads != H)
    fail("the prediction is for {}x{} heads, the window has {}x{}", prediction.layers, prediction.heads, L, H);
  if (predicted.layers() != L || predicted.heads() != H) fail("internal: predicted envelopes of another shape");
  if (std::ssize(value_norms) != L * KV * T) fail("internal: {} value norms for [{}, {}, {}]", value_norms.size(), L, KV, T);
  if (std::ssize(queries) != Q) fail("internal: {} query positions for {} rows", queries.size(), Q);
  struct Sample {
    int64_t qi, l, h;
    QueryKeys keys;
    std::vector<int64_t> valid;
  };
  std::vector<Sample> samples;
  for_each_query_layer(queries, L, grid, windows, [&](int64_t qi, int64_t l, const QueryKeys& keys, const std::vector<int64_t>& valid) {
    for (int64_t h = 0; h < H; ++h)
      if (prediction.predicts(l, h)) samples.push_back({qi, l, h, keys, valid});
  });
  std::vector<analysis::BoundsCurves> curves(samples.size());
  const std::vector<double> kappas = {predicted.kappa()};
  pool.parallel_for(std::ssize(samples), [&](int64_t begin, int64_t end, int) {
    Eigen::MatrixXd rho;  // [n, n]: made again only where n, beta or rho0 change
    double rho_beta = 0, rho_rho0 = 0;
    std::vector<double> row;
    std::vector<int64_t> order;
    for (int64_t s = begin; s < end; ++s) {
      const Sample& x = samples[static_cast<size_t>(s)];
      const int64_t n = x.keys.n, first = x.keys.first;
      const auto i = static_cast<size_t>(x.l * H + x.h);
      const double beta = *prediction.beta[i], rho0 = *prediction.rho0[i];
      if (rho.rows() != n || beta != rho_beta || rho0 != rho_rho0) {
        rho.resize(n, n);
        // SPEC §5: the predicted envelopes' rho is Assumption 2's with the head's fitted beta and rho0.
        analysis::assumption_rho(rho, beta, rho0);
        rho_beta = beta, rho_rho0 = rho0;
      }
      row.resize(static_cast<size_t>(n));
      alpha.to_double(((x.l * H + x.h) * Q + x.qi) * T + first, row);
      order.resize(static_cast<size_t>(n));
      detail::top_n_order(row, order);  // SPEC §2: I_N, as the measured samples select it
      const double* norm = value_norms.data() + (x.l * KV + arch::kv_head_of(x.h, H, KV)) * T + first;
      Eigen::VectorXd a(n);  // [n]
      for (int64_t k = 0; k < n; ++k) a[k] = row[k] * norm[k];  // SPEC §2: a_i = alpha_i ||v_i||, measured
      const analysis::BoundsView view{a, rho, order, d, /*rho_symmetric=*/true, /*rho_finite=*/std::isfinite(rho0) && std::isfinite(beta)};
      curves[static_cast<size_t>(s)] = std::move(analysis::sample_bounds(view, x.valid, kappas)[0]);
    }
  });
  for (size_t s = 0; s < samples.size(); ++s) predicted.add(samples[s].l, samples[s].h, curves[s]);
}

}  // namespace geoattn::metrics
