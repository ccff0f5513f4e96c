#include "core_gram.h"

#include <dlfcn.h>
#include <torch/torch.h>

#include <algorithm>

namespace geoattn::metrics::detail {

namespace {

// CBLAS's dsyrk and the constants of its enums, found at run time: no link-time dependency on
// a BLAS (Debian's LibTorch calls libblas.so.3, OpenBLAS here; PyTorch's wheels hide MKL's).
using Dsyrk = void (*)(int order, int uplo, int trans, int n, int k, double alpha, const double* A, int lda, double beta,
                       double* C, int ldc);
constexpr int kRowMajor = 101, kUpper = 121, kNoTrans = 111;

Dsyrk dsyrk() {
  static const auto f = reinterpret_cast<Dsyrk>(dlsym(RTLD_DEFAULT, "cblas_dsyrk"));
  return f;
}

// The lower triangle from the upper, 8 x 8 blocks at a time: a block reads 8 rows and writes 8
// rows, where a column walk would touch a new cache line per element (all rows T doubles apart,
// the same L1 set when T is a multiple of 512).
void mirror_upper(double* g, int64_t T) {
  constexpr int64_t kB = 8;
  for (int64_t i0 = 0; i0 < T; i0 += kB)
    for (int64_t j0 = 0; j0 <= i0; j0 += kB) {
      const int64_t i1 = std::min(T, i0 + kB), j1 = std::min(T, j0 + kB);
      double block[kB][kB];
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i) block[i - i0][j - j0] = g[j * T + i];  // upper rows j, read along i
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < std::min(j1, i); ++j) g[i * T + j] = block[i - i0][j - j0];
    }
}

}  // namespace

void block_gram(const double* V, int64_t T, int64_t d, double* gram) {
  if (const Dsyrk syrk = dsyrk(); syrk && T <= (int64_t{1} << 30) && d <= (int64_t{1} << 30)) {
    syrk(kRowMajor, kUpper, kNoTrans, static_cast<int>(T), static_cast<int>(d), 1.0, V, static_cast<int>(d), 0.0, gram,
         static_cast<int>(T));
    mirror_upper(gram, T);
    return;
  }
  auto v = torch::from_blob(const_cast<double*>(V), {T, d}, torch::kFloat64);
  auto out = torch::from_blob(gram, {T, T}, torch::kFloat64);
  torch::mm_out(out, v, v.t());
}

}  // namespace geoattn::metrics::detail
