#pragma once
// Internal to the metrics layer (detail/, as core.h beside it).
// One ordering of one sample on CPU, internal to src/metrics (the algorithm of core_cpu.cpp's
// header comment): the ball counts at every grid N, and for ordering 0 (top-N) the s(N)
// diagnostics and the sample's scalars, over one block's prepared arrays.
#include <cstdint>
#include <span>
#include <vector>

#include "geoattn/metrics/core/exact.h"
#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/metrics/core/core_options.h"

namespace geoattn::metrics::detail {

// SPEC §2's diagnostics of s(N), kS_norm .. kCos_s_vL in CurveMetric order.
constexpr int kDiagnostics = kCos_s_vL - kS_norm + 1;

// A row-major matrix of doubles: row i starts at data + i * stride.
struct RowMajor {
  const double* data = nullptr;
  int64_t stride = 0;
  std::span<const double> row(int64_t i, int64_t length) const {
    return {data + i * stride, static_cast<size_t>(length)};
  }
};

// One value block (a KV head) as core_cpu.cpp prepares it, T tokens of head_dim d.
struct Block {
  RowMajor gram;                  // V V^T [T, T] (when some ordering adds its rows)
  RowMajor V;                     // the values [T, d]
  RowMajor Vt;                    // the same transposed, [d, T]
  std::span<const double> sq;     // [T] ||v_k||^2
  std::span<const double> norms;  // [T] ||v_k||
  int64_t d = 0;
  // The same block from token `first` on (SPEC §1: a windowed layer's visible keys).
  Block from(int64_t first) const {
    if (first == 0) return *this;
    return {{gram.data ? gram.data + first * gram.stride + first : nullptr, gram.stride},
            {V.data + first * V.stride, V.stride},
            {Vt.data ? Vt.data + first : nullptr, Vt.stride},
            sq.subspan(static_cast<size_t>(first)),
            norms.subspan(static_cast<size_t>(first)),
            d};
  }
};

// How run_ordering keeps c_k = <s(N), v_k> over one grid of a sample of n tokens, the same for
// every sample and ordering of a group: from grid value to grid value, either the Gram rows of
// the steps between (O(n) a step, read from a T x T matrix) or c made again from s(N) at the
// value (O(n d): d rows of V^T, which stay in cache).
struct OrderingPlan {
  int64_t last_counted = 0;    // the last grid N with counts to compute (at N = n every count is known)
  bool prefix = false;         // no Gram matrix: c from s(N) at every grid value (core.h's per_grid_value_cheaper)
  bool direct = false;         // the state is E itself (core_kernels.h, TokenState::direct)
  std::vector<uint8_t> remade;  // [G]: c made from s(N) at this grid value, not from its steps' rows
  int64_t last_remade = 0;      // the last grid N where it is (0: none)
  bool any_remade() const { return last_remade > 0; }
  static OrderingPlan of(const std::vector<int64_t>& grid, int64_t n, int64_t d, Distance distance);
};

// One sample: the first n tokens of a block, read with its own attention row.
struct Sample {
  const Block& block;
  std::span<const double> alpha;  // [n]
  const OrderingPlan& plan;       // its group's
  int64_t n() const { return static_cast<int64_t>(alpha.size()); }
};

// Where one ordering's results go.
struct OrderingOutputs {
  std::span<double> k_in, k_out;  // [G]
  std::span<double> diag;         // [kDiagnostics][G], or empty (the control's orderings)
  std::span<double> scalars;      // [kScalarMetrics], or empty
};

// A worker's buffers for run_ordering, reused from one ordering to the next: [n] but s [d].
struct OrderingScratch {
  std::vector<double> c, c_next, E, err, a, g, m, s;
  std::vector<uint8_t> in;  // m as bits (core_kernels.h, TokenState::in)
};

// The counts of `order` (a permutation of 0..n-1; I_N its first N entries) at every N of `grid`.
void run_ordering(const Sample& sample, std::span<const int64_t> order, const std::vector<int64_t>& grid,
                  Distance distance, const OrderingOutputs& out, OrderingScratch& scratch, CoreStats& stats);

}  // namespace geoattn::metrics::detail
