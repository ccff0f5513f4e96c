// geoattn bench envelopes: SPEC §5's per-sample bounds of one synthetic window (every head at the
// last query, the samples of a default run) on the tensor path, what a GPU run computes where the
// forward left alpha and v, on --device; beside them the plain formulas on the CPU's cores, what a
// CPU run computes; each the best of --repeats, and the two paths' envelopes compared. Figures go
// to docs/performance.md with the command.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "bench_inputs.h"
#include "cli_torch.h"
#include "geoattn/metrics_torch/window_bounds_torch.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "geoattn/util/worker_pool.h"
#include "metric_flags.h"

namespace geoattn::cli {

namespace {

struct EnvelopeBenchOptions {
  int64_t T = 1024, d = 128, heads = 32, kv_heads = 0, layers = 4;  // kv_heads 0: as many as heads
  MetricFlags metric;  // --n, --kappa, --metrics-memory
  arch::Device device;
  int repeats = 3;
  int threads = 0;
};

// The largest difference between two runs' mean envelopes, over every head, curve and N.
double largest_difference(const metrics::EnvelopeStats& x, const metrics::EnvelopeStats& y, int64_t L, int64_t H) {
  double worst = 0;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      const auto a = x.mean(l, h), b = y.mean(l, h);
      const auto fa = analysis::curve_fields(a), fb = analysis::curve_fields(b);
      for (size_t c = 0; c < fa.size(); ++c)
        for (size_t g = 0; g < fa[c]->size(); ++g)
          if (!(std::isnan((*fa[c])[g]) && std::isnan((*fb[c])[g])))
            worst = std::max(worst, std::abs((*fa[c])[g] - (*fb[c])[g]));
    }
  return worst;
}

void run_bench_envelopes(const EnvelopeBenchOptions& o) {
  const int64_t KV = o.kv_heads > 0 ? o.kv_heads : o.heads, L = o.layers, H = o.heads, T = o.T;
  if (H % KV != 0) fail("--kv-heads: {} does not divide --heads {}", KV, H);
  WorkerPool pool(o.threads);
  // The synthetic window (float64 logits, float32 rows and values), a T x T matrix of rho per
  // thread of the plain formulas, and the tensor path's chunk: refused before anything is made.
  const double t = static_cast<double>(T);
  check_fits_memory(static_cast<double>(L) * t * (12 * static_cast<double>(H) + 4 * static_cast<double>(KV * o.d)) +
                        8 * t * t * static_cast<double>(pool.size() + 1) + static_cast<double>(o.metric.chunk_bytes()),
                    fmt::format("--T: {} (with --d {} --heads {} --layers {}): its synthetic window and the envelopes' "
                                "working memory",
                                o.T, o.d, o.heads, o.layers));
  MetricFlags flags = o.metric;  // the grid and kappa of a run without controls or bootstrap: the envelopes alone
  flags.controls = 0, flags.bootstrap = 0;
  const pipeline::MetricSpec spec = pipeline::metric_spec(flags, T, {T - 1}, ArgumentStyle::Flag);
  spec.validate(L, H, T);
  const torch::Device device = torch_device(o.device);
  const auto& grid = spec.grid;
  const SyntheticWindow w = synthetic_window(L, H, KV, T, o.d);
  const auto alpha = w.alpha.to(device), values = w.values.to(device);  // where a forward leaves them
  fmt::print("SPEC §5's envelopes of a synthetic window: {} heads ({} KV) x {} layers at the last query, T = {}, "
             "d = {}, --n {} ({} values), kappa {}\n",
             H, KV, L, T, o.d, o.metric.n.text(), grid.size(), o.metric.kappa);

  const auto run = [&](bool tensor_path) {
    metrics::EnvelopeStats envelopes(L, H, std::ssize(grid), o.metric.kappa);
    if (tensor_path)
      metrics::add_window_bounds(pool, alpha, values, {T - 1}, grid, {}, envelopes, nullptr, -1,
                                 {true, o.metric.chunk_bytes()});
    else
      metrics::add_window_bounds(pool, model::float_view(w.alpha), model::float_view(w.values), {T - 1}, grid, {},
                                 envelopes);
    return envelopes;
  };
  // The tensor path's curves come back to the host at the end of each chunk: its time is the device's.
  metrics::EnvelopeStats tensor, plain;  // the last run's of each path, compared below
  const double tensor_s = best_of(o.repeats, [&] { tensor = run(true); });
  const double plain_s = best_of(o.repeats, [&] { plain = run(false); });
  const double samples = static_cast<double>(L * H);
  fmt::print("  the tensor path on {} (--metrics-memory {} MiB), best of {}: {:.4f} s, {:.1f} us a sample\n",
             arch::device_name(o.device), o.metric.metrics_memory_mb, o.repeats, tensor_s, 1e6 * tensor_s / samples);
  fmt::print("  the plain formulas on {} CPU threads, best of {}: {:.4f} s, {:.1f} us a sample\n", pool.size(),
             o.repeats, plain_s, 1e6 * plain_s / samples);
  fmt::print("  the tensor path's envelopes against the plain formulas': largest difference {:.3g}\n",
             largest_difference(tensor, plain, L, H));
}

void bench_envelopes_flags(CLI::App& cmd, EnvelopeBenchOptions& o) {
  cmd.description(
      "SPEC §5's envelopes of one synthetic window on the tensor path (what a GPU run computes) on --device, beside "
      "the plain formulas on the CPU");
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  add_number_option(cmd, "--T", o.T, int64_t{1}, kMost, "tokens per sample");
  add_number_option(cmd, "--d", o.d, int64_t{1}, kMost, "head_dim");
  add_number_option(cmd, "--heads", o.heads, int64_t{1}, kMost, "heads per layer");
  add_number_option(cmd, "--kv-heads", o.kv_heads, int64_t{0}, kMost, "KV heads per layer, dividing --heads (0: as many as --heads)");
  add_number_option(cmd, "--layers", o.layers, int64_t{1}, kMost, "layers");
  using P = metrics::MetricParams;
  add_metric_flags(cmd, o.metric, {P::kN, P::kKappa, P::kMetricsMemory});
  add_device_option(cmd, o.device);
  add_number_option(cmd, "--repeats", o.repeats, 1, 1000, "best of R runs");
  add_threads_option(cmd, o.threads);
}

}  // namespace

void add_bench_envelopes(CLI::App& cmd, Action& action) {
  bind_command(cmd, action, bench_envelopes_flags, run_bench_envelopes);
}

}  // namespace geoattn::cli
