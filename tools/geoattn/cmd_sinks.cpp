// geoattn sinks: flags -> pipeline::sinks (windows -> forward with every query -> sink
// statistics -> sinks.json and its state sidecar), or pipeline::sinks_from_capture.
#include <limits>
#include <set>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "forward_loop.h"
#include "setting_flags.h"
#include "geoattn/pipeline_torch/measure.h"
#include "geoattn/pipeline_torch/sinks.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::cli {

namespace {

struct SinksOptions {
  std::string model;
  std::string capture;
  InputOptions input;
  LoopFlags loop = {pipeline::Queries::parse("all")};  // sinks reads whole attention matrices
  // What the user gives of SinkSettings (metrics/sinks/sink_settings.h: its table, Python's too)
  // and --residual; the rule comes from --config and the dormant flags.
  pipeline::SinkSettings settings;
  std::string config;
  std::optional<double> dormant_row_max, dormant_col_min;
  RunOptions run;
  std::string out;
  bool quiet = false;
  GivenFlags given;
};

// The frame-type rule: --config's file or the built-in configs/sinks.json, the dormant flags
// over it (where the file would have them), read once into its typed form.
pipeline::SinkSettings sink_settings(const SinksOptions& o) {
  pipeline::SinkSettings s = o.settings;
  s.validate(ArgumentStyle::Flag);
  nlohmann::ordered_json rule = o.config.empty() ? report::to_json(pipeline::builtin_sink_rule()) : read_json(o.config);
  s.rule_source = o.config.empty() ? pipeline::kBuiltinSinkRuleSource : o.config;
  if (o.dormant_row_max) rule["dormant_row_max"] = *o.dormant_row_max;
  if (o.dormant_col_min) rule["dormant_col_min"] = *o.dormant_col_min;
  try {
    s.rule = report::sink_rule_from_json(rule);
  } catch (const Error& e) {
    fail("{}: {}", o.config.empty() ? "--dormant-row-max/--dormant-col-min" : o.config, e.what());
  }
  return s;
}

void run_sinks(const SinksOptions& o) {
  const auto start = Clock::now();
  std::vector<std::string> inputs = o.input.data;
  inputs.insert(inputs.end(), {o.model, o.capture});
  check_outputs_of(o.out, inputs);
  const pipeline::SinkSettings settings = sink_settings(o);
  if (!o.loop.queries.all())
    fail("--queries {}: sinks reads whole attention matrices, only 'all' is possible", o.loop.queries.text());
  if (!o.capture.empty()) {
    if (!o.model.empty() || !o.input.data.empty()) fail("--capture: give either --capture or --model with --data");
    // A capture's windows are the file's: no flag of the model's run (--shard, --ctx, --batch,
    // --device, ...) applies, and two "shards" of one capture would count its windows twice.
    std::set<std::string> used = setting_flag_names<pipeline::SinkSettings>();
    used.insert({"--capture", "--queries", "--config", "--dormant-row-max", "--dormant-col-min", "--out", "--quiet"});
    refuse_unused(o.given, used, "with --capture (its windows are the file's, read as they are)");
    pipeline::sinks_from_capture(o.capture, settings, o.out);
    return;
  }
  if (o.model.empty()) fail("--model: required (or --capture FILE)");
  const ModelRun r = open_model_run(o.model, o.input, o.run, pipeline::Queries());  // the last row: none is read
  pipeline::SinksJob job{model_job(r, {o.input, o.run, o.loop, o.quiet}, start)};
  job.sinks = settings;
  job.token_text = token_text_for(r.checkpoint);
  job.checkpoint = o.loop.checkpoint;
  pipeline::sinks(job, o.out);
}

void sinks_flags(CLI::App& cmd, SinksOptions& o) {
  cmd.add_option("--model", o.model, "Hugging Face checkpoint folder");
  cmd.add_option("--capture", o.capture, "a capture file with every query (geoattn capture --queries all) instead");
  add_input_options(cmd, o.input, /*data_only=*/false);
  add_loop_flags(cmd, o.loop, {LoopFlag::Queries, LoopFlag::Shard, LoopFlag::Batch, LoopFlag::Checkpoint},
                 "query positions: sinks needs all");
  add_setting_flags(cmd, o.settings);  // --convention, --eps, --taus, --profile
  cmd.add_flag(std::string(pipeline::SinkSettings::kResidual.flag), o.settings.residual,
               "reference points on the residual stream too (captures blocks.*.hook_resid_pre)");
  cmd.add_option("--config", o.config, "frame-type thresholds and sweep (default: built-in configs/sinks.json)");
  add_number_option(cmd, "--dormant-row-max", o.dormant_row_max, std::numeric_limits<double>::lowest(),
                    std::numeric_limits<double>::max(), "dormant head: row score <= this (overrides the config)");
  add_number_option(cmd, "--dormant-col-min", o.dormant_col_min, std::numeric_limits<double>::lowest(),
                    std::numeric_limits<double>::max(), "dormant head: column score >= this (overrides the config)");
  add_run_options(cmd, o.run);
  add_output_options(cmd, o.out, o.quiet, "result JSON (its state sidecar goes beside it: X.state.safetensors)");
}

}  // namespace

void add_sinks(CLI::App& cmd, Action& action) { bind_command(cmd, action, sinks_flags, run_sinks); }

}  // namespace geoattn::cli
