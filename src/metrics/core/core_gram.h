#pragma once
// One value block's Gram matrix V V^T for the CPU metric core (core_cpu.cpp), internal to
// src/metrics.
#include <cstdint>

namespace geoattn::metrics::detail {

// The row stride of a T x T Gram buffer: T rounded up to whole cache lines, plus one line, and
// never a multiple of 4 KiB: rows a power of two apart fall into the same cache sets, and the
// mirroring below (and any column walk) then misses on every row.
int64_t gram_stride(int64_t T);

// gram [T, T] (row stride ld) = V V^T for V [T, d] row-major, float64. Symmetric: BLAS's rank-k
// update (syrk) computes the upper triangle, half the product's flops, and the lower is copied
// from it; where there is no CBLAS syrk (core_gram.cpp), Eigen's full product. Each entry is one
// accumulation over d either way, in the BLAS's order. True where gram is symmetric bit for bit
// (the mirrored triangle); Eigen's full product need not be.
bool block_gram(const double* V, int64_t T, int64_t d, double* gram, int64_t ld);

// Finds (or loads) the BLAS block_gram calls, once: before the workers start (it may set the
// environment of a BLAS it loads).
void load_blas();

}  // namespace geoattn::metrics::detail
