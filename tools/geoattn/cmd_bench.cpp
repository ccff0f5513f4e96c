// geoattn bench metrics: throughput of the metric core against (a) a straightforward
// per-N implementation and (b) the floor, one batched Gram product of the same size in the
// same LibTorch. Random inputs of the stated shape; figures go to the README.
#include <fmt/format.h>

#include <chrono>
#include <limits>

#include "cli.h"
#include "geoattn/metrics/grid.h"
#include "geoattn/metrics/selection.h"

namespace geoattn::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  int64_t T = 1024, d = 128, heads = 32, layers = 4;
  std::string n = "all";
  int64_t naive_stride = 32;  // the per-N baseline runs every k-th N and is scaled up
  int repeats = 3;
  int threads = 0;
  int64_t chunk_mb = metrics::SelectionOptions{}.max_chunk_bytes >> 20;
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

// (a) The straightforward way: for every N, s(N) from scratch and every distance directly.
void per_n_metrics(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& grid) {
  auto A = alpha.to(torch::kFloat64);
  auto Y = A.unsqueeze(-1) * values.to(torch::kFloat64);
  auto order = metrics::top_n_order(A);
  auto Ys = Y.gather(1, order.unsqueeze(-1).expand_as(Y));
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t N : grid) {
    auto s = Ys.narrow(1, 0, N).sum(1, true);
    auto D = (Ys - s).pow(2).sum(-1);  // [B, n]
    auto r_max2 = D.narrow(1, 0, N).amax(-1, true);
    auto rest = D.narrow(1, N, D.size(1) - N);
    auto r_min2 = rest.numel() ? rest.amin(-1, true) : torch::full_like(r_max2, inf);
    auto k_out = (rest <= r_max2).sum(-1);
    auto k_in = (D.narrow(1, 0, N) <= r_min2).sum(-1);
    (void)k_out;
    (void)k_in;
  }
}

void run_bench(const BenchOptions& o) {
  set_threads(o.threads);
  torch::manual_seed(0);
  const int64_t B = o.heads * o.layers;
  const auto grid = metrics::parse_n_grid(o.n, o.T);
  const int64_t G = static_cast<int64_t>(grid.size());
  auto alpha = torch::softmax(torch::randn({B, o.T}) * 3, -1);
  auto values = torch::randn({B, o.T, o.d});
  fmt::print("metrics core: B = {} samples ({} heads x {} layers), T = {}, d = {}, G = {} N values, {} threads\n", B,
             o.heads, o.layers, o.T, o.d, G, torch::get_num_threads());

  metrics::SelectionOptions options;
  options.max_chunk_bytes = o.chunk_mb << 20;
  metrics::CoreStats exact;
  const double core = best_of(o.repeats, [&] { exact = {}; metrics::selection_metrics(alpha, values, grid, options, &exact); });
  fmt::print("  exact: {} decisions, {} banded, {} tokens exactly; gram {:.3f} s, top {:.3f} s\n", exact.decisions, exact.banded,
             exact.exact_tokens, exact.gram_s, exact.top_s);
  std::vector<int64_t> strided;
  for (size_t i = 0; i < grid.size(); i += o.naive_stride) strided.push_back(grid[i]);
  const double naive = best_of(1, [&] { per_n_metrics(alpha, values, strided); }) * G / strided.size();
  auto S = torch::randn({B, G, o.d}, torch::kFloat64), Yt = torch::randn({B, o.d, o.T}, torch::kFloat64);
  const double floor_alloc = best_of(o.repeats, [&] { torch::bmm(S, Yt); });
  // The floor proper: the same products into a preallocated output, in the core's chunks.
  const int64_t chunk = std::max<int64_t>(1, options.max_chunk_bytes / (G * o.T * 8 * 3 + o.T * o.d * 24));
  auto out = torch::empty({chunk, G, o.T}, torch::kFloat64);
  auto chunked = [&](const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& c) {
    for (int64_t b0 = 0; b0 < B; b0 += chunk) {
      const int64_t len = std::min(chunk, B - b0);
      auto dst = c.narrow(0, 0, len);
      torch::bmm_out(dst, a.narrow(0, b0, len), b.narrow(0, b0, len));
    }
  };
  const double floor64 = best_of(o.repeats, [&] { chunked(S, Yt, out); });
  auto S32 = S.to(torch::kFloat32), Yt32 = Yt.to(torch::kFloat32);
  auto out32 = out.to(torch::kFloat32);
  const double floor32 = best_of(o.repeats, [&] { chunked(S32, Yt32, out32); });
  const double gflop = 2.0 * B * G * o.T * o.d / 1e9;

  fmt::print("  geoattn core (float64)                  {:8.3f} s  {:8.1f} samples/s  {:.2f}x the floor\n", core,
             B / core, core / floor64);
  fmt::print("  (a) per-N baseline (float64)            {:8.3f} s  {:8.1f} samples/s  (every {}th N timed, scaled)\n",
             naive, B / naive, o.naive_stride);
  fmt::print("  (b) floor: the Gram product [{},{},{}]x[{},{},{}] float64, in chunks of {} into preallocated output\n",
             B, G, o.d, B, o.d, o.T, chunk);
  fmt::print("                                          {:8.3f} s  {:8.1f} GFLOP/s\n", floor64, gflop / floor64);
  fmt::print("      the same in float32                 {:8.3f} s  {:8.1f} GFLOP/s\n", floor32, gflop / floor32);
  fmt::print("      one bmm allocating its whole result {:8.3f} s  {:8.1f} GFLOP/s (float64)\n", floor_alloc,
             gflop / floor_alloc);
  fmt::print("  speed-up over per-N: {:.1f}x\n", naive / core);
}

}  // namespace

void add_bench(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchOptions>();
  auto* bench = app.add_subcommand("bench", "Benchmarks (figures for the README)");
  auto* cmd = bench->add_subcommand("metrics", "Metric core vs a per-N implementation vs one batched Gram product");
  bench->require_subcommand(1);
  cmd->add_option("--T", o->T, "tokens per sample")->capture_default_str();
  cmd->add_option("--d", o->d, "head_dim")->capture_default_str();
  cmd->add_option("--heads", o->heads)->capture_default_str();
  cmd->add_option("--layers", o->layers)->capture_default_str();
  cmd->add_option("--n", o->n, "N grid")->capture_default_str();
  cmd->add_option("--naive-stride", o->naive_stride, "time every k-th N of the per-N baseline")->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "best of R runs")->capture_default_str();
  cmd->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd->add_option("--chunk-mb", o->chunk_mb, "working memory of one chunk of samples (MiB)")->capture_default_str();
  cmd->callback([o, &action] { action = [o] { run_bench(*o); }; });
}

}  // namespace geoattn::cli
