// The kernels' dispatch (core_kernels.h): each level's table from its own object
// (core_kernels_<level>.cpp), the best the CPU has picked once, and the plain functions calling it.
#include "core_kernels.h"

namespace geoattn::metrics::detail {

namespace baseline { extern const Kernels kernels; }
#if GEOATTN_KERNEL_LEVELS
namespace avx2 { extern const Kernels kernels; }
namespace avx512 { extern const Kernels kernels; }
#endif

const char* simd_level_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::Baseline: return "baseline";
    case SimdLevel::Avx2: return "avx2";
    case SimdLevel::Avx512: return "avx512";
  }
  return "?";
}

const Kernels* kernels_of(SimdLevel level) {
  switch (level) {
    case SimdLevel::Baseline: return &baseline::kernels;
#if GEOATTN_KERNEL_LEVELS
    case SimdLevel::Avx2: return __builtin_cpu_supports("x86-64-v3") ? &avx2::kernels : nullptr;
    case SimdLevel::Avx512: return __builtin_cpu_supports("x86-64-v4") ? &avx512::kernels : nullptr;
#else
    default: return nullptr;
#endif
  }
  return nullptr;
}

SimdLevel best_simd_level() {
  static const SimdLevel best = [] {
    for (SimdLevel level : {SimdLevel::Avx512, SimdLevel::Avx2})
      if (kernels_of(level)) return level;
    return SimdLevel::Baseline;
  }();
  return best;
}

namespace {
const Kernels& best() {
  static const Kernels& k = *kernels_of(best_simd_level());
  return k;
}
}  // namespace

void add_row(double a, std::span<const double> x, std::span<double> c) { best().add_row(a, x, c); }
void add_rows(const StepRows& rows, std::span<double> c) { best().add_rows(rows, c); }
BandCounts band_counts(std::span<const double> E, std::span<const double> m, int64_t N, const Thresholds& thresholds) {
  return best().band_counts(E, m, N, thresholds);
}
Extremes add_row_and_evaluate(const StepRow& row, const TokenState& tokens, std::span<double> c, std::span<double> E) {
  return best().add_row_and_evaluate(row, tokens, c, E);
}
EvaluatedAndCounted add_row_evaluate_and_count(const StepRow& row, const TokenState& tokens, std::span<const double> c,
                                               std::span<double> c_new, const Thresholds& thresholds, int64_t N_prev,
                                               int64_t t) {
  return best().add_row_evaluate_and_count(row, tokens, c, c_new, thresholds, N_prev, t);
}
void evaluate(const TokenState& tokens, std::span<const double> c, std::span<double> E) { best().evaluate(tokens, c, E); }
BandCounts token_band_counts(std::span<const double> E, std::span<const double> a, std::span<const double> m, int64_t N,
                             double S, double factor, std::span<double> err) {
  return best().token_band_counts(E, a, m, N, S, factor, err);
}
double dot(std::span<const double> x, std::span<const double> y) { return best().dot(x, y); }
double distance_to_scaled(std::span<const double> x, double a, std::span<const double> y) {
  return best().distance_to_scaled(x, a, y);
}
int64_t range_of(const double* xs, int64_t m, double* lo, double* hi) { return best().range_of(xs, m, lo, hi); }
void replicate_tile(const double* W, int64_t ldw, const double* X, int64_t ldx, int64_t U, double* R, int64_t ldr) {
  best().replicate_tile(W, ldw, X, ldx, U, R, ldr);
}

}  // namespace geoattn::metrics::detail
