// Interventions on attention heads (intervention.h).
#include "geoattn/model/intervention.h"

#include <algorithm>
#include <limits>

#include "geoattn/util/error.h"
#include "geoattn/util/numbers.h"

namespace geoattn::model {

Intervention Intervention::parse(const std::string& text) {
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const auto edit = value_of(kEditNames, name);
  const auto bad = [&] {
    fail("'{}' is not zero, mean, top-n:N, sink-recent:K, random:N (N, K >= 1) or budget:RULE", text);
  };
  if (!edit) bad();
  Intervention iv{*edit, 0, ""};
  if (*edit == Edit::Zero || *edit == Edit::Mean) {
    if (colon != std::string::npos) bad();
    return iv;
  }
  if (colon == std::string::npos) bad();
  if (*edit == Edit::Budget) {
    iv.rule = text.substr(colon + 1);
    if (iv.rule.empty()) bad();
    return iv;
  }
  const auto n = parse_integer<int64_t>(text.substr(colon + 1));
  if (!n || *n < 1) bad();
  iv.n = *n;
  return iv;
}

std::string Intervention::text() const {
  const std::string name(name_of(kEditNames, edit));
  if (edit == Edit::Zero || edit == Edit::Mean) return name;
  return name + ":" + (edit == Edit::Budget ? rule : std::to_string(n));
}

HeadEdits::HeadEdits(int64_t layers, int64_t heads, const std::vector<std::pair<int64_t, int64_t>>& which,
                     Intervention intervention, uint64_t seed)
    : by_layer_(static_cast<size_t>(layers)), intervention_(intervention), seed_(seed) {
  for (const auto& [l, h] : which) {
    if (l < 0 || l >= layers || h < 0 || h >= heads)
      fail("head {}.{} is not in the model's {} layers x {} heads", l, h, layers, heads);
    auto& list = by_layer_[static_cast<size_t>(l)];
    if (std::find(list.begin(), list.end(), h) == list.end()) list.push_back(h);
  }
  for (int64_t l = 0; l < layers; ++l) {
    auto& list = by_layer_[static_cast<size_t>(l)];
    std::sort(list.begin(), list.end());
    if (!list.empty() && first_layer_ < 0) first_layer_ = l;
  }
}

HeadEdits::HeadEdits(int64_t layers, int64_t heads, const std::vector<std::pair<int64_t, int64_t>>& which,
                     Intervention intervention, const std::vector<int64_t>& budgets)
    : HeadEdits(layers, heads, which, intervention) {
  if (budgets.size() != which.size()) fail("internal: {} budgets for {} heads", budgets.size(), which.size());
  n_by_layer_.resize(by_layer_.size());
  for (size_t l = 0; l < by_layer_.size(); ++l)
    for (const int64_t h : by_layer_[l]) {
      const auto at = std::find(which.begin(), which.end(), std::pair(static_cast<int64_t>(l), h)) - which.begin();
      if (budgets[static_cast<size_t>(at)] < 1) fail("head {}.{}: a budget of {} keys", l, h, budgets[static_cast<size_t>(at)]);
      n_by_layer_[l].push_back(budgets[static_cast<size_t>(at)]);
    }
}

HeadEdits::HeadEdits(int64_t layers, int64_t heads, const std::vector<std::pair<int64_t, int64_t>>& which,
                     Intervention intervention, const torch::Tensor& means)
    : HeadEdits(layers, heads, which, intervention) {
  if (means.dim() != 3 || means.size(0) != layers || means.size(1) != heads)
    fail("internal: means of {} dimensions for {} layers x {} heads", means.dim(), layers, heads);
  means_.resize(by_layer_.size());
  for (size_t l = 0; l < by_layer_.size(); ++l)
    if (!by_layer_[l].empty())
      means_[l] = means[static_cast<int64_t>(l)].index_select(0, torch::tensor(by_layer_[l], torch::kInt64));  // [h, d]
}

std::vector<int64_t> HeadEdits::kept_n(int64_t layer) const {
  if (!n_by_layer_.empty()) return n_by_layer_[static_cast<size_t>(layer)];
  return std::vector<int64_t>(by_layer_[static_cast<size_t>(layer)].size(), intervention_.n);
}

void HeadEdits::add_part(HeadEdits part) {
  if (!part.parts_.empty()) fail("internal: a part of a policy has parts of its own");
  for (const HeadEdits* e : all())
    for (size_t l = 0; l < by_layer_.size() && l < part.by_layer_.size(); ++l)
      for (const int64_t h : part.by_layer_[l])
        if (std::find(e->by_layer_[l].begin(), e->by_layer_[l].end(), h) != e->by_layer_[l].end())
          fail("head {}.{} is in two parts of one policy", l, h);
  if (part.first_layer_ >= 0 && (first_layer_ < 0 || part.first_layer_ < first_layer_)) first_layer_ = part.first_layer_;
  parts_.push_back(std::move(part));
}

std::vector<const HeadEdits*> HeadEdits::all() const {
  std::vector<const HeadEdits*> out = {this};
  for (const auto& p : parts_) out.push_back(&p);
  return out;
}

void HeadEdits::count_into(KeptKeys* into) {
  counts_ = into;
  for (auto& p : parts_) p.counts_ = into;
}

void HeadEdits::set_window_key(uint64_t key) {
  window_key_ = key;
  for (auto& p : parts_) p.window_key_ = key;
}

int64_t HeadEdits::head_count() const {
  int64_t n = 0;
  for (const auto& list : by_layer_) n += static_cast<int64_t>(list.size());
  for (const auto& p : parts_) n += p.head_count();
  return n;
}

namespace {

// A draw per (head, query i, key j), the same on every device and block size: splitmix64 of the
// run's seed, the layer, the window and the position, as int64 tensor arithmetic (wrapping).
torch::Tensor draws(uint64_t seed, int64_t layer, uint64_t window_key, const torch::Tensor& heads, const torch::Tensor& i,
                    const torch::Tensor& j) {
  const auto mix = [](torch::Tensor x) {
    x = x.bitwise_xor(x.bitwise_right_shift(30).bitwise_and(int64_t{0x3FFFFFFFF})) * static_cast<int64_t>(0xBF58476D1CE4E5B9ULL);
    x = x.bitwise_xor(x.bitwise_right_shift(27).bitwise_and(int64_t{0x1FFFFFFFFF})) * static_cast<int64_t>(0x94D049BB133111EBULL);
    return x.bitwise_xor(x.bitwise_right_shift(31).bitwise_and(int64_t{0x1FFFFFFFF}));
  };
  const auto base = static_cast<int64_t>(seed * 0x9E3779B97F4A7C15ULL ^ (window_key + 0x632BE59BD9B4E019ULL) ^
                                         (static_cast<uint64_t>(layer) << 48));
  // [h, Q, K]: head, query and key folded in one after another.
  auto x = mix(heads.view({-1, 1, 1}) + base);
  x = mix(x + i.view({1, -1, 1}));
  return mix(x + j.view({1, 1, -1}));
}

}  // namespace

torch::Tensor edit_rows(const torch::Tensor& probs, int64_t layer, int64_t i0, int64_t j0, int64_t window,
                        const HeadEdits& edits) {
  const auto& iv = edits.intervention();
  const auto options = torch::TensorOptions().dtype(torch::kInt64).device(probs.device());
  auto heads = torch::tensor(edits.heads(layer), torch::kInt64).to(probs.device());
  auto rows = probs.index_select(1, heads);  // [B, h, Q, K] float32
  const int64_t Q = rows.size(2), K = rows.size(3);
  auto i = torch::arange(i0, i0 + Q, options).view({Q, 1});  // query positions [Q, 1]
  auto j = torch::arange(j0, j0 + K, options).view({1, K});  // key positions [1, K]
  // SPEC §1: the keys a query sees.
  auto seen = j <= i;
  if (window > 0) seen = seen & ((i - j) < window);  // [Q, K]
  // Every head keeping at least as many keys as a row can see keeps every row as it was: no edit.
  const std::vector<int64_t> ns = edits.kept_n(layer);
  const bool keeps_all = (iv.edit == Edit::TopN || iv.edit == Edit::Budget || iv.edit == Edit::SinkRecent) &&
                         *std::min_element(ns.begin(), ns.end()) >= K;
  if (keeps_all) {
    if (edits.counts() != nullptr) {
      const double seen_keys = seen.sum().item<double>() * static_cast<double>(rows.size(0) * rows.size(1));
      edits.counts()->kept += seen_keys, edits.counts()->seen += seen_keys;
    }
    return probs;
  }
  torch::Tensor keep;                                 // [.., Q, K] bool
  switch (iv.edit) {
    case Edit::TopN:
    case Edit::Budget: {
      // Each head's N largest weights: the largest N of the layer's heads drawn, each head
      // keeping the first N of its own (topk's order: largest first).
      const int64_t n = std::min(*std::max_element(ns.begin(), ns.end()), K);
      auto rank_kept = torch::arange(n, options).view({1, 1, 1, n}) <
                       torch::tensor(ns, torch::kInt64).to(probs.device()).view({1, -1, 1, 1});  // [1, h, 1, n]
      auto top = std::get<1>(rows.topk(n, -1));                                                     // [B, h, Q, n]
      keep = torch::zeros_like(rows, torch::kBool).scatter(-1, top, rank_kept.expand_as(top)) & seen;
      break;
    }
    case Edit::SinkRecent: keep = seen & ((j == 0) | ((i - j) < iv.n)); break;
    case Edit::Random: {
      // The first key, and the n others with the largest draws among those the row sees.
      auto draw = draws(edits.seed(), layer, edits.window_key(), heads, i.view({-1}), j.view({-1}));  // [h, Q, K]
      const int64_t minimum = std::numeric_limits<int64_t>::min();
      draw = draw.masked_fill(~(seen & (j > 0)), minimum);
      const int64_t n = std::min(iv.n, K);
      auto picked = torch::zeros_like(draw, torch::kBool).scatter(-1, std::get<1>(draw.topk(n, -1)), true);
      keep = ((picked & (j > 0)) | (j == 0)) & seen;  // [h, Q, K]
      break;
    }
    case Edit::Zero:
    case Edit::Mean: fail("internal: {} edits no row", iv.text());
  }
  keep = keep.expand_as(rows);
  // A row that drops a key it gave weight to is renormalised over the keys kept; others stay.
  auto kept = rows * keep.to(rows.scalar_type());
  auto dropped = ((rows > 0) & ~keep).any(-1, /*keepdim=*/true);
  auto edited = torch::where(dropped, kept / kept.sum(-1, /*keepdim=*/true), rows);
  if (edits.counts() != nullptr) {
    edits.counts()->kept += (keep & seen).sum().item<double>();
    edits.counts()->seen += seen.sum().item<double>() * static_cast<double>(rows.size(0) * rows.size(1));
  }
  return probs.index_copy(1, heads, edited);
}

}  // namespace geoattn::model
