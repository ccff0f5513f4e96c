// The closed-form (T1, T2) searches of fit_profile (SPEC §4, paper Assumption 3).
// Phases over the fitted positions i >= 1: plateau [1, T1], oscillation [T1+1, T2],
// growth [T2+1, T-1]. Model in logs: P on the plateau, P + log(1 + eta cos(omega i)) in the
// oscillation, P + eta (i - T2) in the growth.
#include <cmath>

#include "geoattn/analysis/fits.h"
#include "profile_scan.h"

namespace geoattn::analysis::detail {

BaseSums::BaseSums(const LogRow& row) : W(row.T()), Y(row.T()), YY(row.T()), I(row.T()), II(row.T()), IY(row.T()) {
  const int64_t T = row.T();
  for (int64_t i = 0; i < T; ++i) {
    const double w = row.w[static_cast<size_t>(i)], y = w > 0 ? row.y[static_cast<size_t>(i)] : 0.0;
    const double x = static_cast<double>(i);
    W.set(i, w), Y.set(i, w * y), YY.set(i, w * y * y), I.set(i, w * x), II.set(i, w * x * x), IY.set(i, w * x * y);
  }
  n = W.range(0, T - 1), sy = Y.range(0, T - 1), syy = YY.range(0, T - 1);
}

namespace {
void keep_best(Phases& best, const Phases& c) {
  if (!best.found || c.sse < best.sse) best = c;
}

// cos(omega i), i = 0..T-1, by the Chebyshev recurrence cos((i+1)w) = 2 cos(w) cos(iw) -
// cos((i-1)w), restarted from std::cos every 64 positions (its rounding grows with i).
std::vector<double> cosines(double omega, int64_t T) {
  std::vector<double> c(static_cast<size_t>(T));
  const double two_cos = 2 * std::cos(omega);
  for (int64_t i = 0; i < T; ++i) {
    if (i % 64 < 2) {
      c[static_cast<size_t>(i)] = std::cos(omega * static_cast<double>(i));
    } else {
      c[static_cast<size_t>(i)] = two_cos * c[static_cast<size_t>(i - 1)] - c[static_cast<size_t>(i - 2)];
    }
  }
  return c;
}
}  // namespace

Phases scan_linearised(const LogRow& row, const BaseSums& b, double omega, const std::vector<int64_t>& t1,
                       const std::vector<int64_t>& t2) {
  const int64_t T = row.T();
  // Regressor g_i = cos(omega i) in the oscillation (linearised log(1 + eta cos(omega i))).
  Prefix G(T), GG(T), GY(T);
  const std::vector<double> g_all = cosines(omega, T);
  for (int64_t i = 0; i < T; ++i) {
    const double w = row.w[static_cast<size_t>(i)], y = w > 0 ? row.y[static_cast<size_t>(i)] : 0.0;
    const double g = g_all[static_cast<size_t>(i)];
    G.set(i, w * g), GG.set(i, w * g * g), GY.set(i, w * g * y);
  }
  const double syy_c = b.syy - b.sy * b.sy / b.n;
  Phases best;
  for (int64_t T1 : t1) {
    for (int64_t T2 : t2) {
      if (T2 < T1) continue;
      // fits.h: only an oscillation that can be identified.
      if (T2 > T1 && !oscillation_identified(std::llround(b.W.range(T1 + 1, T2)), T2 - T1, omega)) continue;
      const double t2d = static_cast<double>(T2), rw = b.W.range(T2 + 1, T - 1);
      const double ri = b.I.range(T2 + 1, T - 1);
      // Regressor g_i = i - T2 in the growth phase: its sums from those of i, i^2, i y.
      const double sg = G.range(T1 + 1, T2) + ri - t2d * rw;
      const double sgg = GG.range(T1 + 1, T2) + b.II.range(T2 + 1, T - 1) - 2 * t2d * ri + t2d * t2d * rw;
      const double sgy = GY.range(T1 + 1, T2) + b.IY.range(T2 + 1, T - 1) - t2d * b.Y.range(T2 + 1, T - 1);
      // Ordinary least squares of y on (1, g): eta = Sxy / Sxx, SSE = Syy - eta Sxy (centred sums).
      const double sxx = sgg - sg * sg / b.n, sxy = sgy - sg * b.sy / b.n;
      Phases p{T1, T2, 0, 0, syy_c, true};
      if (sxx > 1e-12 * (1 + sgg)) p.eta = sxy / sxx, p.sse = syy_c - p.eta * sxy;
      if (T2 > T1 && std::abs(p.eta) >= 1) continue;
      p.P = (b.sy - p.eta * sg) / b.n;
      keep_best(best, p);
    }
  }
  return best;
}

Phases scan_plateau_growth(const LogRow& row, const BaseSums& b) {
  const int64_t T = row.T();
  const double syy_c = b.syy - b.sy * b.sy / b.n;
  Phases best;
  for (int64_t t = 0; t < T; ++t) {
    // The regressor g_i = i - t on the growth, 0 on the plateau (scan_linearised with T1 = T2 = t).
    const double td = static_cast<double>(t), rw = b.W.range(t + 1, T - 1), ri = b.I.range(t + 1, T - 1);
    const double sg = ri - td * rw, sgg = b.II.range(t + 1, T - 1) - 2 * td * ri + td * td * rw;
    const double sgy = b.IY.range(t + 1, T - 1) - td * b.Y.range(t + 1, T - 1);
    const double sxx = sgg - sg * sg / b.n, sxy = sgy - sg * b.sy / b.n;
    Phases p{t, t, 0, 0, syy_c, true};
    if (sxx > 1e-12 * (1 + sgg)) p.eta = sxy / sxx, p.sse = syy_c - p.eta * sxy;
    p.P = (b.sy - p.eta * sg) / b.n;
    keep_best(best, p);
  }
  return best;
}

Phases scan_exact(const LogRow& row, const BaseSums& b, double eta, double omega, const std::vector<int64_t>& t1,
                  const std::vector<int64_t>& t2) {
  const int64_t T = row.T();
  const bool osc_allowed = std::abs(eta) < 1;
  // e_i = y_i - log(1 + eta cos(omega i)) (oscillation), z_i = y_i - eta i (growth, before + eta T2).
  Prefix E(T), EE(T), Z(T), ZZ(T);
  const std::vector<double> g_all = cosines(omega, T);
  for (int64_t i = 0; i < T; ++i) {
    const double w = row.w[static_cast<size_t>(i)], y = w > 0 ? row.y[static_cast<size_t>(i)] : 0.0;
    const double x = static_cast<double>(i);
    const double e = osc_allowed ? y - std::log1p(eta * g_all[static_cast<size_t>(i)]) : 0.0, z = y - eta * x;
    E.set(i, w * e), EE.set(i, w * e * e), Z.set(i, w * z), ZZ.set(i, w * z * z);
  }
  Phases best;
  for (int64_t T1 : t1) {
    for (int64_t T2 : t2) {
      if (T2 < T1) continue;
      if (T2 > T1 && !osc_allowed) break;
      // fits.h: only an oscillation that can be identified.
      if (T2 > T1 && !oscillation_identified(std::llround(b.W.range(T1 + 1, T2)), T2 - T1, omega)) continue;
      const double t2d = static_cast<double>(T2), rw = b.W.range(T2 + 1, T - 1), rz = Z.range(T2 + 1, T - 1);
      // Residuals before P: y (plateau), e (oscillation), z + eta T2 (growth); P = their mean.
      const double sr = b.Y.range(1, T1) + E.range(T1 + 1, T2) + rz + eta * t2d * rw;
      const double srr = b.YY.range(1, T1) + EE.range(T1 + 1, T2) + ZZ.range(T2 + 1, T - 1) + 2 * eta * t2d * rz +
                         eta * eta * t2d * t2d * rw;
      keep_best(best, Phases{T1, T2, sr / b.n, eta, srr - sr * sr / b.n, true});
    }
  }
  return best;
}

}  // namespace geoattn::analysis::detail
