#pragma once
// geoattn's own threads: a pool started once and passed to whatever fans out (the metric core,
// the control's permutations, bootstrap, fits, bounds). at::parallel_for runs serially in code
// compiled without -fopenmp, and building with -fopenmp would put a second OpenMP runtime beside
// the one PyTorch's wheels bundle; plain threads work with every LibTorch. Workers must not call
// threaded LibTorch ops (BLAS through SingleThreadedBlas is fine). Pure C++.
//
// The threads, and each worker's scratch (local<T>), live as long as the pool: a T x T Gram
// buffer per worker is allocated and faulted in once per process, not once per window.
#include <cstdint>
#include <functional>
#include <memory>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <vector>

namespace geoattn {

// The machine's hardware threads (at least 1).
int hardware_threads();

// The most workers anyone may ask for (the CLI's --threads, Python's threads=): more is a
// mistake on any machine geoattn runs on; the machine may start fewer (WorkerPool says so).
inline constexpr int kMaxWorkerThreads = 4096;

class WorkerPool {
 public:
  // `threads` workers (0: one per hardware thread): the caller of parallel_for is worker 0, the
  // other threads - 1 are started here and wait between loops.
  explicit WorkerPool(int threads = 0);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(locals_.size()); }

  using Body = std::function<void(int64_t begin, int64_t end, int worker)>;
  // f(begin, end, worker) over contiguous ranges that cover [0, n): min(size, n) workers, worker
  // w taking [w c, (w + 1) c), c = ceil(n / workers). The first exception thrown by a worker is
  // rethrown once every worker is done. One loop at a time (callers on other threads wait); a
  // loop started from inside a loop of the same pool is an error.
  void parallel_for(int64_t n, const Body& f);

  using ItemBody = std::function<void(int64_t i, int worker)>;
  // f(i, worker) for every i in [0, n), each worker taking the next index not yet taken: for
  // items whose costs differ (a fit that iterates longer), where equal ranges would leave one
  // worker the slow half. Errors as parallel_for.
  void for_each_item(int64_t n, const ItemBody& f);

  // Worker w's object of type T, default-constructed on first use and kept until the pool goes:
  // for the worker itself inside a loop (or for the caller, as worker 0, outside one).
  template <typename T>
  T& local(int worker) {
    auto& slot = locals_.at(static_cast<size_t>(worker))[std::type_index(typeid(T))];
    if (!slot) slot = std::shared_ptr<void>(new T(), [](void* p) { delete static_cast<T*>(p); });
    return *static_cast<T*>(slot.get());
  }

 private:
  struct Shared;
  void work(int worker);  // a started thread's life
  void stop_and_join();   // ends every started thread (the destructor; a constructor that failed)

  std::vector<std::unordered_map<std::type_index, std::shared_ptr<void>>> locals_;  // [size]
  std::unique_ptr<Shared> shared_;
};

}  // namespace geoattn
