#pragma once
// The bounds of Theorems 1-2 and Corollary 1 (paper sect. 3.4, appendix A.1), exactly as
// SPEC §5 writes them, per sample and N; and the synthetic mode that evaluates them on a_i,
// rho generated from assumption parameters (SPEC §5, last bullet). Pure C++ (Eigen, no LibTorch).
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "geoattn/analysis/fits.h"

namespace geoattn::analysis {

struct BoundsOptions {
  double kappa = 1.0;  // the concentration constant of the Chernoff tails, > 0
};

// One sample (SPEC §5): a[i] = alpha_i ||v_i|| for i = 0..q (n = q+1 tokens), rho (n x n)
// rho_jk = cos(v_j, v_k), order = the selection order (a permutation of 0..n-1; its first N
// are I_N: top-N by alpha, ties lower position first), d = head_dim.
struct BoundsView;
struct BoundsInput {
  Eigen::VectorXd a;
  Eigen::MatrixXd rho;
  std::vector<int64_t> order;
  int64_t d = 0;
  BoundsView view() const;
};

// The n tokens' unit vectors u_k = v_k / ||v_k|| (0 for a zero vector), d coordinates each, as
// rows [n, d] (row stride d) and as columns [d, n] (row stride `stride`), the same numbers: the
// other way to give SPEC §5's rho_jk = cos(v_j, v_k) = <u_j, u_k>.
struct UnitVectors {
  const double* rows = nullptr;
  const double* cols = nullptr;
  int64_t stride = 0;
};

// The same sample read in place, owning nothing (a caller's Gram matrix is not copied per head).
// rho_symmetric: rho == rho^T bit for bit as the caller built it (a mirrored Gram matrix), so its
// rows may be read as its columns, in memory order: the same values.
// With `units` set, rho is not read (it may be 0 x 0): rho_jk = <u_j, u_k> (the sum over the
// coordinates in their order), and M_j = <w, u_j> with w = sum a_l u_l over I_N \ {0} (SPEC §5 /
// eq. 11 by linearity): O(n d) at a grid N where the rows of rho cost O(n) a selected token. The
// caller takes it where the grid's G values times d are at most n; the values agree with rho's within
// rounding (AnalysisCli.UnitVectorsGiveTheGramsBounds), not bit for bit.
struct BoundsView {
  Eigen::Ref<const Eigen::VectorXd> a;
  Eigen::Ref<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> rho;
  std::span<const int64_t> order;
  int64_t d = 0;
  bool rho_symmetric = false;
  // rho_finite: every entry of rho is finite by how the caller made it (cosines of vectors whose
  // norms it checked), so that sample_bounds skips its O(n^2) check of rho.
  bool rho_finite = false;
  UnitVectors units{};
};
inline BoundsView BoundsInput::view() const { return {a, rho, order, d, false}; }

// Per evaluated grid index: grid values N <= n only, so each vector has n_valid entries.
// F_rmax_* = 2x/(1+x) of P_*, F_rmin_* = 2x/(1+x) of R_* (Corollary 1). P_up0, R_up0: the
// kappa-free upper bounds, the limits of P_up, R_up as kappa -> 0+ and so above them at every
// kappa (SPEC §5, "What the envelopes can say"). Per grid index too, kappa-free: `open` (1 < N < n,
// where the bounds are not 1 by definition), `nontrivial` (open and Delta > 0, where the lower
// bounds say more than N/(q+1) and 0) and `sink_in` (0 in I_N: SPEC §5 splits the realized
// envelopes by it), each 0 or 1.
struct BoundsCurves {
  std::vector<double> P_lo, P_up, R_lo, R_up, F_rmax_lo, F_rmax_up, F_rmin_lo, F_rmin_up, P_up0, R_up0;
  std::vector<char> open, nontrivial, sink_in;
};
inline constexpr int kBoundCurves = 10;
// The curves of a BoundsCurves with their JSON names, in one table (kBoundsNames[k] names
// curve_fields(c)[k]).
inline constexpr std::array<const char*, kBoundCurves> kBoundsNames = {
    "P_lo", "P_up", "R_lo", "R_up", "F_rmax_lo", "F_rmax_up", "F_rmin_lo", "F_rmin_up", "P_up0", "R_up0"};
template <class Curves>  // BoundsCurves or const BoundsCurves
auto curve_fields(Curves& c) {
  return std::array{&c.P_lo,      &c.P_up,      &c.R_lo,      &c.R_up,  &c.F_rmax_lo,
                    &c.F_rmax_up, &c.F_rmin_lo, &c.F_rmin_up, &c.P_up0, &c.R_up0};
}

// SPEC §5 for every N of `grid` (sorted ascending, unique, >= 1) with N <= n. Incremental in
// N: O(n^2) for rho_out and M_j over the whole grid, O(n) per N for the rest; where a selected
// token's every margin is positive, the max over j of p_ij is found by bisection in the
// out-tokens sorted by c_j (p(xi) is unimodal in xi > 0, see pair_p), a sort kept from N to N.
// geoattn::Error on an invalid input: empty or non-finite or negative a, rho not n x n or
// non-finite, order not a permutation of 0..n-1, d < 1, kappa not > 0, a bad grid.
BoundsCurves sample_bounds(const BoundsInput& in, const std::vector<int64_t>& grid, const BoundsOptions& opt = {});
// The same at each of `kappas` (out[k] at kappas[k], bit for bit what sample_bounds gives at
// that kappa): the kappa-free work (the O(n) updates per token, the sorts per N) done once.
std::vector<BoundsCurves> sample_bounds(const BoundsInput& in, const std::vector<int64_t>& grid,
                                        std::span<const double> kappas);
std::vector<BoundsCurves> sample_bounds(const BoundsView& in, const std::vector<int64_t>& grid,
                                        std::span<const double> kappas);

// SPEC §5: p(xi) = phi(xi) / (xi + 1/xi) for xi > 0 and 1/2 for xi <= 0 (phi the standard
// normal density). For xi > 0 it rises to its maximum at xi = sqrt(sqrt(2) - 1) and falls after.
double pair_p(double xi);
// pair_p's constants, for the implementations that evaluate it elsewhere (the tensor path):
// 1/sqrt(2 pi); the xi^2 past which p is exactly 0 (exp(-xi^2/2) below the least subnormal, xi
// = +inf included); the maximiser of p over xi > 0 (xi^4 + 2 xi^2 - 1 = 0).
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;
inline constexpr double kPairPZeroPast = 1500;
double pair_p_mode();

// One grid value's bounds appended to `c` (the four of Theorems 1-2, the kappa-free two and the
// flags), with the F envelopes derived from them (Corollary 1): how every implementation fills
// BoundsCurves.
void append_bounds(BoundsCurves& c, double P_lo, double P_up, double R_lo, double R_up, double P_up0, double R_up0,
                   bool open, bool nontrivial, bool sink_in);

// Every quantity of SPEC §5 at one N, computed directly from the definitions (O(n^2); the
// reference that sample_bounds is tested against, and what a reader can check by hand).
// Conventions where a set is empty, said once here:
//   - I_N \ {0} empty (only at N = 1 with the sink selected): S_in = a_in_min = a_in_max = 0,
//     rho_out = 0, M_j = 0;
//   - no token out (N = n): a_out_max = 0, rho_out = 0, p has no column;
//   - B = 0 (every a involved is 0): a positive margin gives t = 0 (t0 = 0), and p_ij = 0
//     for mu_ij > 0 (sigma = 0; xi = +infinity), 1/2 for mu_ij <= 0.
// At N = 1 and N = n (= q+1) the bounds P_lo..R_up are 1 (SPEC §5: P = R = 1 identically);
// the intermediates are still reported.
struct BoundsTerms {
  int64_t N = 0, n_out = 0;
  bool sink_in = false;  // 0 in I_N
  double S_in = 0, a_in_min = 0, a_in_max = 0, a_out_max = 0, rho_out = 0;
  double Delta = 0, Delta0 = 0, B = 0, t = 1, t0 = 1, sigma = 0;
  std::vector<int64_t> in, out;  // I_N in selection order; the rest by position
  Eigen::VectorXd M;             // M_j for every token j = 0..n-1
  Eigen::MatrixXd mu, p;         // [in.size() x out.size()]: mu_ij, p_ij
  double P_lo = 1, P_up = 1, R_lo = 1, R_up = 1;
  double P_up0 = 1, R_up0 = 1;   // the kappa-free upper bounds (BoundsCurves)
};
BoundsTerms bounds_terms(const BoundsInput& in, int64_t N, const BoundsOptions& opt = {});

// Means of per-sample curves (SPEC §5: envelopes are means of per-sample bounds). Samples
// may stop early in the grid (q < T-1); each grid index averages the samples that reach it,
// and is NaN where none does.
class BoundsMean {
 public:
  explicit BoundsMean(size_t grid_size);
  void add(const BoundsCurves& c);
  BoundsCurves mean() const;                 // every vector has grid_size entries
  const std::vector<int64_t>& counts() const { return counts_; }

 private:
  std::vector<int64_t> counts_;
  BoundsCurves sums_;
};

// ---- Synthetic mode (SPEC §5, last bullet) ----

// Assumptions 1-3 as numbers: the norms (C, lambda, cv), the similarity (beta, rho0), the
// attention profile (profile.p_sink .. profile.T2), with the window T, head_dim d, and a
// seed and sample count for the norm noise.
struct AssumptionParams {
  int64_t T = 1024, d = 128;
  double C = 1.0, lambda = 0.1, cv = 0.0;
  double beta = 0.1, rho0 = 0.0;
  ProfileFit profile;
  uint64_t seed = 0;
  int64_t samples = 1;
};

// A synthetic sample holds the T x T correlation matrix rho (8 T^2 bytes): 2 GiB at this T.
inline constexpr int64_t kMaxSyntheticT = 16384;
// Synthetic samples a run may average: at T = 1024, 1000 take ~14 s on one core, this many ~25 min.
inline constexpr int64_t kMaxSyntheticSamples = 100000;

// Assumption 2 as a matrix, n x n: rho_jk = exp(-beta |j-k|) for j, k > 0, rho_0j = rho_j0 = rho0,
// rho_jj = 1 (symmetric, unit diagonal). The synthetic mode's rho and the predicted envelopes' (SPEC
// §5, "Which envelope tests the theory"); the second fills a caller's matrix, reused from sample to sample.
Eigen::MatrixXd assumption_rho(int64_t n, double beta, double rho0);
void assumption_rho(Eigen::Ref<Eigen::MatrixXd> rho, double beta, double rho0);

// One synthetic sample (n = T tokens, q = T-1), deterministic in (seed, sample_index):
//   alpha_i = profile_value(profile, i, T) normalised to sum 1 (Assumption 3);
//   a_i = alpha_i ||v_i|| with ||v_0|| = lambda C and ||v_i|| = C g_i for i > 0 (Assumption 1),
//     g_i = exp(s z_i - s^2/2), s^2 = log(1 + cv^2): log-normal with mean 1 and
//     coefficient of variation exactly cv, always > 0; z_i standard normal by Box-Muller
//     (z = sqrt(-2 log u1) cos(2 pi u2), u = (x >> 11 + 1/2) 2^-53 from std::mt19937_64)
//     seeded with splitmix64(seed ^ splitmix64(sample_index)); cv = 0 gives g_i = 1;
//   rho = assumption_rho(n, beta, rho0) (Assumption 2): symmetric with a unit diagonal. (It is a Gram matrix of unit vectors only
//     when rho0^2 1^T K^{-1} 1 <= 1 for K the exp(-beta|j-k|) block; the bounds do not need it.)
//   order = top-N by alpha, ties lower position first; d = d.
// geoattn::Error if the profile gives a negative alpha or a zero sum.
BoundsInput synthetic_sample(const AssumptionParams& p, uint64_t sample_index);

// The mean of sample_bounds over samples 0..p.samples-1 (every sample reaches every N <= T),
// with a progress line on stderr unless `quiet`.
BoundsCurves synthetic_bounds(const AssumptionParams& p, const std::vector<int64_t>& grid,
                              const BoundsOptions& opt = {}, bool quiet = true);

}  // namespace geoattn::analysis
