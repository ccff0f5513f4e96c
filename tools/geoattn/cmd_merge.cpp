// geoattn merge: shards of one run -> the result of one run over all of them. Exact: the
// aggregates are integer sums (metrics/stats/aggregate.h), so the merged numbers equal those of a
// single run over the same windows, bit for bit.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "geoattn/pipeline/intervene_merge.h"
#include "geoattn/pipeline/shard_set.h"
#include "geoattn/pipeline/sink_files.h"
#include "geoattn/io/safetensors.h"
#include "geoattn/report/run_identity.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/report/sink_state_file.h"
#include "geoattn/report/intervene_json.h"
#include "geoattn/report/sinks_json.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/report/state_file.h"
#include "cli.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
  bool partial = false;
};

enum class Kind { Measure, Sinks, Intervene };
constexpr const char* kKindNames[] = {"measure", "sinks", "intervene"};

// Each input is a result JSON of measure (metrics, merge), of sinks or of intervene, all of one
// kind; a measure or sinks result with its state sidecar beside it, of its run
// (report/run_identity.h): the JSON is read and named first, so that a missing or broken one is
// said as such, not as a sidecar's problem. Returns their kind.
Kind check_inputs(const std::vector<std::string>& inputs) {
  check_distinct_files(inputs, "merge");
  std::optional<Kind> kind;
  for (const std::string& input : inputs) {
    const auto j = read_json(input);
    const std::string schema = j.is_object() ? j.value("schema", "") : "";
    if (schema != report::kSinksSchema && schema != report::kInterveneSchema && !report::is_measure_schema(j))
      fail("{}: not a result of geoattn measure, metrics, merge, sinks or intervene (no known 'schema')", input);
    const Kind is = schema == report::kSinksSchema       ? Kind::Sinks
                    : schema == report::kInterveneSchema ? Kind::Intervene
                                                         : Kind::Measure;
    if (kind && *kind != is)
      fail("{}: a {} result among {} results", input, kKindNames[static_cast<int>(is)], kKindNames[static_cast<int>(*kind)]);
    kind = is;
    if (is == Kind::Intervene) continue;  // its per-document sums are in the JSON
    const io::SafetensorsFile state(state_path(input));  // its header alone; fails naming the file
    report::check_companion(input, report::run_id_of(j), state_path(input), report::run_id_of(state.header()));
  }
  return *kind;
}

void run_merge(const MergeOptions& o) {
  std::vector<std::string> inputs = o.inputs;
  for (const auto& in : o.inputs) inputs.push_back(state_path(in));
  check_outputs_of(o.out, inputs);
  const Kind kind = check_inputs(o.inputs);
  if (kind == Kind::Sinks) return pipeline::merge_sinks(o.inputs, o.out, o.partial);
  if (kind == Kind::Intervene) return pipeline::merge_intervene(o.inputs, o.out, o.partial);
  metrics::RunState merged = report::load_run_state(state_path(o.inputs.front()));
  std::vector<metrics::DataInfo> shards;
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    const metrics::RunState shard = i == 0 ? merged : report::load_run_state(state_path(o.inputs[i]));
    std::string why;
    if (!report::same_run(merged.run_info, shard.run_info, &why))
      fail("{}: cannot merge with {}: {}", o.inputs[i], o.inputs.front(), why);
    shards.push_back(shard.run_info.data);
    // The shards so far, one split each shard once (a whole run and one of its shards: the two
    // files named), before their documents meet.
    const std::vector<std::string> so_far(o.inputs.begin(), o.inputs.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    pipeline::missing_shards(so_far, shards, /*partial=*/true);
    if (i == 0) continue;
    try {
      merged.merge(shard);
    } catch (const Error& e) {
      fail("{}: cannot merge with {}: {}", o.inputs[i], fmt::join(so_far.begin(), so_far.end() - 1, ", "), e.what());
    }
  }
  merged.run_info.data = pipeline::merged_data(o.inputs, std::move(shards), o.partial);
  merged.run_info.timing = {};
  merged.run_info.timing.merged = static_cast<int64_t>(o.inputs.size());
  WorkerPool pool;  // every core: bootstrap and fits
  write_results(pool, o.out, merged);
}

void merge_flags(CLI::App& cmd, MergeOptions& o) {
  cmd.add_option("inputs", o.inputs, "result JSONs of one kind (measure and sinks: each with its X.state.safetensors beside it)")->required()->expected(1, -1);
  cmd.add_option("--out", o.out, "merged result JSON")->required();
  cmd.add_flag("--partial", o.partial,
               "merge a set of shards that misses some (refused otherwise); the result lists them in data.missing_shards");
}

}  // namespace

void add_merge(CLI::App& cmd, Action& action) { bind_command(cmd, action, merge_flags, run_merge); }

}  // namespace geoattn::cli
