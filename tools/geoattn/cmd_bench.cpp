// geoattn bench metrics: the whole `geoattn metrics` process on a synthetic capture of a stated
// shape (timed as a child process), and stage by stage (in this process), against the floor:
// one batched Gram product of the same size in the same LibTorch. Figures go to docs/performance.md with
// the command.
#include <fmt/format.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "bench_inputs.h"
#include "binaries.h"
#include "cli_torch.h"
#include "commands.h"
#include "geoattn/metrics/core/grid.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/metrics_torch/selection.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/worker_pool.h"
#include "metric_flags.h"

extern char** environ;

namespace geoattn::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  int64_t T = 1024, d = 128, heads = 32, layers = 4;
  MetricFlags metric;
  int repeats = 3;
  int threads = 0;
  std::string write_capture;  // keep the synthetic capture here (to run `geoattn metrics` on it by hand)
  GivenFlags given;
};

// A folder of this process's own under the system's temporary folder, removed with everything in
// it when the process leaves the scope, however it leaves.
struct TempFolder {
  std::filesystem::path path;
  explicit TempFolder(const std::string& prefix)
      : path(std::filesystem::temp_directory_path() / fmt::format("{}-{}", prefix, getpid())) {
    std::filesystem::create_directories(path);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// A capture of one synthetic window (bench_inputs.h), the last query's rows.
model::CaptureFile synthetic_capture(const BenchOptions& o) {
  const SyntheticWindow w = synthetic_window(o.layers, o.heads, o.heads, o.T, o.d);
  model::CaptureFile c;
  c.alpha = w.alpha.unsqueeze(0);
  c.values = w.values.unsqueeze(0);
  c.tokens = torch::ones({1, o.T}, torch::kInt64);
  c.queries = torch::tensor({o.T - 1}, torch::kInt64);
  c.metadata = {{"format", "geoattn-capture-1"}, {"model", "synthetic (geoattn bench metrics)"}};
  return c;
}

// Where the floor's product writes: each worker's product into one preallocated [T, T] buffer;
// or the whole [B, T, T] output fresh each time, faulted in by the product (one float32 Gram
// product, allocation included), in the pages the system gives it, or advised into 2 MiB pages
// (MADV_HUGEPAGE: what transparent_hugepage=always gives every large allocation).
enum class FloorOutput { Preallocated, Allocated, HugePages };

// The kernel's transparent huge pages setting ("always", "madvise", "never"), or "unknown".
std::string transparent_huge_pages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('['), close = line.find(']');
  return open != std::string::npos && close > open ? line.substr(open + 1, close - open - 1) : "unknown";
}

// MADV_HUGEPAGE over the 2 MiB pages inside a tensor's storage, before anything touches it.
void advise_huge_pages(const torch::Tensor& t) {
  constexpr uintptr_t kHuge = uintptr_t{1} << 21;
  const auto begin = reinterpret_cast<uintptr_t>(t.data_ptr()), end = begin + t.nbytes();
  const uintptr_t first = (begin + kHuge - 1) / kHuge * kHuge, last = end / kHuge * kHuge;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // advice
}

// The floor: [B, T, d] x [B, d, T], the samples spread over every worker (BLAS single-threaded
// in each, as the metric core runs it: the fastest way to this product here), into `output`.
double gram_floor(WorkerPool& pool, int64_t B, int64_t T, int64_t d, torch::Dtype dtype, FloorOutput output,
                  int repeats) {
  auto V = torch::randn({B, T, d}).to(dtype);
  auto scratch = torch::empty({pool.size(), T, T}, dtype);
  const bool allocating = output != FloorOutput::Preallocated;
  return best_of(repeats, [&] {
    auto out = allocating ? torch::empty({B, T, T}, dtype) : torch::Tensor();
    if (output == FloorOutput::HugePages) advise_huge_pages(out);
    pool.parallel_for(B, [&](int64_t b0, int64_t b1, int worker) {
      for (int64_t b = b0; b < b1; ++b) {
        auto dst = allocating ? out[b] : scratch[worker];
        torch::mm_out(dst, V[b], V[b].t());
      }
    });
  });
}

// A child process's wall time (start-up and exit included) and the CPU time its threads spent
// (user + system, from wait4): CPU / (wall x cores) says how busy it kept the cores.
struct ProcessTime {
  double wall = 0, cpu = 0;
};

// The geoattn program a user runs (binaries.h: beside this one) with `args` as a process of its own.
ProcessTime child_process(const std::vector<std::string>& args) {
  const std::string program = sibling_program(kProgram);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string command = args.size() > 1 ? args[1] : "";  // the subcommand or flag, for errors
  const auto start = Clock::now();
  pid_t pid = 0;
  posix_spawn_file_actions_t quiet;  // its standard output (help text) to /dev/null
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  const int spawned = posix_spawn(&pid, program.c_str(), &quiet, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (spawned != 0) fail("bench: cannot start {} {}", program, command);
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("bench: geoattn {} failed", command);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return {std::chrono::duration<double>(Clock::now() - start).count(), seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

// The run of least wall time of `repeats` runs of `f` (a child process).
template <typename F>
ProcessTime fastest_process(int repeats, F&& f) {
  ProcessTime best{std::numeric_limits<double>::infinity(), 0};
  for (int r = 0; r < repeats; ++r) {
    const ProcessTime t = f();
    if (t.wall < best.wall) best = t;
  }
  return best;
}

// `geoattn metrics` on the capture with the bench's metric flags, as a process of its own.
ProcessTime whole_process(const std::string& capture, const MetricFlags& f, int threads, const std::string& out) {
  std::vector<std::string> args{"geoattn", "metrics", "--capture", capture};
  for (auto& arg : metric_flag_args(f)) args.push_back(std::move(arg));
  args.insert(args.end(), {"--threads", std::to_string(threads), "--out", out, "--quiet"});
  return child_process(args);
}

// `idle`: a geoattn process that does nothing (`geoattn metrics --help`): the dynamic loader and
// the static initialisers, then exit.
void print_stages(const char* title, const StageTimes& t, double whole, double idle) {
  const double total = t.total();
  fmt::print("  {}: {:.3f} s in the stages (in this process, best of the repeats)\n", title, total);
  const std::pair<const char*, double> rows[] = {
      {"load the capture", t.load},        {"Gram matrices", t.gram},         {"top-N ordering, counts", t.top},
      {"control orderings", t.controls},   {"aggregation", t.aggregate},     {"envelopes", t.envelopes},
      {"bootstrap", t.bootstrap},          {"fits", t.fits},                 {"write JSON + arrays", t.write}};
  for (const auto& [name, s] : rows) fmt::print("    {:<26} {:8.3f} s  {:5.1f}%\n", name, s, 100 * s / total);
  fmt::print("    {:<26} {:8.3f} s  (the whole process less its stages), of which\n", "outside the stages",
             whole - total);
  fmt::print("      {:<24} {:8.3f} s  (geoattn metrics --help: the dynamic loader and the initialisers, exit)\n",
             "an idle process", idle);
  fmt::print("      {:<24} {:8.3f} s  (reading the flags, the run's set-up, the samples' grouping and curves, exit)\n",
             "the rest", whole - total - idle);
}

void run_bench(const BenchOptions& o) {
  if (!o.write_capture.empty()) check_output_path(o.write_capture);
  // The synthetic capture (float64 logits, float32 rows and values) and the floor's [B, T, T] output.
  const double samples = static_cast<double>(o.heads) * static_cast<double>(o.layers), T = static_cast<double>(o.T);
  check_fits_memory(samples * T * (12 * T + 4 * static_cast<double>(o.d)),
                    fmt::format("--T: {} (with --d {} --heads {} --layers {}): its synthetic capture and Gram products",
                                o.T, o.d, o.heads, o.layers));
  const pipeline::MetricSpec spec = pipeline::metric_spec(o.metric, o.T, {o.T - 1}, ArgumentStyle::Flag);
  spec.validate(o.layers, o.heads, o.T);
  refuse_unused_metric_flags(o.given, spec);
  if (!o.metric.predict_from.off())
    fail("--predict-from: bench metrics times a synthetic capture, whose heads no result's fits describe");
  WorkerPool pool(o.threads);
  const int64_t B = o.heads * o.layers;
  const auto& grid = spec.grid;
  fmt::print("geoattn metrics on a synthetic capture: {} heads x {} layers, T = {}, d = {}, --n {} ({} values), {} threads\n",
             o.heads, o.layers, o.T, o.d, o.metric.n.text(), grid.size(), pool.size());
  const TempFolder temp("geoattn-bench");
  const auto& dir = temp.path;
  const std::string capture = o.write_capture.empty() ? (dir / "capture.safetensors").string() : o.write_capture;
  model::write_capture_file(capture, synthetic_capture(o));

  const double floor = gram_floor(pool, B, o.T, o.d, torch::kFloat32, FloorOutput::Allocated, o.repeats);
  const double floor_huge = gram_floor(pool, B, o.T, o.d, torch::kFloat32, FloorOutput::HugePages, o.repeats);
  const double floor32 = gram_floor(pool, B, o.T, o.d, torch::kFloat32, FloorOutput::Preallocated, o.repeats);
  const double floor64 = gram_floor(pool, B, o.T, o.d, torch::kFloat64, FloorOutput::Preallocated, o.repeats);
  const std::string thp = transparent_huge_pages();
  const double gflop = 2.0 * B * o.T * o.T * o.d / 1e9;
  fmt::print("  floor: the Gram product [{},{},{}] x [{},{},{}] on every core, best of {}\n", B, o.T, o.d, B, o.d, o.T,
             o.repeats);
  fmt::print("    float32, allocating its output (the float32 Gram floor) {:8.3f} s  (transparent huge pages: {})\n",
             floor, thp);
  // Most of the allocating product's time beside the preallocated one is the faults of its
  // output (512 MB at the default shape): with 2 MiB pages they nearly vanish, so the floor, and
  // every ratio to it, depend on the kernel's setting.
  fmt::print("    the same, its output advised into 2 MiB pages (as transparent_hugepage=always gives it) {:8.3f} s\n",
             floor_huge);
  fmt::print("    preallocated: float32 {:8.3f} s ({:.0f} GFLOP/s)   float64 {:8.3f} s ({:.0f} GFLOP/s)\n", floor32,
             gflop / floor32, floor64, gflop / floor64);
  // Which kernels the products ran on, where the BLAS says (OpenBLAS picks them by CPU model,
  // unless OPENBLAS_CORETYPE names them: the floor moves with that choice).
  using CoreName = char* (*)();
  if (const auto core = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename")))
    fmt::print("    BLAS: OpenBLAS, its {} kernels (OPENBLAS_CORETYPE chooses others)\n", core());

  // The command itself as a process: start-up, load, stages, write, exit. Each run writes to a
  // folder of its own, the previous run's removed before it starts (untimed): no run pays for
  // freeing the files of the one before, which replacing them in place would cost (on ext4,
  // tens of ms for the 100 MB state sidecar of --n all).
  int run = 0;
  const ProcessTime process = fastest_process(o.repeats, [&] {
    const auto folder = dir / fmt::format("process-{}", run++);
    if (run > 1) std::filesystem::remove_all(dir / fmt::format("process-{}", run - 2));
    std::filesystem::create_directory(folder);
    return whole_process(capture, o.metric, pool.size(), (folder / "process.json").string());
  });
  const double whole = process.wall;
  const double idle = fastest_process(o.repeats, [&] { return child_process({"geoattn", "metrics", "--help"}); }).wall;
  fmt::print("  the whole process, geoattn metrics --capture {} --n {} (best of {}): {:.3f} s = {:.2f}x the float32 "
             "Gram floor ({:.2f}x the floor in 2 MiB pages)\n",
             capture, o.metric.n.text(), o.repeats, whole, whole / floor, whole / floor_huge);
  fmt::print("    its CPU time (user + system, all threads): {:.3f} s = the {} cores {:.0f}% busy over its wall time\n",
             process.cpu, pool.size(), 100 * process.cpu / (whole * pool.size()));
  fmt::print("  an idle process, geoattn metrics --help (best of {}): {:.3f} s = {:.2f}x the floor; the whole process less "
             "it: {:.2f}x\n",
             o.repeats, idle, idle / floor, (whole - idle) / floor);

  // The metrics command itself (in process), best of `repeats`, with and without the control.
  auto best_run = [&](const MetricFlags& flags) {
    StageTimes best;
    double best_total = std::numeric_limits<double>::infinity();
    for (int r = 0; r < o.repeats; ++r) {
      const StageTimes t = metrics_from_capture(pool, capture, flags, (dir / "bench.json").string());
      if (t.total() < best_total) best_total = t.total(), best = t;
    }
    return best;
  };
  const StageTimes full = best_run(o.metric);
  MetricFlags bare = o.metric;
  bare.controls = 0;
  const StageTimes without = best_run(bare);
  print_stages(fmt::format("--controls {} --bootstrap {}", o.metric.controls, o.metric.bootstrap).c_str(), full, whole,
               idle);
  const double core = without.gram + without.top, core_controls = full.gram + full.top + full.controls;
  fmt::print("  the metric core (Gram + orderings + counts): {:.3f} s without the control, {:.3f} s with {} "
             "random orderings per sample ({:.2f}x)\n",
             core, core_controls, o.metric.controls, core_controls / core);
  fmt::print("  the stages together: {:.2f}x the float32 Gram floor; {:.2f}x the preallocated float32 product, {:.2f}x "
             "the float64 one\n",
             full.total() / floor, full.total() / floor32, full.total() / floor64);
}

void bench_metrics_flags(CLI::App& cmd, BenchOptions& o) {
  cmd.description("geoattn metrics as a whole process and stage by stage on a synthetic capture, against the Gram product");
  o.metric.n = metrics::NGrid::parse("all");
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  add_number_option(cmd, "--T", o.T, int64_t{1}, kMost, "tokens per sample");
  add_number_option(cmd, "--d", o.d, int64_t{1}, kMost, "head_dim");
  add_number_option(cmd, "--heads", o.heads, int64_t{1}, kMost, "heads per layer");
  add_number_option(cmd, "--layers", o.layers, int64_t{1}, kMost, "layers");
  add_metric_flags(cmd, o.metric, /*with_seed=*/true);
  add_number_option(cmd, "--repeats", o.repeats, 1, 1000, "best of R runs");
  add_threads_option(cmd, o.threads);
  cmd.add_option("--write-capture", o.write_capture,
                 "keep the synthetic capture at this path (to run `geoattn metrics` on it by hand)");
}

}  // namespace

void add_bench(CLI::App& cmd, Action& action) {
  cmd.require_subcommand(1);
  bind_command(*cmd.add_subcommand("metrics"), action, bench_metrics_flags, run_bench);
  add_bench_envelopes(*cmd.add_subcommand("envelopes"), action);
}

}  // namespace geoattn::cli
