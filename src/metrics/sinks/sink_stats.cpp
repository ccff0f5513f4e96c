// Attention-sink statistics accumulated over windows, exactly (SPEC §9).
#include "geoattn/metrics/sinks/sink_stats.h"

#include <cmath>

#include "geoattn/analysis/frames.h"
#include "geoattn/util/error.h"
#include "geoattn/util/nan.h"

namespace geoattn::metrics {

namespace {
// The most windows a run may hold: doubles count them exactly, and no count or product of them
// with a shape (sink rates, anchor histograms, merges) can overflow.
constexpr int64_t kMaxWindows = int64_t{1} << 53;

// Slots of a (layer, head) after its alpha[T]: row score, column score, rho0, reference[3].
enum HeadSlot : int64_t { kSlotRow = 0, kSlotCol = 1, kSlotRho0 = 2, kSlotRef = 3 };

bool same_shape(const SinkShape& a, const SinkShape& b) {
  return a.layers == b.layers && a.heads == b.heads && a.kv_heads == b.kv_heads && a.T == b.T && a.taus == b.taus &&
         a.residual == b.residual;
}
}  // namespace

std::pair<int64_t, int64_t> top2(const double* profile, int64_t T) {
  int64_t first = -1, second = -1;
  for (int64_t k = 0; k < T; ++k) {
    if (first < 0 || profile[k] > profile[first]) {
      second = first, first = k;
    } else if (second < 0 || profile[k] > profile[second]) {
      second = k;
    }
  }
  return {first, second};
}

SinkStats::SinkStats(const SinkShape& shape, double eps) : shape_(shape), eps_(eps) {
  const auto& s = shape;
  if (s.layers < 1 || s.heads < 1 || s.kv_heads < 1 || s.T < 2 || s.taus < 0 || s.heads % s.kv_heads != 0)
    fail("sink stats: bad shape (layers {}, heads {}, kv heads {}, T {}, taus {})", s.layers, s.heads, s.kv_heads, s.T,
         s.taus);
  heads_.resize(s.layers * s.heads * head_slots());
  kvs_.resize(s.layers * s.kv_heads * kv_slots());
  layers_.resize(s.layers * layer_slots());
  sinks_.assign(s.layers * s.heads * s.T, 0);
  graph_windows_.assign(s.layers * s.taus, 0);
  anchors_.resize(s.layers * (s.heads + 1) * 2);
}

void SinkStats::add(const SinkWindow& w, std::span<const int64_t> tokens) {
  if (!same_shape(w.shape, shape_)) fail("sink stats: a window of another shape");
  if (static_cast<int64_t>(tokens.size()) != shape_.T) fail("sink stats: {} token ids for a window of {}", tokens.size(), shape_.T);
  if (windows_ >= kMaxWindows) fail("sink stats: more than {} windows", kMaxWindows);
  const int64_t L = shape_.layers, H = shape_.heads, KV = shape_.kv_heads, T = shape_.T;
  std::vector<double> bar(T);
  auto count_anchors = [&](int64_t l, int64_t slot, const double* profile) {
    const auto [a, b] = top2(profile, analysis::anchor_candidates(T));
    ++anchors_[(l * (H + 1) + slot) * 2 + 0][{a, tokens[a]}];
    ++anchors_[(l * (H + 1) + slot) * 2 + 1][{b, tokens[b]}];
  };
  for (int64_t l = 0; l < L; ++l) {
    std::fill(bar.begin(), bar.end(), 0.0);
    for (int64_t h = 0; h < H; ++h) {
      const int64_t lh = l * H + h;
      const double* alpha = &w.alpha[lh * T];
      ExactSum* sums = &heads_[lh * head_slots()];
      for (int64_t k = 0; k < T; ++k) {
        sums[k].add(alpha[k]);
        // SPEC §9: a sink head at k when alpha_k > eps (strict).
        sinks_[lh * T + k] += alpha[k] > eps_;
        bar[k] += alpha[k] / static_cast<double>(H);
      }
      sums[T + kSlotRow].add(w.row_score[lh]);
      sums[T + kSlotCol].add(w.col_score[lh]);
      sums[T + kSlotRho0].add(w.rho0[lh]);
      for (int64_t s = 0; s < kNumReferenceStats; ++s) sums[T + kSlotRef + s].add(w.reference_v[lh * kNumReferenceStats + s]);
      count_anchors(l, h, alpha);
    }
    count_anchors(l, H, bar.data());
    for (int64_t kv = 0; kv < KV; ++kv)
      for (int64_t i = 0; i < T; ++i) kvs_[(l * KV + kv) * T + i].add(w.norms[(l * KV + kv) * T + i]);
    ExactSum* ls = &layers_[l * layer_slots()];
    ls[0].add(w.reference_bar[l]);
    for (int64_t s = 0; s < kNumReferenceStats; ++s)
      ls[1 + s].add(shape_.residual ? w.reference_resid[l * kNumReferenceStats + s] : 0.0);
    for (int64_t tau = 0; tau < shape_.taus; ++tau) {
      const double* g = &w.graph[(l * shape_.taus + tau) * kNumGraphStats];
      // SPEC §9: the authors' early return (below 2 edges) records no density and no Gini.
      const bool recorded = !std::isnan(g[kDensity]);
      if (recorded != !std::isnan(g[kGini])) fail("sink stats: a window with a density and no Gini, or the reverse");
      for (int64_t stat = 0; stat < kNumGraphStats; ++stat)
        if (recorded || (stat != kDensity && stat != kGini)) ls[1 + kNumReferenceStats + tau * kNumGraphStats + stat].add(g[stat]);
      graph_windows_[l * shape_.taus + tau] += recorded;
    }
  }
  ++windows_;
}

void SinkStats::merge(const SinkStats& o) {
  if (!same_shape(o.shape_, shape_)) fail("sink stats: cannot merge runs of different shapes");
  if (o.eps_ != eps_) fail("sink stats: cannot merge runs with eps {} and {}", eps_, o.eps_);
  if (o.windows_ > kMaxWindows - windows_) fail("sink stats: the merged run has more than {} windows", kMaxWindows);
  for (size_t i = 0; i < heads_.size(); ++i) heads_[i].merge(o.heads_[i]);
  for (size_t i = 0; i < kvs_.size(); ++i) kvs_[i].merge(o.kvs_[i]);
  for (size_t i = 0; i < layers_.size(); ++i) layers_[i].merge(o.layers_[i]);
  for (size_t i = 0; i < sinks_.size(); ++i) sinks_[i] += o.sinks_[i];
  for (size_t i = 0; i < graph_windows_.size(); ++i) graph_windows_[i] += o.graph_windows_[i];
  for (size_t i = 0; i < anchors_.size(); ++i)
    for (const auto& [key, n] : o.anchors_[i]) anchors_[i][key] += n;
  windows_ += o.windows_;
}

double SinkStats::mean(const ExactSum& s) const {
  return windows_ > 0 ? static_cast<double>(s.value_ld() / static_cast<long double>(windows_)) : kNaN;
}

const ExactSum& SinkStats::head_sum(int64_t l, int64_t h, int64_t slot) const {
  return heads_[(l * shape_.heads + h) * head_slots() + slot];
}

std::vector<double> SinkStats::alpha(int64_t l, int64_t h) const {
  std::vector<double> out(shape_.T);
  for (int64_t k = 0; k < shape_.T; ++k) out[k] = mean(head_sum(l, h, k));
  return out;
}

std::vector<double> SinkStats::alpha_bar(int64_t l) const {
  // Abar's alpha_k is the mean over heads of theirs (alpha_k is linear in A).
  std::vector<double> out(shape_.T);
  for (int64_t k = 0; k < shape_.T; ++k) {
    ExactSum s;
    for (int64_t h = 0; h < shape_.heads; ++h) s.merge(head_sum(l, h, k));
    out[k] = windows_ > 0 ? static_cast<double>(s.value_ld() / (static_cast<long double>(windows_) * shape_.heads)) : kNaN;
  }
  return out;
}

int64_t SinkStats::sink_windows(int64_t l, int64_t h, int64_t k) const { return sinks_[(l * shape_.heads + h) * shape_.T + k]; }
double SinkStats::row_score(int64_t l, int64_t h) const { return mean(head_sum(l, h, shape_.T + kSlotRow)); }
double SinkStats::col_score(int64_t l, int64_t h) const { return mean(head_sum(l, h, shape_.T + kSlotCol)); }
double SinkStats::rho0(int64_t l, int64_t h) const { return mean(head_sum(l, h, shape_.T + kSlotRho0)); }
double SinkStats::reference_v(int64_t l, int64_t h, int64_t stat) const {
  return mean(head_sum(l, h, shape_.T + kSlotRef + stat));
}
double SinkStats::reference_bar_size(int64_t l) const { return mean(layers_[l * layer_slots()]); }
double SinkStats::reference_resid(int64_t l, int64_t stat) const {
  return shape_.residual ? mean(layers_[l * layer_slots() + 1 + stat]) : kNaN;
}
std::vector<double> SinkStats::mean_norms(int64_t l, int64_t kv) const {
  std::vector<double> out(shape_.T);
  for (int64_t i = 0; i < shape_.T; ++i) out[i] = mean(kvs_[(l * shape_.kv_heads + kv) * shape_.T + i]);
  return out;
}
double SinkStats::graph(int64_t l, int64_t tau, int64_t stat) const {
  const ExactSum& s = layers_[l * layer_slots() + 1 + kNumReferenceStats + tau * kNumGraphStats + stat];
  const int64_t n = graph_windows(l, tau, stat);
  return n > 0 ? static_cast<double>(s.value_ld() / static_cast<long double>(n)) : kNaN;
}
int64_t SinkStats::graph_windows(int64_t l, int64_t tau, int64_t stat) const {
  return stat == kDensity || stat == kGini ? graph_windows_[l * shape_.taus + tau] : windows_;
}
const AnchorCounts& SinkStats::anchors(int64_t l, int64_t h, int64_t rank) const {
  return anchors_[(l * (shape_.heads + 1) + (h < 0 ? shape_.heads : h)) * 2 + rank];
}

std::vector<ArrayView> SinkStats::arrays() const {
  std::vector<ExactSum> all_sums;  // heads_, kvs_, layers_ in one run
  for (const auto* v : {&heads_, &kvs_, &layers_}) all_sums.insert(all_sums.end(), v->begin(), v->end());
  std::vector<int64_t> anchor_rows, anchor_counts;  // anchors_ as rows
  const int64_t H = shape_.heads;
  for (int64_t l = 0; l < shape_.layers; ++l)
    for (int64_t h = 0; h <= H; ++h)
      for (int64_t rank = 0; rank < 2; ++rank)
        for (const auto& [key, n] : anchors_[(l * (H + 1) + h) * 2 + rank]) {
          anchor_rows.insert(anchor_rows.end(), {l, h == H ? -1 : h, rank, key.first, key.second});
          anchor_counts.push_back(n);
        }
  const int64_t n_sums = static_cast<int64_t>(all_sums.size()), m = static_cast<int64_t>(anchor_counts.size());
  std::vector<ArrayView> out = {derived_array("sink_sums", io::Dtype::I64, {n_sums, 2}, std::move(all_sums)),
                                {"sink_counts", io::Dtype::I64, {shape_.layers, H, shape_.T}, bytes_of(sinks_)},
                                derived_array("sink_anchors", io::Dtype::I64, {m, 5}, std::move(anchor_rows)),
                                derived_array("sink_anchor_counts", io::Dtype::I64, {m}, std::move(anchor_counts))};
  if (shape_.taus > 0)
    out.push_back({"sink_graph_windows", io::Dtype::I64, {shape_.layers, shape_.taus}, bytes_of(graph_windows_)});
  return out;
}

SinkStats SinkStats::from_tensors(const SinkShape& shape, double eps, int64_t windows, const std::vector<int64_t>& sums,
                                  const std::vector<int64_t>& counts, const std::vector<int64_t>& anchors,
                                  const std::vector<int64_t>& anchor_counts, const std::string& what,
                                  const std::vector<int64_t>* graph_windows) {
  const auto& d = shape;
  if (windows < 0 || windows > kMaxWindows) fail("{}: {} windows (0 to {})", what, windows, kMaxWindows);
  if (d.layers < 1 || d.heads < 1 || d.kv_heads < 1 || d.T < 2 || d.taus < 0)
    fail("{}: bad shape (layers {}, heads {}, kv heads {}, T {}, taus {})", what, d.layers, d.heads, d.kv_heads, d.T,
         d.taus);
  // The arrays' sizes, checked against the shape (without overflow) before it allocates anything.
  bool overflow = false;
  const auto mul = [&overflow](int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_mul_overflow(a, b, &r);
    return r;
  };
  const auto add = [&overflow](int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_add_overflow(a, b, &r);
    return r;
  };
  const int64_t head_sums = mul(mul(d.layers, d.heads), add(d.T, 3 + kNumReferenceStats));
  const int64_t kv_sums = mul(mul(d.layers, d.kv_heads), d.T);
  const int64_t layer_sums = mul(d.layers, add(1 + kNumReferenceStats, mul(d.taus, kNumGraphStats)));
  const int64_t n_sums = add(add(head_sums, kv_sums), layer_sums), n_counts = mul(mul(d.layers, d.heads), d.T);
  if (overflow || sums.size() % 2 != 0 || sums.size() / 2 != static_cast<uint64_t>(n_sums) ||
      counts.size() != static_cast<uint64_t>(n_counts))
    fail("{}: sink_sums holds {} and sink_counts {} values, not those of layers {}, heads {}, kv heads {}, T {}, "
         "taus {}",
         what, sums.size(), counts.size(), d.layers, d.heads, d.kv_heads, d.T, d.taus);
  if (anchors.size() != 5 * anchor_counts.size()) fail("{}: sink_anchors and sink_anchor_counts disagree", what);
  SinkStats s(shape, eps);
  size_t i = 0;
  for (auto* v : {&s.heads_, &s.kvs_, &s.layers_})
    for (auto& x : *v) x = ExactSum::from_halves(static_cast<uint64_t>(sums[2 * i]), sums[2 * i + 1]), ++i;
  for (size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] < 0 || counts[k] > windows) fail("{}: sink_counts has {} of {} windows", what, counts[k], windows);
    s.sinks_[k] = counts[k];
  }
  // Every window adds one top anchor of each rank to every (layer, head or Abar): each of
  // those histograms counts exactly the windows (so no sum of its counts can overflow).
  std::vector<int64_t> counted(s.anchors_.size(), 0);
  for (size_t r = 0; r < anchor_counts.size(); ++r) {
    const int64_t* a = &anchors[5 * r];
    if (a[0] < 0 || a[0] >= d.layers || a[1] < -1 || a[1] >= d.heads || a[2] < 0 || a[2] > 1 || a[3] < 0 ||
        a[3] >= d.T || a[4] < 0 || anchor_counts[r] < 1 || anchor_counts[r] > windows)
      fail("{}: sink_anchors row {} is out of range", what, r);
    const size_t m = static_cast<size_t>((a[0] * (d.heads + 1) + (a[1] < 0 ? d.heads : a[1])) * 2 + a[2]);
    if (!s.anchors_[m].emplace(std::pair{a[3], a[4]}, anchor_counts[r]).second)
      fail("{}: sink_anchors row {} repeats an anchor", what, r);
    counted[m] += anchor_counts[r];  // both <= windows <= 2^53 here
    if (counted[m] > windows) fail("{}: sink_anchors row {} counts more anchors than the {} windows", what, r, windows);
  }
  for (size_t m = 0; m < counted.size(); ++m)
    if (counted[m] != windows) {
      const int64_t l = static_cast<int64_t>(m / 2) / (d.heads + 1), h = static_cast<int64_t>(m / 2) % (d.heads + 1);
      fail("{}: sink_anchors of layer {}, {}, rank {} count {} windows, not {}", what, l,
           h == d.heads ? std::string("Abar") : fmt::format("head {}", h), m % 2, counted[m], windows);
    }
  if (graph_windows) {
    if (graph_windows->size() != s.graph_windows_.size())
      fail("{}: sink_graph_windows holds {} values, not layers {} x taus {}", what, graph_windows->size(), d.layers, d.taus);
    for (size_t k = 0; k < graph_windows->size(); ++k) {
      if ((*graph_windows)[k] < 0 || (*graph_windows)[k] > windows)
        fail("{}: sink_graph_windows has {} of {} windows", what, (*graph_windows)[k], windows);
      s.graph_windows_[k] = (*graph_windows)[k];
    }
  } else {
    s.graph_windows_.assign(s.graph_windows_.size(), windows);
  }
  s.windows_ = windows;
  return s;
}

}  // namespace geoattn::metrics
