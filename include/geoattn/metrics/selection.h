#pragma once
// The metric core (SPEC §2-3): top-N selection in value space, for a batch of samples at
// once. Tensors in, tensors out; it never sees the model, so it runs on synthetic data and on
// captures from other tools alike.
//
// Per sample: sort once by alpha (stable, lower position first on ties), prefix sums of
// y = alpha v in that order give every s(N), one Gram-type product <s(N), y_k> gives every
// distance, then each N costs O(n): the radii, the closed-ball counts K_out and K_in, P, R.
// Everything is computed in float64, whatever dtype the forward ran in.
#include <torch/torch.h>

#include <vector>

namespace geoattn::metrics {

struct SampleMetrics {
  torch::Tensor curves;   // [B, kCurveMetrics, G] float64 (metric_names.h)
  torch::Tensor scalars;  // [B, kScalarMetrics] float64
};

// SPEC §2b: Euclidean D_k = ||s - y_k||^2 (the paper), or cosine
// D_k = 1 - <s, y_k> / (||s|| ||y_k|| + 1e-12); the same selection and radii rules.
enum class Distance { Euclidean, Cosine };

struct SelectionOptions {
  Distance distance = Distance::Euclidean;
  // The distance tensors of one chunk of samples ([chunk, G, n] float64) stay under this.
  int64_t max_chunk_bytes = int64_t(256) << 20;
  // Use plain tensor operations for the ball counts even on CPU (the fused CPU loop is the
  // default there; CUDA always uses tensor operations). For tests.
  bool generic_counts = false;
};

// The selection order of top-N: a stable descending argsort of alpha [B, n] -> [B, n].
torch::Tensor top_n_order(const torch::Tensor& alpha);

// alpha [B, n]: one query's attention row over its keys 0..n-1 (n = q + 1);
// values [B, n, d]: the value states those keys (the KV head serving the sample's head);
// grid: the N values, each in 1..n. Selection by top-N alpha.
SampleMetrics selection_metrics(const torch::Tensor& alpha, const torch::Tensor& values,
                                const std::vector<int64_t>& grid, const SelectionOptions& options = {});

// The same with the selection order given: order [B, n] is a permutation of 0..n-1 per
// sample whose first N entries are I_N (the random-selection control uses this).
SampleMetrics metrics_for_order(const torch::Tensor& alpha, const torch::Tensor& values, const torch::Tensor& order,
                                const std::vector<int64_t>& grid, const SelectionOptions& options = {});

// Two distances count as equal (the closed ball of SPEC §2) when they differ by less than
// kTieTolerance * (||s||^2 + ||y_k||^2 + r^2) (Euclidean) or kTieTolerance * (1 + |r|)
// (cosine): the Gram expansion rounds, and exact ties (duplicate vectors, N = 1) must stay ties.
constexpr double kTieTolerance = 1e-11;
// SPEC §2b's cosine distance: 1 - <x, y> / (||x|| ||y|| + kCosineEps).
constexpr double kCosineEps = 1e-12;

}  // namespace geoattn::metrics
