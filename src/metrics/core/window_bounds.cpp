// One window's per-sample bounds (SPEC §5) into the run's envelopes (window_bounds.h).
#include "geoattn/metrics/core/window_bounds.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "sample_bounds_hook.h"
#include "geoattn/arch/config.h"
#include "geoattn/util/error.h"
#include "geoattn/util/n_grid.h"
#include "geoattn/util/target_clones.h"

namespace geoattn::metrics {

std::vector<double> window_kappas(const EnvelopeStats& envelopes, const KappaStats* scan, int64_t L, int64_t H, int64_t Q,
                                  const std::vector<int64_t>& queries) {
  if (envelopes.layers() != L || envelopes.heads() != H)
    fail("envelopes are {}x{}, the window {}x{}", envelopes.layers(), envelopes.heads(), L, H);
  if (std::ssize(queries) != Q) fail("internal: {} query positions for {} rows", queries.size(), Q);
  if (scan && (scan->layers() != L || scan->heads() != H)) fail("kappa stats are {}x{}, the window {}x{}", scan->layers(), scan->heads(), L, H);
  return bound_kappas(envelopes, scan);
}

std::vector<double> bound_kappas(const EnvelopeStats& envelopes, const KappaStats* scan) {
  if (envelopes.empty()) return {};
  std::vector<double> kappas = {envelopes.kappa()};
  if (scan) kappas.insert(kappas.end(), scan->kappas().begin(), scan->kappas().end());
  return kappas;
}

void add_sample_bounds(const WindowSampleBounds& bounds, EnvelopeStats& envelopes, KappaStats* scan, int64_t scan_row) {
  for (size_t i = 0; i < bounds.curves.size(); ++i) {
    const auto& curves = bounds.curves[i];
    if (curves.empty()) continue;
    const int64_t h = static_cast<int64_t>(i) % bounds.H, l = static_cast<int64_t>(i) / bounds.H % bounds.L;
    envelopes.add(l, h, curves[0]);
    if (scan) scan->add(scan_row, l, h, std::span<const analysis::BoundsCurves>(curves).subspan(1));
  }
}

namespace {
// G_k *= s inv_k over k < T: row j of SPEC §5's rho_jk = G_jk (1/||v_j|| 1/||v_k||), s = 1/||v_j||.
GEOATTN_CLONES void scale_row(double* G, const double* inv, double s, int64_t T) {
  for (int64_t k = 0; k < T; ++k) G[k] *= s * inv[k];
}

// Whether a sample of n tokens with `valid` grid values takes rho from unit vectors (the block's
// norms all finite) rather than from the Gram matrix.
bool from_units(const std::vector<int64_t>& valid, int64_t n, int64_t d, bool finite) {
  return finite && detail::per_grid_value_cheaper(std::ssize(valid), d, n);
}

bool all_finite(std::span<const double> x) {
  return std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
}

// The block's unit vectors u_k = v_k / ||v_k|| (0 for a zero vector), as rows [T, d] and columns
// [d, T]: SPEC §5's rho_jk = cos(v_j, v_k) = <u_j, u_k>.
struct BlockUnits {
  std::vector<double> rows, cols;
  BlockUnits(const detail::BlockGram& g, int64_t T) : rows(static_cast<size_t>(T * g.d)), cols(rows.size()) {
    for (int64_t k = 0; k < T; ++k)
      for (int64_t m = 0; m < g.d; ++m) {
        const double x = g.norms[k] > 0 ? g.values[k * g.d + m] / g.norms[k] : 0.0;
        rows[static_cast<size_t>(k * g.d + m)] = x, cols[static_cast<size_t>(m * T + k)] = x;
      }
  }
  // From token `first` on (SPEC §1: a windowed layer's visible keys).
  analysis::UnitVectors from(int64_t first, int64_t d, int64_t T) const {
    return {rows.data() + first * d, cols.data() + first, T};
  }
};
}  // namespace

namespace detail {
BlockHook sample_bounds_hook(const io::FloatView& alpha, const std::vector<int64_t>& queries, const std::vector<int64_t>& grid,
                             const LayerWindows& windows, const std::vector<double>& kappas, int64_t KV,
                             const std::vector<SampleRow>& rows, WindowSampleBounds& out) {
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2), T = alpha.size(3);
  if (!rows.empty() && std::ssize(rows) != Q * L * H) fail("internal: {} sample rows for {} samples", rows.size(), Q * L * H);
  out = {L, H, std::vector<std::vector<analysis::BoundsCurves>>(static_cast<size_t>(Q * L * H))};
  BlockHook hook;
  // The Gram matrix where some sample of the block takes rho from it.
  hook.needs_gram = [&queries, &grid, &windows, KV, Q](int64_t b, int64_t d, std::span<const double> norms) {
    const bool finite = all_finite(norms);
    for (int64_t qi = 0; qi < Q; ++qi) {
      const QueryKeys keys = windows.keys(queries[qi], b / KV);
      const std::vector<int64_t> valid = valid_grid(grid, keys);
      if (!valid.empty() && !from_units(valid, keys.n, d, finite)) return true;
    }
    return false;
  };
  hook.run = [&alpha, &queries, &grid, &windows, &kappas, &rows, &out, KV, L, H, Q, T](int64_t b, const BlockGram& g) {
    const int64_t l = b / KV, kv = b % KV, ld = g.ld;
    const bool finite = all_finite(g.norms);
    bool tame = true;
    for (int64_t j = 0; j < T; ++j) {
      const double x = g.norms[j];
      tame &= x == 0 || (x > 1e-150 && x < 1e150);  // false for NaN and inf
    }
    if (g.gram) {
      // SPEC §5's rho_jk = cos(v_j, v_k) = G_jk / (||v_j|| ||v_k||), in place, 0 with a zero vector
      // (SPEC §3's convention). G_jk (1/||v_j|| 1/||v_k||): the same for rho_kj, so a symmetric
      // matrix stays so, where the norms keep that product finite; else (G_jk / ||v_j||) / ||v_k||,
      // each step finite (|G_jk| <= ||v_j|| ||v_k||), and read as not symmetric.
      std::vector<double> inv(static_cast<size_t>(T));
      for (int64_t j = 0; j < T; ++j) inv[j] = g.norms[j] > 0 ? 1 / g.norms[j] : 0;
      for (int64_t j = 0; j < T; ++j) {
        double* G = g.gram + j * ld;
        if (tame)
          scale_row(G, inv.data(), inv[j], T);
        else
          for (int64_t k = 0; k < T; ++k) G[k] = G[k] * inv[j] * inv[k];
      }
    }
    std::optional<BlockUnits> units;  // made at the first sample that reads them
    std::vector<double> row;
    std::vector<int64_t> order;
    for (int64_t qi = 0; qi < Q; ++qi) {
      const QueryKeys keys = windows.keys(queries[qi], l);  // SPEC §1: tokens first..q
      const std::vector<int64_t> valid = valid_grid(grid, keys);
      if (valid.empty()) continue;
      const int64_t n = keys.n, first = keys.first;
      const bool by_units = from_units(valid, n, g.d, finite);
      if (by_units && !units) units.emplace(g, T);
      const Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> rho(
          by_units ? nullptr : g.gram + first * ld + first, by_units ? 0 : n, by_units ? 0 : n, Eigen::OuterStride<>(ld));
      for (int64_t h = 0; h < H; ++h) {
        if (arch::kv_head_of(h, H, KV) != kv) continue;
        const auto sample = static_cast<size_t>((qi * L + l) * H + h);
        const SampleRow made = rows.empty() ? SampleRow{} : rows[sample];
        const double* alpha_row = made.alpha;
        const int64_t* top = made.order;
        if (!alpha_row) {
          row.resize(static_cast<size_t>(n));
          alpha.to_double(((l * H + h) * Q + qi) * T + first, row);
          order.resize(static_cast<size_t>(n));
          top_n_order(row, order);
          alpha_row = row.data(), top = order.data();
        }
        Eigen::VectorXd a(n);  // [n]
        for (int64_t i = 0; i < n; ++i) a[i] = alpha_row[i] * g.norms[first + i];  // a_i = alpha_i ||v_i||
        const analysis::UnitVectors u = by_units ? units->from(first, g.d, T) : analysis::UnitVectors{};
        out.curves[sample] = analysis::sample_bounds(
            {a, rho, {top, static_cast<size_t>(n)}, g.d, g.symmetric && tame, finite, u}, valid, kappas);
      }
    }
  };
  return hook;
}
}  // namespace detail

void add_window_bounds(WorkerPool& pool, const io::FloatView& alpha, const io::FloatView& values,
                       const std::vector<int64_t>& queries, const std::vector<int64_t>& grid, const LayerWindows& windows,
                       EnvelopeStats& envelopes, KappaStats* scan, int64_t scan_row) {
  const int64_t L = alpha.size(0), H = alpha.size(1), Q = alpha.size(2), T = alpha.size(3);
  const int64_t KV = values.size(1), d = values.size(3);
  // One pass over each sample for all the kappas.
  const std::vector<double> kappas = window_kappas(envelopes, scan, L, H, Q, queries);
  WindowSampleBounds bounds;
  // The value blocks' Gram matrices as the metric core makes them, with no ordering to run.
  detail::core_cpu(pool, io::FloatView{values.data, values.dtype, {L * KV, T, d}}, {}, Distance::Euclidean, 0, nullptr,
                   nullptr, detail::sample_bounds_hook(alpha, queries, grid, windows, kappas, KV, {}, bounds));
  add_sample_bounds(bounds, envelopes, scan, scan_row);
}

}  // namespace geoattn::metrics
