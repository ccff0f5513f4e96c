// geoattn bounds: Theorems 1-2 and Corollary 1 (SPEC §5) evaluated per sample and N, beside the
// measured P and R: from a capture file, from a model over shards, or from assumption
// parameters alone (synthetic a_i and rho, no model).
#include <fmt/format.h>

#include <limits>
#include <set>

#include "cli_torch.h"
#include "commands.h"
#include "geoattn/report/measure_json.h"
#include "forward_loop.h"
#include "metric_flags.h"
#include "geoattn/pipeline/capture_metrics.h"
#include "geoattn/metrics/core/window_bounds.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "geoattn/metrics/core/grid.h"
#include "geoattn/metrics_torch/window_metrics_torch.h"
#include "geoattn/report/bounds_json.h"
#include "geoattn/report/bounds_params_json.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

struct BoundsOptions {
  std::string capture, model, params;
  InputOptions input;
  LoopFlags loop;  // --queries, --batch (with --model)
  RunOptions run;
  int64_t layer = 0, head = 0, samples = -1;
  MetricFlags metric;  // --n, --kappa and --window-tokens: measure's (metric_run.h)
  std::string out;
  bool quiet = false;
  GivenFlags given;
};

// The grid --n gives at a window of T tokens (pipeline::metric_spec's, as measure has it).
std::vector<int64_t> grid_at(const BoundsOptions& o, int64_t T) {
  return pipeline::metric_spec(o.metric, T, {}, ArgumentStyle::Flag).grid;
}

// Where the paper's main text and its appendix differ, SPEC §5 follows the appendix.
nlohmann::ordered_json settings_info(const BoundsOptions& o) {
  using P = metrics::MetricParams;  // the settings' record keys, as measure records them
  return {{P::kN.record_key(), o.metric.n.text()},
          {P::kKappa.record_key(), o.metric.kappa},
          {"queries", o.loop.queries.text()},
          {"conventions",
           {{"Delta0", "a_0^2 - (S_in rho_out)^2 (appendix eq. 29; the main text writes rho_in)"},
            {"n_out", "(q+1) - N (the paper writes L - N)"},
            {"tails", "a Chernoff term whose margin is <= 0 is replaced by 1"},
            {"envelopes", "means of per-sample bounds"}}}};
}

// Measured metrics and bounds of captured windows, side by side.
struct MeasuredBounds {
  WorkerPool& pool;
  metrics::Aggregator measured;
  metrics::EnvelopeStats bounds;
  metrics::LayerWindows windows;  // SPEC §1: a windowed layer's tokens
  void add(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
           const std::vector<int64_t>& grid) {
    metrics::MetricOptions options;
    options.windows = windows;
    metrics::add_window(pool, alpha, values, queries, grid, 0, options,
                        [&](int64_t l, int64_t h, const metrics::SampleValues& sample) { measured.add_sample(l, h, sample); });
    const auto a = alpha.cpu().contiguous(), v = values.cpu().contiguous();  // the bounds' formulas run on the CPU
    metrics::add_window_bounds(pool, model::float_view(a), model::float_view(v), queries, grid, windows, bounds);
  }
  void describe(nlohmann::ordered_json& settings) const {
    settings[metrics::MetricParams::kWindowTokens.record_key()] = name_of(metrics::kWindowTokensNames, windows.tokens);
    settings["layer_windows"] = windows.windows;
  }
};

nlohmann::ordered_json from_capture(const BoundsOptions& o, const analysis::BoundsOptions& options) {
  const model::CaptureFile capture = model::read_capture_file(o.capture);
  const int64_t W = capture.alpha.size(0), L = capture.alpha.size(1), H = capture.alpha.size(2), T = capture.alpha.size(4);
  const auto grid = grid_at(o, T);
  const std::vector<int64_t> queries = capture.query_positions();
  WorkerPool pool(o.run.threads);
  MeasuredBounds mb{pool, metrics::Aggregator(L, H, grid), metrics::EnvelopeStats(L, H, std::ssize(grid), options.kappa)};
  mb.windows = {pipeline::capture_layer_windows(capture.metadata, L, o.capture), o.metric.window_tokens};
  model::check_layer_windows(capture.alpha, queries, mb.windows.windows, o.capture + ": alpha", "__metadata__ layer_attention");
  for (int64_t w = 0; w < W; ++w) mb.add(capture.alpha[w], capture.values[w], queries, grid);
  nlohmann::ordered_json run_info;
  run_info["source"] = "capture";
  run_info["model"] = report::to_json(capture_model_info(capture.alpha.sizes().vec(), capture.values.sizes().vec(), capture.metadata, o.capture));
  run_info["data"] = {{"capture", o.capture}, {"windows", W}, {"tokens", W * T}};
  run_info["settings"] = settings_info(o);
  run_info["settings"]["queries"] = queries;
  mb.describe(run_info["settings"]);
  return report::bounds_json(mb.measured, mb.bounds, run_info);
}

nlohmann::ordered_json from_model(const BoundsOptions& o, const analysis::BoundsOptions& options) {
  const ModelRun r = open_model_run(o.model, o.input, o.run, o.loop.queries);
  const io::Checkpoint& checkpoint = r.checkpoint;
  const model::Decoder& decoder = r.decoder;
  const std::vector<io::Window>& windows = r.windows;
  const std::vector<int64_t>& queries = r.queries;
  const auto grid = grid_at(o, r.T);
  const int64_t T = r.T;
  const int64_t W = static_cast<int64_t>(windows.size());
  const auto& c = checkpoint.config;
  WorkerPool pool(o.run.threads);
  MeasuredBounds mb{pool, metrics::Aggregator(c.n_layers, c.n_heads, grid),
                    metrics::EnvelopeStats(c.n_layers, c.n_heads, std::ssize(grid), options.kappa)};
  mb.windows = {c.layer_windows(), o.metric.window_tokens};
  const auto times = forward_windows(decoder, c.n_layers, windows, queries, o.loop.batch, "bounds", o.quiet,
                                     [&](int64_t, const pipeline::CapturedWindow& c) {
                                       mb.add(c.alpha, c.values, queries, grid);
                                     });
  nlohmann::ordered_json run_info;
  run_info["source"] = "model";
  run_info["model"] = report::to_json(model_info(checkpoint));
  run_info["data"] = {{"files", o.input.data}, {"mode", name_of(io::kWindowModeNames, o.input.window)}, {"seed", o.input.seed},
                      {"windows", W},         {"tokens", W * T}};
  run_info["settings"] = settings_info(o);
  run_info["settings"]["ctx"] = T;
  run_info["settings"]["dtype"] = name_of(arch::kForwardDtypeNames, o.run.forward_dtype());
  mb.describe(run_info["settings"]);
  run_info["timing"] = {{"seconds_forward_and_capture", times.forward_s}, {"seconds_metrics_and_bounds", times.visit_s}};
  return report::bounds_json(mb.measured, mb.bounds, run_info);
}

nlohmann::ordered_json from_params(const BoundsOptions& o, const analysis::BoundsOptions& options) {
  const nlohmann::ordered_json j = read_json(o.params);
  const bool is_measure = report::is_measure_schema(j);  // the fits it reads are in the JSON itself
  nlohmann::json raw;
  try {
    raw = is_measure ? report::params_of_head(j, o.params, o.layer, o.head) : nlohmann::json(j);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: a measure JSON without the expected fields ({})", o.params, e.what());
  }
  analysis::AssumptionParams params;
  try {
    params = report::params_from_json(raw);
  } catch (const Error& e) {
    fail("{}: {}", o.params, e.what());
  }
  if (!is_measure && (o.given.has("--layer") || o.given.has("--head")))
    fail("{}: --layer/--head pick a head of a measure JSON, and this file is assumption parameters", o.params);
  if (o.samples > 0) params.samples = o.samples;
  const auto grid = grid_at(o, params.T);
  nlohmann::ordered_json run_info;
  run_info["source"] = "params";
  run_info["params_file"] = o.params;
  if (is_measure) run_info["params_of"] = {{"layer", o.layer}, {"head", o.head}, {"model", j.at("model")}};
  run_info["params"] = report::params_to_json(params);
  run_info["settings"] = settings_info(o);
  run_info["settings"].erase("queries");
  try {
    return report::synthetic_bounds_json(grid, analysis::synthetic_bounds(params, grid, options, o.quiet), run_info);
  } catch (const Error& e) {  // samples the file's parameters make (a NaN weight): the file named
    fail("--params {}: {}", o.params, e.what());
  }
}

void run_bounds(const BoundsOptions& o) {
  std::vector<std::string> inputs = o.input.data;
  inputs.insert(inputs.end(), {o.capture, o.model, o.params});
  check_outputs_of(o.out, inputs);
  if (!(o.metric.kappa > 0)) fail("--kappa {}: must be > 0", o.metric.kappa);
  const int sources = !o.capture.empty() + !o.model.empty() + !o.params.empty();
  if (sources != 1) fail("give exactly one of --capture, --model (with --data) or --params");
  if (!o.model.empty() && o.input.data.empty() && o.input.text.empty() && o.input.ids.empty())
    fail("--model needs --data (or --text / --ids)");
  // What each source reads; any other flag is refused, not ignored.
  const std::set<std::string> common = {"--n", "--kappa", "--out", "--quiet"};
  const auto with = [&](std::set<std::string> own) { return own.insert(common.begin(), common.end()), own; };
  if (!o.capture.empty())
    refuse_unused(o.given, with({"--capture", "--threads", "--window-tokens"}), "with --capture (its windows and queries are the file's)");
  if (!o.params.empty()) refuse_unused(o.given, with({"--params", "--layer", "--head", "--samples"}), "with --params (no model runs)");
  if (!o.model.empty())
    refuse_unused(o.given,
                  with({"--model", "--data", "--text", "--ids", "--ctx", "--window", "--offset", "--seed", "--max-windows",
                        "--queries", "--batch", "--device", "--dtype", "--threads", "--window-tokens"}),
                  "with --model");
  const analysis::BoundsOptions options{o.metric.kappa};
  const auto json = !o.capture.empty() ? from_capture(o, options)
                    : !o.model.empty() ? from_model(o, options)
                                       : from_params(o, options);
  write_file_atomic(o.out, [&](std::ostream& stream) { stream << json.dump(1) << "\n"; });
  if (!o.quiet) fmt::print(stderr, "wrote {}\n", o.out);
}

void bounds_flags(CLI::App& cmd, BoundsOptions& o) {
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  auto* capture = cmd.add_option("--capture", o.capture, "capture .safetensors (geoattn capture layout)");
  auto* model = cmd.add_option("--model", o.model, "Hugging Face checkpoint folder (with --data)");
  auto* params = cmd.add_option("--params", o.params,
                                "assumption parameters: a JSON like configs/bounds-llama2-7b.json, or a measure JSON "
                                "(the fits of --layer/--head)");
  capture->excludes(model)->excludes(params);
  model->excludes(params);
  add_input_options(cmd, o.input, /*data_only=*/false);
  add_loop_flags(cmd, o.loop, {LoopFlag::Queries, LoopFlag::Batch});
  add_run_options(cmd, o.run);
  add_number_option(cmd, "--layer", o.layer, int64_t{0}, kMost, "the head whose fits --params takes from a measure JSON");
  add_number_option(cmd, "--head", o.head, int64_t{0}, kMost, "(see --layer)");
  add_number_option(cmd, "--samples", o.samples, int64_t{1}, analysis::kMaxSyntheticSamples,
                    "synthetic samples to average (--params; default: the file's)")
      ->default_str("the file's");
  using P = metrics::MetricParams;
  add_metric_flags(cmd, o.metric, {P::kN, P::kKappa, P::kWindowTokens});
  add_output_options(cmd, o.out, o.quiet, "result JSON");
}

}  // namespace

void add_bounds(CLI::App& cmd, Action& action) { bind_command(cmd, action, bounds_flags, run_bounds); }

}  // namespace geoattn::cli
