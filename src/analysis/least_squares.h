#pragma once
// A small Levenberg-Marquardt for the fits of fits_*.cpp (internal to src/analysis).
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

namespace geoattn::analysis::detail {

// Minimises ||r(x)||^2. `model(x, r, J)` fills the residuals r (m) and the Jacobian J (m x p)
// at x and returns false where x is outside the model's domain (the step is then refused,
// as if it had raised the cost). Marquardt's scaled damping (J^T J + mu diag(J^T J)) dx = -J^T r;
// stops when a step changes the cost by less than 1e-15 of it, or after max_iter steps.
// Returns the best x seen (the start if no step improved it); `cost` (if given) gets ||r||^2.
template <class Model>
Eigen::VectorXd levenberg_marquardt(Model&& model, Eigen::VectorXd x, int max_iter = 200,
                                    double* cost = nullptr) {
  Eigen::VectorXd r, r_try;
  Eigen::MatrixXd J, J_try;
  if (!model(x, r, J)) {
    if (cost) *cost = std::numeric_limits<double>::infinity();
    return x;
  }
  double f = r.squaredNorm(), mu = 1e-3;
  for (int it = 0; it < max_iter; ++it) {
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    for (int tries = 0; tries < 30 && !improved; ++tries) {
      Eigen::MatrixXd damped = A;
      for (Eigen::Index k = 0; k < A.rows(); ++k) damped(k, k) += mu * std::max(A(k, k), 1e-12);
      const Eigen::VectorXd dx = damped.ldlt().solve(-g);
      if (!dx.allFinite()) {
        mu *= 10;
        continue;
      }
      const Eigen::VectorXd x_try = x + dx;
      // A step that rounds back to x gives r(x) again, whose cost is not below f: refused
      // without evaluating the model (the same decision, for less).
      if (x_try != x && model(x_try, r_try, J_try) && r_try.allFinite() && r_try.squaredNorm() < f) {
        const double f_try = r_try.squaredNorm();
        const bool converged = f - f_try <= 1e-15 * f;
        x = x_try, r.swap(r_try), J.swap(J_try), f = f_try;
        mu = std::max(mu / 3, 1e-12);
        improved = true;
        if (converged) it = max_iter;
      } else {
        mu *= 4;
      }
    }
    if (!improved) break;
  }
  if (cost) *cost = f;
  return x;
}

}  // namespace geoattn::analysis::detail
