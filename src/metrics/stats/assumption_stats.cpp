#include "geoattn/metrics/stats/assumption_stats.h"

#include <iterator>

#include "geoattn/util/error.h"
#include "geoattn/util/nan.h"

namespace geoattn::metrics {

AssumptionStats::AssumptionStats(int64_t layers, int64_t heads, int64_t T, int64_t K, std::vector<int64_t> tokens)
    : HeadGrid(layers, heads), T_(T), K_(K), tokens_(std::move(tokens)) {
  if (layers < 1 || heads < 1 || T < 1 || K < 1)
    fail("assumption stats: layers {}, heads {}, T {}, K {} must all be >= 1", layers, heads, T, K);
  if (tokens_.empty()) tokens_.assign(static_cast<size_t>(layers), T);
  if (std::ssize(tokens_) != layers) fail("assumption stats: {} token counts for {} layers", tokens_.size(), layers);
  for (const int64_t n : tokens_)
    if (n < 1 || n > T) fail("assumption stats: a layer of {} tokens in windows of T = {}", n, T);
  sums_.resize(static_cast<size_t>(layers * heads * per_head_sums()));
  counts_.resize(static_cast<size_t>(layers * heads * per_head_counts()));
}

int64_t AssumptionStats::slot(int64_t layer, int64_t head) const {
  if (layer < 0 || layer >= layers_ || head < 0 || head >= heads_)
    fail("assumption stats: layer {} head {} is outside {} x {}", layer, head, layers_, heads_);
  return layer * heads_ + head;
}

void AssumptionStats::add(int64_t layer, int64_t head, const AssumptionWindow& w) {
  const int64_t s = slot(layer, head);
  const int64_t n = tokens_[static_cast<size_t>(layer)];
  if (std::ssize(w.norm) != n || std::ssize(w.row) != n || std::ssize(w.decay_sum) != K_ || std::ssize(w.decay_pairs) != K_)
    fail("assumption stats: a window of {} norms, {} row entries, {} and {} lags for {} tokens and K {}", w.norm.size(),
         w.row.size(), w.decay_sum.size(), w.decay_pairs.size(), n, K_);
  // Add into a copy first: a bad value leaves the stats unchanged.
  std::vector<ExactSum> sums(sums_.begin() + s * per_head_sums(), sums_.begin() + (s + 1) * per_head_sums());
  ExactSum* norm = sums.data();
  ExactSum* row = norm + T_;
  ExactSum* decay = row + T_;
  for (int64_t i = 0; i < n; ++i) {
    norm[i].add(w.norm[i]);
    row[i].add(w.row[i]);
  }
  for (int64_t k = 0; k < K_; ++k) decay[k].add(w.decay_sum[k]);
  decay[K_].add(w.cv);
  std::copy(sums.begin(), sums.end(), sums_.begin() + s * per_head_sums());
  int64_t* counts = counts_.data() + s * per_head_counts();
  for (int64_t k = 0; k < K_; ++k) counts[k] += w.decay_pairs[k];
  counts[K_] += 1;
}

void AssumptionStats::merge(const AssumptionStats& other) {
  if (other.empty()) return;
  if (empty()) {
    *this = other;
    return;
  }
  if (!same_grid(other) || T_ != other.T_ || K_ != other.K_ || tokens_ != other.tokens_)
    fail("assumption stats: cannot merge {}x{} (T {}, K {}) with {}x{} (T {}, K {}), or other tokens per layer", layers_,
         heads_, T_, K_, other.layers_, other.heads_, other.T_, other.K_);
  merge_counts(counts_, other.counts_, "assumption stats");  // first: an overflow leaves the stats unchanged
  for (size_t i = 0; i < sums_.size(); ++i) sums_[i].merge(other.sums_[i]);
}

int64_t AssumptionStats::windows(int64_t layer, int64_t head) const {
  return counts_[slot(layer, head) * per_head_counts() + K_];
}

std::vector<double> AssumptionStats::mean_norm(int64_t layer, int64_t head) const {
  const int64_t s = slot(layer, head), n = windows(layer, head);
  std::vector<double> out(static_cast<size_t>(tokens(layer)), kNaN);
  for (size_t i = 0; n > 0 && i < out.size(); ++i) out[i] = static_cast<double>(sums_[s * per_head_sums() + i].value_ld() / n);
  return out;
}

std::vector<double> AssumptionStats::mean_row(int64_t layer, int64_t head) const {
  const int64_t s = slot(layer, head), n = windows(layer, head);
  std::vector<double> out(static_cast<size_t>(tokens(layer)), kNaN);
  for (size_t i = 0; n > 0 && i < out.size(); ++i)
    out[i] = static_cast<double>(sums_[s * per_head_sums() + T_ + static_cast<int64_t>(i)].value_ld() / n);
  return out;
}

double AssumptionStats::mean_cv(int64_t layer, int64_t head) const {
  const int64_t n = windows(layer, head);
  return n > 0 ? static_cast<double>(sums_[slot(layer, head) * per_head_sums() + 2 * T_ + K_].value_ld() / n) : kNaN;
}

// SPEC §4: c(k) = the mean of cos(v_i, v_j) over all pairs i, j > 0 with |i - j| = k.
std::vector<double> AssumptionStats::decay(int64_t layer, int64_t head) const {
  const int64_t s = slot(layer, head);
  std::vector<double> out(static_cast<size_t>(K_), kNaN);
  for (int64_t k = 0; k < K_; ++k) {
    const int64_t pairs = counts_[s * per_head_counts() + k];
    if (pairs > 0) out[k] = static_cast<double>(sums_[s * per_head_sums() + 2 * T_ + k].value_ld() / pairs);
  }
  return out;
}

std::vector<ArrayView> AssumptionStats::arrays() const {
  return {{"assume_sums", io::Dtype::I64, {layers_, heads_, per_head_sums(), 2}, exact_sum_bytes(sums_)},
          {"assume_counts", io::Dtype::I64, {layers_, heads_, per_head_counts()}, bytes_of(counts_)},
          {"assume_tokens", io::Dtype::I64, {layers_}, bytes_of(tokens_)}};
}

AssumptionStats AssumptionStats::from_tensors(int64_t layers, int64_t heads, int64_t T, int64_t K,
                                              const std::vector<int64_t>& sums, const std::vector<int64_t>& counts,
                                              const std::vector<int64_t>& tokens) {
  AssumptionStats a(layers, heads, T, K, tokens);
  read_exact_sums(sums, a.sums_, "assumption stats");
  read_counts(counts, a.counts_, "assumption stats");
  return a;
}

}  // namespace geoattn::metrics
