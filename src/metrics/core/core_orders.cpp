// The metric core's orderings and curves (core.h), in plain C++: the top-N order, the control's
// random permutations, and the curves P, R, F (and their control) from the ball counts.
#include <algorithm>
#include <numeric>

#include "geoattn/metrics/core/detail/core.h"
#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/util/random.h"

namespace geoattn::metrics::detail {

void curves_from_counts(const CoreOut& out, const std::vector<int64_t>& grid, int64_t s0, int64_t s1, double* curves,
                        int64_t sample_stride, int64_t metric_stride) {
  const int64_t O = out.O, G = out.G, M = metric_stride;
  for (int64_t s = s0; s < s1; ++s) {
    double* c = curves + (s - s0) * sample_stride;  // [kCurveMetrics, M], the first G of each curve
    for (int k = 0; k < kControlled; ++k) {
      const int metric = kP_rmax + k;
      // SPEC §2: P(r_max, N) = N / (N + K_out), R(r_min, N) = K_in / N, F = 2x / (1 + x).
      const auto curve = [&](int64_t o, int64_t g) {
        const double N = static_cast<double>(grid[g]), k_in = out.k_in[(s * O + o) * G + g];
        const double k_out = out.k_out[(s * O + o) * G + g];
        double x = metric == kP_rmax || metric == kF_rmax ? N / (N + k_out) : k_in / N;
        if (metric == kF_rmax || metric == kF_rmin) x = 2 * x / (1 + x);
        return x;
      };
      for (int64_t g = 0; g < G; ++g) c[metric * M + g] = curve(0, g);
      // SPEC §2b: the control is each sample's mean over its random orderings, summed in order.
      if (O > 1)
        for (int64_t g = 0; g < G; ++g) {
          double sum = 0;
          for (int64_t o = 1; o < O; ++o) sum += curve(o, g);
          c[(kFirstOptionalCurve + k) * M + g] = sum / static_cast<double>(O - 1);
        }
    }
    for (int m = 0; m < kDiagnostics; ++m)
      std::copy_n(out.diag.begin() + (s * kDiagnostics + m) * G, G, c + (kS_norm + m) * M);
  }
}

void top_n_order(std::span<const double> alpha, std::span<int64_t> order) {
  std::iota(order.begin(), order.end(), int64_t{0});
  // Stable descending: equal alphas keep position order, the lower position first (SPEC §2).
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return alpha[a] > alpha[b]; });
}

void random_orders(WorkerPool& pool, uint64_t seed, uint64_t key, int64_t R, int64_t B, int64_t n, int64_t* out,
                   int64_t r_stride, int64_t b_stride) {
  // Each (r, b) has its own stream: the permutations do not depend on the thread count.
  pool.parallel_for(R * B, [&](int64_t begin, int64_t end, int) {
    for (int64_t rb = begin; rb < end; ++rb) {
      uint64_t mix = seed ^ 0x6A09E667F3BCC909ULL;
      uint64_t state = splitmix64_next(mix) ^ key;
      state = splitmix64_next(state) ^ static_cast<uint64_t>(rb);
      int64_t* perm = out + (rb / B) * r_stride + (rb % B) * b_stride;
      for (int64_t i = 0; i < n; ++i) perm[i] = i;
      for (int64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[uniform_below(state, static_cast<uint64_t>(i + 1))]);
    }
  });
}

}  // namespace geoattn::metrics::detail
