// Student's t two-sided tail through the regularized incomplete beta function (student_t.h).
#include "geoattn/metrics/stats/student_t.h"

#include <cmath>
#include <limits>

namespace geoattn::metrics {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The continued fraction of I_x(a, b) (modified Lentz), valid for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::abs(d) < kTiny ? kTiny : d);
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    for (const double num : {m * (b - m) * x / ((a + m2 - 1) * (a + m2)), -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))}) {
      d = 1 + num * d;
      d = 1 / (std::abs(d) < kTiny ? kTiny : d);
      c = 1 + num / c;
      c = std::abs(c) < kTiny ? kTiny : c;
      h *= d * c;
    }
    if (std::abs(d * c - 1) < kEps) break;
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function, for x in [0, 1].
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  return x < (a + 1) / (a + b + 2) ? front * beta_fraction(a, b, x) / a : 1 - front * beta_fraction(b, a, 1 - x) / b;
}
}  // namespace

// student_t.h: P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
double student_t_two_sided(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  if (std::isinf(t)) return 0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

// student_t.h: SPEC §2b's Wald test with the bootstrap's standard error.
double wald_p_value(double x, double sd_boot, int64_t units) {
  if (units < 2 || std::isnan(x) || std::isnan(sd_boot)) return kNaN;
  if (x == 0) return 1;
  const double U = static_cast<double>(units), se = sd_boot * std::sqrt(U / (U - 1));
  if (se == 0) return 0;
  return student_t_two_sided(x / se, U - 1);
}

}  // namespace geoattn::metrics
