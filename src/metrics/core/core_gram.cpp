#include "core_gram.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

#include <Eigen/Core>

namespace geoattn::metrics::detail {

namespace {

// CBLAS's dsyrk and the constants of its enums, found at run time: no link-time dependency on
// a BLAS. In the process already where LibTorch brought one (Debian's LibTorch calls
// libblas.so.3; PyTorch's wheels hide MKL's), else OpenBLAS where the machine has it; else none.
using Dsyrk = void (*)(int order, int uplo, int trans, int n, int k, double alpha, const double* A, int lda, double beta,
                       double* C, int ldc);
constexpr int kRowMajor = 101, kUpper = 121, kNoTrans = 111;

Dsyrk dsyrk() {
  static const auto f = [] {
    if (void* f = dlsym(RTLD_DEFAULT, "cblas_dsyrk")) return reinterpret_cast<Dsyrk>(f);
    // geoattn's workers make one BLAS call each (core_cpu.cpp): OpenBLAS's own threads would only
    // spin beside them (sched_yield), so it starts without them unless the user asked otherwise.
    // RTLD_GLOBAL: util/blas_threads.cpp finds its thread controls the same way.
    setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/0);
    if (void* lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL)) return reinterpret_cast<Dsyrk>(dlsym(lib, "cblas_dsyrk"));
    return Dsyrk(nullptr);
  }();
  return f;
}

// The lower triangle from the upper: whole 8 x 8 blocks by 2 x 2 transposes (each a pair of
// loads and stores the compiler vectorises), the blocks on the diagonal element by element.
void mirror_upper(double* g, int64_t T, int64_t ld) {
  constexpr int64_t kB = 8;
  for (int64_t j0 = 0; j0 + kB <= T; j0 += kB)
    for (int64_t i0 = j0 + kB; i0 + kB <= T; i0 += kB) {
      const double* up = g + j0 * ld + i0;  // rows j0.., columns i0..
      double* low = g + i0 * ld + j0;       // rows i0.., columns j0..
      for (int64_t r = 0; r < kB; r += 2)
        for (int64_t c = 0; c < kB; c += 2) {
          const double a0 = up[r * ld + c], a1 = up[r * ld + c + 1];
          const double b0 = up[(r + 1) * ld + c], b1 = up[(r + 1) * ld + c + 1];
          low[c * ld + r] = a0, low[c * ld + r + 1] = b0;
          low[(c + 1) * ld + r] = a1, low[(c + 1) * ld + r + 1] = b1;
        }
    }
  // The rest: the diagonal blocks, and below the last whole block row when kB does not divide T.
  const int64_t whole = T / kB * kB;
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = i < whole ? i / kB * kB : 0; j < i; ++j) g[i * ld + j] = g[j * ld + i];
}

}  // namespace

void load_blas() { dsyrk(); }

int64_t gram_stride(int64_t T) {
  int64_t ld = (T + 7) / 8 * 8 + 8;
  if (ld % 512 == 0) ld += 8;
  return ld;
}

bool block_gram(const double* V, int64_t T, int64_t d, double* gram, int64_t ld) {
  if (const Dsyrk syrk = dsyrk(); syrk && ld <= (int64_t{1} << 30) && d <= (int64_t{1} << 30)) {
    syrk(kRowMajor, kUpper, kNoTrans, static_cast<int>(T), static_cast<int>(d), 1.0, V, static_cast<int>(d), 0.0, gram,
         static_cast<int>(ld));
    mirror_upper(gram, T, ld);
    return true;
  }
  // No CBLAS: Eigen's product (the full matrix; single-threaded, as the workers want it).
  using Rows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const Rows> v(V, T, d);
  Eigen::Map<Rows, 0, Eigen::OuterStride<>> out(gram, T, T, Eigen::OuterStride<>(ld));
  out.noalias() = v * v.transpose();
  return false;
}

}  // namespace geoattn::metrics::detail
