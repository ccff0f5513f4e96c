#include "geoattn/metrics/stats/unit_stats.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::metrics {

BootLevel auto_boot_level(int64_t layers, int64_t heads, int64_t grid_size, int64_t replicates) {
  constexpr double kBudget = 268435456.0;  // 2^28 replicate values
  const double per_group = static_cast<double>(unit_stats_per_group(grid_size)) * static_cast<double>(replicates);
  if (layers * heads <= 256 && static_cast<double>(layers * heads) * per_group <= kBudget) return BootLevel::Head;
  if (static_cast<double>(layers) * per_group <= kBudget) return BootLevel::Layer;
  return BootLevel::Global;
}

UnitStats::UnitStats(int64_t layers, int64_t heads, int64_t grid_size, BootLevel level)
    : HeadGrid(layers, heads), G_(grid_size), level_(level) {
  if (layers < 1 || heads < 1 || grid_size < 1) fail("unit stats: {} layers, {} heads, {} grid values", layers, heads, grid_size);
}

int64_t level_groups(BootLevel level, int64_t layers, int64_t heads) {
  return level == BootLevel::Global ? 1 : level == BootLevel::Layer ? layers : layers * heads;
}

int64_t level_group_of(BootLevel level, int64_t heads, int64_t layer, int64_t head) {
  return level == BootLevel::Global ? 0 : level == BootLevel::Layer ? layer : layer * heads + head;
}

int64_t UnitStats::groups() const { return level_groups(level_, layers_, heads_); }

int64_t UnitStats::group_of(int64_t layer, int64_t head) const { return level_group_of(level_, heads_, layer, head); }

int64_t UnitStats::row(const std::string& unit) {
  auto [it, inserted] = index_.emplace(unit, units());
  if (inserted) {
    ids_.push_back(unit);
    sums_.resize(sums_.size() + static_cast<size_t>(groups() * stats_per_group()), 0.0);
    counts_.resize(counts_.size() + static_cast<size_t>(layers_ * G_), 0);
  }
  return it->second;
}

void UnitStats::add_sample(int64_t u, int64_t layer, int64_t head, const SampleValues& sample) {
  const auto& [curves, n_valid, scalars] = sample;
  double* s = sums_.data() + (u * groups() + group_of(layer, head)) * stats_per_group();
  for (int m = 0; m < kCurveMetrics; ++m)
    for (int64_t g = 0; g < n_valid; ++g) {
      const double x = curves[m * G_ + g];
      if (!std::isnan(x)) s[curve_index(m, g)] += x;  // NaN: a control the run did not measure
    }
  // SPEC §3 per unit: the sums behind corr(R(r_min, N), rho0).
  const double rho0 = scalars[kRho0];
  for (int64_t g = 0; g < n_valid; ++g) {
    const double R = curves[kR_rmin * G_ + g];
    s[corr_index(0, g)] += R * R;
    s[corr_index(1, g)] += rho0;
    s[corr_index(2, g)] += rho0 * rho0;
    s[corr_index(3, g)] += R * rho0;
  }
  for (int k = 0; k < kScalarMetrics; ++k) s[scalar_index(k)] += scalars[k];
  if (head == 0)
    for (int64_t g = 0; g < n_valid; ++g) ++counts_[(u * layers_ + layer) * G_ + g];
}

void UnitStats::merge(const UnitStats& other) {
  if (other.empty()) return;
  if (empty()) {
    *this = other;
    return;
  }
  if (!same_grid(other) || G_ != other.G_ || level_ != other.level_)
    fail("cannot merge bootstrap statistics of different shapes or levels ({} vs {})", boot_level_name(level_),
         boot_level_name(other.level_));
  const int64_t per_unit = groups() * stats_per_group();
  for (int64_t u = 0; u < other.units(); ++u) {
    if (index_.count(other.ids_[u])) fail("document '{}' is in two shards: a unit cannot be split", other.ids_[u]);
    const int64_t r = row(other.ids_[u]);
    std::ranges::copy(other.unit_sums(u), sums_.begin() + r * per_unit);
    const int64_t per = layers_ * G_;
    std::copy(other.counts_.begin() + u * per, other.counts_.begin() + (u + 1) * per, counts_.begin() + r * per);
  }
}

std::vector<ArrayView> UnitStats::arrays() const {
  const std::string ids = nlohmann::json(ids_).dump();
  const auto n_ids = static_cast<int64_t>(ids.size());
  return {{"unit_sums", io::Dtype::F64, {units(), groups(), stats_per_group()}, bytes_of(sums_)},
          {"unit_counts", io::Dtype::I64, {units(), layers_, G_}, bytes_of(counts_)},
          derived_array("unit_ids", io::Dtype::U8, {n_ids}, std::vector<char>(ids.begin(), ids.end())),
          derived_array("unit_shape", io::Dtype::I64, {4}, std::vector<int64_t>{layers_, heads_, G_, static_cast<int64_t>(level_)})};
}

UnitStats UnitStats::from_arrays(const std::vector<int64_t>& shape, std::vector<double> sums, std::vector<int64_t> counts,
                                 const std::string& ids_json) {
  if (shape.size() != 4 || shape[3] < 0 || shape[3] > 2) fail("unit_shape is not [layers, heads, G, level]");
  // The shape comes from the file: keep every product below (units x groups x S) inside int64.
  constexpr int64_t kMaxDim = int64_t{1} << 24;
  if (shape[0] > kMaxDim || shape[1] > kMaxDim || shape[2] > kMaxDim)
    fail("unit_shape [{}, {}, {}] is too large", shape[0], shape[1], shape[2]);
  UnitStats out(shape[0], shape[1], shape[2], static_cast<BootLevel>(shape[3]));
  const auto ids = parse_json(nullptr, ids_json);
  if (!ids.is_array()) fail("unit_ids is not a JSON array");
  for (const auto& id : ids) {
    if (!id.is_string()) fail("unit_ids holds a non-string");
    if (!out.index_.emplace(id.get<std::string>(), out.units()).second) fail("unit_ids repeats '{}'", id.get<std::string>());
    out.ids_.push_back(id.get<std::string>());
  }
  const long double U = static_cast<long double>(out.units()), L = static_cast<long double>(out.layers_);
  if (static_cast<long double>(sums.size()) != U * out.groups() * out.stats_per_group() ||
      (static_cast<long double>(counts.size()) != U * out.G_ && static_cast<long double>(counts.size()) != U * L * out.G_))
    fail("unit_sums / unit_counts do not match {} units", out.units());
  // Sidecars before SPEC §1's window convention counted per (window, query): every layer the same.
  if (static_cast<long double>(counts.size()) == U * out.G_ && out.layers_ > 1) {
    std::vector<int64_t> per_layer;
    for (int64_t u = 0; u < out.units(); ++u)
      for (int64_t l = 0; l < out.layers_; ++l)
        per_layer.insert(per_layer.end(), counts.begin() + u * out.G_, counts.begin() + (u + 1) * out.G_);
    counts = std::move(per_layer);
  }
  for (double x : sums)
    if (!std::isfinite(x)) fail("unit_sums holds a non-finite value");
  for (int64_t c : counts)
    if (c < 0) fail("unit_counts holds a negative count");
  out.sums_ = std::move(sums);
  out.counts_ = std::move(counts);
  return out;
}

}  // namespace geoattn::metrics
