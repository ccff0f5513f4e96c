// The kappa each head allows (kappa_range.h).
#include "geoattn/metrics/finalize/kappa_range.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "geoattn/util/error.h"
#include "geoattn/util/progress.h"
#include "resamples.h"

namespace geoattn::metrics {

namespace {

// One group's means per N: the measured P and R, and the envelopes [k][curve][g].
struct GroupMeans {
  std::vector<double> P, R;
  std::vector<std::vector<std::vector<double>>> env;  // [K][kKappaCurves][G]
};

// The (N, bound) pairs a kappa leaves violated: lower <= mean <= upper for P and R at every N
// with a measured mean. `out` (when given) gets them in words.
int64_t violations(const GroupMeans& m, int64_t k, const std::vector<int64_t>& grid, std::vector<std::string>* out) {
  int64_t bad = 0;
  const auto& e = m.env[k];
  const auto check = [&](double y, double lo, double up, const char* name, int64_t N) {
    if (std::isnan(y)) return;  // no sample reaches N
    if (y < lo) ++bad, out ? out->push_back(fmt::format("{} < {}_lo at N = {}", name, name, N)) : void();
    if (y > up) ++bad, out ? out->push_back(fmt::format("{} > {}_up at N = {}", name, name, N)) : void();
  };
  for (size_t g = 0; g < grid.size(); ++g) {
    check(m.P[g], e[kKappaP_lo][g], e[kKappaP_up][g], "P", grid[g]);
    check(m.R[g], e[kKappaR_lo][g], e[kKappaR_up][g], "R", grid[g]);
  }
  return bad;
}

// The range of kappas (by index) with no violation: smallest, largest, contiguous.
KappaRange range_of(const GroupMeans& m, const std::vector<double>& kappas, const std::vector<int64_t>& grid, bool explain) {
  KappaRange r;
  const auto K = static_cast<int64_t>(kappas.size());
  int64_t first = -1, last = -1, count = 0, best = -1, best_bad = 0;
  for (int64_t k = 0; k < K; ++k) {
    const int64_t bad = violations(m, k, grid, nullptr);
    if (bad == 0) {
      if (first < 0) first = k;
      last = k, ++count;
    }
    if (best < 0 || bad < best_bad) best = k, best_bad = bad;
  }
  if (first >= 0) {
    r.lo = kappas[first], r.hi = kappas[last];
    r.contiguous = count == last - first + 1;
    r.lo_at_edge = first == 0, r.hi_at_edge = last == K - 1;
  } else if (explain) {
    r.closest = kappas[best];
    violations(m, best, grid, &r.violations);
  }
  return r;
}

// The measured means and envelope means of a group (layer, head with -1s) from the run's sums.
GroupMeans group_means(const Aggregator& measured, const KappaStats& env, int64_t layer, int64_t head) {
  const GroupStats s = layer < 0 ? measured.global_stats() : head < 0 ? measured.layer_stats(layer) : measured.head_stats(layer, head);
  GroupMeans m;
  for (int64_t g = 0; g < s.grid_size(); ++g) {
    m.P.push_back(s.curve(kP_rmax, g).mean());
    m.R.push_back(s.curve(kR_rmin, g).mean());
  }
  for (int64_t k = 0; k < env.K(); ++k) {
    m.env.emplace_back();
    for (int c = 0; c < kKappaCurves; ++c) m.env.back().push_back(env.mean(layer, head, k, c));
  }
  return m;
}

// The bootstrap of one group: its stats groups (at the units' level) and, per layer, the heads
// of it the group holds.
struct BootGroup {
  std::vector<int64_t> members;
  std::vector<int64_t> heads_in_layer;  // [L]
};

void bootstrap_range(const UnitStats& units, const KappaStats& env, const detail::Resamples& rs,
                     const std::vector<int64_t>& env_rows, const BootGroup& group, const std::vector<double>& kappas,
                     const std::vector<int64_t>& grid, KappaRange& out, Percentiles p) {
  const auto U = static_cast<int64_t>(rs.order.size()), G = units.grid_size(), K = env.K(), L = units.layers();
  const int64_t S = units.stats_per_group(), E = env.per_group(), cols = 2 * G + E;
  // Per unit (in id order): the sums of P and R per N, then the envelopes' [K][4][G].
  Eigen::MatrixXd X = Eigen::MatrixXd::Zero(U, cols), C = Eigen::MatrixXd::Zero(U, G);
  for (int64_t i = 0; i < U; ++i) {
    const int64_t u = rs.order[i];
    for (const int64_t grp : group.members) {
      const auto sums = units.unit_sums(u).subspan(static_cast<size_t>(grp * S), static_cast<size_t>(S));
      const auto e = env.unit_sums(env_rows[u]).subspan(static_cast<size_t>(grp * E), static_cast<size_t>(E));
      for (int64_t g = 0; g < G; ++g) {
        X(i, g) += sums[units.curve_index(kP_rmax, g)];
        X(i, G + g) += sums[units.curve_index(kR_rmin, g)];
      }
      for (int64_t c = 0; c < E; ++c) X(i, 2 * G + c) += e[c];
    }
    for (int64_t l = 0; l < L; ++l)
      for (int64_t g = 0; g < G; ++g)
        C(i, g) += static_cast<double>(units.unit_count(u, l, g) * group.heads_in_layer[l]);
  }
  const Eigen::MatrixXd R = detail::replicate_sums(rs.W, X), N = rs.W * C;  // [B, cols], [B, G]
  std::vector<double> lo, hi;
  int64_t with = 0;
  GroupMeans m;
  m.P.resize(G), m.R.resize(G);
  m.env.assign(K, std::vector<std::vector<double>>(kKappaCurves, std::vector<double>(G)));
  for (int64_t b = 0; b < R.rows(); ++b) {
    for (int64_t g = 0; g < G; ++g) {
      const double n = N(b, g);
      m.P[g] = n > 0 ? R(b, g) / n : kNaN, m.R[g] = n > 0 ? R(b, G + g) / n : kNaN;
      for (int64_t k = 0; k < K; ++k)
        for (int c = 0; c < kKappaCurves; ++c) m.env[k][c][g] = n > 0 ? R(b, 2 * G + env.index(k, c, g)) / n : kNaN;
    }
    const KappaRange r = range_of(m, kappas, grid, false);
    if (!r.has_range()) continue;
    ++with;
    lo.push_back(r.lo), hi.push_back(r.hi);
  }
  out.with_range = static_cast<double>(with) / static_cast<double>(R.rows());
  out.lo_ci = detail::percentile_interval(std::move(lo), p);
  out.hi_ci = detail::percentile_interval(std::move(hi), p);
}

// (x - median) / (1.4826 MAD) of x against `ref` (a scale of at least 1e-12 max(|median|, 1)).
double robust_z(double x, std::vector<double> ref) {
  std::erase_if(ref, [](double v) { return !std::isfinite(v); });
  if (ref.empty() || !std::isfinite(x)) return kNaN;
  const auto median = [](std::vector<double> v) {
    const size_t n = v.size();
    std::nth_element(v.begin(), v.begin() + n / 2, v.end());
    const double hi = v[n / 2];
    if (n % 2) return hi;
    return (hi + *std::max_element(v.begin(), v.begin() + n / 2)) / 2;
  };
  const double med = median(ref);
  std::vector<double> dev;
  for (const double v : ref) dev.push_back(std::abs(v - med));
  const double scale = std::max(1.4826 * median(dev), 1e-12 * std::max(std::abs(med), 1.0));
  return (x - med) / scale;
}

}  // namespace

KappaRanges kappa_ranges(WorkerPool& pool, const Aggregator& measured, const KappaStats& envelopes,
                         const UnitStats* units, int64_t replicates, uint64_t seed, double ci, bool quiet) {
  const int64_t L = measured.layers(), H = measured.heads();
  if (envelopes.layers() != L || envelopes.heads() != H || envelopes.grid_size() != std::ssize(measured.n_grid()))
    fail("internal: kappa envelopes of {}x{} (grid {}) for {}x{} (grid {})", envelopes.layers(), envelopes.heads(),
         envelopes.grid_size(), L, H, measured.n_grid().size());
  const auto& grid = measured.n_grid();
  KappaRanges out;
  out.kappas = envelopes.kappas();
  out.layers.resize(static_cast<size_t>(L));
  out.heads.resize(static_cast<size_t>(L * H));
  out.failures.resize(static_cast<size_t>(L * H));
  // Every group: -1 the run, then the layers, then the heads.
  const int64_t groups = 1 + L + L * H;
  const auto group_at = [&](int64_t i) -> std::pair<int64_t, int64_t> {
    if (i == 0) return {-1, -1};
    if (i <= L) return {i - 1, -1};
    return {(i - 1 - L) / H, (i - 1 - L) % H};
  };
  const auto result_of = [&](int64_t layer, int64_t head) -> KappaRange& {
    return layer < 0 ? out.global : head < 0 ? out.layers[layer] : out.heads[layer * H + head];
  };
  pool.parallel_for(groups, [&](int64_t i0, int64_t i1, int) {
    for (int64_t i = i0; i < i1; ++i) {
      const auto [layer, head] = group_at(i);
      result_of(layer, head) = range_of(group_means(measured, envelopes, layer, head), out.kappas, grid, true);
    }
  });
  const bool boot = units && !units->empty() && envelopes.has_units() && replicates > 0;
  if (!boot) return out;
  if (units->level() != envelopes.level()) fail("internal: the kappa envelopes' documents at another level than the bootstrap's");
  // The envelopes' rows of the bootstrap's documents (the same documents: the same windows).
  std::map<std::string, int64_t> env_row;
  for (int64_t r = 0; r < envelopes.units(); ++r) env_row[envelopes.unit_ids()[r]] = r;
  std::vector<int64_t> env_rows;
  for (const auto& id : units->unit_ids()) {
    const auto it = env_row.find(id);
    if (it == env_row.end()) fail("internal: document '{}' has metrics and no envelopes", id);
    env_rows.push_back(it->second);
  }
  const auto rs = detail::resamples(units->unit_ids(), replicates, seed);
  const BootLevel level = units->level();
  // The groups at or above the level, with their stats groups and heads per layer.
  std::vector<std::pair<int64_t, int64_t>> boot_groups = {{-1, -1}};
  if (level != BootLevel::Global)
    for (int64_t l = 0; l < L; ++l) boot_groups.push_back({l, -1});
  if (level == BootLevel::Head)
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h) boot_groups.push_back({l, h});
  ItemProgress progress("kappa ranges' bootstrap", std::ssize(boot_groups), quiet);
  pool.parallel_for(std::ssize(boot_groups), [&](int64_t i0, int64_t i1, int worker) {
    for (int64_t i = i0; i < i1; ++i, progress.done(worker)) {
      const auto [layer, head] = boot_groups[i];
      BootGroup group;
      group.heads_in_layer.assign(static_cast<size_t>(L), 0);
      for (int64_t l = layer < 0 ? 0 : layer; l < (layer < 0 ? L : layer + 1); ++l)
        group.heads_in_layer[l] = head < 0 ? H : 1;
      for (const int64_t s : units->group_slots(layer, head, "kappa range")) {
        const int64_t grp = units->group_of(s / H, s % H);
        if (std::find(group.members.begin(), group.members.end(), grp) == group.members.end()) group.members.push_back(grp);
      }
      bootstrap_range(*units, envelopes, rs, env_rows, group, out.kappas, grid, result_of(layer, head), percentiles_of(ci));
    }
  });
  progress.finish();
  return out;
}

// SPEC §4: the cv of ||v_i||; c_far, the mean of c(k) over the upper half of the lags that had
// pairs; the four-phase fit's error.
std::array<double, kAssumptions> assumption_statistics(const HeadFits& f) {
  std::vector<double> c;
  for (const double x : f.c)
    if (std::isfinite(x)) c.push_back(x);
  double far = kNaN;
  if (!c.empty()) {
    far = 0;
    const size_t from = c.size() / 2;
    for (size_t k = from; k < c.size(); ++k) far += c[k];
    far /= static_cast<double>(c.size() - from);
  }
  return {f.norms.cv, far, f.profile.error};
}

void name_failing_assumptions(KappaRanges& ranges, const std::vector<HeadFits>& fits) {
  if (fits.size() != ranges.heads.size()) fail("internal: {} fits for {} heads", fits.size(), ranges.heads.size());
  std::vector<std::array<double, kAssumptions>> stats;
  for (const auto& f : fits) stats.push_back(assumption_statistics(f));
  // The reference: the heads with a range (all heads when fewer than 3 have one).
  std::vector<size_t> ref;
  for (size_t i = 0; i < fits.size(); ++i)
    if (ranges.heads[i].has_range()) ref.push_back(i);
  if (ref.size() < 3) {
    ref.clear();
    for (size_t i = 0; i < fits.size(); ++i) ref.push_back(i);
  }
  for (size_t i = 0; i < fits.size(); ++i) {
    KappaFailure& f = ranges.failures[i];
    f = {};
    if (ranges.heads[i].has_range()) continue;
    f.statistic = stats[i];
    for (int a = 0; a < kAssumptions; ++a) {
      std::vector<double> values;
      for (const size_t r : ref) values.push_back(stats[r][a]);
      f.z[a] = robust_z(stats[i][a], std::move(values));
    }
    const analysis::FitStatus* status[kAssumptions] = {&fits[i].norms.status, &fits[i].decay.status, &fits[i].profile.status};
    int named = -1;
    // A fit that failed on its data names its assumption; one whose parameters the data does not
    // identify (SPEC §4) does not: that says nothing against the assumption.
    for (int a = 0; a < kAssumptions && named < 0; ++a)
      if (!status[a]->ok && status[a]->identified) {
        named = a;
        f.why = fmt::format("its {} fit failed: {}", kAssumptionNames[a].name, status[a]->why);
      }
    if (named < 0) {
      for (int a = 0; a < kAssumptions; ++a)
        if (f.z[a] > 3 && (named < 0 || f.z[a] > f.z[named])) named = a;
      if (named >= 0)
        f.why = fmt::format("its {} statistic is {:.3g}, {:.1f} robust standard deviations from the heads' median",
                            kAssumptionNames[named].name, stats[i][named], f.z[named]);
    }
    f.assumption = named >= 0 ? kAssumptionNames[named].name : "none stands out";
    if (named < 0) f.why = "no statistic is more than 3 robust standard deviations above the heads' median";
  }
}

}  // namespace geoattn::metrics
