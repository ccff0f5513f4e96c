// SPEC §5 per sample, incremental over the N grid (Theorems 1-2, Corollary 1; appendix A.1).
#include "geoattn/analysis/bounds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>

#include "bounds_formulas.h"
#include "geoattn/util/error.h"
#include "geoattn/util/n_grid.h"
#include "geoattn/util/target_clones.h"

namespace geoattn::analysis {

namespace detail {
void check_input(const BoundsView& in, const BoundsOptions& opt) {
  const Eigen::Index n = in.a.size();
  if (n < 1) fail("bounds: the sample has no tokens");
  for (Eigen::Index i = 0; i < n; ++i)
    if (!std::isfinite(in.a[i]) || in.a[i] < 0) fail("bounds: a[{}] = {} is not a finite number >= 0", i, in.a[i]);
  if (in.units.rows) {
    // rho_jk = <u_j, u_k> (BoundsView::units): its entries finite where every u_k is.
    for (Eigen::Index i = 0; i < n * in.d; ++i)
      if (!std::isfinite(in.units.rows[i])) fail("bounds: unit vector {} has a non-finite coordinate", i / in.d);
  } else {
    if (in.rho.rows() != n || in.rho.cols() != n)
      fail("bounds: rho is {}x{}, expected {}x{} (one row per token)", in.rho.rows(), in.rho.cols(), n, n);
    if (!in.rho_finite && !in.rho.allFinite()) fail("bounds: rho has a non-finite entry");
  }
  if (static_cast<Eigen::Index>(in.order.size()) != n)
    fail("bounds: the selection order has {} entries for {} tokens", in.order.size(), n);
  std::vector<char> seen(static_cast<size_t>(n), 0);
  for (const int64_t k : in.order) {
    if (k < 0 || k >= n || seen[static_cast<size_t>(k)])
      fail("bounds: the selection order is not a permutation of 0..{} (entry {})", n - 1, k);
    seen[static_cast<size_t>(k)] = 1;
  }
  if (in.d < 1) fail("bounds: head_dim d = {} must be >= 1", in.d);
  if (!(opt.kappa > 0) || !std::isfinite(opt.kappa)) fail("bounds: kappa = {} must be a finite number > 0", opt.kappa);
}
void check_input(const BoundsInput& in, const BoundsOptions& opt) { check_input(in.view(), opt); }
}  // namespace detail

double pair_p(double xi) {
  if (!(xi > 0)) return 0.5;
  // exp(-xi^2/2) is exactly 0 past xi^2 = 1490 (below the smallest subnormal, e^-744.4), and so
  // is p: the same value without the exp (xi = +inf included).
  if (!(xi * xi <= kPairPZeroPast)) return 0.0;
  // SPEC §5 / eq. 9: phi(xi) / (xi + 1/xi), written phi(xi) xi / (xi^2 + 1) (same value, no 1/xi).
  return kInvSqrt2Pi * std::exp(-0.5 * xi * xi) * xi / (xi * xi + 1);
}

// The maximiser of pair_p over xi > 0: d/dxi log(phi(xi) xi / (1 + xi^2)) = 0 <=> xi^4 + 2 xi^2 - 1 = 0.
double pair_p_mode() { return std::sqrt(std::sqrt(2.0) - 1); }

void append_bounds(BoundsCurves& c, double P_lo, double P_up, double R_lo, double R_up, double P_up0, double R_up0,
                   bool open, bool nontrivial, bool sink_in) {
  c.P_lo.push_back(P_lo), c.P_up.push_back(P_up), c.R_lo.push_back(R_lo), c.R_up.push_back(R_up);
  // Corollary 1 (eq. 16-17): F envelopes are 2x/(1+x) of the P and R bounds.
  c.F_rmax_lo.push_back(detail::f_of(P_lo)), c.F_rmax_up.push_back(detail::f_of(P_up));
  c.F_rmin_lo.push_back(detail::f_of(R_lo)), c.F_rmin_up.push_back(detail::f_of(R_up));
  c.P_up0.push_back(P_up0), c.R_up0.push_back(R_up0);
  c.open.push_back(open), c.nontrivial.push_back(nontrivial), c.sink_in.push_back(sink_in);
}

namespace {
// M_j += a rt_j over j < n.
GEOATTN_CLONES void axpy(double* M, const double* rt, double a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) M[j] += a * rt[j];
}

// Four axpy in one pass: M_j += a[0] r[0]_j, then a[1] r[1]_j, ... in that order, each rounded as
// axpy rounds it (one pass over M for four rows, the same bits).
GEOATTN_CLONES void axpy4(double* M, const double* const* r, const double* a, int64_t n) {
  const double *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
  for (int64_t j = 0; j < n; ++j) {
    double m = M[j];
    m += a[0] * r0[j];
    m += a[1] * r1[j];
    m += a[2] * r2[j];
    m += a[3] * r3[j];
    M[j] = m;
  }
}

// <x, y> over m < d, the coordinates in their order: rho_jk = <u_j, u_k> (BoundsView::units),
// the same bits for rho_kj.
double unit_dot(const double* x, const double* y, int64_t d) {
  double s = 0;
  for (int64_t m = 0; m < d; ++m) s += x[m] * y[m];
  return s;
}

// out_j = sum_m x_m cols[m]_j over j < n, m in order: <x, u_j> for every token j, each the bits
// of unit_dot(x, u_j) (the same products, summed in the same order from 0).
GEOATTN_CLONES void unit_products(double* out, const double* x, const double* cols, int64_t stride, int64_t d, int64_t n) {
  for (int64_t j = 0; j < n; ++j) out[j] = 0;
  for (int64_t m = 0; m < d; ++m) {
    const double xm = x[m], *col = cols + m * stride;
    for (int64_t j = 0; j < n; ++j) out[j] += xm * col[j];
  }
}

// rho_max_j = max(rho_max_j, r_j) over j < n.
GEOATTN_CLONES void running_max(double* rho_max, const double* r, int64_t n) {
  for (int64_t j = 0; j < n; ++j) rho_max[j] = std::max(rho_max[j], r[j]);
}

const double kXiMode = pair_p_mode();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The incremental state of SPEC §5 quantities as tokens enter I_N in selection order.
class State {
 public:
  explicit State(const BoundsView& in)
      : in_(in), n_(in.a.size()), is_in_(static_cast<size_t>(n_), 0),
        rho_max_(Eigen::ArrayXd::Constant(n_, -kInf)), M_(Eigen::ArrayXd::Zero(n_)), c_(n_),
        out_max_(Eigen::ArrayXd::Zero(n_)), out_min_(Eigen::ArrayXd::Zero(n_)),
        units_(in.units.rows != nullptr) {
    // Row k of rho (rho_kj over j) is read as a column, in memory order: rho's own where it is
    // symmetric, else its transpose's (the same values, copied once). With unit vectors: w.
    if (units_) w_.assign(static_cast<size_t>(in.d), 0.0);
    else if (!in.rho_symmetric) rho_t_ = in.rho.transpose();
    out_.reserve(static_cast<size_t>(n_));
    for (Eigen::Index j = 0; j < n_; ++j) out_.push_back({0.0, j});  // keyed at the first sort
  }

  // Token k enters I_N. O(n): M_j. The running max of rho over the in-tokens (rho_out's) is
  // folded in only at an N that needs it (rho_out()).
  void add(int64_t k) {
    is_in_[static_cast<size_t>(k)] = 1;
    out_max_[k] = -kInf, out_min_[k] = kInf;
    ++N_;
    if (k == 0) return;  // the sink enters none of S_in, a_in_*, rho_out, M_j (I_N \ {0})
    const double ak = in_.a[k];
    S_in_ += ak;
    a_in_min_ = std::min(a_in_min_, ak);
    a_in_max_ = std::max(a_in_max_, ak);
    ++n_in_nonsink_;
    // SPEC §5 / eq. 11: M_j = sum_{l in I_N \ {0}} a_l rho_lj (added four rows at a time, in
    // order, before bounds() reads M); with unit vectors, w = sum_l a_l u_l, and M = <w, u_j> there.
    if (units_) {
      const double* u = in_.units.rows + k * in_.d;
      for (int64_t m = 0; m < in_.d; ++m) w_[static_cast<size_t>(m)] += ak * u[m];
      return;
    }
    pending_a_[pending_] = ak, pending_row_[pending_] = row(k);
    if (++pending_ == kRowsAtOnce) flush_rows();
  }

  // What does not depend on kappa at the current N (BoundsCurves): the kappa-free upper bounds,
  // and whether N is open (1 < N < n) and the lower bounds non-trivial (Delta > 0).
  struct KappaFree {
    double P_up0 = 1, R_up0 = 1;
    bool open = false, nontrivial = false;
  };

  // The four bounds at the current N (SPEC §5) at each of `kappas`, into out[k] (P_lo, P_up,
  // R_lo, R_up): what depends on kappa (the tails, sigma) evaluated per kappa over the rest,
  // computed once; and the kappa-free quantities.
  KappaFree bounds(std::span<const double> kappas, std::span<std::array<double, 4>> out) {
    flush_rows();
    const bool dense = called_at_ == N_ - 1;  // the last call was at N - 1
    called_at_ = N_;
    for (auto& b : out) b = {1.0, 1.0, 1.0, 1.0};
    // SPEC §5: N = 1 and N = q+1 give P = R = 1 identically; every bound is 1.
    if (N_ == 1 || N_ == n_) return {};
    const bool sink_in = is_in_[0] != 0;
    const bool any_in = n_in_nonsink_ > 0;  // false only at N = 1 (returned above); kept for clarity
    // SPEC §5 / eq. 7: a_out_max = max_{j not in I_N} a_j, at j_out the first out-token that has it.
    const double a_out_max = (in_.a.array() + out_max_).maxCoeff();  // out_max_: -inf at the in-tokens
    int64_t j_out = 0;
    while (is_in_[static_cast<size_t>(j_out)] || in_.a[j_out] != a_out_max) ++j_out;
    const double a_in_min = any_in ? a_in_min_ : 0.0, a_in_max = any_in ? a_in_max_ : 0.0;
    // SPEC §5 / eq. 8: Delta = a_in_min^2 - 2 a_out_max S_in rho_out.
    const auto delta = [&](double rho_out) { return a_in_min * a_in_min - 2 * a_out_max * S_in_ * rho_out; };
    // SPEC §5 / appendix eq. 29: Delta0 = a_0^2 - (S_in rho_out)^2.
    const auto delta0 = [&](double rho_out) { return in_.a[0] * in_.a[0] - (S_in_ * rho_out) * (S_in_ * rho_out); };
    // The lower bounds read Delta and Delta0 only through their signs where they are <= 0 (the
    // tail is 1), and both fall as rho_out >= 0 grows (in floating point too: rho_out multiplies
    // last). So a lower bound L >= 0 of rho_out that already makes Delta <= 0 (and Delta0 <= 0 with
    // the sink in) gives the same bounds as rho_out itself: the max over the in-tokens of
    // rho_{j k} at one out-token j, taken until it does. Else rho_out, exactly.
    double rho_out = any_in ? -kInf : 0.0;
    const double* rho_j = units_ ? nullptr : row(j_out);  // rho_{j k} over k, j the out-token of a_out_max
    for (const int64_t k : selected()) {
      if (k == 0) continue;
      rho_out = std::max(rho_out, rho_j ? rho_j[k] : unit_dot(unit(j_out), unit(k), in_.d));
      if (rho_out >= 0 && !(delta(rho_out) > 0) && (!sink_in || !(delta0(rho_out) > 0))) break;
    }
    if (any_in && !(rho_out >= 0 && !(delta(rho_out) > 0) && (!sink_in || !(delta0(rho_out) > 0))))
      rho_out = exact_rho_out();
    const double Delta = delta(rho_out), Delta0 = delta0(rho_out);
    // SPEC §5 / eq. 8: B = a_in_max + a_out_max + S_in.
    const double B = a_in_max + a_out_max + S_in_;
    collect_out();
    for (size_t k = 0; k < kappas.size(); ++k) {
      const detail::Lower lo = detail::lower_bounds(Delta, Delta0, B, N_, n_, sink_in, BoundsOptions{kappas[k]}, in_.d);
      out[k][0] = lo.P_lo, out[k][2] = lo.R_lo;
      upper(B, kappas[k], kappas.size() > 1, dense, out[k][1], out[k][3]);
    }
    KappaFree free = upper0();
    free.open = true;
    free.nontrivial = Delta > 0;  // SPEC §5: the lower bounds say more than N/(q+1) and 0
    return free;
  }

 private:
  static constexpr int kRowsAtOnce = 4;

  // The rows add() left pending, into M_ in the order they came; with unit vectors, M = <w, u_j>.
  void flush_rows() {
    if (units_) {
      unit_products(M_.data(), w_.data(), in_.units.cols, in_.units.stride, in_.d, n_);
      return;
    }
    if (pending_ == kRowsAtOnce)
      axpy4(M_.data(), pending_row_.data(), pending_a_.data(), n_);
    else
      for (int i = 0; i < pending_; ++i) axpy(M_.data(), pending_row_[static_cast<size_t>(i)], pending_a_[static_cast<size_t>(i)], n_);
    pending_ = 0;
  }

  // SPEC §5 upper bounds. With c_j = a_j^2 - 2 a_j M_j and e_i = 2 a_i M_i - a_i^2,
  // mu_ij = c_j + e_i; p = pair_p(mu / sigma) is 1/2 for mu <= 0 and unimodal in mu > 0
  // (peak at xi = kXiMode), so max_j p_ij is at the first out-token in (c_j, j) order (if that
  // mu <= 0, or if the peak lies at or below it) or at the out-tokens on either side of the
  // peak in that order. p itself is evaluated with the formula of eq. 10.
  // The out-tokens' c_j and the first of them in (c_j, j) order (kappa-free: once per N).
  void collect_out() {
    const auto a = in_.a.array();
    c_ = a * a - 2 * a * M_;  // every token's; the in-tokens' are not read
    const double c_min = (c_ + out_min_).minCoeff();  // out_min_: +inf at the in-tokens
    first_ = -1;
    for (Eigen::Index j = 0; j < n_ && first_ < 0; ++j)  // the lower j on a tie
      if (!is_in_[static_cast<size_t>(j)] && c_[j] == c_min) first_ = j, c_first_ = c_[j];
  }

  // The out-tokens in (c_j, j) order, at the current N: sorted only at an N where a selected token
  // needs the search, starting from the last N's order (the c_j move little from one N to the
  // next), by insertion, and by a full sort past a budget of moves.
  void sort_out() {
    if (sorted_at_ == N_) return;
    sorted_at_ = N_;
    // The last order, less the tokens now in, keyed by this N's c_j.
    size_t m = 0;
    for (size_t t = 0; t < out_.size(); ++t)
      if (const int64_t j = out_[t].second; !is_in_[static_cast<size_t>(j)]) out_[m++] = {c_[j], j};
    out_.resize(m);
    const size_t budget = 8 * m + 64;
    size_t moves = 0;
    for (size_t t = 1; t < m && moves <= budget; ++t) {
      const auto x = out_[t];
      size_t u = t;
      for (; u > 0 && x < out_[u - 1] && moves <= budget; --u, ++moves) out_[u] = out_[u - 1];
      out_[u] = x;
    }
    if (moves > budget) std::sort(out_.begin(), out_.end());
    keys_.resize(m);
    for (size_t t = 0; t < m; ++t) keys_[t] = out_[t].first;
  }

  // For each query (c_peak, t) of queries_, the out-tokens the sorted search would find, in one
  // pass over them: `above`, the first in (c_j, j) order with c_j >= c_peak, and `below`, the last
  // with c_j < c_peak (-1: none). The queries sorted by c_peak cut the c axis into gaps; each gap
  // keeps its first and last out-token in (c_j, j) order; a query's `above` is the first over the
  // gaps past it, its `below` the last over the gaps before.
  void nearest_by_pass() {
    std::sort(queries_.begin(), queries_.end());
    const size_t K = queries_.size();
    using Key = std::pair<double, int64_t>;
    gap_first_.assign(K + 1, Key{kInf, -1});
    gap_last_.assign(K + 1, Key{-kInf, -1});
    for (Eigen::Index j = 0; j < n_; ++j) {
      if (is_in_[static_cast<size_t>(j)]) continue;
      const Key key{c_[j], j};
      // The gap: how many queries have c_peak <= c_j.
      const size_t g = static_cast<size_t>(
          std::upper_bound(queries_.begin(), queries_.end(), c_[j], [](double c, const Query& q) { return c < q.first; }) -
          queries_.begin());
      gap_first_[g] = std::min(gap_first_[g], key);
      gap_last_[g] = std::max(gap_last_[g], key);
    }
    nearest_.resize(K);
    Key last{-kInf, -1};  // over the gaps 0..s: every out-token with c_j < the s-th c_peak
    for (size_t s = 0; s < K; ++s) {
      last = std::max(last, gap_last_[s]);
      nearest_[s] = {-1, last.second, queries_[s].second};
    }
    Key first{kInf, -1};  // over the gaps s+1..K: every out-token with c_j >= the s-th c_peak
    for (size_t s = K; s-- > 0;) {
      first = std::min(first, gap_first_[s + 1]);
      nearest_[s].above = first.second;
    }
  }

  // The first index t of the sorted out-tokens with c >= c_peak (m if none): in (c_j, j) order,
  // the first at or past (c_peak, -1). Bisection without branches (m >= 1).
  size_t lower_bound(double c_peak) const {
    const double* base = keys_.data();
    size_t len = keys_.size();
    while (len > 1) {
      const size_t half = len / 2;
      base = base[half - 1] < c_peak ? base + half : base;
      len -= half;
    }
    return static_cast<size_t>(base - keys_.data()) + (*base < c_peak ? 1 : 0);
  }

  // With `sorted` (several kappas: one order of the out-tokens serves them all), the search
  // bisects the out-tokens sorted by (c_j, j); else one pass over them finds, for every selected
  // token that needs it, the same two (nearest_by_pass), but where `dense` (the last N was N - 1) and at
  // least kSortedFrom tokens search: there the last N's order, kept by insertion, is nearly this
  // N's, and the bisections of the searching tokens cost less than one of every out-token (bench
  // metrics at --n all: the envelopes 0.73 s where 0.94-0.96 s; at --n default, whose grid skips
  // and whose N up to 16 have few searching tokens, 0.034 s either way, where sorting at every
  // dense N took 0.050 s).
  static constexpr size_t kSortedFrom = 16;
  void upper(double B, double kappa, bool sorted, bool dense, double& P_up, double& R_up) {
    // SPEC §5 / eq. 10: sigma = B / sqrt(2 kappa d).
    const double sigma = B / std::sqrt(2 * kappa * static_cast<double>(in_.d));
    const double a0 = in_.a[first_], M0 = M_[first_];
    const auto sel = selected();
    best_.resize(sel.size());
    queries_.clear();
    for (size_t t = 0; t < sel.size(); ++t) {
      const int64_t i = sel[t];
      const double ai = in_.a[i], Mi = M_[i];
      best_[t] = detail::p_of_mu(detail::mu_ij(ai, a0, Mi, M0), sigma);
      if (best_[t] < 0.5 && sigma > 0) {
        const double e_i = 2 * ai * Mi - ai * ai, c_peak = kXiMode * sigma - e_i;
        // Else the first out-token is at or past the peak: p falls from it on.
        if (c_peak > c_first_) queries_.push_back({c_peak, static_cast<int64_t>(t)});
      }
    }
    if (!queries_.empty()) {
      auto p_at = [&](size_t t, int64_t j) {
        const int64_t i = sel[t];
        return detail::p_of_mu(detail::mu_ij(in_.a[i], in_.a[j], M_[i], M_[j]), sigma);
      };
      if (sorted || (dense && queries_.size() >= kSortedFrom)) {
        sort_out();
        for (const auto& [c_peak, t] : queries_) {
          const size_t at = lower_bound(c_peak);
          if (at < out_.size()) best_[t] = std::max(best_[t], p_at(t, out_[at].second));
          if (at > 1) best_[t] = std::max(best_[t], p_at(t, out_[at - 1].second));  // at = 1: the first
        }
      } else {
        nearest_by_pass();
        for (const auto& [above, below, t] : nearest_) {
          if (above >= 0) best_[t] = std::max(best_[t], p_at(t, above));
          if (below >= 0) best_[t] = std::max(best_[t], p_at(t, below));
        }
      }
    }
    double max_p = 0, sum_one_minus = 0;
    for (const double best : best_) {
      max_p = std::max(max_p, best);
      sum_one_minus += 1 - best;
    }
    // SPEC §5 / eq. 13: P_up = 1 - max_{i in I_N, j not in I_N} p_ij / (N+1).
    P_up = 1 - max_p / static_cast<double>(N_ + 1);
    // SPEC §5 / eq. 15: R_up = (1/N) sum_{i in I_N} (1 - max_{j not in I_N} p_ij).
    R_up = sum_one_minus / static_cast<double>(N_);
  }

  // SPEC §5, kappa -> 0+: p_ij -> (1/2) [mu_ij <= 0], the limit from above. Token i reaches 1/2
  // when mu_ij <= 0 at the first out-token: the same test (p_of_mu's) by which upper() takes 1/2 there.
  // P_up0 = 1 - [exists i, j: mu_ij <= 0] / (2 (N+1)), R_up0 = (1/N) sum_i (1 - (1/2) [exists j: mu_ij <= 0]).
  KappaFree upper0() const {
    const int64_t j0 = first_;
    int64_t reached = 0;
    for (const int64_t i : selected())
      reached += !(detail::mu_ij(in_.a[i], in_.a[j0], M_[i], M_[j0]) > 0);
    KappaFree f;
    f.P_up0 = 1 - (reached > 0 ? 0.5 : 0.0) / static_cast<double>(N_ + 1);
    f.R_up0 = (static_cast<double>(N_) - 0.5 * static_cast<double>(reached)) / static_cast<double>(N_);
    return f;
  }

  std::span<const int64_t> selected() const { return in_.order.first(static_cast<size_t>(N_)); }

  // Row k of rho (rho_kj over j), in memory order: rho's own column where it is symmetric, else
  // its transpose's.
  const double* row(int64_t k) const { return in_.rho_symmetric ? in_.rho.col(k).data() : rho_t_.col(k).data(); }
  // u_k (BoundsView::units).
  const double* unit(int64_t k) const { return in_.units.rows + k * in_.d; }

  // SPEC §5 / eq. 7: rho_out = max_{j not in I_N, k in I_N \ {0}} rho_jk, the per-token running max
  // brought up to N first (a max: the same value in any order).
  double exact_rho_out() {
    for (; folded_ < N_; ++folded_) {
      const int64_t k = in_.order[static_cast<size_t>(folded_)];
      if (k == 0) continue;
      if (units_) {
        column_.resize(static_cast<size_t>(n_));
        unit_products(column_.data(), unit(k), in_.units.cols, in_.units.stride, in_.d, n_);  // <u_k, u_j> over j
        running_max(rho_max_.data(), column_.data(), n_);
      } else {
        running_max(rho_max_.data(), in_.rho.col(k).data(), n_);  // rho_jk over j
      }
    }
    return (rho_max_ + out_max_).maxCoeff();  // out_max_: -inf at the in-tokens
  }

  const BoundsView& in_;
  Eigen::Index n_;
  int64_t N_ = 0, n_in_nonsink_ = 0;
  int64_t folded_ = 0;           // the tokens of the selection order folded into rho_max_
  std::vector<char> is_in_;
  Eigen::ArrayXd rho_max_;       // per token j: max of rho_jk over the first folded_ in-tokens k (the sink aside)
  Eigen::ArrayXd M_;             // M_j (SPEC §5 / eq. 11), less the pending rows
  std::array<double, kRowsAtOnce> pending_a_{};         // a_k of the rows not yet in M_
  std::array<const double*, kRowsAtOnce> pending_row_{};  // rho_k. of those rows
  int pending_ = 0;
  Eigen::ArrayXd c_;             // c_j = a_j^2 - 2 a_j M_j, at the current N
  Eigen::ArrayXd out_max_, out_min_;  // 0 at the out-tokens; -inf, +inf at the in-tokens
  Eigen::MatrixXd rho_t_;        // rho^T where rho is not symmetric (empty otherwise)
  bool units_;                   // rho from unit vectors (BoundsView::units)
  std::vector<double> w_;        // with them: w = sum a_l u_l over I_N \ {0} [d]
  std::vector<double> column_;   // with them: one column of rho [n], for exact_rho_out
  double S_in_ = 0, a_in_min_ = std::numeric_limits<double>::infinity(), a_in_max_ = 0;
  int64_t first_ = -1;           // the first out-token in (c_j, j) order, and its c_j
  double c_first_ = 0;
  // (c_j, j) of the out-tokens in that order as last sorted, at sorted_at_ (by j before the first
  // sort); keys_: their c_j alone, for the bisection.
  std::vector<std::pair<double, int64_t>> out_;
  std::vector<double> keys_;
  int64_t sorted_at_ = -1;
  int64_t called_at_ = -1;  // the N of the last bounds()
  // upper()'s scratch: each selected token's max_j p_ij so far, the selected tokens that need the
  // search (c_peak, index in the selection), and what nearest_by_pass finds for them.
  using Query = std::pair<double, int64_t>;
  struct Nearest {
    int64_t above, below, t;
  };
  std::vector<double> best_;
  std::vector<Query> queries_;
  std::vector<std::pair<double, int64_t>> gap_first_, gap_last_;
  std::vector<Nearest> nearest_;
};
}  // namespace

std::vector<BoundsCurves> sample_bounds(const BoundsInput& in, const std::vector<int64_t>& grid,
                                        std::span<const double> kappas) {
  return sample_bounds(in.view(), grid, kappas);
}

std::vector<BoundsCurves> sample_bounds(const BoundsView& in, const std::vector<int64_t>& grid,
                                        std::span<const double> kappas) {
  if (kappas.empty()) fail("bounds: no kappa");
  detail::check_input(in, BoundsOptions{kappas[0]});  // O(n^2): once
  for (const double kappa : kappas)
    if (!(kappa > 0) || !std::isfinite(kappa)) fail("bounds: kappa = {} must be a finite number > 0", kappa);
  check_n_grid(grid, "bounds");
  const auto n = static_cast<int64_t>(in.a.size());
  std::vector<BoundsCurves> out(kappas.size());
  std::vector<std::array<double, 4>> at(kappas.size());
  State state(in);
  // 0 in I_N from N = sink_rank + 1 on (SPEC §2's order).
  const auto sink_rank = std::find(in.order.begin(), in.order.end(), int64_t{0}) - in.order.begin();
  int64_t N = 0;
  for (const int64_t target : grid) {
    if (target > n) break;
    if (target == n) {  // SPEC §5: N = q+1 makes every bound 1, with no step to it
      for (auto& curves : out) append_bounds(curves, 1, 1, 1, 1, 1, 1, false, false, true);
      continue;
    }
    while (N < target) state.add(in.order[static_cast<size_t>(N++)]);
    const auto free = state.bounds(kappas, at);
    for (size_t k = 0; k < kappas.size(); ++k) {
      const auto [P_lo, P_up, R_lo, R_up] = at[k];
      append_bounds(out[k], P_lo, P_up, R_lo, R_up, free.P_up0, free.R_up0, free.open, free.nontrivial, target > sink_rank);
    }
  }
  return out;
}

BoundsCurves sample_bounds(const BoundsInput& in, const std::vector<int64_t>& grid, const BoundsOptions& opt) {
  return std::move(sample_bounds(in, grid, std::span<const double>(&opt.kappa, 1)).front());
}

BoundsMean::BoundsMean(size_t grid_size) : counts_(grid_size, 0) {
  for (auto* f : curve_fields(sums_)) f->assign(grid_size, 0.0);
}

void BoundsMean::add(const BoundsCurves& c) {
  const size_t n_valid = c.P_lo.size();
  if (n_valid > counts_.size()) fail("bounds: a sample has {} grid values, the mean has {}", n_valid, counts_.size());
  for (const auto* f : curve_fields(c))
    if (f->size() != n_valid) fail("bounds: a sample's curves have different lengths");
  for (size_t g = 0; g < n_valid; ++g) ++counts_[g];
  const auto src = curve_fields(c);
  const auto dst = curve_fields(sums_);
  for (size_t k = 0; k < src.size(); ++k)
    for (size_t g = 0; g < n_valid; ++g) (*dst[k])[g] += (*src[k])[g];
}

BoundsCurves BoundsMean::mean() const {
  BoundsCurves out = sums_;
  for (auto* f : curve_fields(out))
    for (size_t g = 0; g < counts_.size(); ++g)
      (*f)[g] = counts_[g] > 0 ? (*f)[g] / static_cast<double>(counts_[g]) : std::numeric_limits<double>::quiet_NaN();
  return out;
}

}  // namespace geoattn::analysis
