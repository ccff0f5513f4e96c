#pragma once
// A parallel loop of geoattn's own. at::parallel_for runs serially in code compiled without
// -fopenmp (its parallel path is compiled only when _OPENMP is defined), and building with
// -fopenmp would put a second OpenMP runtime beside the one PyTorch's wheels bundle; plain
// threads work with every LibTorch. Workers must not call threaded LibTorch ops (BLAS through
// SingleThreadedBlas is fine). Pure C++.
#include <cstdint>
#include <functional>

namespace geoattn {

// f(begin, end, worker) over contiguous ranges that cover [0, n), on up to `threads` threads
// (the caller is worker 0). The first exception thrown by a worker is rethrown.
void parallel_for(int64_t n, int threads, const std::function<void(int64_t, int64_t, int)>& f);

// The machine's hardware threads (at least 1).
int hardware_threads();

// The threads geoattn's own loops use (set_worker_threads: --threads; 0 or unset: every core).
void set_worker_threads(int threads);
int worker_threads();

}  // namespace geoattn
