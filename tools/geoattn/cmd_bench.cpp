// geoattn bench metrics: the whole `geoattn metrics` process on a synthetic capture of a stated
// shape, stage by stage, against the floor: one batched Gram product of the same size in the same
// LibTorch. Figures go to the README with the command.
#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "cli.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/metrics/grid.h"
#include "geoattn/metrics/selection.h"
#include "geoattn/util/parallel.h"
#include "metric_flags.h"

namespace geoattn::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  int64_t T = 1024, d = 128, heads = 32, layers = 4;
  MetricFlags metric;
  int repeats = 3;
  int threads = 0;
  std::string write_capture;  // keep the synthetic capture here (for timing `geoattn metrics` itself)
};

template <typename F>
double best_of(int repeats, F&& f) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    auto t = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t).count());
  }
  return best;
}

// A capture shaped like a real one: one window, the last query, attention rows with a sink and
// a long tail (logits 4 N(0,1), the sink +8: alpha spans ~1 down to ~1e-15), values N(0,1).
model::CaptureFile synthetic_capture(const BenchOptions& o) {
  torch::manual_seed(0);
  auto logits = torch::randn({1, o.layers, o.heads, 1, o.T}, torch::kFloat64) * 4;
  logits.narrow(-1, 0, 1).add_(8);
  model::CaptureFile c;
  c.alpha = torch::softmax(logits, -1).to(torch::kFloat32);
  c.values = torch::randn({1, o.layers, o.heads, o.T, o.d});
  c.tokens = torch::ones({1, o.T}, torch::kInt64);
  c.queries = torch::tensor({o.T - 1}, torch::kInt64);
  c.metadata = {{"format", "geoattn-capture-1"}, {"model", "synthetic (geoattn bench metrics)"}};
  return c;
}

// The floor: [B, T, d] x [B, d, T], each product into a preallocated output, the samples spread
// over every worker (BLAS single-threaded in each, as the metric core runs it: the fastest way
// to this product here).
double gram_floor(int64_t B, int64_t T, int64_t d, torch::Dtype dtype, int repeats) {
  auto V = torch::randn({B, T, d}).to(dtype);
  const int threads = worker_threads();
  auto out = torch::empty({threads, T, T}, dtype);
  return best_of(repeats, [&] {
    parallel_for(B, threads, [&](int64_t b0, int64_t b1, int worker) {
      auto dst = out[worker];
      for (int64_t b = b0; b < b1; ++b) torch::mm_out(dst, V[b], V[b].t());
    });
  });
}

void print_stages(const char* title, const StageTimes& t) {
  const double total = t.total();
  fmt::print("  {}: {:.3f} s in the process's stages\n", title, total);
  const std::pair<const char*, double> rows[] = {
      {"load the capture", t.load},        {"Gram matrices", t.gram},         {"top-N ordering, counts", t.top},
      {"control orderings", t.controls},   {"aggregation", t.aggregate},     {"bootstrap", t.bootstrap},
      {"fits", t.fits},                    {"write JSON + sidecar", t.write}};
  for (const auto& [name, s] : rows) fmt::print("    {:<26} {:8.3f} s  {:5.1f}%\n", name, s, 100 * s / total);
}

void run_bench(const BenchOptions& o) {
  set_threads(o.threads);
  const int64_t B = o.heads * o.layers;
  const auto grid = parse_grid_flag(o.metric.n, o.T);
  fmt::print("geoattn metrics on a synthetic capture: {} heads x {} layers, T = {}, d = {}, --n {} ({} values), {} threads\n",
             o.heads, o.layers, o.T, o.d, o.metric.n, grid.size(), worker_threads());
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("geoattn-bench-{}", getpid());
  std::filesystem::create_directories(dir);
  const std::string capture = o.write_capture.empty() ? (dir / "capture.safetensors").string() : o.write_capture;
  model::write_capture_file(capture, synthetic_capture(o));

  const double floor32 = gram_floor(B, o.T, o.d, torch::kFloat32, o.repeats);
  const double floor64 = gram_floor(B, o.T, o.d, torch::kFloat64, o.repeats);
  const double gflop = 2.0 * B * o.T * o.T * o.d / 1e9;
  fmt::print("  floor: the Gram product [{},{},{}] x [{},{},{}], preallocated output, best of {}\n", B, o.T, o.d, B, o.d,
             o.T, o.repeats);
  fmt::print("    float32 {:8.3f} s ({:.0f} GFLOP/s)   float64 {:8.3f} s ({:.0f} GFLOP/s)\n", floor32, gflop / floor32,
             floor64, gflop / floor64);

  // The metrics command itself (in process), best of `repeats`, with and without the control.
  auto best_run = [&](const MetricFlags& flags) {
    StageTimes best;
    double best_total = std::numeric_limits<double>::infinity();
    for (int r = 0; r < o.repeats; ++r) {
      const StageTimes t = metrics_from_capture(capture, flags, (dir / "bench.json").string(), o.threads);
      if (t.total() < best_total) best_total = t.total(), best = t;
    }
    return best;
  };
  const StageTimes full = best_run(o.metric);
  MetricFlags bare = o.metric;
  bare.controls = 0;
  const StageTimes without = best_run(bare);
  print_stages(fmt::format("--controls {} --bootstrap {}", o.metric.controls, o.metric.bootstrap).c_str(), full);
  const double core = without.gram + without.top, core_controls = full.gram + full.top + full.controls;
  fmt::print("  the metric core (Gram + orderings + counts): {:.3f} s without the control, {:.3f} s with {} "
             "random orderings per sample ({:.2f}x)\n",
             core, core_controls, o.metric.controls, core_controls / core);
  fmt::print("  the stages together: {:.2f}x the float32 floor, {:.2f}x the float64 floor\n", full.total() / floor32,
             full.total() / floor64);
  if (!o.write_capture.empty())
    fmt::print("  the whole process: time geoattn metrics --capture {} --n {} --out OUT.json\n", capture, o.metric.n);
  std::filesystem::remove_all(dir);
}

}  // namespace

void add_bench(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchOptions>();
  o->metric.n = "all";
  auto* bench = app.add_subcommand("bench", "Benchmarks (figures for the README)");
  auto* cmd = bench->add_subcommand("metrics", "geoattn metrics stage by stage on a synthetic capture, against the Gram product");
  bench->require_subcommand(1);
  cmd->add_option("--T", o->T, "tokens per sample")->capture_default_str();
  cmd->add_option("--d", o->d, "head_dim")->capture_default_str();
  cmd->add_option("--heads", o->heads)->capture_default_str();
  cmd->add_option("--layers", o->layers)->capture_default_str();
  add_metric_flags(*cmd, o->metric, /*with_seed=*/true);
  cmd->add_option("--repeats", o->repeats, "best of R runs")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd->add_option("--write-capture", o->write_capture,
                  "keep the synthetic capture at this path (to time `geoattn metrics` as a whole process)");
  cmd->callback([o, &action] { action = [o] { run_bench(*o); }; });
}

}  // namespace geoattn::cli
