#include "geoattn/pipeline/sink_files.h"

#include "geoattn/pipeline/results.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/run_identity.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/report/sink_state_file.h"
#include "geoattn/report/sinks_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "sinks_config_json.h"  // kBuiltinSinksConfig: configs/sinks.json, embedded at build time

namespace geoattn::pipeline {

metrics::SinkRule builtin_sink_rule() {
  return report::sink_rule_from_json(parse_json_or_fail<nlohmann::ordered_json>("built-in sinks config", kBuiltinSinksConfig));
}

void write_sinks(const std::string& out, const metrics::SinkRun& run) {
  const std::string run_id = report::run_identity(run);
  const auto json = report::with_run_id(report::sinks_report(run), run_id);
  OutputFiles files;  // the JSON and its state sidecar, both or neither
  report::save_sink_state(files.staged(state_path(out)), run, run_id);
  write_file_atomic(files.staged(out), [&](std::ostream& stream) { stream << json.dump(1) << "\n"; });
  files.commit();
}

void merge_sinks(const std::vector<std::string>& inputs, const std::string& out, bool partial) {
  metrics::SinkRun merged = report::load_sink_state(state_path(inputs.at(0)));
  std::vector<metrics::DataInfo> shards;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const metrics::SinkRun shard = i == 0 ? merged : report::load_sink_state(state_path(inputs[i]));
    std::string why;
    if (!report::same_run(merged.run_info, shard.run_info, &why))
      fail("{}: cannot merge with {}: {}", inputs[i], inputs[0], why);
    if (i > 0) {
      try {
        merged.stats.merge(shard.stats);
      } catch (const Error& e) {
        fail("{}: {}", inputs[i], e.what());
      }
      for (const auto& [id, text] : shard.token_text) merged.token_text.emplace(id, text);
    }
    shards.push_back(shard.run_info.data);
  }
  merged.run_info.data = merged_data(inputs, std::move(shards), partial);
  merged.run_info.timing = {};
  merged.run_info.timing.merged = static_cast<int64_t>(inputs.size());
  write_sinks(out, merged);
}

}  // namespace geoattn::pipeline
