#pragma once
// The resamples of SPEC §2b's bootstrap, internal to src/metrics: shared by the metric
// bootstrap (bootstrap.cpp) and the kappa range's (kappa_range.cpp), so both resample the same
// documents in every replicate.
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "geoattn/metrics/finalize/bootstrap.h"

namespace geoattn::metrics::detail {

struct Resamples {
  std::vector<int64_t> order;  // the units in the order of their ids
  Eigen::MatrixXd W;           // [replicates, U]: how often replicate b drew the i-th of them
};
// Replicate b draws U units uniformly with a portable generator seeded by (seed, b).
Resamples resamples(const std::vector<std::string>& ids, int64_t replicates, uint64_t seed);

// R = W X, each sum in the order of the units (bootstrap.cpp's tiles).
Eigen::MatrixXd replicate_sums(const Eigen::MatrixXd& W, const Eigen::MatrixXd& X);

// The percentiles p of the finite values of xs (NaN, NaN with none), linear between order
// statistics (numpy's default).
Interval percentile_interval(std::vector<double> xs, Percentiles p);

}  // namespace geoattn::metrics::detail
