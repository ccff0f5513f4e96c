#pragma once
// What an intervened run accumulates (geoattn intervene) and what it reads from that: per
// intervention and per document, exact float64 sums of the next-token loss with and without the
// intervention, of the KL divergence of the intervened next-token distribution from the plain
// one, of top-1 agreement, of the tokens predicted, and of the keys the edited rows kept and saw;
// then the means over the shard with paired percentile bootstrap intervals over documents (SPEC
// §2b's resampling), their coverage adjusted for the number of interventions (Bonferroni).
// Pure C++.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "geoattn/metrics/finalize/bootstrap.h"

namespace geoattn::metrics {

// One window's (or one document's) sums for one intervention.
struct LossSums {
  double loss_plain = 0;  // sum over predicted tokens of -log p_plain(next token), nats
  double loss = 0;        // the same with the intervention
  double kl = 0;          // sum of KL(p_plain || p_intervened) of the next-token distributions, nats
  double agree = 0;       // tokens where both runs' most likely next token is the same
  double tokens = 0;      // tokens predicted (T - 1 per window)
  double kept = 0, seen = 0;  // keys the edited rows kept, and saw (kept fraction: their ratio)
  void add(const LossSums& o);
  // The sums by name, in the order the result files list them (report/intervene_json.h).
  static constexpr const char* kFields[] = {"loss_plain", "loss", "kl", "agree", "tokens", "kept", "seen"};
  std::array<double, 7> values() const { return {loss_plain, loss, kl, agree, tokens, kept, seen}; }
  static LossSums of(const std::array<double, 7>& v) { return {v[0], v[1], v[2], v[3], v[4], v[5], v[6]}; }
};

class LossStats {
 public:
  explicit LossStats(int64_t interventions = 0) : runs_(interventions) {}
  int64_t interventions() const { return runs_; }
  int64_t units() const { return static_cast<int64_t>(ids_.size()); }
  const std::vector<std::string>& unit_ids() const { return ids_; }
  // The row of a unit (a document), added at its first window.
  int64_t unit_row(const std::string& id);
  void add(int64_t intervention, int64_t row, const LossSums& s);
  const LossSums& at(int64_t intervention, int64_t row) const;
  // Over the units in the order of their ids (not of their rows): a run and a merge of its
  // shards add the same documents in the same order, so their totals are equal bit for bit.
  LossSums total(int64_t intervention) const;

 private:
  int64_t runs_;
  std::vector<std::string> ids_;
  std::map<std::string, int64_t> rows_;
  std::vector<LossSums> sums_;  // [row * runs + intervention]
};

// One intervention's reading: ratios of the sums over the shard, and their intervals.
struct LossReading {
  double loss_plain = 0, loss = 0, loss_diff = 0;  // nats per predicted token; loss_diff = loss - loss_plain
  double kl = 0;                                   // nats per predicted token
  double top1 = 0;                                 // agreement of the most likely next token
  double kept_fraction = 0;                        // of the keys the edited rows saw (NaN: zero ablation)
  Interval loss_diff_ci{}, kl_ci{}, top1_ci{};     // paired over documents; NaN without intervals
};
struct LossReadings {
  std::vector<LossReading> interventions;
  IntervalStatus status;  // whether there are intervals (>= 2 documents), or why not
  double family_ci = kSpecCi;  // the coverage of all intervals together
  double each_ci = kSpecCi;    // each interval's: 100 - (100 - family_ci) / interventions (Bonferroni)
  int64_t replicates = 0;
};
// The readings of `stats` with `replicates` replicates of the documents (0: none), seeded by
// `seed` (replicate b draws what the metric bootstrap's replicate b draws of the same documents).
LossReadings loss_readings(const LossStats& stats, int64_t replicates, uint64_t seed, double family_ci = kSpecCi);

}  // namespace geoattn::metrics
