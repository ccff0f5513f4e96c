// Loss sums per intervention and document, and their paired bootstrap (loss_stats.h).
#include "geoattn/metrics/intervene/loss_stats.h"

#include <cmath>

#include "../finalize/resamples.h"
#include "geoattn/util/error.h"
#include "geoattn/util/nan.h"

namespace geoattn::metrics {

void LossSums::add(const LossSums& o) {
  loss_plain += o.loss_plain, loss += o.loss, kl += o.kl, agree += o.agree, tokens += o.tokens;
  kept += o.kept, seen += o.seen;
}

int64_t LossStats::unit_row(const std::string& id) {
  const auto [it, added] = rows_.emplace(id, units());
  if (added) ids_.push_back(id), sums_.resize(static_cast<size_t>(units() * runs_));
  return it->second;
}

void LossStats::add(int64_t intervention, int64_t row, const LossSums& s) {
  sums_[static_cast<size_t>(row * runs_ + intervention)].add(s);
}

const LossSums& LossStats::at(int64_t intervention, int64_t row) const {
  return sums_[static_cast<size_t>(row * runs_ + intervention)];
}

LossSums LossStats::total(int64_t intervention) const {
  LossSums t;
  for (const auto& [id, row] : rows_) t.add(at(intervention, row));  // the documents in id order
  return t;
}

namespace {

// The reading's ratios of sums `s`.
LossReading ratios(const LossSums& s) {
  LossReading r;
  r.loss_plain = s.loss_plain / s.tokens, r.loss = s.loss / s.tokens;
  r.loss_diff = (s.loss - s.loss_plain) / s.tokens;
  r.kl = s.kl / s.tokens, r.top1 = s.agree / s.tokens;
  r.kept_fraction = s.seen > 0 ? s.kept / s.seen : kNaN;  // no row edited: zero ablation
  return r;
}

}  // namespace

LossReadings loss_readings(const LossStats& stats, int64_t replicates, uint64_t seed, double family_ci) {
  if (!(family_ci > 0 && family_ci < 100)) fail("intervene: ci {} is not above 0 and below 100", family_ci);
  LossReadings out;
  const int64_t m = stats.interventions(), U = stats.units();
  out.family_ci = family_ci;
  // Bonferroni over the m interventions: every interval holds with probability family_ci.
  out.each_ci = 100 - (100 - family_ci) / static_cast<double>(std::max<int64_t>(m, 1));
  out.replicates = replicates;
  out.status = interval_status(U, "document");
  for (int64_t k = 0; k < m; ++k) {
    LossReading r = ratios(stats.total(k));
    r.loss_diff_ci = r.kl_ci = r.top1_ci = {kNaN, kNaN};
    out.interventions.push_back(r);
  }
  if (replicates < 1 || !out.status.intervals || m == 0) return out;
  // The replicates' sums: W [B, U] (how often replicate b drew each document) times X [U, 4].
  const detail::Resamples draws = detail::resamples(stats.unit_ids(), replicates, seed);
  const Percentiles p = percentiles_of(out.each_ci);
  for (int64_t k = 0; k < m; ++k) {
    Eigen::MatrixXd X(U, 4);
    for (int64_t i = 0; i < U; ++i) {
      const LossSums& s = stats.at(k, draws.order[static_cast<size_t>(i)]);
      X(i, 0) = s.loss - s.loss_plain, X(i, 1) = s.kl, X(i, 2) = s.agree, X(i, 3) = s.tokens;
    }
    const Eigen::MatrixXd R = detail::replicate_sums(draws.W, X);  // [B, 4]
    std::vector<double> diff(static_cast<size_t>(replicates)), kl(diff.size()), top1(diff.size());
    for (int64_t b = 0; b < replicates; ++b) {
      const double tokens = R(b, 3);
      diff[static_cast<size_t>(b)] = R(b, 0) / tokens, kl[static_cast<size_t>(b)] = R(b, 1) / tokens;
      top1[static_cast<size_t>(b)] = R(b, 2) / tokens;
    }
    auto& r = out.interventions[static_cast<size_t>(k)];
    r.loss_diff_ci = detail::percentile_interval(std::move(diff), p);
    r.kl_ci = detail::percentile_interval(std::move(kl), p);
    r.top1_ci = detail::percentile_interval(std::move(top1), p);
  }
  return out;
}

}  // namespace geoattn::metrics
