#pragma once
// Student's t distribution's two-sided tail, for the Wald tests of SPEC §2b (the taxonomy's slope
// tests, SPEC §6). Pure C++.
#include <cstdint>

namespace geoattn::metrics {

// P(|T| >= |t|) for T with `df` > 0 degrees of freedom: the regularized incomplete beta
// I_{df / (df + t^2)}(df / 2, 1 / 2) (its continued fraction, to about 1e-14); NaN for a NaN t
// or df <= 0.
double student_t_two_sided(double t, double df);

// SPEC §2b: the two-sided p-value of "x = 0" for an estimate `x` whose bootstrap replicates over
// `units` documents have standard deviation `sd_boot`: the Wald statistic t = x / (sd_boot
// sqrt(U / (U - 1))) (the plug-in variance the bootstrap reproduces, put on the unbiased scale)
// against Student's t with U - 1 degrees of freedom. NaN with fewer than 2 units or a NaN input;
// 1 where x = 0, 0 where sd_boot = 0 and x != 0.
double wald_p_value(double x, double sd_boot, int64_t units);

}  // namespace geoattn::metrics
