// geoattn measure: flags -> pipeline::measure (windows -> forward with capture -> metric run -> result files).
#include "cli.h"
#include "forward_loop.h"
#include "geoattn/pipeline/measure.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/stopwatch.h"
#include "metric_flags.h"

namespace geoattn::cli {

namespace {

struct MeasureOptions {
  std::string model;
  InputOptions input;
  std::string queries = "last";
  int64_t batch = 1;
  std::string shard = "0/1";
  int64_t checkpoint_every = 50;
  MetricFlags metric;
  RunOptions run;
  std::string out;
  bool quiet = false;
};

void run_measure(const MeasureOptions& o) {
  const auto start = Clock::now();
  check_output_path(o.out);
  const auto [shard_i, shard_n] = parse_shard(o.shard);
  if (o.checkpoint_every < 0) fail("--checkpoint-every {}: must be 0 (off) or more", o.checkpoint_every);
  const ModelRun r = open_model_run(o.model, o.input, o.run, o.queries);
  std::vector<io::Window> windows = pipeline::shard_windows(r.windows, shard_i, shard_n);
  const int64_t W = static_cast<int64_t>(windows.size());
  if (W == 0) fail("--shard {}: no window falls in this shard (of {} windows)", o.shard, r.windows.size());
  MetricFlags metric = o.metric;
  metric.seed = o.input.seed;  // one --seed: windows, controls, bootstrap
  pipeline::MeasureJob job{r.checkpoint, r.decoder};
  job.windows = std::move(windows);
  job.queries = r.queries;
  job.T = r.T;
  job.metric = metric_spec(metric, r.T, r.queries);
  job.data = data_info(o.input, o.shard, W, r.T);
  job.settings = {{"ctx", o.input.ctx}, {"queries", o.queries}, {"dtype", effective_dtype(o.run)}};
  job.batch = o.batch;
  job.checkpoint_every = o.checkpoint_every;
  job.device = o.run.device;
  job.quiet = o.quiet;
  job.load_s = seconds_since(start);
  WorkerPool pool(o.run.threads);
  pipeline::measure(pool, job, o.out);
}

}  // namespace

void add_measure(CLI::App& app, Action& action) {
  auto o = std::make_shared<MeasureOptions>();
  auto* cmd = app.add_subcommand("measure", "Top-N Precision/Recall/F for every head over a text shard -> JSON");
  cmd->add_option("--model", o->model, "Hugging Face checkpoint folder")->required();
  add_input_options(*cmd, o->input, /*data_required=*/true);
  cmd->add_option("--queries", o->queries, "query positions: last, all, or i,j,... (negative: from the end)")
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "windows per forward")->capture_default_str();
  cmd->add_option("--shard", o->shard, "i/n: this job's share of the windows (by document), for merge")->capture_default_str();
  cmd->add_option("--checkpoint-every", o->checkpoint_every,
                  "save the aggregates every K windows; a rerun with the same arguments resumes (0: off)")
      ->capture_default_str();
  add_metric_flags(*cmd, o->metric, /*with_seed=*/false);  // --seed is the input's
  add_run_options(*cmd, o->run);
  cmd->add_option("--out", o->out, "result JSON (its state sidecar goes beside it: X.state.safetensors)")->required();
  cmd->add_flag("--quiet", o->quiet, "no progress line");
  cmd->callback([o, &action] { action = [o] { run_measure(*o); }; });
}

}  // namespace geoattn::cli
