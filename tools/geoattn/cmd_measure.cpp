// geoattn measure: flags -> pipeline::measure (windows -> forward with capture -> metric run -> result files).
#include "cli.h"
#include "commands.h"
#include "forward_loop.h"
#include "geoattn/pipeline_torch/measure.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/stopwatch.h"
#include "metric_flags.h"

namespace geoattn::cli {

namespace {

struct MeasureOptions {
  std::string model;
  InputOptions input;
  LoopFlags loop;
  MetricFlags metric;
  RunOptions run;
  std::string out;
  bool quiet = false;
  GivenFlags given;
};

void run_measure(const MeasureOptions& o) {
  const auto start = Clock::now();
  std::vector<std::string> inputs = o.input.data;
  inputs.push_back(o.model);
  check_outputs_of(o.out, inputs);
  const ModelRun r = open_model_run(o.model, o.input, o.run, o.loop.queries);
  MetricFlags metric = o.metric;
  metric.seed = o.input.seed;  // one --seed: windows, controls, bootstrap
  pipeline::MeasureJob job{model_job(r, {o.input, o.run, o.loop, o.quiet}, start)};
  job.queries = r.queries;
  job.T = r.T;
  job.metric = pipeline::metric_spec(metric, r.T, r.queries, ArgumentStyle::Flag);
  refuse_unused_metric_flags(o.given, job.metric);
  job.checkpoint = o.loop.checkpoint;
  WorkerPool pool(o.run.threads);
  pipeline::measure(pool, job, o.out);
}

void measure_flags(CLI::App& cmd, MeasureOptions& o) {
  cmd.add_option("--model", o.model, "Hugging Face checkpoint folder")->required();
  add_input_options(cmd, o.input, /*data_only=*/true);
  o.input.seed_draws_more = true;  // the controls and the bootstrap too
  add_loop_flags(cmd, o.loop, {LoopFlag::Queries, LoopFlag::Batch, LoopFlag::Shard, LoopFlag::Checkpoint});
  add_metric_flags(cmd, o.metric, /*with_seed=*/false);  // --seed is the input's
  add_run_options(cmd, o.run);
  add_output_options(cmd, o.out, o.quiet, "result JSON (its state sidecar goes beside it: X.state.safetensors)");
}

}  // namespace

void add_measure(CLI::App& cmd, Action& action) { bind_command(cmd, action, measure_flags, run_measure); }

}  // namespace geoattn::cli
