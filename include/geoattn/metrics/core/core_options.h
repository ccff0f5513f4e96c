#pragma once
// What a caller chooses of the metric core (selection.h, window_metrics.h) and what it reports
// of its work. Pure C++.
#include <cstdint>

#include "geoattn/metrics/core/exact.h"

namespace geoattn::metrics {

// The tensor path's working memory per chunk of samples, MiB, unless the run says otherwise
// (--metrics-memory).
inline constexpr int64_t kDefaultChunkMiB = 256;

struct SelectionOptions {
  Distance distance = Distance::Euclidean;
  // Working memory of one chunk of samples on the tensor path ([chunk, G, n] tensors) stays
  // near this.
  int64_t max_chunk_bytes = kDefaultChunkMiB << 20;
  // Run the tensor path (what CUDA runs) on CPU too. For tests and comparisons.
  bool tensor_path = false;
};

// What the core did (diagnostics: tests, the bench and the JSON's timing report it).
struct CoreStats {
  int64_t decisions = 0;     // (sample, ordering, N) triples evaluated
  int64_t banded = 0;        // of those, where the one band of the fast pass left a count open
  int64_t exact_tokens = 0;  // tokens whose comparison needed exact arithmetic
  double gram_s = 0;         // wall time: Gram matrices (CPU) or nothing (tensor path)
  double top_s = 0;          // the top-N ordering (counts, s(N) diagnostics, scalars)
  double controls_s = 0;     // the random orderings of the control
  double bounds_s = 0;       // SPEC §5's per-sample bounds from the Gram matrices (CPU, where asked)
  void merge(const CoreStats& o) {
    decisions += o.decisions, banded += o.banded, exact_tokens += o.exact_tokens;
    gram_s += o.gram_s, top_s += o.top_s, controls_s += o.controls_s, bounds_s += o.bounds_s;
  }
};

}  // namespace geoattn::metrics
