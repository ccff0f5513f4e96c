// geoattn metrics: the metric core over a capture file (ours, or one written by another tool
// in the same layout) -> JSON.
#include <fmt/format.h>

#include "cli.h"
#include "geoattn/io/capture_file.h"
#include "geoattn/metrics/grid.h"
#include "geoattn/metrics/selection.h"
#include "geoattn/metrics/window_assumptions.h"
#include "geoattn/metrics/window_metrics.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

struct MetricsOptions {
  std::string capture;
  std::string n = "default";
  int64_t decay_k = kDefaultDecayK;
  int threads = 0;
  std::string out;
};

void run_metrics(const MetricsOptions& o) {
  check_output_path(o.out);
  set_threads(o.threads);
  const io::CaptureFile capture = io::read_capture_file(o.capture);
  const int64_t W = capture.alpha.size(0), L = capture.alpha.size(1), H = capture.alpha.size(2), T = capture.alpha.size(4);
  const auto grid = metrics::parse_n_grid(o.n, T);
  const auto q = capture.queries.contiguous();
  const std::vector<int64_t> queries(q.data_ptr<int64_t>(), q.data_ptr<int64_t>() + q.numel());

  if (o.decay_k < 1) fail("--decay-k {}: must be at least 1", o.decay_k);
  metrics::RunState state{metrics::Aggregator(L, H, grid), metrics::AssumptionStats(L, H, T, o.decay_k), {}};
  if (queries.empty() || queries.back() != T - 1) state.assumptions = {};  // SPEC §4 fits the last query only
  for (int64_t w = 0; w < W; ++w) {
    metrics::add_window(capture.alpha[w], capture.values[w], queries, grid, state.metrics);
    if (!state.assumptions.empty())
      metrics::add_window_assumptions(capture.alpha[w], capture.values[w], queries, state.assumptions);
  }

  auto& run_info = state.run_info;
  run_info["model"] = capture_model_info(capture, o.capture);
  run_info["data"] = {{"capture", o.capture}, {"windows", W}, {"tokens", W * T}};
  run_info["settings"] = {{"ctx", T},
                          {"queries", queries},
                          {"n", o.n},
                          {"decay_k", o.decay_k},
                          {"distance", "euclidean"},
                          {"ball", "closed (paper appendix A.1)"},
                          {"tie_tolerance", metrics::kTieTolerance},
                          {"metrics_precision", "float64"}};
  write_results(o.out, state);
}

}  // namespace

void add_metrics(CLI::App& app, Action& action) {
  auto o = std::make_shared<MetricsOptions>();
  auto* cmd = app.add_subcommand("metrics", "Top-N Precision/Recall/F of a capture file (geoattn capture layout) -> JSON");
  cmd->add_option("--capture", o->capture, "capture .safetensors: alpha [W,L,H,Q,T], values [W,L,KV,T,d], tokens, queries")
      ->required();
  cmd->add_option("--n", o->n, "N grid: default, all, or a list like 1:16,24,32")->capture_default_str();
  cmd->add_option("--decay-k", o->decay_k, "largest lag k of the decay fit c(k) (SPEC §4)")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd->add_option("--out", o->out, "result JSON (its state sidecar goes beside it)")->required();
  cmd->callback([o, &action] { action = [o] { run_metrics(*o); }; });
}

}  // namespace geoattn::cli
