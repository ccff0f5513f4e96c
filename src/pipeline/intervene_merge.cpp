// geoattn merge of intervene results (intervene_merge.h).
#include "geoattn/pipeline/intervene_merge.h"

#include <nlohmann/json.hpp>

#include "geoattn/pipeline/results.h"
#include "geoattn/report/intervene_json.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

using nlohmann::ordered_json;

void merge_intervene(const std::vector<std::string>& inputs, const std::string& out, bool partial) {
  const auto start = Clock::now();
  std::vector<ordered_json> docs;
  for (const auto& path : inputs) {
    docs.push_back(read_json_file<ordered_json>(path));
    if (!docs.back().is_object() || docs.back().value("schema", "") != report::kInterveneSchema)
      fail("{}: not a result of geoattn intervene (schema {}), as {} is", path, report::kInterveneSchema, inputs[0]);
  }
  const ordered_json& first = docs.front();
  const std::vector<report::InterventionInfo> infos = report::interventions_from_json(first);
  std::vector<metrics::DataInfo> shards;
  for (size_t i = 0; i < docs.size(); ++i) {
    std::string why;
    if (!report::same_run(first, docs[i], &why)) fail("{}: cannot merge with {}: {}", inputs[i], inputs[0], why);
    if (report::interventions_from_json(docs[i]) != infos)
      fail("{}: cannot merge with {}: its interventions (names, what is done, heads or budgets) differ", inputs[i], inputs[0]);
    shards.push_back(report::data_from_json(docs[i].at("data"), inputs[i]));
  }
  // The shards first (each window once, none missing unless --partial), then the sums.
  const metrics::DataInfo data = merged_data(inputs, std::move(shards), partial);
  const auto K = static_cast<int64_t>(infos.size());
  metrics::LossStats merged(K);
  for (size_t i = 0; i < docs.size(); ++i) {
    const metrics::LossStats shard = report::loss_stats_from_json(docs[i], inputs[i]);
    for (int64_t u = 0; u < shard.units(); ++u) {
      const std::string& id = shard.unit_ids()[static_cast<size_t>(u)];
      const int64_t before = merged.units();
      const int64_t row = merged.unit_row(id);
      if (merged.units() == before) fail("{}: document {} is in an earlier input too", inputs[i], id);
      for (int64_t k = 0; k < K; ++k) merged.add(k, row, shard.at(k, u));
    }
  }
  // The readings again, from every document, as the run's settings ask.
  const auto& boot = first.at("settings").at("bootstrap");
  const metrics::LossReadings readings = metrics::loss_readings(merged, boot.at("replicates").get<int64_t>(),
                                                                boot.at("seed").get<uint64_t>(), boot.at("ci").get<double>());
  auto j = report::intervene_json(first.at("model"), report::to_json(data), first.at("settings"), infos, merged, readings);
  j["timing"] = {{"seconds_total", seconds_since(start)}, {"merged", static_cast<int64_t>(inputs.size())}};
  write_file_atomic(out, [&](std::ostream& f) { f << j.dump(1) << "\n"; });
}

}  // namespace geoattn::pipeline
