// geoattn merge: shards of one run -> the result of one run over all of them. Exact: the
// aggregates are integer sums (metrics/aggregate.h), so the merged numbers equal those of a
// single run over the same windows, bit for bit.
#include <fmt/format.h>

#include "geoattn/pipeline/sinks.h"
#include "geoattn/report/sinks_json.h"
#include "geoattn/report/state_file.h"
#include "cli.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
};

void run_merge(const MergeOptions& o) {
  check_output_path(o.out);
  if (report::is_sink_state(state_path(o.inputs.front()))) return pipeline::merge_sinks(o.inputs, o.out);
  metrics::RunState merged = report::load_run_state(state_path(o.inputs.front()));
  auto& info = merged.run_info;
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  int64_t windows = 0, tokens = 0;
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    const metrics::RunState shard = i == 0 ? merged : report::load_run_state(state_path(o.inputs[i]));
    const auto& run_info = shard.run_info;
    std::string why;
    if (!metrics::same_run(info, run_info, &why))
      fail("{}: cannot merge with {}: {}", o.inputs[i], o.inputs.front(), why);
    if (i > 0) merged.merge(shard);
    // run_info comes from the file: check its types rather than let nlohmann throw.
    const auto& data = run_info.contains("data") ? run_info.at("data") : nlohmann::ordered_json::object();
    if (!data.is_object()) fail("{}: run_info 'data' is not an object", state_path(o.inputs[i]));
    for (const char* key : {"windows", "tokens"})
      if (data.contains(key) && !data.at(key).is_number_integer())
        fail("{}: run_info data.{} is not an integer", state_path(o.inputs[i]), key);
    files.push_back(data);
    windows += data.value("windows", int64_t(0));
    tokens += data.value("tokens", int64_t(0));
  }
  info["data"] = {{"merged_from", o.inputs}, {"windows", windows}, {"tokens", tokens}, {"shards", files}};
  info["timing"] = {{"merged", o.inputs.size()}};
  WorkerPool pool;  // every core: bootstrap and fits
  write_results(pool, o.out, merged);
}

}  // namespace

void add_merge(CLI::App& app, Action& action) {
  auto o = std::make_shared<MergeOptions>();
  auto* cmd = app.add_subcommand("merge", "Merge result JSONs of shards of one measure or sinks run (their .state.safetensors sidecars)");
  cmd->add_option("inputs", o->inputs, "result JSONs (each with its X.state.safetensors beside it)")->required()->expected(1, -1);
  cmd->add_option("--out", o->out, "merged result JSON")->required();
  cmd->callback([o, &action] { action = [o] { run_merge(*o); }; });
}

}  // namespace geoattn::cli
