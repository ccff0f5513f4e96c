// The partial state of an intervene run (intervene_state.h).
#include "geoattn/report/intervene_state.h"

#include <array>
#include <cstring>
#include <vector>

#include "geoattn/io/safetensors.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/util/error.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
constexpr const char* kFormat = "geoattn-intervene-state-1";
constexpr size_t kFields = std::size(metrics::LossSums::kFields);
}  // namespace

void save_intervene_state(const std::string& path, const InterveneState& state) {
  const auto& s = state.stats;
  std::vector<double> sums;  // [U, K, 7]
  ordered_json ids = ordered_json::array();
  for (int64_t u = 0; u < s.units(); ++u) {
    ids.push_back(s.unit_ids()[static_cast<size_t>(u)]);
    for (int64_t k = 0; k < s.interventions(); ++k)
      for (const double x : s.at(k, u).values()) sums.push_back(x);
  }
  const auto& info = state.run_info;
  const ordered_json run_info = {{"model", info.model}, {"settings", info.command}, {"interventions", info.method},
                                 {"data", to_json(info.data)}};
  io::TensorBlob blob{"sums", io::Dtype::F64, {s.units(), s.interventions(), static_cast<int64_t>(kFields)}, sums.data()};
  io::write_safetensors(path, {blob}, {{"format", kFormat}, {"documents", ids.dump()}, {"run_info", run_info.dump()}});
}

InterveneState load_intervene_state(const std::string& path) {
  const io::SafetensorsFile file(path);  // fails naming the file
  const auto& meta = file.header().metadata;
  const auto text = [&](const char* key) -> const std::string& {
    const auto it = meta.find(key);
    if (it == meta.end()) fail("{}: not a geoattn intervene state (no '{}' in its metadata)", path, key);
    return it->second;
  };
  if (text("format") != kFormat) fail("{}: format '{}', not {}", path, text("format"), kFormat);
  ordered_json ids, run_info;
  try {
    ids = ordered_json::parse(text("documents"));
    run_info = ordered_json::parse(text("run_info"));
  } catch (const nlohmann::json::exception&) {
    fail("{}: its metadata is not JSON", path);
  }
  if (!ids.is_array() || !run_info.is_object() || !run_info.contains("interventions") || !run_info.contains("data"))
    fail("{}: its documents or run_info are malformed", path);
  InterveneState state;
  state.run_info = {run_info.value("model", ordered_json()), run_info.value("settings", ordered_json()),
                    run_info.at("interventions"), data_from_json(run_info.at("data"), path)};
  const auto K = static_cast<int64_t>(state.run_info.method.size());
  const io::TensorInfo* t = file.header().find("sums");
  const std::vector<int64_t> shape{static_cast<int64_t>(ids.size()), K, static_cast<int64_t>(kFields)};
  if (t == nullptr || t->dtype != io::Dtype::F64 || t->shape != shape)
    fail("{}: no F64 tensor 'sums' of [{}, {}, {}]", path, shape[0], shape[1], shape[2]);
  std::vector<double> sums(static_cast<size_t>(t->numel()));
  std::memcpy(sums.data(), file.data(*t), sums.size() * sizeof(double));
  state.stats = metrics::LossStats(K);
  size_t at = 0;
  for (const auto& id : ids) {
    if (!id.is_string()) fail("{}: a document id that is not a string", path);
    const int64_t row = state.stats.unit_row(id.get<std::string>());
    for (int64_t k = 0; k < K; ++k, at += kFields) {
      std::array<double, kFields> x{};
      std::copy(sums.begin() + static_cast<std::ptrdiff_t>(at), sums.begin() + static_cast<std::ptrdiff_t>(at + kFields), x.begin());
      state.stats.add(k, row, metrics::LossSums::of(x));
    }
  }
  return state;
}

}  // namespace geoattn::report
