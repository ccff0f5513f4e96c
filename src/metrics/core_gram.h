#pragma once
// One value block's Gram matrix V V^T for the CPU metric core (core_cpu.cpp), internal to
// src/metrics.
#include <cstdint>

namespace geoattn::metrics::detail {

// gram [T, T] = V V^T for V [T, d] row-major, float64. Symmetric: BLAS's rank-k update (syrk)
// computes the upper triangle, half the product's flops, and the lower is copied from it; where
// the process has no CBLAS syrk (LibTorch's own statically linked BLAS), the full product. Each
// entry is the same dot product either way (one accumulation over d per entry).
void block_gram(const double* V, int64_t T, int64_t d, double* gram);

}  // namespace geoattn::metrics::detail
