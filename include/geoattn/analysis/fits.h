#pragma once
// The three assumptions of the paper fitted to measured curves (SPEC §4; paper
// sect. 3.1-3.3, Assumptions 1-3). Pure C++ (Eigen only, no LibTorch).
//
// Every fit returns a FitStatus. When status.ok is false, status.why is one sentence saying
// what is wrong with the input, and every reported number is still finite: the parts that
// could be estimated, 0 for the rest (each function says which). No fit ever throws on bad
// data; there is nothing for a caller to catch.
//
// SPEC §4: a fit is ok only where its parameters are identified by the data. Each fit has one
// identifiability test, defined here once (a function and its sentence, kFitTests), applied
// inside the fit: a fit that fails it has ok = false and a `why` naming the test and its numbers.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace geoattn::analysis {

struct FitStatus {
  bool ok = true;
  std::string why;  // one sentence when !ok, empty otherwise
  // false when !ok only because the data does not identify the parameters (the fit's test,
  // kFitTests): the assumption is not shown to fail, its parameters are just not pinned down.
  bool identified = true;
};

// The identifiability tests of the three fits, one sentence each (the result states them:
// report/fits_json.h fit_tests_json). The functions below apply them.
struct FitTest {
  std::string_view fit;       // "norms", "decay", "profile"
  std::string_view sentence;  // the test, as the result states it
};
// decay: the band around beta that its profile interval must lie in (a factor each way), and
// the resolution of c(k): float32 inputs fix a cosine to about their epsilon 2^-23 (two builds'
// forwards differ in the 8th digit), so the noise sigma of c(k) is taken to be at least that.
constexpr double kDecayBand = 2.0;
constexpr double kDecayResolution = 1.0 / (1 << 23);
// profile: the fewest fitted positions an oscillation phase needs to identify omega and eta.
constexpr int64_t kMinOscillation = 8;
inline constexpr std::array<FitTest, 3> kFitTests = {{
    {"norms", "C and lambda are identified when every mean norm is finite and >= 0 and the median C of the norms "
              "after the sink is > 0."},
    {"decay", "beta is identified when every beta' in [0, 50] with SSE(beta') <= SSE(beta) + sigma^2, the "
              "least-squares minimum plus the noise sigma^2 = max(SSE(beta) / (K-1), 2^-46) (the residual variance, "
              "at least float32's resolution of a cosine squared), lies within a factor 2 of beta; a c(k) within its "
              "own noise of 0 at every lag fails it."},
    {"profile", "omega and eta are identified when the oscillation phase T1 < i <= T2 is empty (T1 = T2: no "
                "oscillation, omega = 0) or holds at least 8 fitted positions and a full period, T2 - T1 >= "
                "2 pi / omega."},
}};

// Assumption 1 (paper sect. 3.1, SPEC §4): ||v_i|| = C for i > 0, ||v_0|| = lambda C.
struct NormFit {
  double C = 0;       // median over i > 0 of mean_norm[i]
  double lambda = 0;  // mean_norm[0] / C
  double cv = 0;      // mean_cv, passed through (the caller averages the per-window cv)
  FitStatus status;
};
// mean_norm[i] = mean ||v_i|| over windows at position i (i = 0..T-1); mean_cv = the
// per-window std/mean of ||v_i||, i > 0, already averaged by the caller.
// !ok: fewer than 2 positions, a non-finite or negative entry, C = 0 (norms_identified), or a
// non-finite or negative mean_cv; then C, lambda, cv hold whatever was computable and 0 otherwise.
NormFit fit_norms(const std::vector<double>& mean_norm, double mean_cv);
// kFitTests' norms test on a curve of >= 2 positions and its median C: ok, or why not.
FitStatus norms_identified(const std::vector<double>& mean_norm, double C);

// Assumption 2 (paper sect. 3.2, SPEC §4): c(k) = exp(-beta k).
struct DecayFit {
  double beta = 0;  // the nonlinear least-squares minimiser of sum_k (c(k) - exp(-beta k))^2, beta >= 0
  double mae = 0;   // mean_k |c(k) - exp(-beta k)|
  FitStatus status;
};
// The largest beta the fit reports: exp(-kBetaMax) is about 2e-22, "no similarity at k = 1".
constexpr double kBetaMax = 50.0;
// c[k-1] = c(k), k = 1..K. The minimiser is found on a log-spaced grid over [1e-6, kBetaMax]
// (plus beta = 0), then polished by Newton/Gauss-Newton steps.
// !ok: K < 2 or a non-finite entry (beta = mae = 0); c constant in k (no decay to fit; beta
// and mae are still the least-squares values); the optimum at an edge: beta = 0 (c(k)
// does not fall) or beta = kBetaMax (c(k) <= 0 everywhere), reported at that edge; or beta not
// identified (decay_identified; beta and mae are still the least-squares values).
DecayFit fit_decay(const std::vector<double>& c);
// kFitTests' decay test of the least-squares beta of c (K >= 2, finite): ok, or why not. The
// set {beta' : SSE(beta') <= SSE(beta) + sigma^2} is searched at beta / kDecayBand,
// beta kDecayBand, 0, kBetaMax and 2000 log-spaced points of [1e-6, kBetaMax].
FitStatus decay_identified(const std::vector<double>& c, double beta);

// Assumption 3 (paper sect. 3.3, SPEC §4), position i = 0..T-1:
//   alpha_0 = p_sink
//   alpha_i = p_base                           1 <= i <= T1
//   alpha_i = p_base (1 + eta cos(omega i))    T1 < i <= T2
//   alpha_i = p_base exp(eta (i - T2))         i > T2
// eta is shared by the oscillation and the growth, as in the paper. 0 <= T1 <= T2 <= T-1
// (T1 = 0: no plateau, T1 = T2: no oscillation, T2 = T-1: no growth).
struct ProfileFit {
  double p_sink = 0, p_base = 0, eta = 0, omega = 0;  // omega in [0, pi]; 0 when T1 = T2
  int64_t T1 = 0, T2 = 0;
  // The fit error: RMSE of log(mean_row[i]) - log(model_i) over the positions 1..T-1 that
  // entered the fit (p_sink = mean_row[0] exactly, so position 0 has no error).
  double error = 0;
  int64_t skipped = 0;  // positions i >= 1 left out of the fit because mean_row[i] == 0
  FitStatus status;
};
// mean_row[i] = the mean attention probability at position i (length T).
// The fit: p_sink = mean_row[0]; the rest by least squares on log-probabilities over
// i = 1..T-1 (zero entries are skipped: sliding-window models), with log(1 + eta cos)
// linearised to eta cos in stages 1-2 so that (log p_base, eta) is a closed form: (1) candidate
// omegas: the six highest peaks of the periodogram (one FFT, 2T frequencies in (0, pi]) of the
// residuals that the fit without oscillation (plateau then growth) leaves before its T2;
// (2) at each candidate, (T1, T2) coarse to fine: a lattice of step ceil(T/64), then every
// pair within one step of its best (and T1 = T2 at every position); (3) alternating until
// (T1, T2) stop moving: Levenberg-Marquardt on (log p_base, eta, omega) with the exact model
// at fixed (T1, T2), then (T1, T2) coarse to fine with the exact model at fixed (eta, omega)
// and log p_base in closed form. About 2 ms at T = 1024.
// |eta| < 1 whenever the oscillation phase is non-empty (probabilities stay positive).
// !ok: T < 4, a non-finite or negative entry, fewer than 4 positive entries at i >= 1, or
// positions 1..T-1 constant (eta, omega, T1, T2 are not identifiable). Then p_sink =
// mean_row[0] and p_base = the mean of the positive entries at i >= 1 where those are
// finite (0 otherwise), eta = omega = 0, T1 = T2 = max(T-1, 0), error = 0 unless computable.
// The searches consider only oscillations that pass oscillation_identified at the candidate
// omega. Also !ok, with every number the least-squares one, when the refined oscillation is not
// identified (profile_identified): the whole fit, since p_base, T1, T2 and the growth's eta were
// chosen together with it.
ProfileFit fit_profile(const std::vector<double>& mean_row);
// kFitTests' profile test of a fit of mean_row (the positions with mean_row[i] > 0, i >= 1,
// are the fitted ones): ok, or why not.
FitStatus profile_identified(const ProfileFit& fit, const std::vector<double>& mean_row);
// The oscillation part of that test: a phase T1 < i <= T2 of `span` = T2 - T1 positions, of
// which `fitted` are fitted, at frequency omega fixes omega and eta. The (T1, T2) searches of
// fit_profile consider no other oscillation (a shorter one ties with no oscillation at all, so
// a last-bit change of the row would switch between them); only the final refinement of omega
// can leave it, and the test then fails the fit.
bool oscillation_identified(int64_t fitted, int64_t span, double omega);

// The model above at position i; geoattn::Error unless 0 <= i < T and 0 <= T1 <= T2 < T.
double profile_value(const ProfileFit& fit, int64_t i, int64_t T);

}  // namespace geoattn::analysis
