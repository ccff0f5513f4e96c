// The metric core on CPU: one Gram matrix V V^T per value block (a KV head), shared by every
// head that reads the block, every query and every ordering; each ordering is one pass of
// fused loops over it (core_ordering.cpp; DESIGN.md "The metric core in tensor operations",
// steps 2-4). This file schedules them over the worker pool.
//
// Workers take whole blocks: a worker computes its block's Gram matrix (single-threaded BLAS)
// into a buffer of its own and runs every ordering of every sample of the block while the
// matrix is in its cache; from DRAM each ordering would cost several times more.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "geoattn/metrics/core/detail/core.h"
#include "core_gram.h"
#include "core_kernels.h"
#include "geoattn/metrics/core/metric_names.h"
#include "geoattn/util/blas_threads.h"
#include "geoattn/util/error.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::metrics::detail {

namespace {

// A worker's buffers, kept by the pool from one call to the next (WorkerPool::local): a fresh
// T x T Gram buffer per window costs about as much in page faults as the product itself.
struct BlockBuffers {
  // [T, T] with row stride gram_stride(T) (where a block needs it), the values in float64 [T, d]
  // (where V is not), the same transposed [d, T] with that row stride (where an ordering makes c
  // from s(N)), [T], [T]
  std::vector<double> gram, V, Vt, sq, norms;
  bool symmetric = false;  // gram, as block_gram made it
  OrderingScratch ordering;

  // Sized for blocks of T tokens of head_dim d.
  void fit(int64_t T, int64_t d, bool convert, bool transpose) {
    if (convert) V.resize(static_cast<size_t>(T * d));
    if (transpose) Vt.resize(static_cast<size_t>(d * gram_stride(T)));
    sq.resize(static_cast<size_t>(T));
    norms.resize(static_cast<size_t>(T));
  }
  // The Gram buffer for blocks of T tokens; a larger one replaces the old one (never both held).
  void fit_gram(int64_t T) {
    const auto TT = static_cast<size_t>(T * gram_stride(T));
    if (gram.size() < TT) {
      gram = std::vector<double>();
      gram.resize(TT);
    }
  }
};

// V^T [d, T] of V [T, d] in rows `ld` apart (gram_stride: not a power of two, whose rows would
// share cache sets), eight tokens (a cache line of each row) at a time.
void transpose_into(const double* V, int64_t T, int64_t d, double* Vt, int64_t ld) {
  for (int64_t k0 = 0; k0 < T; k0 += 8) {
    const int64_t k1 = std::min(T, k0 + 8);
    for (int64_t m = 0; m < d; ++m)
      for (int64_t k = k0; k < k1; ++k) Vt[m * ld + k] = V[k * d + m];
  }
}

// A (sample, ordering) of a group: the unit of work on a block.
struct Task {
  size_t group;
  int64_t sample, ordering;
};

// [offset, offset + length) of a vector.
std::span<double> span_of(std::vector<double>& v, int64_t offset, int64_t length) {
  return {v.data() + offset, static_cast<size_t>(length)};
}
std::span<const double> span_of(const std::vector<double>& v, int64_t offset, int64_t length) {
  return {v.data() + offset, static_cast<size_t>(length)};
}

class Runner {
 public:
  Runner(const io::FloatView& V, const std::vector<CoreGroup>& groups, Distance distance, int64_t decay_k,
         ValueGeometry* geometry, const BlockHook& hook, std::vector<CoreOut>& outs)
      : V_(V), groups_(groups), distance_(distance), decay_k_(decay_k), geometry_(geometry), hook_(hook), outs_(outs),
        by_block_(static_cast<size_t>(V.size(0))) {
    for (const auto& grp : groups)
      plans_.push_back(OrderingPlan::of(grp.grid, grp.n, d(), distance));
    for (size_t g = 0; g < groups.size(); ++g)
      for (int64_t i = 0; i < groups[g].S; ++i)
        for (int64_t o = 0; o < groups[g].O; ++o) by_block_[groups[g].block[i]].push_back({g, i, o});
  }

  int64_t tasks_of(int64_t b) const { return static_cast<int64_t>(by_block_[b].size()); }
  int64_t T() const { return V_.size(1); }
  int64_t d() const { return V_.size(2); }

  // Block b's values in float64, its norms, its Gram matrix (where an ordering of the block or
  // the hook reads it) and its values transposed into `buf`; the SPEC §4 statistics. In a
  // worker: BLAS only, no threaded LibTorch op.
  Block prepare(int64_t b, BlockBuffers& buf, CoreStats& st) const {
    const auto t0 = Clock::now();
    const int64_t T = this->T(), d = this->d(), ld = gram_stride(T);
    const bool transpose = any_plan(b, [](const OrderingPlan& p) { return p.any_remade(); });
    const bool convert = V_.dtype != io::Dtype::F64;
    buf.fit(T, d, convert, transpose);
    // The block's values in float64 (exact from float32, bf16, fp16), here rather than for all
    // blocks at once before the workers start.
    if (convert) V_.to_double(b * T * d, {buf.V.data(), static_cast<size_t>(T * d)});
    const double* vb = convert ? buf.V.data() : static_cast<const double*>(V_.data) + b * T * d;
    for (int64_t k = 0; k < T; ++k) {
      buf.sq[k] = dot({vb + k * d, static_cast<size_t>(d)}, {vb + k * d, static_cast<size_t>(d)});
      buf.norms[k] = std::sqrt(buf.sq[k]);
    }
    const bool with_gram = any_plan(b, [](const OrderingPlan& p) { return !p.prefix; }) ||
                           (hook_ && (!hook_.needs_gram || hook_.needs_gram(b, d, buf.norms)));
    if (with_gram) buf.fit_gram(T);
    buf.symmetric = with_gram && block_gram(vb, T, d, buf.gram.data(), ld);  // the only O(T^2 d) step
    if (transpose) transpose_into(vb, T, d, buf.Vt.data(), ld);
    if (geometry_) {
      std::copy(buf.norms.begin(), buf.norms.end(), geometry_->norms.begin() + b * T);
      // SPEC §4 from the Gram matrix's diagonals while it is in cache, else from the values.
      if (decay_k_ > 0) {
        // The pairs first < i < j (SPEC §1: the last query's keys on a windowed layer).
        const int64_t f = geometry_->first.empty() ? 0 : geometry_->first[b];
        const double* gram = buf.gram.data() + f * ld + f;
        const double* vf = vb + f * d;
        const LagDots dots = with_gram ? LagDots([&](int64_t lag, std::span<double> out) {
          for (size_t i = 0; i < out.size(); ++i) out[i] = gram[(i + 1) * ld + i + 1 + lag];
        })
                                       : LagDots([&](int64_t lag, std::span<double> out) {
          for (size_t i = 0; i < out.size(); ++i)
            out[i] = dot({vf + (i + 1) * d, static_cast<size_t>(d)}, {vf + (i + 1 + lag) * d, static_cast<size_t>(d)});
        });
        decay_sums(dots, std::span<const double>(buf.norms).subspan(static_cast<size_t>(f), static_cast<size_t>(T - f)),
                   decay_k_, span_of(geometry_->decay_sums, b * decay_k_, decay_k_));
      }
    }
    st.gram_s += seconds_since(t0);
    return {{with_gram ? buf.gram.data() : nullptr, ld}, {vb, d}, {transpose ? buf.Vt.data() : nullptr, ld}, buf.sq,
            buf.norms, d};
  }

  // The hook's turn with block b (as prepare made it), once its orderings are done.
  void finish(int64_t b, const Block& block, BlockBuffers& buf, CoreStats& st) const {
    if (!hook_) return;
    const auto t0 = Clock::now();
    hook_.run(b, {block.gram.data ? buf.gram.data() : nullptr, gram_stride(T()), buf.norms, d(), buf.symmetric, block.V.data});
    st.bounds_s += seconds_since(t0);
  }

  // Whether the plan of some ordering of block b is `pred`'s: one that makes c from s(N) needs V
  // transposed, one that adds Gram rows (not prefix) the Gram matrix.
  template <typename Pred>
  bool any_plan(int64_t b, Pred pred) const {
    for (const Task& tk : by_block_[b])
      if (pred(plans_[tk.group])) return true;
    return false;
  }

  void run(int64_t b, int64_t task, const Block& block, OrderingScratch& sc, CoreStats& st) const {
    const auto t0 = Clock::now();
    const Task& tk = by_block_[b][task];
    const CoreGroup& grp = groups_[tk.group];
    CoreOut& out = outs_[tk.group];
    const int64_t n = grp.n, O = grp.O, G = grp.G();
    const Block from_first = block.from(grp.first);  // SPEC §1: the samples' tokens start at key `first`
    const Sample smp{from_first, span_of(grp.alpha, tk.sample * n, n), plans_[tk.group]};
    const int64_t slot = tk.sample * O + tk.ordering;
    const bool top = tk.ordering == 0;
    const OrderingOutputs o{span_of(out.k_in, slot * G, G), span_of(out.k_out, slot * G, G),
                            top ? span_of(out.diag, tk.sample * kDiagnostics * G, kDiagnostics * G) : std::span<double>(),
                            top ? span_of(out.scalars, tk.sample * kScalarMetrics, kScalarMetrics) : std::span<double>()};
    const std::span<const int64_t> order{grp.orders.data() + slot * n, static_cast<size_t>(n)};
    run_ordering(smp, order, grp.grid, distance_, o, sc, st);
    (top ? st.top_s : st.controls_s) += seconds_since(t0);
  }

 private:
  const io::FloatView& V_;
  const std::vector<CoreGroup>& groups_;
  Distance distance_;
  int64_t decay_k_;
  ValueGeometry* geometry_;
  const BlockHook& hook_;
  std::vector<CoreOut>& outs_;
  std::vector<std::vector<Task>> by_block_;
  std::vector<OrderingPlan> plans_;  // per group
};

}  // namespace

CoreOut CoreOut::zeros(int64_t S, int64_t O, int64_t G) {
  const auto n = [](int64_t x) { return static_cast<size_t>(x); };
  return {S, O, G, std::vector<double>(n(S * O * G)), std::vector<double>(n(S * O * G)),
          std::vector<double>(n(S * kDiagnostics * G)), std::vector<double>(n(S * kScalarMetrics))};
}

std::vector<CoreOut> core_cpu(WorkerPool& pool, const io::FloatView& V, const std::vector<CoreGroup>& groups,
                              Distance distance, int64_t decay_k, ValueGeometry* geometry, CoreStats* stats,
                              const BlockHook& hook) {
  if (V.shape.size() != 3) fail("internal: the metric core's values are [K, T, d]");
  const int64_t K = V.size(0), T = V.size(1);
  std::vector<CoreOut> outs;
  for (const auto& grp : groups) outs.push_back(CoreOut::zeros(grp.S, grp.O, grp.G()));
  if (geometry) {
    if (!geometry->first.empty() && std::ssize(geometry->first) != K) fail("internal: {} first keys for {} blocks", geometry->first.size(), K);
    geometry->norms.assign(static_cast<size_t>(K * T), 0.0);
    geometry->decay_sums.assign(static_cast<size_t>(K * std::max<int64_t>(decay_k, 0)), 0.0);
  }
  load_blas();
  const Runner runner(V, groups, distance, decay_k, geometry, hook, outs);
  const auto start = Clock::now();
  CoreStats total;
  if (K >= pool.size()) {
    // Workers take whole blocks, each with single-threaded BLAS, the next block to the first
    // worker free (equal ranges left one worker alone for the last 7% of the bench's core).
    std::vector<CoreStats> per_block(static_cast<size_t>(K));
    SingleThreadedBlas single;
    pool.for_each_item(K, [&](int64_t b, int worker) {
      auto& buf = pool.local<BlockBuffers>(worker);
      const Block block = runner.prepare(b, buf, per_block[b]);
      for (int64_t t = 0; t < runner.tasks_of(b); ++t) runner.run(b, t, block, buf.ordering, per_block[b]);
      runner.finish(b, block, buf, per_block[b]);
    });
    for (const auto& st : per_block) total.merge(st);
  } else {
    // Fewer blocks than workers: the blocks one by one in the caller (worker 0's buffers), the
    // tasks of each over the workers.
    auto& buf = pool.local<BlockBuffers>(0);
    for (int64_t b = 0; b < K; ++b) {
      const Block block = runner.prepare(b, buf, total);
      std::vector<CoreStats> per_task(static_cast<size_t>(runner.tasks_of(b)));
      pool.parallel_for(runner.tasks_of(b), [&](int64_t t0, int64_t t1, int worker) {
        auto& sc = pool.local<OrderingScratch>(worker);
        for (int64_t t = t0; t < t1; ++t) runner.run(b, t, block, sc, per_task[t]);
      });
      for (const auto& st : per_task) total.merge(st);
      runner.finish(b, block, buf, total);
    }
  }
  // Wall time, split between the stages in proportion to their CPU time.
  const double wall = seconds_since(start), cpu = total.gram_s + total.top_s + total.controls_s + total.bounds_s;
  if (cpu > 0) {
    for (double* s : {&total.gram_s, &total.top_s, &total.controls_s, &total.bounds_s}) *s *= wall / cpu;
  }
  if (stats) stats->merge(total);
  return outs;
}

}  // namespace geoattn::metrics::detail
