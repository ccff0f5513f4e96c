#pragma once
// What geoattn bench's subcommands share: a synthetic window shaped like a real one, and the
// best of R timings.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>

#include "cli.h"

namespace geoattn::cli {

// geoattn bench envelopes (cmd_bench_envelopes.cpp), a subcommand of geoattn bench.
void add_bench_envelopes(CLI::App& cmd, Action& action);

// One window of every head's last-query row and the values, shaped like a real capture's: rows
// with a sink and a long tail (logits 4 N(0,1), the sink +8: alpha spans ~1 down to ~1e-15),
// values N(0,1); the same numbers for a seed whatever reads them.
struct SyntheticWindow {
  torch::Tensor alpha;   // [L, H, 1, T] float32
  torch::Tensor values;  // [L, KV, T, d] float32
};
SyntheticWindow synthetic_window(int64_t layers, int64_t heads, int64_t kv_heads, int64_t T, int64_t d);

// The least wall time of `repeats` runs of f, in seconds.
template <typename F>
double best_of(int repeats, F&& f) {
  using Clock = std::chrono::steady_clock;
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    const auto t = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t).count());
  }
  return best;
}

}  // namespace geoattn::cli
