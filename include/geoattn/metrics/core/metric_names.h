#pragma once
// The per-sample quantities geoattn aggregates, in one table: their JSON names and whether
// they are curves over the N grid or one number per sample. Pure C++.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace geoattn::metrics {

// Curves over the N grid (SPEC §2, §3).
enum CurveMetric : int {
  kP_rmax,      // P(r_max, N)
  kR_rmin,      // R(r_min, N)
  kF_rmax,      // 2P/(1+P)
  kF_rmin,      // 2R/(1+R)
  kS_norm,      // ||s(N)||
  kS_loo_sink,  // ||s(N) - y_0 [0 in I_N]||
  kS_loo_last,  // ||s(N) - y_L [L in I_N]||
  kCos_s_v0,    // cos(s(N), v_0)
  kCos_s_vL,    // cos(s(N), v_L)
  // SPEC §2b, the random-selection control: the same four metrics with I_N the first N of a
  // random permutation, averaged over the sample's permutations. Optional: NaN when the run
  // has no controls (--controls 0), and then absent from the JSON.
  kP_rmax_random,
  kR_rmin_random,
  kF_rmax_random,
  kF_rmin_random,
  kCurveMetrics
};
constexpr int kFirstOptionalCurve = kP_rmax_random;
constexpr std::array<std::string_view, kCurveMetrics> kCurveNames = {
    "P_rmax",   "R_rmin",     "F_rmax",     "F_rmin",        "s_norm",        "s_loo_sink",
    "s_loo_last", "cos_s_v0", "cos_s_vL",   "P_rmax_random", "R_rmin_random", "F_rmax_random",
    "F_rmin_random"};
// The control of each of the first four curves: kP_rmax + k <-> kP_rmax_random + k.
constexpr int kControlled = 4;

// One number per sample (SPEC §3, §6).
enum ScalarMetric : int {
  kRho0,   // mean_j cos(v_0, v_j)
  kC_sink, // ||alpha_0 v_0||
  kC_last, // ||alpha_L v_L||
  kC_rest, // ||sum_{0<i<L} alpha_i v_i||
  kScalarMetrics
};
constexpr std::array<std::string_view, kScalarMetrics> kScalarNames = {"rho0", "c_sink", "c_last", "c_rest"};

// One sample's numbers as the metric core hands them on: the curves row-major
// [kCurveMetrics][G] over the N grid, defined at the grid indices g < n_valid (grid values above
// q + 1 are skipped for a query q, SPEC §2; the random-control curves are NaN without
// controls), and the scalars.
struct SampleValues {
  std::span<const double> curves;  // [kCurveMetrics * G]
  int64_t n_valid = 0;
  std::span<const double, kScalarMetrics> scalars;
  int64_t grid_size() const { return static_cast<int64_t>(curves.size()) / kCurveMetrics; }
};

}  // namespace geoattn::metrics
