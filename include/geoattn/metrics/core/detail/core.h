#pragma once
// Internal to the metrics layer (detail/: not an interface; its users are src/metrics/core/ and
// the tensor path of src/metrics_torch/, the layer above, which shares its inputs and counts).
// The metric core on CPU, in plain C++ (no LibTorch): the fused loops
// over one Gram matrix per value block (core_cpu.cpp: the scheduling over the pool;
// core_ordering.cpp: one ordering; core_kernels.cpp: the loops), the orderings (top-N and the
// control's permutations), the curves from the counts and SPEC §4's value statistics. The tensor
// path that CUDA runs (src/metrics_torch/core_tensor.h, which includes this header) gives the
// same counts, exactly.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "geoattn/metrics/core/detail/core_ordering.h"
#include "geoattn/metrics/core/core_options.h"
#include "geoattn/metrics/core/window_metrics.h"
#include "geoattn/io/float_view.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::metrics::detail {

// S samples with n tokens each (one query position) whose values are rows first..first+n-1 of a
// block of V (SPEC §1: a windowed layer's visible keys): sample i reads block[i] (a KV head)
// with its own attention row.
struct CoreGroup {
  int64_t n = 0, S = 0, O = 0;  // tokens, samples, orderings per sample
  int64_t first = 0;             // the block row of the samples' token 0
  std::vector<double> alpha;     // [S, n]
  std::vector<int64_t> orders;   // [S, O, n]: ordering 0 is top-N, the rest the control
  std::vector<int64_t> block;    // [S]
  std::vector<int64_t> grid;     // N values, all <= n
  int64_t G() const { return static_cast<int64_t>(grid.size()); }
};

// Whether O(n d) work at each of G grid values costs less than O(n) at each step up to them
// (n^2 over a sample of n tokens): G d <= n. There the orderings keep c from s(N) (OrderingPlan::prefix)
// and the envelopes take rho from unit vectors (analysis::BoundsView::units), not from the Gram
// matrix.
inline bool per_grid_value_cheaper(int64_t G, int64_t d, int64_t n) { return G * d <= n; }

// Per group: the counts of every ordering, the s(N) diagnostics of ordering 0 (kS_norm ..
// kCos_s_vL, in CurveMetric order) and the sample scalars (ScalarMetric order).
struct CoreOut {
  int64_t S = 0, O = 0, G = 0;
  std::vector<double> k_in, k_out;  // [S, O, G]
  std::vector<double> diag;         // [S, kDiagnostics, G]
  std::vector<double> scalars;      // [S, kScalarMetrics]
  static CoreOut zeros(int64_t S, int64_t O, int64_t G);
};

// SPEC §4's value statistics (Assumption 2), what the core hands back when asked (decay_k > 0):
// ||v_i|| and the sums of cos(v_i, v_{i+lag}) per value block.
struct ValueGeometry {
  std::vector<int64_t> first;      // [K] (in; empty: all 0): block k's pairs are first[k] < i < j
  std::vector<double> norms;       // [K, T]
  std::vector<double> decay_sums;  // [K, decay_k] (0 for lags without pairs)
};

// A block's Gram matrix V V^T [T, T] (row stride ld; null where nothing asked for it), norms
// ||v_k|| [T] and values in float64 [T, d] as the core made them, handed to a BlockHook once the
// block's orderings are done: the hook may overwrite the matrix. symmetric: equal to its
// transpose bit for bit (core_gram.h).
struct BlockGram {
  double* gram;
  int64_t ld;
  std::span<const double> norms;
  int64_t d;
  bool symmetric;
  const double* values;
};
// `run` is called once per block, in the worker that holds it (blocks in any order, a worker's
// one at a time); its time is CoreStats::bounds_s. `needs_gram(block, d, norms)` says whether it
// reads the block's Gram matrix (asked once its norms [T] are known, head_dim d, before the
// matrix is made); without it, every block's is made.
struct BlockHook {
  std::function<void(int64_t block, const BlockGram&)> run;
  std::function<bool(int64_t block, int64_t d, std::span<const double> norms)> needs_gram;
  explicit operator bool() const { return static_cast<bool>(run); }
};

// V [K, T, d] (any floating type; each block converted to float64 by the worker that takes it).
// With `geometry`, SPEC §4's value statistics (lags 1..decay_k) of every block too; with `hook`,
// what it does with each block's Gram matrix. Runs on `pool`.
std::vector<CoreOut> core_cpu(WorkerPool& pool, const io::FloatView& V, const std::vector<CoreGroup>& groups,
                              Distance distance, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats,
                              const BlockHook& hook = {});

// The per-sample curves [kCurveMetrics, G] of samples [s0, s1) of a group: P, R, F of ordering
// 0, the mean of the other orderings as the control (left as they are without them), the
// diagnostics. Curve m of sample s at curves + (s - s0) * sample_stride + m * metric_stride.
void curves_from_counts(const CoreOut& out, const std::vector<int64_t>& grid, int64_t s0, int64_t s1, double* curves,
                        int64_t sample_stride, int64_t metric_stride);

// Samples [s0, s1) of key group `k` (sample s: layer k.layers[s / H], head s % H) from the
// core's counts `r` into their places of `out`, curves and scalars: both paths' last step.
void place_samples(const KeyGroup& k, const CoreOut& r, int64_t s0, int64_t s1, WindowMetrics& out);

// SPEC §2: the top-N order of one row, a stable descending argsort of alpha (ties: the lower
// position first) into `order` [n].
void top_n_order(std::span<const double> alpha, std::span<int64_t> order);
// SPEC §2b: permutation (r, b) of 0..n-1 for r < R, b < B at out + r * r_stride + b * b_stride,
// from a portable generator keyed by (seed, key, r * B + b) (selection.h: random_orders).
void random_orders(WorkerPool& pool, uint64_t seed, uint64_t key, int64_t R, int64_t B, int64_t n, int64_t* out,
                   int64_t r_stride, int64_t b_stride);

// SPEC §4 (value_geometry.cpp): the sums over 0 < i, i + lag < n of cos(v_i, v_{i+lag}) for
// lag = 1..decay_k (0 with a zero vector; 0 where no pair has the lag) of n tokens, from their
// norms [n] and dots(lag, out): out[i - 1] = <v_i, v_{i+lag}> for i = 1..n-lag-1, in one
// written order (i ascending).
using LagDots = std::function<void(int64_t lag, std::span<double> out)>;
void decay_sums(const LagDots& dots, std::span<const double> norms, int64_t decay_k, std::span<double> out);

}  // namespace geoattn::metrics::detail
