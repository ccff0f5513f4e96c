// SPEC §5's envelopes at a grid of kappas, exact sums and per-document sums (kappa_stats.h).
#include "geoattn/metrics/stats/kappa_stats.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/nan.h"
#include "geoattn/util/numbers.h"

namespace geoattn::metrics {

std::vector<double> default_kappas() {
  std::vector<double> out;
  for (int e = -kKappaHalfOctaves; e <= kKappaHalfOctaves; ++e) out.push_back(std::exp2(e / 2.0));  // 2^(e/2)
  return out;
}

KappaScan KappaScan::parse(const std::string& text) {
  KappaScan scan;
  scan.text_ = text;
  if (scan.off() || scan.automatic()) return scan;
  const auto list = parse_list(text, [](const std::string& item) -> std::optional<double> {
    const auto x = parse_real(item);
    return x && *x > 0 ? x : std::nullopt;
  });
  if (!list || std::adjacent_find(list->begin(), list->end(), std::greater_equal<double>()) != list->end())
    fail("'{}' is not auto, off or a list of ascending kappas > 0 (e.g. 0.25,0.5,1,2)", echoed(text));
  scan.list_ = *list;
  return scan;
}

KappaScan KappaScan::of(const std::vector<double>& kappas) {
  KappaScan scan;
  if (kappas.empty()) return scan;
  scan.text_ = fmt::format("{}", fmt::join(kappas, ","));
  scan.list_ = kappas;
  return scan;
}

KappaStats::KappaStats(int64_t layers, int64_t heads, int64_t grid_size, std::vector<double> kappas,
                       std::optional<BootLevel> level)
    : HeadGrid(layers, heads), G_(grid_size), kappas_(std::move(kappas)), level_(level) {
  if (layers < 1 || heads < 1 || grid_size < 1 || kappas_.empty())
    fail("kappa stats: layers {}, heads {}, grid {}, kappas {} must all be >= 1", layers, heads, grid_size, kappas_.size());
  for (size_t k = 0; k < kappas_.size(); ++k)
    if (!(kappas_[k] > 0) || !std::isfinite(kappas_[k]) || (k > 0 && !(kappas_[k] > kappas_[k - 1])))
      fail("kappa stats: the kappas must be finite, > 0 and ascending ({} at {})", kappas_[k], k);
  sums_.resize(static_cast<size_t>(layers * heads * K() * kKappaCurves * G_));
  counts_.resize(static_cast<size_t>(layers * heads * G_));
}

int64_t KappaStats::groups() const { return level_groups(level(), layers_, heads_); }

int64_t KappaStats::group_of(int64_t layer, int64_t head) const { return level_group_of(level(), heads_, layer, head); }

int64_t KappaStats::row(const std::string& unit) {
  if (!has_units()) return -1;
  auto [it, inserted] = index_.emplace(unit, units());
  if (inserted) {
    ids_.push_back(unit);
    unit_sums_.resize(unit_sums_.size() + static_cast<size_t>(groups() * per_group()), 0.0);
  }
  return it->second;
}

void KappaStats::add(int64_t row, int64_t layer, int64_t head, std::span<const analysis::BoundsCurves> per_kappa) {
  if (layer < 0 || layer >= layers_ || head < 0 || head >= heads_)
    fail("kappa stats: layer {} head {} is outside {} x {}", layer, head, layers_, heads_);
  if (std::ssize(per_kappa) != K()) fail("kappa stats: a sample at {} kappas, the run has {}", per_kappa.size(), K());
  const int64_t n = std::ssize(per_kappa[0].P_lo);
  if (n > G_) fail("kappa stats: a sample has {} grid values, the run {}", n, G_);
  // Add into a copy first: a bad value (non-finite) leaves the stats unchanged.
  const int64_t s = layer * heads_ + head, per = K() * kKappaCurves * G_;
  std::vector<ExactSum> sums(sums_.begin() + s * per, sums_.begin() + (s + 1) * per);
  double* unit = has_units() && row >= 0 ? unit_sums_.data() + (row * groups() + group_of(layer, head)) * per_group() : nullptr;
  for (int64_t k = 0; k < K(); ++k) {
    const auto fields = analysis::curve_fields(per_kappa[k]);
    for (int c = 0; c < kKappaCurves; ++c) {
      if (std::ssize(*fields[c]) != n) fail("kappa stats: a sample's curves have different lengths");
      for (int64_t g = 0; g < n; ++g) sums[index(k, c, g)].add((*fields[c])[g]);
    }
  }
  std::copy(sums.begin(), sums.end(), sums_.begin() + s * per);
  for (int64_t g = 0; g < n; ++g) ++counts_[s * G_ + g];
  if (unit)
    for (int64_t k = 0; k < K(); ++k) {
      const auto fields = analysis::curve_fields(per_kappa[k]);
      for (int c = 0; c < kKappaCurves; ++c)
        for (int64_t g = 0; g < n; ++g) unit[index(k, c, g)] += (*fields[c])[g];
    }
}

void KappaStats::merge(const KappaStats& other) {
  if (other.empty()) return;
  if (empty()) {
    *this = other;
    return;
  }
  if (!same_grid(other) || G_ != other.G_ || kappas_ != other.kappas_ || level_ != other.level_)
    fail("kappa stats: cannot merge {}x{} (grid {}, {} kappas) with {}x{} (grid {}, {} kappas), or other bootstrap levels",
         layers_, heads_, G_, K(), other.layers_, other.heads_, other.G_, other.K());
  for (const auto& id : other.ids_)
    if (index_.count(id)) fail("document '{}' is in two shards: a unit cannot be split", id);
  merge_counts(counts_, other.counts_, "kappa stats");  // first: an overflow leaves the stats unchanged
  for (size_t i = 0; i < sums_.size(); ++i) sums_[i].merge(other.sums_[i]);
  const int64_t n = groups() * per_group();
  for (int64_t u = 0; u < other.units(); ++u) {
    const int64_t r = row(other.ids_[u]);
    std::ranges::copy(other.unit_sums(u), unit_sums_.begin() + r * n);
  }
}

std::vector<int64_t> KappaStats::slots(int64_t layer, int64_t head) const { return group_slots(layer, head, "kappa stats"); }

std::vector<int64_t> KappaStats::samples(int64_t layer, int64_t head) const {
  return group_counts(counts_, G_, layer, head, "kappa stats");
}

// SPEC §5: the mean of the per-sample bounds over the samples that reach N, at kappa k.
std::vector<double> KappaStats::mean(int64_t layer, int64_t head, int64_t k, int c) const {
  if (k < 0 || k >= K() || c < 0 || c >= kKappaCurves) fail("kappa stats: no kappa {} or curve {}", k, c);
  const auto n = samples(layer, head);
  const auto members = slots(layer, head);
  const int64_t per = K() * kKappaCurves * G_;
  std::vector<double> out(static_cast<size_t>(G_), kNaN);
  for (int64_t g = 0; g < G_; ++g) {
    if (n[g] == 0) continue;
    ExactSum total;
    for (const int64_t s : members) total.merge(sums_[s * per + index(k, c, g)]);
    out[g] = static_cast<double>(total.value_ld() / n[g]);
  }
  return out;
}

std::vector<ArrayView> KappaStats::arrays() const {
  std::vector<ArrayView> out = {
      derived_array("kappa_values", io::Dtype::F64, {K()}, kappas_),
      {"kappa_sums", io::Dtype::I64, {layers_, heads_, K(), kKappaCurves, G_, 2}, exact_sum_bytes(sums_)},
      {"kappa_counts", io::Dtype::I64, {layers_, heads_, G_}, bytes_of(counts_)}};
  if (has_units()) {
    const std::string ids = nlohmann::json(ids_).dump();
    out.push_back({"kappa_unit_sums", io::Dtype::F64, {units(), groups(), K(), kKappaCurves, G_}, bytes_of(unit_sums_)});
    out.push_back(derived_array("kappa_unit_ids", io::Dtype::U8, {static_cast<int64_t>(ids.size())},
                                std::vector<char>(ids.begin(), ids.end())));
    out.push_back(derived_array("kappa_unit_level", io::Dtype::I64, {1}, std::vector<int64_t>{static_cast<int64_t>(level())}));
  }
  return out;
}

KappaStats KappaStats::from_arrays(int64_t layers, int64_t heads, int64_t grid_size, std::vector<double> kappas,
                                   const std::vector<int64_t>& sums, const std::vector<int64_t>& counts,
                                   std::optional<BootLevel> level, std::vector<double> unit_sums, const std::string& ids_json) {
  KappaStats out(layers, heads, grid_size, std::move(kappas), level);
  read_exact_sums(sums, out.sums_, "kappa stats");
  read_counts(counts, out.counts_, "kappa stats");
  if (!level) return out;
  const auto ids = parse_json(nullptr, ids_json);
  if (!ids.is_array()) fail("kappa_unit_ids is not a JSON array");
  for (const auto& id : ids) {
    if (!id.is_string()) fail("kappa_unit_ids holds a non-string");
    out.row(id.get<std::string>());
  }
  if (out.units() != static_cast<int64_t>(ids.size())) fail("kappa_unit_ids repeats a document");
  if (unit_sums.size() != out.unit_sums_.size()) fail("kappa_unit_sums does not match {} documents", out.units());
  for (const double x : unit_sums)
    if (!std::isfinite(x)) fail("kappa_unit_sums holds a non-finite value");
  out.unit_sums_ = std::move(unit_sums);
  return out;
}

}  // namespace geoattn::metrics
