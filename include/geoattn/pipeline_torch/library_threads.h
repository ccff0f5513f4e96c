#pragma once
// The thread policy of a geoattn process, in one place: geoattn's own WorkerPool takes the cores
// (--threads), LibTorch's OpenMP pool and OpenBLAS's pthreads run one thread each. Their idle
// workers spin (OpenMP) and yield (OpenBLAS) between calls and took the cores from each other
// and from geoattn's workers: the stories260K forward ran 2-3x slower with them, stories15M's no
// faster. The CLI holds one for its whole run (main); the Python module one around each call, so
// that the interpreter's own torch settings come back.
#include "geoattn/util/blas_threads.h"

namespace geoattn::pipeline {

class LibraryThreads {
 public:
  LibraryThreads();   // LibTorch and OpenBLAS to one thread each
  ~LibraryThreads();  // back to what they were
  LibraryThreads(const LibraryThreads&) = delete;
  LibraryThreads& operator=(const LibraryThreads&) = delete;

 private:
  int torch_threads_;
  SingleThreadedBlas blas_;
};

}  // namespace geoattn::pipeline
