// geoattn metrics: a capture file (geoattn capture's layout, or another tool's) -> the same
// result JSON as measure.
#include "cli.h"
#include "commands.h"
#include "geoattn/pipeline/capture_metrics.h"
#include "geoattn/util/atomic_file.h"
#include "metric_flags.h"

namespace geoattn::cli {

StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture_path, const MetricFlags& flags,
                                const std::string& out, const GivenFlags& given, bool quiet) {
  check_outputs_of(out, {capture_path});
  return pipeline::metrics_from_capture(
      pool, capture_path,
      [&](int64_t T, const std::vector<int64_t>& queries) {
        auto spec = pipeline::metric_spec(flags, T, queries, ArgumentStyle::Flag);
        refuse_unused_metric_flags(given, spec);
        return spec;
      },
      out, quiet);
}

namespace {

struct MetricsOptions {
  std::string capture;
  MetricFlags metric;
  int threads = 0;
  std::string out;
  bool quiet = false;
  GivenFlags given;
};

void run_metrics(const MetricsOptions& o) {
  WorkerPool pool(o.threads);
  metrics_from_capture(pool, o.capture, o.metric, o.out, o.given, o.quiet);
}

void metrics_flags(CLI::App& cmd, MetricsOptions& o) {
  cmd.add_option("--capture", o.capture, "capture .safetensors: alpha [W,L,H,Q,T], values [W,L,KV,T,d], tokens, queries")
      ->required();
  add_metric_flags(cmd, o.metric, /*with_seed=*/true);
  add_threads_option(cmd, o.threads);
  cmd.add_option("--out", o.out, "result JSON (its state sidecar goes beside it)")->required();
  cmd.add_flag("--quiet", o.quiet, "no last line (what it wrote, its windows, its time)");
}

}  // namespace

void add_metrics(CLI::App& cmd, Action& action) { bind_command(cmd, action, metrics_flags, run_metrics); }

}  // namespace geoattn::cli
